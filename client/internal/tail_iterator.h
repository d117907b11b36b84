// TailIteratorImpl: LedgerReader::Tail (semantics in client/ledger_reader.h).
//
// Three ways to the next entry, tried in this order on every Next():
//   - pushed: the TailEntries streams of the current generation (started
//     with ReadHandle::TailAsync once the reader has caught up with the
//     LAC it knows) put confirmed entries into a map shared with their
//     callbacks;
//   - behind: an entry at or below the LAC that no stream is bringing is
//     read as a range (ReadHandle::Read, with its read-ahead);
//   - caught up without streams: a long poll (ReadHandle::WaitForLac).
// A generation ends when one of its streams ends, when the entry a stream
// owes is confirmed (by another stream's LAC) and has not come within
// speculativeReadTimeout, when the ledger is closed (its metadata confirms
// the last entries; no bookie pushes them), when no stream has said
// anything for a while
// and a ReadLac shows the LAC past the next entry, or when the pushed
// entries waiting exceed readWindowBytes (the reader is behind: ranges
// catch up faster). Its streams are cancelled and whatever their callbacks
// still deliver is dropped (each carries its generation). Streams are
// started again once the reader has caught up, after a back-off that
// doubles (to kMaxStreamBackoff) while generations end without delivering.
//
// Threads: Next() on one thread at a time; the streams' callbacks on gRPC
// threads, touching only State (shared with them, so they may outlive the
// iterator).

#ifndef BK_CLIENT_INTERNAL_TAIL_ITERATOR_H_
#define BK_CLIENT_INTERNAL_TAIL_ITERATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/internal/bookie_client.h"
#include "client/internal/read_handle.h"
#include "client/ledger_reader.h"

namespace bk::client::internal {

class TailIteratorImpl final : public TailIterator {
 public:
  static constexpr absl::Duration kMinStreamBackoff = absl::Milliseconds(100);
  static constexpr absl::Duration kMaxStreamBackoff = absl::Seconds(5);
  // No stream message for this long while waiting: ask the LAC (ReadLac)
  // in case the bookie of the next entry hangs.
  static constexpr absl::Duration kQuiet = absl::Seconds(2);
  // How often a wait for the streams looks at the ledger's state.
  static constexpr absl::Duration kCloseCheck = absl::Milliseconds(100);
  // Most entries one range read of a reader behind takes.
  static constexpr int64_t kRangeEntries = 4096;

  TailIteratorImpl(std::shared_ptr<ReadHandle> handle, int64_t first);
  ~TailIteratorImpl() override;  // cancels the streams

  absl::StatusOr<LedgerEntry> Next(absl::Duration timeout) override;

  // Stream generations started so far, and entries the streams delivered
  // (tests; from the Next() thread).
  uint64_t generations() const { return generations_; }
  int64_t entries_pushed() const { return entries_pushed_; }

 private:
  struct State {
    absl::Mutex mu;
    uint64_t generation ABSL_GUARDED_BY(mu) = 0;
    bool ended ABSL_GUARDED_BY(mu) = false;      // a stream of it ended
    bool overflow ABSL_GUARDED_BY(mu) = false;   // pushed past the cap
    bool delivered ABSL_GUARDED_BY(mu) = false;  // it pushed an entry
    int64_t next ABSL_GUARDED_BY(mu) = 0;        // the iterator's next_
    std::map<int64_t, ReadResult> pushed ABSL_GUARDED_BY(mu);
    int64_t pushed_bytes ABSL_GUARDED_BY(mu) = 0;
    int64_t lac ABSL_GUARDED_BY(mu) = -1;  // the highest a stream sent
    absl::Time last_message ABSL_GUARDED_BY(mu);
  };

  // The next entry if a stream has brought it; advances next_.
  std::optional<LedgerEntry> TakePushed();
  bool StartStreams();
  void StopStreams(bool backoff);
  enum class Wait {
    kEntry,     // the next entry is pushed
    kDeadline,  // not yet
    kBehind,    // pushed entries past the cap: end the generation, no wait
    kClosed,    // the ledger is closed: end, read what is left
    kStalled,   // a stream ended, or owes a confirmed entry: end, back off
  };
  Wait WaitForStreams(absl::Time deadline);
  LedgerEntry Deliver(ReadResult r);

  const std::shared_ptr<ReadHandle> handle_;
  const std::shared_ptr<State> state_;
  const int64_t window_bytes_;
  // How long a confirmed entry may take to be pushed before the streams
  // are given up: speculativeReadTimeout, or readEntryTimeout without it.
  const absl::Duration owed_wait_;
  const bool streams_enabled_;
  int64_t next_;
  std::unique_ptr<EntryIterator> range_;
  std::vector<std::shared_ptr<BookieClient::StreamCanceller>> cancellers_;
  bool streaming_ = false;
  absl::Duration backoff_ = kMinStreamBackoff;
  absl::Time streams_after_ = absl::InfinitePast();
  // When the LAC was first seen at or past next_ while streaming.
  int64_t owed_entry_ = -1;
  absl::Time owed_since_;
  uint64_t generations_ = 0;
  int64_t entries_pushed_ = 0;
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_TAIL_ITERATOR_H_
