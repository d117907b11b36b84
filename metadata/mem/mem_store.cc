#include "metadata/mem/mem_store.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "metadata/layout.h"
#include "metadata/record_format.h"

namespace bk::metadata {
namespace {

// Walks the cluster's ledger map a page at a time.
class MemLedgerIterator : public LedgerIterator {
 public:
  explicit MemLedgerIterator(std::shared_ptr<MemCluster> cluster)
      : cluster_(std::move(cluster)) {}

  bool Next(LedgerId* id) override {
    if (pos_ == page_.size()) {
      if (done_) return false;
      page_ = cluster_->ListLedgers(last_, kPageSize);
      pos_ = 0;
      if (page_.size() < kPageSize) done_ = true;
      if (page_.empty()) return false;
    }
    *id = last_ = page_[pos_++];
    return true;
  }
  absl::Status status() const override { return absl::OkStatus(); }

 private:
  static constexpr size_t kPageSize = 1000;
  const std::shared_ptr<MemCluster> cluster_;
  std::vector<LedgerId> page_;
  size_t pos_ = 0;
  LedgerId last_ = -1;
  bool done_ = false;
};

std::string Where(const std::string& uri, LedgerId id) {
  return absl::StrCat(uri, " ledger ", id);
}

}  // namespace

MemStore::MemStore(std::string uri, std::shared_ptr<MemCluster> cluster,
                   const OpenOptions& options)
    : StoreBase(std::move(uri)),
      cluster_(std::move(cluster)),
      id_batch_(std::max<int64_t>(1, options.ledger_id_batch)),
      session_(cluster_->NewSession()) {
  cluster_->AddObserver(this);
}

MemStore::~MemStore() {
  MemCluster::SessionId session;
  {
    absl::MutexLock lock(&mu_);
    session = session_;
  }
  cluster_->EndSession(session);
  cluster_->RemoveObserver(this);
  ShutdownCallbacks();
}

void MemStore::ExpireSession() {
  MemCluster::SessionId session;
  {
    absl::MutexLock lock(&mu_);
    session = session_;
  }
  cluster_->EndSession(session);
  NotifySession(SessionEvent::kExpired);
  callbacks().Post([this] { StartNewSession(); });
}

void MemStore::StartNewSession() {
  std::vector<proto::BookieServiceInfo> owned;
  MemCluster::SessionId session = cluster_->NewSession();
  {
    absl::MutexLock lock(&mu_);
    session_ = session;
    for (const auto& [id, info] : registered_) owned.push_back(info);
  }
  for (const proto::BookieServiceInfo& info : owned) {
    absl::StatusOr<std::string> bytes = EncodeBookie(info);
    if (bytes.ok()) {
      // Fails only if another session took the id meanwhile; then it is
      // theirs, as on ZooKeeper, and the owner learns of the expiry from
      // the listeners.
      (void)cluster_->Register(session, info.bookie_id(), *std::move(bytes),
                               info.read_only());
    }
  }
  RefreshAllWatches();
  NotifySession(SessionEvent::kReestablished);
}

void MemStore::DoNewLedgerId(Callback<LedgerId> done) {
  LedgerId id;
  {
    absl::MutexLock lock(&mu_);
    if (next_id_ == id_end_) {
      next_id_ = cluster_->AllocateIds(id_batch_);
      id_end_ = next_id_ + id_batch_;
    }
    id = next_id_++;
  }
  done(id);
}

void MemStore::DoCreateLedger(LedgerId id,
                              const proto::LedgerMetadata& metadata,
                              Callback<Version> done) {
  if (id < 0) {
    done(absl::InvalidArgumentError(absl::StrCat("ledger id ", id, " < 0")));
    return;
  }
  absl::StatusOr<std::string> bytes = EncodeLedger(metadata);
  if (!bytes.ok()) {
    done(bytes.status());
    return;
  }
  done(cluster_->CreateLedger(id, *std::move(bytes)));
}

absl::StatusOr<Versioned<proto::LedgerMetadata>> MemStore::Read(LedgerId id) {
  absl::StatusOr<MemCluster::Record> rec = cluster_->ReadLedger(id);
  if (!rec.ok()) return rec.status();
  absl::StatusOr<proto::LedgerMetadata> md =
      DecodeLedger(rec->bytes, Where(uri(), id));
  if (!md.ok()) return md.status();
  return Versioned<proto::LedgerMetadata>{*std::move(md), rec->version};
}

void MemStore::DoReadLedger(LedgerId id,
                            Callback<Versioned<proto::LedgerMetadata>> done) {
  done(Read(id));
}

void MemStore::DoCompareAndSetLedger(LedgerId id,
                                     const proto::LedgerMetadata& metadata,
                                     Version expected, Callback<Version> done) {
  absl::StatusOr<std::string> bytes = EncodeLedger(metadata);
  if (!bytes.ok()) {
    done(bytes.status());
    return;
  }
  done(cluster_->SetLedger(id, *std::move(bytes), expected));
}

void MemStore::DoDeleteLedger(LedgerId id, Version expected,
                              StatusCallback done) {
  done(cluster_->DeleteLedger(id, expected));
}

absl::StatusOr<Versioned<proto::LedgerMetadata>> MemStore::ReadLedgerAndWatch(
    LedgerId id) {
  return Read(id);  // the cluster tells us of every change
}

absl::StatusOr<BookieSet> MemStore::ListBookiesAndWatch() {
  return ListBookies();
}

absl::StatusOr<std::vector<std::string>> MemStore::ListChildrenAndWatch(
    const std::string& path) {
  return ListChildren(path);  // the cluster tells us of every change
}

std::unique_ptr<LedgerIterator> MemStore::ListLedgers() {
  return std::make_unique<MemLedgerIterator>(cluster_);
}

absl::Status MemStore::RegisterBookie(const proto::BookieServiceInfo& info) {
  absl::StatusOr<std::string> bytes = EncodeBookie(info);
  if (!bytes.ok()) return bytes.status();
  absl::MutexLock lock(&mu_);
  absl::Status s = cluster_->Register(session_, info.bookie_id(),
                                      *std::move(bytes), info.read_only());
  if (s.ok()) registered_[info.bookie_id()] = info;
  return s;
}

absl::Status MemStore::UnregisterBookie(const std::string& bookie_id) {
  absl::MutexLock lock(&mu_);
  registered_.erase(bookie_id);
  return cluster_->Unregister(session_, bookie_id);
}

absl::StatusOr<BookieSet> MemStore::ListBookies() {
  BookieSet set;
  for (const MemCluster::Registration& reg : cluster_->Registrations()) {
    Layout layout("");
    absl::StatusOr<proto::BookieServiceInfo> info = DecodeBookie(
        reg.bytes, uri() + layout.Bookie(reg.bookie_id, reg.read_only));
    if (!info.ok()) return info.status();
    (reg.read_only ? set.readonly : set.writable).push_back(*std::move(info));
  }
  return set;  // the cluster's map is ordered by bookie id
}

absl::StatusOr<Versioned<proto::Cookie>> MemStore::ReadCookie(
    const std::string& bookie_id) {
  absl::StatusOr<MemCluster::Record> rec = cluster_->ReadCookie(bookie_id);
  if (!rec.ok()) return rec.status();
  absl::StatusOr<proto::Cookie> cookie =
      DecodeCookie(rec->bytes, absl::StrCat(uri(), " cookie ", bookie_id));
  if (!cookie.ok()) return cookie.status();
  return Versioned<proto::Cookie>{*std::move(cookie), rec->version};
}

absl::StatusOr<Version> MemStore::WriteCookie(const std::string& bookie_id,
                                              const proto::Cookie& cookie,
                                              Version expected) {
  if (absl::Status s = ValidateBookieId(bookie_id); !s.ok()) return s;
  absl::StatusOr<std::string> bytes = EncodeCookie(cookie);
  if (!bytes.ok()) return bytes.status();
  return cluster_->WriteCookie(bookie_id, *std::move(bytes), expected);
}

absl::Status MemStore::DeleteCookie(const std::string& bookie_id,
                                    Version expected) {
  return cluster_->DeleteCookie(bookie_id, expected);
}

absl::StatusOr<Versioned<BookieGroups>> MemStore::ReadBookieGroups(
    const std::string& bookie_id) {
  absl::StatusOr<MemCluster::Record> rec = cluster_->ReadGroups(bookie_id);
  if (!rec.ok()) return rec.status();
  absl::StatusOr<BookieGroups> groups = DecodeBookieGroups(
      rec->bytes, absl::StrCat(uri(), " groups of ", bookie_id));
  if (!groups.ok()) return groups.status();
  return Versioned<BookieGroups>{*std::move(groups), rec->version};
}

absl::StatusOr<Version> MemStore::WriteBookieGroups(const BookieGroups& groups,
                                                    Version expected) {
  absl::StatusOr<std::string> bytes = EncodeBookieGroups(groups);
  if (!bytes.ok()) return bytes.status();
  return cluster_->WriteGroups(groups.bookie_id, *std::move(bytes), expected);
}

absl::Status MemStore::DeleteBookieGroups(const std::string& bookie_id,
                                          Version expected) {
  return cluster_->DeleteGroups(bookie_id, expected);
}

absl::StatusOr<std::vector<BookieGroups>> MemStore::ListBookieGroups() {
  std::vector<BookieGroups> out;
  for (const MemCluster::Record& rec : cluster_->ListGroups()) {
    absl::StatusOr<BookieGroups> groups =
        DecodeBookieGroups(rec.bytes, absl::StrCat(uri(), " bookie groups"));
    if (!groups.ok()) return groups.status();
    out.push_back(*std::move(groups));
  }
  return out;  // the cluster's map is ordered by bookie id
}

absl::StatusOr<std::vector<std::string>> MemStore::ListCookies() {
  return cluster_->CookieIds();
}

absl::StatusOr<std::string> MemStore::InstanceId() {
  return cluster_->InstanceId(MakeInstanceId());
}

absl::StatusOr<std::string> MemStore::CreateNode(const std::string& path,
                                                 const std::string& data,
                                                 NodeMode mode) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  MemCluster::SessionId session;
  {
    absl::MutexLock lock(&mu_);
    session = session_;
  }
  return cluster_->CreateNode(session, path, data, mode);
}

absl::StatusOr<Versioned<std::string>> MemStore::ReadNode(
    const std::string& path) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  auto r = cluster_->ReadNode(path);
  if (!r.ok()) return r.status();
  return Versioned<std::string>{std::move(r->bytes), r->version};
}

absl::StatusOr<Version> MemStore::SetNode(const std::string& path,
                                          const std::string& data,
                                          Version expected) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  return cluster_->SetNode(path, data, expected);
}

absl::Status MemStore::DeleteNode(const std::string& path, Version expected) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  return cluster_->DeleteNode(path, expected);
}

absl::StatusOr<std::vector<std::string>> MemStore::ListChildren(
    const std::string& path) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  return cluster_->ListChildren(path);
}

absl::StatusOr<bool> MemStore::OwnsNode(const std::string& path) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  auto owner = cluster_->NodeOwner(path);
  if (!owner.ok()) return owner.status();
  absl::MutexLock lock(&mu_);
  return *owner == session_;
}

}  // namespace bk::metadata
