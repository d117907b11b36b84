// MetadataLedgerFilter: tells the bookie's garbage collector which of its
// ledgers the metadata store says are deleted (BookKeeper's
// ScanAndCompareGarbageCollector, with verifyMetadataOnGc always on).
//
// The rule: a ledger is deleted iff reading its metadata answers kNotFound.
// A client creates a ledger's metadata before it writes any entry, so a
// ledger this bookie holds whose metadata is gone was deleted. Any other
// answer (store unreachable, session lost, timeout, an undecodable record)
// means "not known to be deleted": nothing is ever deleted on an error.
//
// Cost, per GC pass and ledger directory: one walk of the store's ledger
// list (ascending, a page at a time, beside the directory's own ascending
// ledgers, so only one page is held), plus one metadata read for each of
// our ledgers the list does not hold (the candidates). The read rules out a
// list that raced a create or was cut short. A bookie with no ledgers asks
// nothing. After the first failed walk or read, the rest of the pass
// deletes nothing and asks nothing, so a store that is down costs one
// operation timeout per pass, not one per ledger.
//
// Threads: NewPass and VerifyDeleted may be called from any thread; the
// filter of one pass is used by one thread at a time (the GC thread).
// stats() is thread-safe. Blocking: not for a ZooKeeper client thread.

#ifndef BK_BOOKIE_DAEMON_METADATA_LEDGER_FILTER_H_
#define BK_BOOKIE_DAEMON_METADATA_LEDGER_FILTER_H_

#include <atomic>
#include <cstdint>

#include "bookie/storage/ledger_dir.h"
#include "common/logging.h"
#include "metadata/metadata_store.h"

namespace bk::bookie {

class MetadataLedgerFilter {
 public:
  // `store` must outlive the filter and every pass filter it made.
  explicit MetadataLedgerFilter(metadata::MetadataStore* store);

  // The filter of one GC pass (for LedgerStorage::SetDeletedLedgerFilter).
  // Within a pass it expects ascending ids per directory; an id not above
  // the previous one starts a new walk of the list (the next directory).
  LedgerDeletedFn NewPass();

  // One read: true only when the store answers kNotFound for the ledger.
  bool VerifyDeleted(uint64_t ledger_id);

  struct Stats {
    uint64_t listings = 0;      // walks of the ledger list begun
    uint64_t verify_reads = 0;  // metadata reads of candidates
    uint64_t deleted = 0;       // reads that answered kNotFound
    uint64_t errors = 0;        // failed walks or reads: nothing deleted
  };
  Stats stats() const;

 private:
  class Pass;
  enum class Answer { kLive, kDeleted, kUnknown };
  // Reads the ledger's metadata once; counts and logs the answer.
  Answer Read(metadata::LedgerId id);

  // Constant after construction.
  metadata::MetadataStore* const store_;
  const log::Logger log_;

  // Own synchronisation.
  std::atomic<uint64_t> listings_{0}, verify_reads_{0}, deleted_{0}, errors_{0};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_METADATA_LEDGER_FILTER_H_
