// Ledger metadata on ZooKeeper: create / read / compare-and-set / delete,
// the ledger iterator, and the read behind a ledger watch.

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "metadata/record_format.h"
#include "metadata/zk/zk_store.h"

namespace bk::metadata {
namespace {

absl::Status CheckVersion(Version v, bool allow_any) {
  if ((v >= 0 && v <= std::numeric_limits<int32_t>::max()) ||
      (allow_any && v == kAnyVersion)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("bad expected version ", v));
}

// Walks <root>/ledgers depth first in name order (= id order: names are
// fixed-width digits), one leaf directory (at most 10,000 ledgers) per page.
class ZkLedgerIterator : public LedgerIterator {
 public:
  ZkLedgerIterator(ZkSession* session, std::string base)
      : session_(session), base_(std::move(base)) {}

  bool Next(LedgerId* id) override {
    while (pos_ == page_.size()) {
      if (!status_.ok() || done_) return false;
      LoadPage();
    }
    *id = page_[pos_++];
    return true;
  }
  absl::Status status() const override { return status_; }

 private:
  std::string DirPath() const {
    std::string p = base_;
    for (size_t i = 0; i < names_.size(); ++i) {
      absl::StrAppend(&p, "/", names_[i][index_[i]]);
    }
    return p;
  }

  // Children of `path`, sorted; NONODE (removed meanwhile) is empty.
  bool List(const std::string& path, std::vector<std::string>* out) {
    ZkResult r = session_->Call(
        [&](ZkDone d) { session_->GetChildren(path, false, std::move(d)); });
    if (r.rc == ZNONODE) {
      out->clear();
      return true;
    }
    if (r.rc != ZOK) {
      status_ = ZkError(r.rc, path);
      return false;
    }
    *out = std::move(r.children);
    std::sort(out->begin(), out->end());
    return true;
  }

  void Push(int level, std::vector<std::string> children) {
    std::vector<std::string> dirs;
    for (std::string& c : children) {
      if (IsLedgerDirName(level, c)) dirs.push_back(std::move(c));
    }
    names_.push_back(std::move(dirs));
    index_.push_back(0);
  }

  // Fills page_ with the next non-empty leaf directory, or sets done_.
  void LoadPage() {
    page_.clear();
    pos_ = 0;
    std::vector<std::string> children;
    if (!started_) {
      started_ = true;
      if (!List(base_, &children)) return;
      Push(0, std::move(children));
    }
    while (!names_.empty()) {
      const size_t level = names_.size() - 1;
      if (index_[level] >= names_[level].size()) {
        names_.pop_back();
        index_.pop_back();
        if (!index_.empty()) ++index_.back();
        continue;
      }
      if (!List(DirPath(), &children)) return;
      if (names_.size() < kLedgerDirLevels) {
        Push(static_cast<int>(names_.size()), std::move(children));
        continue;
      }
      std::vector<std::string> dirs;
      for (size_t i = 0; i < names_.size(); ++i) {
        dirs.push_back(names_[i][index_[i]]);
      }
      for (const std::string& leaf : children) {
        if (std::optional<LedgerId> id = ParseLedgerId(dirs, leaf)) {
          page_.push_back(*id);
        }
      }
      std::sort(page_.begin(), page_.end());
      ++index_[level];
      if (!page_.empty()) return;
    }
    done_ = true;
  }

  ZkSession* const session_;
  const std::string base_;
  // The directory being walked: names_[i][index_[i]] at level i.
  std::vector<std::vector<std::string>> names_;
  std::vector<size_t> index_;
  std::vector<LedgerId> page_;
  size_t pos_ = 0;
  bool started_ = false;
  bool done_ = false;
  absl::Status status_;
};

}  // namespace

std::string ZkStore::Where(LedgerId id) const {
  return absl::StrCat(uri(), " ledger ", id, " (", layout_.Ledger(id), ")");
}

void ZkStore::DoCreateLedger(LedgerId id, const proto::LedgerMetadata& metadata,
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
  CreateLedgerNode(id, *std::move(bytes), 0, std::move(done));
}

void ZkStore::CreateLedgerNode(LedgerId id, std::string bytes,
                               int parent_attempts, Callback<Version> done) {
  const std::string path = layout_.Ledger(id);
  session_->Create(
      path, bytes, 0,
      [this, id, path, bytes, parent_attempts,
       done = std::move(done)](ZkResult r) mutable {
        if (r.rc == ZOK) {
          done(Version{r.stat.version});
        } else if (r.rc == ZNONODE && parent_attempts < 3) {
          // Parent directories missing. Requests of one session are applied
          // in order, so the parents are created before the retried leaf;
          // an already existing parent is fine.
          std::string p = layout_.Ledgers();
          const std::vector<std::string> parts = LedgerPathParts(id);
          for (int i = 0; i < kLedgerDirLevels; ++i) {
            absl::StrAppend(&p, "/", parts[i]);
            session_->Create(p, "", 0, [](ZkResult) {});
          }
          CreateLedgerNode(id, std::move(bytes), parent_attempts + 1,
                           std::move(done));
        } else if (r.rc == ZNODEEXISTS && r.retried) {
          // Our first attempt may have created it: look.
          session_->Get(
              path, false,
              [this, id, bytes = std::move(bytes),
               done = std::move(done)](ZkResult g) mutable {
                if (g.rc == ZOK && g.data == bytes && g.stat.version == 0) {
                  done(Version{0});
                } else {
                  done(ZkError(ZNODEEXISTS, Where(id)));
                }
              });
        } else {
          done(ZkError(r.rc, Where(id)));
        }
      });
}

void ZkStore::DoReadLedger(LedgerId id,
                           Callback<Versioned<proto::LedgerMetadata>> done) {
  session_->Get(
      layout_.Ledger(id), false,
      [this, id, done = std::move(done)](ZkResult r) mutable {
        if (r.rc != ZOK) {
          done(ZkError(r.rc, Where(id)));
          return;
        }
        absl::StatusOr<proto::LedgerMetadata> md =
            DecodeLedger(r.data, Where(id));
        if (!md.ok()) {
          done(md.status());
          return;
        }
        done(Versioned<proto::LedgerMetadata>{*std::move(md), r.stat.version});
      });
}

void ZkStore::DoCompareAndSetLedger(LedgerId id,
                                    const proto::LedgerMetadata& metadata,
                                    Version expected, Callback<Version> done) {
  if (absl::Status s = CheckVersion(expected, false); !s.ok()) {
    done(s);  // ZooKeeper's -1 would mean "any": never let it through
    return;
  }
  absl::StatusOr<std::string> bytes = EncodeLedger(metadata);
  if (!bytes.ok()) {
    done(bytes.status());
    return;
  }
  const std::string path = layout_.Ledger(id);
  std::string data = *bytes;
  session_->Set(path, std::move(data), static_cast<int>(expected),
                [this, id, path, expected, bytes = *std::move(bytes),
                 done = std::move(done)](ZkResult r) mutable {
                  if (r.rc == ZOK) {
                    done(Version{r.stat.version});
                  } else if (r.rc == ZBADVERSION && r.retried) {
                    session_->Get(path, false,
                                  [this, id, expected, bytes = std::move(bytes),
                                   done = std::move(done)](ZkResult g) mutable {
                                    if (g.rc == ZOK && g.data == bytes &&
                                        g.stat.version == expected + 1) {
                                      done(Version{g.stat.version});
                                    } else {
                                      done(ZkError(ZBADVERSION, Where(id)));
                                    }
                                  });
                  } else {
                    done(ZkError(r.rc, Where(id)));
                  }
                });
}

void ZkStore::DoDeleteLedger(LedgerId id, Version expected,
                             StatusCallback done) {
  if (absl::Status s = CheckVersion(expected, true); !s.ok()) {
    done(s);
    return;
  }
  const int version = expected == kAnyVersion ? -1 : static_cast<int>(expected);
  session_->Delete(layout_.Ledger(id), version,
                   [this, id, done = std::move(done)](ZkResult r) mutable {
                     if (r.rc == ZOK || (r.rc == ZNONODE && r.retried)) {
                       done(absl::OkStatus());
                     } else {
                       done(ZkError(r.rc, Where(id)));
                     }
                   });
}

std::unique_ptr<LedgerIterator> ZkStore::ListLedgers() {
  return std::make_unique<ZkLedgerIterator>(session_.get(), layout_.Ledgers());
}

absl::StatusOr<Versioned<proto::LedgerMetadata>> ZkStore::ReadLedgerAndWatch(
    LedgerId id) {
  const std::string path = layout_.Ledger(id);
  for (;;) {
    ZkResult r = session_->Call(
        [&](ZkDone d) { session_->Get(path, true, std::move(d)); });
    if (r.rc == ZOK) {
      absl::StatusOr<proto::LedgerMetadata> md =
          DecodeLedger(r.data, Where(id));
      if (!md.ok()) return md.status();
      return Versioned<proto::LedgerMetadata>{*std::move(md), r.stat.version};
    }
    if (r.rc != ZNONODE) return ZkError(r.rc, Where(id));
    // A get leaves no watch on a missing node; exists does (for creation).
    ZkResult e = session_->Call(
        [&](ZkDone d) { session_->Exists(path, true, std::move(d)); });
    if (e.rc == ZNONODE) return ZkError(ZNONODE, Where(id));
    if (e.rc != ZOK) return ZkError(e.rc, Where(id));
    // Created meanwhile: read it.
  }
}

}  // namespace bk::metadata
