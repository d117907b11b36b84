// BookieStoreImpl: the BookieStore over the journal and the ledger storage.
// It checks each request against the rules of the ledger's state (master
// key, fencing), journals what must be durable, and answers once it is.
//
// Ledger state has one owner: the storage's LedgerStateTable, one
// LedgerSlot per ledger (bookie/storage/ledger_slot.h). This class keeps
// no copy; it changes a slot only under the slot's lock, records the
// change there (durable with the storage's next flush) and journals it
// before it answers anyone. Fence, master-key and explicit-LAC records go
// through the journal's group commit like entries: no add makes a synced
// RocksDB write.
//
// Start-up (Open): replays the journal from its checkpoint (entries into
// the write cache, fences, master keys and explicit LACs into the ledger
// slots), starts the journal, then flushes so the replayed records are in
// entry logs and the index, and the checkpoint moves past them.
//
// Add path (AddEntries; bookie_store_add.cc): under the ledger's own lock
// (no global lock) the master key is checked (the first add sets it and
// journals it, so every later record of the ledger follows it in the
// journal) and the fence; the entry goes to the write cache, then to the
// journal queue by the same buffer; the callback runs on the journal's
// completion thread after the group's sync.
//
// Fencing (bookie_store_rules.cc): Fence sets the flag and journals a fence
// record under the ledger's lock; it answers once that record is synced. An
// add that meets a fence whose record is not synced yet is answered EFENCED
// only once it is, so no writer hears EFENCED before the fence is durable.
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
#include "bookie/journal/journal.h"
#include "bookie/storage/ledger_slot.h"
#include "bookie/storage/ledger_storage.h"
#include "common/deadline_timer.h"
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
  // Refusals are answered at once, in one call (those waiting for a fence
  // to be synced once it is); the admitted adds of one journal directory
  // (usually all: a batch is usually one ledger) go to the journal in one
  // push and complete into one shared state (no allocation per entry),
  // whose last record raises each ledger's LAC once and answers them in
  // one call.
  void AddEntries(absl::Span<AddEntryRequest> adds,
                  AddBatchCallback done) override;
  absl::StatusOr<EntryBuffer> ReadEntry(uint64_t ledger_id,
                                        int64_t entry_id) override;
  void Fence(uint64_t ledger_id, const std::string& master_key,
             StatusCallback done) override;
  absl::StatusOr<int64_t> LastAddConfirmed(uint64_t ledger_id) override;
  uint64_t WaitForLacUpdate(
      uint64_t ledger_id, int64_t previous_lac, absl::Duration timeout,
      std::function<void(absl::StatusOr<int64_t>)> done) override;
  void CancelLacWait(uint64_t ledger_id, uint64_t wait_id) override;
  void WriteLac(uint64_t ledger_id, int64_t lac, const std::string& master_key,
                StatusCallback done) override;
  absl::StatusOr<int64_t> ExplicitLac(uint64_t ledger_id) override;
  void ForceLedger(uint64_t ledger_id, const std::string& master_key,
                   StatusCallback done) override;
  absl::StatusOr<std::vector<int64_t>> ListEntries(uint64_t ledger_id,
                                                   int64_t first_entry_id,
                                                   size_t max_entries) override;
  StoreStats Stats() override;
  void SetReadOnly(bool read_only, const std::string& reason) override;

  // Drops a ledger's entries and state. (The daemon's GC deletes through
  // the storage's filter instead; both answer the ledger's long polls.)
  absl::Status DeleteLedger(uint64_t ledger_id);

  JournalStats journal_stats() const { return journal_->Stats(); }
  StorageStats storage_stats() const { return storage_->GetStats(); }
  LedgerStorage* storage() { return storage_.get(); }

 private:
  BookieStoreImpl(Env* env, std::unique_ptr<LedgerStorage> storage,
                  std::unique_ptr<Journal> journal);

  // --- bookie_store_impl.cc: start-up, health, checkpoints ---
  // Applies one replayed journal record to the storage.
  absl::Status ApplyReplayed(const JournalRecordView& r,
                             uint64_t* replayed_entries);
  // OK if adds may proceed, else why not (Unavailable or Internal).
  absl::Status CheckWritable() const;
  static absl::Status NoLedger(uint64_t ledger_id);
  uint64_t TakeMark();
  // Moves the journal checkpoint to `mark`; OK once it is durably there.
  absl::Status Flushed(uint64_t mark);

  // --- bookie_store_rules.cc: master key and fence ---
  // The ledger's slot for a request carrying `key`. An unknown ledger is
  // made only for a valid key (EBADREQ otherwise); a deleted one is
  // returned as it is (CheckKeyLocked refuses it).
  absl::StatusOr<std::shared_ptr<LedgerSlot>> SlotFor(uint64_t ledger_id,
                                                      const std::string& key);
  // The master-key rule, the only one: OK if `key` is the ledger's key;
  // EUA if it differs; on a ledger without a key, EBADREQ for an invalid
  // one, ENOLEDGER if deleted, else the key becomes the ledger's and is
  // journaled (ahead of every later record of the ledger, since the
  // caller holds its lock).
  absl::Status CheckKeyLocked(LedgerSlot* slot, const std::string& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(slot->mu);
  // Compares a key with the ledger's, in constant time: OK or EUA.
  static absl::Status MatchKey(uint64_t ledger_id, absl::string_view stored,
                               absl::string_view key);
  // Sets the fence and journals its record. REQUIRES: not fenced.
  absl::Status JournalFenceLocked(const std::shared_ptr<LedgerSlot>& slot)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(slot->mu);
  // The fence record's outcome: the fence is durable (OK) or undone.
  void FenceSynced(LedgerSlot* slot, const absl::Status& status);

  // --- bookie_store_add.cc: the add path ---
  // One add's checks and its write-cache insert.
  struct Verdict {
    // Refused, and answered by the fence's FenceSynced (status unused).
    bool awaits_fence = false;
    absl::Status status;  // otherwise: OK if admitted, else why not
    int64_t lac = -1;     // the entry's LAC
    uint32_t crc = 0;     // crc32c::Value(*body)
  };
  Verdict Admit(const AddArgs& args, const EntryBuffer& body,
                const std::shared_ptr<AddBatchCallback>& done);
  // One journal directory's share of a batch: outcomes and LACs by
  // position in that share.
  struct PendingBatch;
  // Records the outcome of add `i`; the last one finishes the share.
  void CompleteAdd(PendingBatch* batch, size_t i, absl::Status status);

  // --- bookie_store_lac.cc: LAC and long polls ---
  // Loads the LAC from the storage on first use.
  absl::Status LoadLacLocked(LedgerSlot* slot)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(slot->mu);
  // Raises the ledger's LAC and answers satisfied long polls.
  void RaiseLac(uint64_t ledger_id, int64_t lac);
  // Answers the ledger's long polls with ENOLEDGER (after the storage
  // deleted or purged it).
  void ForgetLedger(uint64_t ledger_id);
  // Answers every long poll with its ledger's LAC (at Close).
  void AnswerAllLongPolls();

  // Constant after construction.
  [[maybe_unused]] Env* const env_;  // unused so far (clang warns)
  std::unique_ptr<LedgerStorage> storage_;
  std::unique_ptr<Journal> journal_;

  // Own synchronisation.
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
  // The first failed checkpoint: sticky (a failed lastMark sync is never
  // retried), logged once, shown by Stats.
  absl::Status checkpoint_error_ ABSL_GUARDED_BY(mu_);
  uint64_t checkpoint_failures_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_ENGINE_BOOKIE_STORE_IMPL_H_
