#include "test/unit/client/faulty_metadata_store.h"

#include <utility>

namespace bk::client::testing {

void FaultyMetadataStore::FailCreates(int n, absl::Status status) {
  absl::MutexLock l(&mu_);
  creates_.remaining = n;
  creates_.status = std::move(status);
}

void FaultyMetadataStore::FailCompareAndSets(int n, absl::Status status) {
  absl::MutexLock l(&mu_);
  compare_and_sets_.remaining = n;
  compare_and_sets_.status = std::move(status);
}

int FaultyMetadataStore::failed_creates() const {
  absl::MutexLock l(&mu_);
  return creates_.failed;
}

int FaultyMetadataStore::failed_compare_and_sets() const {
  absl::MutexLock l(&mu_);
  return compare_and_sets_.failed;
}

absl::Status FaultyMetadataStore::Take(Fault FaultyMetadataStore::*which) {
  absl::MutexLock l(&mu_);
  Fault& fault = this->*which;
  if (fault.remaining <= 0) return absl::OkStatus();
  --fault.remaining;
  ++fault.failed;
  return fault.status;
}

void FaultyMetadataStore::FailAsync(
    metadata::LedgerId id, absl::Status status,
    metadata::Callback<metadata::Version> done) {
  // A read of the same ledger changes nothing and completes on the
  // target's callback thread, behind the target's earlier callbacks: the
  // failure rides on it, and the read's own answer is dropped.
  ForwardingStore::ReadLedgerAsync(
      id,
      [status = std::move(status), done = std::move(done)](
          absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>>) mutable {
        done(std::move(status));
      });
}

absl::StatusOr<metadata::Version> FaultyMetadataStore::CreateLedger(
    metadata::LedgerId id, const proto::LedgerMetadata& md) {
  if (absl::Status s = Take(&FaultyMetadataStore::creates_); !s.ok()) return s;
  return ForwardingStore::CreateLedger(id, md);
}

void FaultyMetadataStore::CreateLedgerAsync(
    metadata::LedgerId id, const proto::LedgerMetadata& md,
    metadata::Callback<metadata::Version> done) {
  if (absl::Status s = Take(&FaultyMetadataStore::creates_); !s.ok()) {
    FailAsync(id, std::move(s), std::move(done));
    return;
  }
  ForwardingStore::CreateLedgerAsync(id, md, std::move(done));
}

absl::StatusOr<metadata::Version> FaultyMetadataStore::CompareAndSetLedger(
    metadata::LedgerId id, const proto::LedgerMetadata& md,
    metadata::Version expected) {
  if (absl::Status s = Take(&FaultyMetadataStore::compare_and_sets_); !s.ok()) {
    return s;
  }
  return ForwardingStore::CompareAndSetLedger(id, md, expected);
}

void FaultyMetadataStore::CompareAndSetLedgerAsync(
    metadata::LedgerId id, const proto::LedgerMetadata& md,
    metadata::Version expected, metadata::Callback<metadata::Version> done) {
  if (absl::Status s = Take(&FaultyMetadataStore::compare_and_sets_); !s.ok()) {
    FailAsync(id, std::move(s), std::move(done));
    return;
  }
  ForwardingStore::CompareAndSetLedgerAsync(id, md, expected, std::move(done));
}

}  // namespace bk::client::testing
