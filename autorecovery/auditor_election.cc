#include "autorecovery/auditor_election.h"

#include "absl/strings/str_cat.h"

namespace bk::autorecovery {
namespace {

constexpr char kPrefix[] = "V_";

}  // namespace

absl::StatusOr<std::string> CurrentAuditor(metadata::MetadataStore* store) {
  auto kids = store->ListChildren(kElectionDir);
  if (absl::IsNotFound(kids.status())) return std::string();
  if (!kids.ok()) return kids.status();
  // Sorted: the lowest counter first. A node may vanish between the list and
  // the read; then the next one is asked.
  for (const auto& k : *kids) {
    auto data = store->ReadNode(absl::StrCat(kElectionDir, "/", k));
    if (absl::IsNotFound(data.status())) continue;
    if (!data.ok()) return data.status();
    return data->value;
  }
  return std::string();
}

AuditorElection::~AuditorElection() { Withdraw(); }

absl::StatusOr<bool> AuditorElection::Run() {
  absl::MutexLock l(&mu_);
  if (!node_.empty()) {
    auto mine = store_->OwnsNode(node_);
    if (!mine.ok() && !absl::IsNotFound(mine.status())) return mine.status();
    if (!mine.ok() || !*mine) node_.clear();  // gone with an old session
  }
  if (node_.empty()) {
    auto created = store_->CreateNode(
        absl::StrCat(kElectionDir, "/", kPrefix), id_,
        metadata::MetadataStore::NodeMode::kEphemeralSequential);
    if (!created.ok()) return created.status();
    node_ = *created;
  }
  auto kids = store_->ListChildren(kElectionDir);
  if (!kids.ok()) return kids.status();
  return !kids->empty() &&
         absl::StrCat(kElectionDir, "/", kids->front()) == node_;
}

void AuditorElection::Withdraw() {
  absl::MutexLock l(&mu_);
  if (node_.empty()) return;
  (void)store_->DeleteNode(node_, metadata::kAnyVersion);
  node_.clear();
}

}  // namespace bk::autorecovery
