#include "autorecovery/underreplication.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace bk::autorecovery {
namespace {

constexpr int kCasAttempts = 16;
constexpr char kLeafPrefix[] = "urL";

std::string Leaf(LedgerId ledger) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "urL%010" PRId64, ledger);
  return buf;
}

}  // namespace

std::string EncodeMark(const UnderreplicatedLedger& mark) {
  std::string out;
  for (const auto& b : mark.missing)
    absl::StrAppend(&out, "replica: ", b, "\n");
  absl::StrAppend(&out, "ctime: ", absl::ToUnixMillis(mark.marked_at), "\n");
  return out;
}

absl::StatusOr<UnderreplicatedLedger> DecodeMark(LedgerId ledger,
                                                 const std::string& data) {
  UnderreplicatedLedger m;
  m.ledger = ledger;
  std::set<std::string> missing;
  for (absl::string_view line : absl::StrSplit(data, '\n', absl::SkipEmpty())) {
    int64_t ms = 0;
    if (absl::ConsumePrefix(&line, "replica: ") && !line.empty()) {
      missing.insert(std::string(line));
    } else if (absl::ConsumePrefix(&line, "ctime: ") &&
               absl::SimpleAtoi(line, &ms)) {
      m.marked_at = absl::FromUnixMillis(ms);
    } else {
      return absl::DataLossError(absl::StrCat(
          "under-replication mark of ledger ", ledger, ": bad line '",
          std::string(line.data(), line.size()), "'"));
    }
  }
  m.missing.assign(missing.begin(), missing.end());
  return m;
}

std::string UnderreplicationManager::MarkPath(LedgerId ledger) {
  const uint64_t id = static_cast<uint64_t>(ledger);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04x/%04x/%04x/%04x/",
                static_cast<unsigned>((id >> 48) & 0xffff),
                static_cast<unsigned>((id >> 32) & 0xffff),
                static_cast<unsigned>((id >> 16) & 0xffff),
                static_cast<unsigned>(id & 0xffff));
  return absl::StrCat(kLedgersDir, "/", buf, Leaf(ledger));
}

std::string UnderreplicationManager::LockPath(LedgerId ledger) {
  return absl::StrCat(kLocksDir, "/", Leaf(ledger));
}

absl::Status UnderreplicationManager::Mark(
    LedgerId ledger, const std::vector<std::string>& missing, absl::Time now) {
  const std::string path = MarkPath(ledger);
  for (int attempt = 0; attempt < kCasAttempts; ++attempt) {
    auto read = store_->ReadNode(path);
    if (absl::IsNotFound(read.status())) {
      UnderreplicatedLedger m;
      m.ledger = ledger;
      std::set<std::string> s(missing.begin(), missing.end());
      m.missing.assign(s.begin(), s.end());
      m.marked_at = now;
      auto created = store_->CreateNode(
          path, EncodeMark(m), metadata::MetadataStore::NodeMode::kPersistent);
      if (created.ok() || !absl::IsAlreadyExists(created.status())) {
        return created.status();
      }
      continue;  // marked meanwhile: merge
    }
    if (!read.ok()) return read.status();
    auto m = DecodeMark(ledger, read->value);
    if (!m.ok()) return m.status();
    std::set<std::string> s(m->missing.begin(), m->missing.end());
    const size_t before = s.size();
    s.insert(missing.begin(), missing.end());
    if (s.size() == before) return absl::OkStatus();
    m->missing.assign(s.begin(), s.end());
    auto v = store_->SetNode(path, EncodeMark(*m), read->version);
    if (v.ok() || !absl::IsAborted(v.status())) return v.status();
  }
  return absl::AbortedError(
      absl::StrCat("mark of ledger ", ledger, " kept changing"));
}

absl::StatusOr<UnderreplicatedLedger> UnderreplicationManager::Get(
    LedgerId ledger) {
  auto read = store_->ReadNode(MarkPath(ledger));
  if (!read.ok()) return read.status();
  auto m = DecodeMark(ledger, read->value);
  if (!m.ok()) return m.status();
  m->version = read->version;
  return m;
}

absl::StatusOr<std::vector<LedgerId>> UnderreplicationManager::List() {
  std::vector<LedgerId> out;
  // Four levels of hex directories, then the leaves.
  std::vector<std::string> dirs = {kLedgersDir};
  for (int level = 0; level < 4; ++level) {
    std::vector<std::string> next;
    for (const auto& d : dirs) {
      auto kids = store_->ListChildren(d);
      if (absl::IsNotFound(kids.status())) continue;  // none, or removed
      if (!kids.ok()) return kids.status();
      for (const auto& k : *kids) next.push_back(absl::StrCat(d, "/", k));
    }
    dirs = std::move(next);
  }
  for (const auto& d : dirs) {
    auto kids = store_->ListChildren(d);
    if (absl::IsNotFound(kids.status())) continue;
    if (!kids.ok()) return kids.status();
    for (const auto& leaf : *kids) {
      absl::string_view digits = leaf;
      int64_t id = 0;
      if (absl::ConsumePrefix(&digits, kLeafPrefix) &&
          absl::SimpleAtoi(digits, &id) && id >= 0) {
        out.push_back(id);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

absl::Status UnderreplicationManager::Unmark(
    const UnderreplicatedLedger& mark,
    const std::vector<std::string>& repaired) {
  std::vector<std::string> left;
  for (const auto& b : mark.missing) {
    if (std::find(repaired.begin(), repaired.end(), b) == repaired.end()) {
      left.push_back(b);
    }
  }
  const std::string path = MarkPath(mark.ledger);
  if (left.empty()) return store_->DeleteNode(path, mark.version);
  UnderreplicatedLedger m = mark;
  m.missing = left;
  auto v = store_->SetNode(path, EncodeMark(m), mark.version);
  return v.status();
}

absl::StatusOr<bool> UnderreplicationManager::TryLock(
    LedgerId ledger, const std::string& owner) {
  auto created = store_->CreateNode(
      LockPath(ledger), owner, metadata::MetadataStore::NodeMode::kEphemeral);
  if (created.ok()) return true;
  if (absl::IsAlreadyExists(created.status())) return false;
  return created.status();
}

absl::Status UnderreplicationManager::Unlock(LedgerId ledger) {
  // Only our own: after a session expiry the lock may be another's.
  auto mine = store_->OwnsNode(LockPath(ledger));
  if (absl::IsNotFound(mine.status())) return absl::OkStatus();
  if (!mine.ok()) return mine.status();
  if (!*mine) return absl::OkStatus();
  absl::Status s = store_->DeleteNode(LockPath(ledger), metadata::kAnyVersion);
  return absl::IsNotFound(s) ? absl::OkStatus() : s;
}

absl::Status UnderreplicationManager::SetReplicationEnabled(bool enabled,
                                                            absl::Time now) {
  if (enabled) {
    absl::Status s = store_->DeleteNode(kDisableNode, metadata::kAnyVersion);
    return absl::IsNotFound(s) ? absl::OkStatus() : s;
  }
  auto created = store_->CreateNode(
      kDisableNode, absl::StrCat("ctime: ", absl::ToUnixMillis(now), "\n"),
      metadata::MetadataStore::NodeMode::kPersistent);
  if (created.ok() || absl::IsAlreadyExists(created.status())) {
    return absl::OkStatus();  // paused already: its first time stays
  }
  return created.status();
}

absl::StatusOr<std::optional<absl::Time>>
UnderreplicationManager::ReplicationDisabledSince() {
  auto read = store_->ReadNode(kDisableNode);
  if (absl::IsNotFound(read.status())) return std::optional<absl::Time>();
  if (!read.ok()) return read.status();
  // A node without a readable time (BookKeeper's has none) still pauses.
  int64_t ms = 0;
  absl::string_view v = read->value;
  if (absl::ConsumePrefix(&v, "ctime: ") &&
      absl::SimpleAtoi(absl::StripTrailingAsciiWhitespace(v), &ms)) {
    return std::optional<absl::Time>(absl::FromUnixMillis(ms));
  }
  return std::optional<absl::Time>(absl::InfinitePast());
}

absl::StatusOr<bool> UnderreplicationManager::ReplicationEnabled() {
  auto since = ReplicationDisabledSince();
  if (!since.ok()) return since.status();
  return !since->has_value();
}

}  // namespace bk::autorecovery
