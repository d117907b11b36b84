#include "bookie/daemon/metadata_ledger_filter.h"

#include <limits>
#include <memory>
#include <utility>

namespace bk::bookie {

// One GC pass: walks the store's ascending ledger list beside the ascending
// ids it is asked about.
class MetadataLedgerFilter::Pass {
 public:
  explicit Pass(MetadataLedgerFilter* filter) : filter_(filter) {}

  bool Deleted(uint64_t ledger_id) {
    if (failed_) return false;
    if (ledger_id >
        static_cast<uint64_t>(std::numeric_limits<metadata::LedgerId>::max())) {
      return false;  // no id the store can hold; not ours to judge
    }
    const auto id = static_cast<metadata::LedgerId>(ledger_id);
    if (list_ == nullptr || id <= last_asked_) StartWalk();
    last_asked_ = id;
    while (!list_done_ && (!have_listed_ || listed_ < id)) {
      if (list_->Next(&listed_)) {
        have_listed_ = true;
        continue;
      }
      if (!list_->status().ok()) {
        Fail("listing ledgers", list_->status());
        return false;
      }
      list_done_ = true;
      have_listed_ = false;
    }
    if (have_listed_ && listed_ == id) return false;  // listed: live
    switch (filter_->Read(id)) {
      case Answer::kLive:
        return false;
      case Answer::kDeleted:
        return true;
      case Answer::kUnknown:
        failed_ = true;  // the rest of the pass waits for the next one
        return false;
    }
    return false;
  }

 private:
  void StartWalk() {
    list_ = filter_->store_->ListLedgers();
    filter_->listings_.fetch_add(1, std::memory_order_relaxed);
    have_listed_ = false;
    list_done_ = false;
  }
  void Fail(const char* what, const absl::Status& s) {
    failed_ = true;
    filter_->errors_.fetch_add(1, std::memory_order_relaxed);
    filter_->log_->warn(
        "GC: {} in the metadata store failed ({}); no ledger "
        "is deleted until the next pass",
        what, s.ToString());
  }

  MetadataLedgerFilter* const filter_;
  std::unique_ptr<metadata::LedgerIterator> list_;
  metadata::LedgerId listed_ = -1;  // valid while have_listed_
  bool have_listed_ = false;
  bool list_done_ = false;  // the walk reached the end of the list
  metadata::LedgerId last_asked_ = -1;
  bool failed_ = false;
};

MetadataLedgerFilter::MetadataLedgerFilter(metadata::MetadataStore* store)
    : store_(store), log_(log::Get("gc")) {}

LedgerDeletedFn MetadataLedgerFilter::NewPass() {
  // std::function needs a copyable callable; the walk is shared by copies.
  auto pass = std::make_shared<Pass>(this);
  return [pass](uint64_t ledger_id) { return pass->Deleted(ledger_id); };
}

bool MetadataLedgerFilter::VerifyDeleted(uint64_t ledger_id) {
  if (ledger_id >
      static_cast<uint64_t>(std::numeric_limits<metadata::LedgerId>::max())) {
    return false;
  }
  return Read(static_cast<metadata::LedgerId>(ledger_id)) == Answer::kDeleted;
}

MetadataLedgerFilter::Answer MetadataLedgerFilter::Read(metadata::LedgerId id) {
  verify_reads_.fetch_add(1, std::memory_order_relaxed);
  auto md = store_->ReadLedger(id);
  if (md.ok()) return Answer::kLive;
  if (absl::IsNotFound(md.status())) {
    deleted_.fetch_add(1, std::memory_order_relaxed);
    log_->info("GC: ledger {} has no metadata (deleted); dropping it", id);
    return Answer::kDeleted;
  }
  errors_.fetch_add(1, std::memory_order_relaxed);
  log_->warn(
      "GC: reading the metadata of ledger {} failed ({}); not deleting it", id,
      md.status().ToString());
  return Answer::kUnknown;
}

MetadataLedgerFilter::Stats MetadataLedgerFilter::stats() const {
  Stats s;
  s.listings = listings_.load(std::memory_order_relaxed);
  s.verify_reads = verify_reads_.load(std::memory_order_relaxed);
  s.deleted = deleted_.load(std::memory_order_relaxed);
  s.errors = errors_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace bk::bookie
