// The hand-off between producers (request threads calling Journal::Add) and
// one journal thread: the only lock on the add path.
//
// Producers Push() under a short mutex; the journal thread swaps the whole
// pending vector out in one step (TakeAll). Vectors circulate between the
// queue, the journal thread and the completion thread and keep their
// capacity, so a steady stream of adds allocates nothing here.

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_QUEUE_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bookie/journal/journal_format.h"

namespace bk::bookie {

// Called once per accepted add, on a completion thread, with OK once the
// record is durable (synced; written when journalSyncData=false) or the
// journal's sticky error. Captures of up to two pointers are stored inline;
// larger ones allocate.
using JournalCallback = absl::AnyInvocable<void(absl::Status)>;

// Bytes to journal and who keeps them alive. The journal never copies
// `data`; it holds `owner` until the add has completed, then drops it on
// the completion thread.
struct JournalPayload {
  absl::string_view data;
  std::shared_ptr<const void> owner;

  static JournalPayload Of(std::shared_ptr<const std::string> s) {
    absl::string_view d(*s);
    return JournalPayload{d, std::move(s)};
  }
};

struct JournalItem {
  journal_format::RecordHeader header;  // encoded by the producer, CRC incl.
  JournalPayload payload;
  JournalCallback done;
  int64_t enqueue_nanos = 0;  // Env monotonic clock

  uint64_t bytes() const { return header.size() + payload.data.size(); }
};

// One record of a batch add (JournalWriter::AddBatch, Journal::AddBatch).
struct JournalRecord {
  journal_format::RecordType type = journal_format::RecordType::kEntry;
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  JournalPayload payload;
  JournalCallback done;
  // crc32c::Value(payload.data) when the caller already has it: the record
  // CRC is then combined from it instead of read from the payload again.
  bool has_payload_crc = false;
  uint32_t payload_crc = 0;
};

class JournalQueue {
 public:
  // False (and `item` untouched) once closed.
  bool Push(JournalItem&& item);
  // Moves every item of *items into the queue under one lock (one wake-up
  // of the journal thread at most) and clears *items. False, leaving
  // *items untouched, once closed.
  bool PushAll(std::vector<JournalItem>* items);

  // Waits until something is queued, the queue is closed, or `timeout`
  // passed (absl::InfiniteDuration() waits without bound), then swaps the
  // queued items into *out. REQUIRES: out->empty(). Returns true when the
  // queue is closed (items may still have been returned).
  // With `wake_on_nudge` false (the journal thread holds no group, so the
  // sync stage going idle changes nothing for it) a Nudge neither wakes it
  // nor ends its wait: one thread wake-up fewer per synced group.
  bool TakeAll(std::vector<JournalItem>* out, absl::Duration timeout,
               bool wake_on_nudge = true);

  // Later pushes fail; TakeAll returns at once.
  void Close();

  // Makes a waiting TakeAll (or the next one) return at once, with or
  // without items: something the journal thread waits on besides adds has
  // changed (the sync stage went idle).
  void Nudge();

  uint64_t depth() const { return depth_.load(std::memory_order_relaxed); }

 private:
  absl::Mutex mu_;
  absl::CondVar cv_;
  std::vector<JournalItem> pending_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool nudged_ ABSL_GUARDED_BY(mu_) = false;
  // A TakeAll that a nudge should wake is waiting.
  bool nudge_waiter_ ABSL_GUARDED_BY(mu_) = false;

  // Own synchronisation.
  std::atomic<uint64_t> depth_{0};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_QUEUE_H_
