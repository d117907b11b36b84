// FaultyMetadataStore: a MetadataStore that forwards every call to another
// store, except the ledger creates and ledger compare-and-sets it has been
// told to fail. Those fail with the status the test chose and never reach
// the target: nothing is written. For tests of what a client does when the
// metadata store refuses a write that the in-process store would accept
// (a ZooKeeper ensemble that is down, a lost session).
//
// A client takes one through ClientOptions::wrap_metadata_store; the test
// keeps a pointer to arm its faults, valid while the client lives.
//
// Thread-safe: the test arms faults from its thread while the client calls
// from its own. The callback of a failed async call runs on the target's
// callback thread, in order with the target's other callbacks, as
// MetadataStore promises.

#ifndef BK_TEST_UNIT_CLIENT_FAULTY_METADATA_STORE_H_
#define BK_TEST_UNIT_CLIENT_FAULTY_METADATA_STORE_H_

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "metadata/metadata_store.h"
#include "test/support/forwarding_store.h"

namespace bk::client::testing {

class FaultyMetadataStore : public bk::testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  // The next `n` ledger creates (CreateLedger or CreateLedgerAsync) fail
  // with `status`, which must not be OK. Replaces what was armed before.
  void FailCreates(int n, absl::Status status);
  // The same for ledger compare-and-sets (CompareAndSetLedger or
  // CompareAndSetLedgerAsync).
  void FailCompareAndSets(int n, absl::Status status);

  // How many calls of each kind have been failed so far.
  int failed_creates() const;
  int failed_compare_and_sets() const;

  absl::StatusOr<metadata::Version> CreateLedger(
      metadata::LedgerId id, const proto::LedgerMetadata& md) override;
  void CreateLedgerAsync(metadata::LedgerId id, const proto::LedgerMetadata& md,
                         metadata::Callback<metadata::Version> done) override;
  absl::StatusOr<metadata::Version> CompareAndSetLedger(
      metadata::LedgerId id, const proto::LedgerMetadata& md,
      metadata::Version expected) override;
  void CompareAndSetLedgerAsync(
      metadata::LedgerId id, const proto::LedgerMetadata& md,
      metadata::Version expected,
      metadata::Callback<metadata::Version> done) override;

 private:
  struct Fault {
    int remaining = 0;  // calls still to fail
    absl::Status status;
    int failed = 0;  // calls failed so far
  };

  // OK: forward the call. Otherwise the status to fail it with, counted in
  // the fault `which` (creates_ or compare_and_sets_).
  absl::Status Take(Fault FaultyMetadataStore::*which) ABSL_LOCKS_EXCLUDED(mu_);
  // Calls done(status) on the target's callback thread.
  void FailAsync(metadata::LedgerId id, absl::Status status,
                 metadata::Callback<metadata::Version> done);

  mutable absl::Mutex mu_;
  Fault creates_ ABSL_GUARDED_BY(mu_);
  Fault compare_and_sets_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bk::client::testing

#endif  // BK_TEST_UNIT_CLIENT_FAULTY_METADATA_STORE_H_
