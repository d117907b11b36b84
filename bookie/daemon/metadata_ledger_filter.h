// MetadataLedgerFilter: tells the bookie's garbage collector which of its
// ledgers the metadata store says are deleted (BookKeeper's
// ScanAndCompareGarbageCollector, with verifyMetadataOnGc always on).
//
// The rule: a ledger is deleted iff its metadata read answered kNotFound in
// two passes, each after a Sync of the store, with no pass between them
// finding the metadata. A client creates a ledger's metadata before it
// writes any entry, so a ledger this bookie holds whose metadata is gone
// was deleted. But a ZooKeeper session reads from one server, which may
// lag the leader: without the sync, a ledger created a moment ago can read
// as missing (BookKeeper syncs before listing, too). The second pass is the
// margin against a store that answers one stale read anyway; it delays a
// deletion by one gcWaitTime. Any other answer (store unreachable, session
// lost, timeout, an undecodable record) means "not known to be deleted":
// nothing is ever deleted on an error, and a ledger found again (listed or
// read) forgets its earlier miss.
//
// Cost, per GC pass: one Sync (at the first ledger asked about; a bookie
// with no ledgers asks nothing); per ledger directory one walk of the
// store's ledger list (ascending, a page at a time, beside the directory's
// own ascending ledgers, so only one page is held), plus one metadata read
// for each of our ledgers the list does not hold (the candidates). The read
// rules out a list that raced a create or was cut short. After the first
// failed sync, walk or read, the rest of the pass deletes nothing and asks
// nothing, so a store that is down costs one operation timeout per pass,
// not one per ledger. Memory: one entry per ledger seen missing once and
// not yet judged (forgotten after kForgetAfterPasses passes).
//
// Threads: NewPass may be called from any thread; the filter of one pass is
// used by one thread at a time (the GC thread), one pass after another.
// stats() is thread-safe. Blocking: not for a ZooKeeper client thread.

#ifndef BK_BOOKIE_DAEMON_METADATA_LEDGER_FILTER_H_
#define BK_BOOKIE_DAEMON_METADATA_LEDGER_FILTER_H_

#include <atomic>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "bookie/storage/ledger_dir.h"
#include "common/logging.h"
#include "metadata/metadata_store.h"

namespace bk::bookie {

class MetadataLedgerFilter {
 public:
  // `store` must outlive the filter and every pass filter it made.
  explicit MetadataLedgerFilter(metadata::MetadataStore* store);

  // Passes that must find a ledger missing before it is deleted.
  static constexpr int kMissingPasses = 2;
  // A miss not confirmed within this many passes (each of which stopped
  // before reaching the ledger, or no longer held it) is forgotten.
  static constexpr uint64_t kForgetAfterPasses = 8;

  // The filter of one GC pass (for LedgerStorage::SetDeletedLedgerFilter).
  // Within a pass it expects ascending ids per directory; an id not above
  // the previous one starts a new walk of the list (the next directory).
  LedgerDeletedFn NewPass();

  struct Stats {
    uint64_t syncs = 0;         // store syncs, one per pass that asked
    uint64_t listings = 0;      // walks of the ledger list begun
    uint64_t verify_reads = 0;  // metadata reads of candidates
    uint64_t missing = 0;       // reads that answered kNotFound
    uint64_t deleted = 0;       // ledgers judged deleted (missing twice)
    uint64_t errors = 0;        // failed syncs, walks or reads
  };
  Stats stats() const;

 private:
  class Pass;
  enum class Answer { kLive, kMissing, kUnknown };
  // Reads the ledger's metadata once; counts and logs the answer.
  Answer Read(metadata::LedgerId id);
  // The verdict on a ledger pass `pass` found missing: true once it has
  // been found missing in kMissingPasses passes without being found since.
  bool ConfirmMissing(metadata::LedgerId id, uint64_t pass);
  // The ledger's metadata was found in some pass: forget its misses.
  void Found(metadata::LedgerId id);

  // Constant after construction.
  metadata::MetadataStore* const store_;
  const log::Logger log_;

  mutable absl::Mutex mu_;
  uint64_t passes_ ABSL_GUARDED_BY(mu_) = 0;  // passes begun
  // Ledger -> the passes that found it missing since it was last found.
  struct Miss {
    uint64_t last_pass = 0;  // the latest of them
    int passes = 0;          // how many
  };
  absl::flat_hash_map<metadata::LedgerId, Miss> misses_ ABSL_GUARDED_BY(mu_);

  // Own synchronisation.
  std::atomic<uint64_t> syncs_{0}, listings_{0}, verify_reads_{0}, missing_{0},
      deleted_{0}, errors_{0};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_METADATA_LEDGER_FILTER_H_
