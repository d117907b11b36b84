// BookieStoreImpl: the BookieStore over the journal and the ledger storage.
//
// Start-up (Open): replays the journal from its checkpoint into the ledger
// storage (entries into the write cache, fences, master keys and explicit
// LACs into the ledger state), starts the journal, then flushes so the
// replayed records are in entry logs and the checkpoint moves past them.
//
// Add path (AddEntry): the ledger's rules are checked under that ledger's
// own mutex (a sharded map, no global lock); the entry goes to the write
// cache, then to the journal queue by the same buffer; the callback runs on
// the journal's completion thread after the group's sync.
//
// Checkpoints: the storage's flush takes a numbered mark (a JournalMark
// remembered here) before swapping caches and reports it once durable; the
// journal checkpoint then moves to that mark.
//
// Failure: a journal or storage error is sticky; from then on adds fail with
// Internal and Stats() says why. Read-only (SetReadOnly) refuses adds with
// Unavailable and serves reads.

#ifndef BK_BOOKIE_ENGINE_BOOKIE_STORE_IMPL_H_
#define BK_BOOKIE_ENGINE_BOOKIE_STORE_IMPL_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "bookie/bookie_store.h"
#include "bookie/engine/ledger_state_map.h"
#include "bookie/journal/journal.h"
#include "bookie/storage/ledger_storage.h"
#include "bookie/store/deadline_timer.h"
#include "common/env.h"

namespace bk::bookie {

struct StoreOptions {
  JournalOptions journal;
  LedgerStorageOptions storage;
};

// What start-up found, for the log.
struct StartupReport {
  JournalReplayReport journal;
  uint64_t replayed_entries = 0;
};

class BookieStoreImpl final : public BookieStore {
 public:
  // `env` must outlive the store.
  static absl::StatusOr<std::unique_ptr<BookieStoreImpl>> Open(
      Env* env, const StoreOptions& options, StartupReport* report = nullptr);

  // Stops the journal (completing accepted adds) without flushing; Close()
  // flushes first.
  ~BookieStoreImpl() override;

  // Drains: refuses new adds, completes every accepted one, flushes the
  // storage and checkpoints the journal.
  absl::Status Close();

  void AddEntry(const AddArgs& args, EntryBuffer body,
                StatusCallback done) override;
  // Checks and caches each entry, computes each entry's CRC32C once (the
  // journal and entry-log record CRCs are combined from it), and hands the
  // batch's records to the journal in one push per journal directory.
  // Refusals are answered at once, in one call; the admitted adds of one
  // journal directory (usually all: a batch is usually one ledger) go to
  // the journal in one push and complete into one shared state (no
  // allocation per entry), whose last record raises each ledger's LAC once
  // and answers them in one call.
  void AddEntries(absl::Span<AddEntryRequest> adds,
                  AddBatchCallback done) override;
  absl::StatusOr<EntryBuffer> ReadEntry(uint64_t ledger_id,
                                        int64_t entry_id) override;
  void Fence(uint64_t ledger_id, const std::string& master_key,
             StatusCallback done) override;
  absl::StatusOr<int64_t> LastAddConfirmed(uint64_t ledger_id) override;
  void WaitForLacUpdate(
      uint64_t ledger_id, int64_t previous_lac, absl::Duration timeout,
      std::function<void(absl::StatusOr<int64_t>)> done) override;
  void WriteLac(uint64_t ledger_id, int64_t lac, const std::string& master_key,
                StatusCallback done) override;
  absl::StatusOr<int64_t> ExplicitLac(uint64_t ledger_id) override;
  void ForceLedger(uint64_t ledger_id, const std::string& master_key,
                   StatusCallback done) override;
  absl::StatusOr<std::vector<int64_t>> ListEntries(uint64_t ledger_id) override;
  StoreStats Stats() override;
  void SetReadOnly(bool read_only, const std::string& reason) override;

  // Drops a ledger's entries and state. (The daemon's GC deletes through
  // the storage's filter instead; both forget the ledger's rules here.)
  absl::Status DeleteLedger(uint64_t ledger_id);

  // Ledgers whose rules are in memory (tests: the map does not grow
  // without bound).
  size_t cached_ledgers() { return rules_.size(); }

  JournalStats journal_stats() const { return journal_->Stats(); }
  StorageStats storage_stats() const { return storage_->GetStats(); }
  LedgerStorage* storage() { return storage_.get(); }

 private:
  BookieStoreImpl(Env* env, std::unique_ptr<LedgerStorage> storage,
                  std::unique_ptr<Journal> journal);

  // OK if adds may proceed, else why not (Unavailable or Internal).
  absl::Status CheckWritable() const;
  // Checks (and on first use sets) the master key. REQUIRES: rules->mu.
  absl::Status CheckKeyLocked(uint64_t ledger_id, LedgerRules* rules,
                              const std::string& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(rules->mu);
  // An add's checks and its write-cache insert: OK, or why it is refused.
  // Sets *lac (the entry's LAC) and *crc (crc32c::Value(*body)).
  absl::Status Admit(const AddArgs& args, const EntryBuffer& body, int64_t* lac,
                     uint32_t* crc);
  // One journal directory's share of a batch: outcomes and LACs by
  // position in that share.
  struct PendingBatch;
  // Records the outcome of add `i`; the last one finishes the share.
  void CompleteAdd(PendingBatch* batch, size_t i, absl::Status status);
  // Raises the ledger's LAC and answers satisfied long polls.
  void RaiseLac(uint64_t ledger_id, int64_t lac);
  static absl::Status NoLedger(uint64_t ledger_id);
  // Drops the ledger's rules (after the storage deleted or purged it) and
  // answers its long polls with NotFound. Adds holding the old rules still
  // reach the storage, which refuses them while the tombstone lasts. Rules
  // loaded again meanwhile (a late add, or a load that raced the deletion)
  // are dropped when the tombstone is purged, the second call.
  void ForgetLedger(uint64_t ledger_id);
  uint64_t TakeMark();
  // Moves the journal checkpoint to `mark`; OK once it is durably there.
  absl::Status Flushed(uint64_t mark);

  // Constant after construction.
  [[maybe_unused]] Env* const env_;  // unused so far (clang warns)
  std::unique_ptr<LedgerStorage> storage_;
  std::unique_ptr<Journal> journal_;

  // Own synchronisation.
  LedgerStateMap rules_;
  DeadlineTimer timer_;
  std::atomic<int64_t> adds_in_flight_{0};
  std::atomic<bool> read_only_{false};
  std::atomic<bool> closing_{false};
  std::atomic<bool> journal_started_{false};
  std::atomic<uint64_t> next_waiter_id_{1};

  mutable absl::Mutex mu_;
  std::string read_only_reason_ ABSL_GUARDED_BY(mu_);
  // Checkpoint marks handed to the storage's flushes, by number.
  uint64_t next_mark_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<uint64_t, JournalMark> marks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_ENGINE_BOOKIE_STORE_IMPL_H_
