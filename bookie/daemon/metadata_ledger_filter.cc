#include "bookie/daemon/metadata_ledger_filter.h"

#include <limits>
#include <memory>
#include <utility>

namespace bk::bookie {

// One GC pass: syncs the store once, then walks its ascending ledger list
// beside the ascending ids it is asked about.
class MetadataLedgerFilter::Pass {
 public:
  Pass(MetadataLedgerFilter* filter, uint64_t number)
      : filter_(filter), number_(number) {}

  bool Deleted(uint64_t ledger_id) {
    if (failed_) return false;
    if (ledger_id >
        static_cast<uint64_t>(std::numeric_limits<metadata::LedgerId>::max())) {
      return false;  // no id the store can hold; not ours to judge
    }
    if (!synced_) {
      // Reads after this see every create that completed before it, so a
      // lagging server cannot hide a ledger made before this pass began.
      filter_->syncs_.fetch_add(1, std::memory_order_relaxed);
      if (absl::Status s = filter_->store_->Sync(); !s.ok()) {
        Fail("syncing", s);
        return false;
      }
      synced_ = true;
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
    if (have_listed_ && listed_ == id) {  // listed: live
      filter_->Found(id);
      return false;
    }
    switch (filter_->Read(id)) {
      case Answer::kLive:
        filter_->Found(id);
        return false;
      case Answer::kMissing:
        return filter_->ConfirmMissing(id, number_);
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
  const uint64_t number_;  // this pass's number, from 1
  bool synced_ = false;
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
  uint64_t number;
  {
    absl::MutexLock l(&mu_);
    number = ++passes_;
    // Misses the last passes did not confirm (they stopped early, or the
    // ledger left this bookie another way) are dropped, keeping the table
    // to ledgers GC still asks about.
    for (auto it = misses_.begin(); it != misses_.end();) {
      if (it->second.last_pass + kForgetAfterPasses < number) {
        misses_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  // std::function needs a copyable callable; the walk is shared by copies.
  auto pass = std::make_shared<Pass>(this, number);
  return [pass](uint64_t ledger_id) { return pass->Deleted(ledger_id); };
}

MetadataLedgerFilter::Answer MetadataLedgerFilter::Read(metadata::LedgerId id) {
  verify_reads_.fetch_add(1, std::memory_order_relaxed);
  auto md = store_->ReadLedger(id);
  if (md.ok()) return Answer::kLive;
  if (absl::IsNotFound(md.status())) {
    missing_.fetch_add(1, std::memory_order_relaxed);
    return Answer::kMissing;
  }
  errors_.fetch_add(1, std::memory_order_relaxed);
  log_->warn(
      "GC: reading the metadata of ledger {} failed ({}); not deleting it", id,
      md.status().ToString());
  return Answer::kUnknown;
}

bool MetadataLedgerFilter::ConfirmMissing(metadata::LedgerId id,
                                          uint64_t pass) {
  int seen;
  {
    absl::MutexLock l(&mu_);
    Miss& m = misses_[id];
    if (m.passes == 0 || m.last_pass < pass) ++m.passes;
    m.last_pass = pass;
    seen = m.passes;
    if (seen >= kMissingPasses) misses_.erase(id);
  }
  if (seen < kMissingPasses) {
    log_->info(
        "GC: ledger {} has no metadata after a sync; deleting it if the "
        "next pass finds none either",
        id);
    return false;
  }
  deleted_.fetch_add(1, std::memory_order_relaxed);
  log_->info(
      "GC: ledger {} has no metadata in {} passes (deleted); dropping it", id,
      seen);
  return true;
}

void MetadataLedgerFilter::Found(metadata::LedgerId id) {
  absl::MutexLock l(&mu_);
  if (!misses_.empty()) misses_.erase(id);
}

MetadataLedgerFilter::Stats MetadataLedgerFilter::stats() const {
  Stats s;
  s.syncs = syncs_.load(std::memory_order_relaxed);
  s.listings = listings_.load(std::memory_order_relaxed);
  s.verify_reads = verify_reads_.load(std::memory_order_relaxed);
  s.missing = missing_.load(std::memory_order_relaxed);
  s.deleted = deleted_.load(std::memory_order_relaxed);
  s.errors = errors_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace bk::bookie
