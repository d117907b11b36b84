// ForwardingBookieStore: a BookieStore that hands every call to another
// store, for tests that misbehave in one or two calls and forward the rest
// (override those; call ForwardingBookieStore's for the normal answer).
// Thread-safe as far as the target is.

#ifndef BK_TEST_SUPPORT_FORWARDING_BOOKIE_STORE_H_
#define BK_TEST_SUPPORT_FORWARDING_BOOKIE_STORE_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bookie/bookie_store.h"

namespace bk::testing {

class ForwardingBookieStore : public bookie::BookieStore {
 public:
  // `target` must outlive this store.
  explicit ForwardingBookieStore(bookie::BookieStore* target)
      : target_(target) {}

  bookie::BookieStore& target() { return *target_; }

  void AddEntry(const bookie::AddArgs& args, bookie::EntryBuffer body,
                bookie::StatusCallback done) override {
    target_->AddEntry(args, std::move(body), std::move(done));
  }
  void AddEntries(absl::Span<bookie::AddEntryRequest> adds,
                  bookie::AddBatchCallback done) override {
    target_->AddEntries(adds, std::move(done));
  }
  absl::StatusOr<bookie::EntryBuffer> ReadEntry(uint64_t ledger_id,
                                                int64_t entry_id) override {
    return target_->ReadEntry(ledger_id, entry_id);
  }
  void Fence(uint64_t ledger_id, const std::string& master_key,
             bookie::StatusCallback done) override {
    target_->Fence(ledger_id, master_key, std::move(done));
  }
  absl::StatusOr<int64_t> LastAddConfirmed(uint64_t ledger_id) override {
    return target_->LastAddConfirmed(ledger_id);
  }
  uint64_t WaitForLacUpdate(
      uint64_t ledger_id, int64_t previous_lac, absl::Duration timeout,
      std::function<void(absl::StatusOr<int64_t>)> done) override {
    return target_->WaitForLacUpdate(ledger_id, previous_lac, timeout,
                                     std::move(done));
  }
  void CancelLacWait(uint64_t ledger_id, uint64_t wait_id) override {
    target_->CancelLacWait(ledger_id, wait_id);
  }
  void WriteLac(uint64_t ledger_id, int64_t lac, const std::string& key,
                bookie::StatusCallback done) override {
    target_->WriteLac(ledger_id, lac, key, std::move(done));
  }
  absl::StatusOr<int64_t> ExplicitLac(uint64_t ledger_id) override {
    return target_->ExplicitLac(ledger_id);
  }
  void ForceLedger(uint64_t ledger_id, const std::string& key,
                   bookie::StatusCallback done) override {
    target_->ForceLedger(ledger_id, key, std::move(done));
  }
  absl::StatusOr<std::vector<int64_t>> ListEntries(
      uint64_t ledger_id, int64_t first_entry_id, size_t max_entries) override {
    return target_->ListEntries(ledger_id, first_entry_id, max_entries);
  }
  bookie::StoreStats Stats() override { return target_->Stats(); }
  void SetReadOnly(bool read_only, const std::string& reason) override {
    target_->SetReadOnly(read_only, reason);
  }

 private:
  bookie::BookieStore* const target_;
};

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_FORWARDING_BOOKIE_STORE_H_
