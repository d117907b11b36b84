#include "metadata/store_base.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"

namespace bk::metadata {
namespace {

// Runs an asynchronous primitive and waits for its completion. The primitive
// bounds its own time (operation_timeout), so the wait is bounded too.
template <typename T, typename Start>
absl::StatusOr<T> Await(Start start) {
  absl::Notification done;
  std::optional<absl::StatusOr<T>> result;
  start([&](absl::StatusOr<T> r) {
    result.emplace(std::move(r));
    done.Notify();
  });
  done.WaitForNotification();
  return std::move(*result);
}

// Wraps `done` so that it runs on `ex`.
template <typename T>
Callback<T> OnExecutor(Executor* ex, Callback<T> done) {
  return [ex, done = std::move(done)](absl::StatusOr<T> r) mutable {
    ex->Post([done = std::move(done), r = std::move(r)]() mutable {
      done(std::move(r));
    });
  };
}

bool SameSet(const BookieSet& a, const BookieSet& b) {
  auto same = [](const std::vector<proto::BookieServiceInfo>& x,
                 const std::vector<proto::BookieServiceInfo>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].SerializeAsString() != y[i].SerializeAsString()) return false;
    }
    return true;
  };
  return same(a.writable, b.writable) && same(a.readonly, b.readonly);
}

}  // namespace

// Fields other than `id` are touched only on the callback thread.
struct StoreBase::LedgerWatch {
  LedgerId id;
  absl::AnyInvocable<void(absl::StatusOr<Versioned<proto::LedgerMetadata>>)>
      on_change;
  bool delivered = false;
  absl::StatusCode last_code = absl::StatusCode::kOk;
  Version last_version = kNotExists;
};

struct StoreBase::BookieWatch {
  absl::AnyInvocable<void(absl::StatusOr<BookieSet>)> on_change;
  bool delivered = false;
  absl::StatusCode last_code = absl::StatusCode::kOk;
  BookieSet last;
};

struct StoreBase::Listener {
  absl::AnyInvocable<void(SessionEvent)> fn;
};

class StoreBase::SubscriptionImpl : public Subscription {
 public:
  SubscriptionImpl(StoreBase* store, uint64_t id) : store_(store), id_(id) {}
  ~SubscriptionImpl() override { store_->Unsubscribe(id_); }

 private:
  StoreBase* const store_;
  const uint64_t id_;
};

StoreBase::StoreBase(std::string uri) : uri_(std::move(uri)) {}

StoreBase::~StoreBase() { callbacks_.Shutdown(); }

absl::StatusOr<LedgerId> StoreBase::NewLedgerId() {
  return Await<LedgerId>(
      [this](Callback<LedgerId> d) { DoNewLedgerId(std::move(d)); });
}

void StoreBase::NewLedgerIdAsync(Callback<LedgerId> done) {
  DoNewLedgerId(OnExecutor(&callbacks_, std::move(done)));
}

absl::StatusOr<Version> StoreBase::CreateLedger(
    LedgerId id, const proto::LedgerMetadata& metadata) {
  return Await<Version>(
      [&](Callback<Version> d) { DoCreateLedger(id, metadata, std::move(d)); });
}

void StoreBase::CreateLedgerAsync(LedgerId id,
                                  const proto::LedgerMetadata& metadata,
                                  Callback<Version> done) {
  DoCreateLedger(id, metadata, OnExecutor(&callbacks_, std::move(done)));
}

absl::StatusOr<Versioned<proto::LedgerMetadata>> StoreBase::ReadLedger(
    LedgerId id) {
  return Await<Versioned<proto::LedgerMetadata>>(
      [&](Callback<Versioned<proto::LedgerMetadata>> d) {
        DoReadLedger(id, std::move(d));
      });
}

void StoreBase::ReadLedgerAsync(
    LedgerId id, Callback<Versioned<proto::LedgerMetadata>> done) {
  DoReadLedger(id, OnExecutor(&callbacks_, std::move(done)));
}

absl::StatusOr<Version> StoreBase::CompareAndSetLedger(
    LedgerId id, const proto::LedgerMetadata& metadata, Version expected) {
  return Await<Version>([&](Callback<Version> d) {
    DoCompareAndSetLedger(id, metadata, expected, std::move(d));
  });
}

void StoreBase::CompareAndSetLedgerAsync(LedgerId id,
                                         const proto::LedgerMetadata& metadata,
                                         Version expected,
                                         Callback<Version> done) {
  DoCompareAndSetLedger(id, metadata, expected,
                        OnExecutor(&callbacks_, std::move(done)));
}

absl::Status StoreBase::DeleteLedger(LedgerId id, Version expected) {
  absl::StatusOr<bool> r = Await<bool>([&](Callback<bool> d) {
    DoDeleteLedger(id, expected, [d = std::move(d)](absl::Status s) mutable {
      if (s.ok()) {
        d(true);
      } else {
        d(std::move(s));
      }
    });
  });
  return r.status();
}

void StoreBase::DeleteLedgerAsync(LedgerId id, Version expected,
                                  StatusCallback done) {
  DoDeleteLedger(
      id, expected, [this, done = std::move(done)](absl::Status s) mutable {
        callbacks_.Post([done = std::move(done), s = std::move(s)]() mutable {
          done(std::move(s));
        });
      });
}

std::unique_ptr<Subscription> StoreBase::WatchLedger(
    LedgerId id,
    absl::AnyInvocable<void(absl::StatusOr<Versioned<proto::LedgerMetadata>>)>
        on_change) {
  auto w = std::make_shared<LedgerWatch>();
  w->id = id;
  w->on_change = std::move(on_change);
  uint64_t sub;
  {
    absl::MutexLock lock(&mu_);
    sub = next_sub_id_++;
    ledger_watches_.emplace(sub, std::move(w));
  }
  LedgerChanged(id);  // first delivery: the current state
  return std::make_unique<SubscriptionImpl>(this, sub);
}

std::unique_ptr<Subscription> StoreBase::WatchBookies(
    absl::AnyInvocable<void(absl::StatusOr<BookieSet>)> on_change) {
  auto w = std::make_shared<BookieWatch>();
  w->on_change = std::move(on_change);
  uint64_t sub;
  {
    absl::MutexLock lock(&mu_);
    sub = next_sub_id_++;
    bookie_watches_.emplace(sub, std::move(w));
  }
  BookiesChanged();
  return std::make_unique<SubscriptionImpl>(this, sub);
}

std::unique_ptr<Subscription> StoreBase::AddSessionListener(
    absl::AnyInvocable<void(SessionEvent)> listener) {
  auto l = std::make_shared<Listener>();
  l->fn = std::move(listener);
  absl::MutexLock lock(&mu_);
  const uint64_t sub = next_sub_id_++;
  listeners_.emplace(sub, std::move(l));
  return std::make_unique<SubscriptionImpl>(this, sub);
}

std::unique_ptr<Subscription> StoreBase::NewSubscription(uint64_t sub_id) {
  return std::make_unique<SubscriptionImpl>(this, sub_id);
}

void StoreBase::Unsubscribe(uint64_t sub_id) {
  {
    absl::MutexLock lock(&mu_);
    ledger_watches_.erase(sub_id);
    bookie_watches_.erase(sub_id);
    children_watches_.erase(sub_id);
    listeners_.erase(sub_id);
  }
  // A callback of this subscription may be running right now; wait it out
  // (unless we are that callback's thread).
  if (!callbacks_.InExecutorThread()) callbacks_.Drain();
}

void StoreBase::LedgerChanged(LedgerId id) {
  callbacks_.Post([this, id] { RefreshLedger(id); });
}

void StoreBase::BookiesChanged() {
  callbacks_.Post([this] { RefreshBookies(); });
}

void StoreBase::RefreshAllWatches() {
  std::vector<LedgerId> ids;
  bool bookies;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [sub, w] : ledger_watches_) ids.push_back(w->id);
    bookies = !bookie_watches_.empty();
  }
  for (LedgerId id : ids) LedgerChanged(id);
  if (bookies) BookiesChanged();
  RearmChildrenWatches();
}

void StoreBase::NotifySession(SessionEvent event) {
  auto notify = [this, event] {
    std::vector<std::pair<uint64_t, std::shared_ptr<Listener>>> ls;
    {
      absl::MutexLock lock(&mu_);
      ls.assign(listeners_.begin(), listeners_.end());
    }
    for (auto& [sub, l] : ls) {
      {
        absl::MutexLock lock(&mu_);
        if (!listeners_.contains(sub)) continue;
      }
      l->fn(event);
    }
  };
  if (callbacks_.InExecutorThread()) {
    notify();
  } else {
    callbacks_.Post(std::move(notify));
  }
}

void StoreBase::RefreshLedger(LedgerId id) {
  std::vector<std::pair<uint64_t, std::shared_ptr<LedgerWatch>>> ws;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [sub, w] : ledger_watches_) {
      if (w->id == id) ws.emplace_back(sub, w);
    }
  }
  if (ws.empty()) return;
  absl::StatusOr<Versioned<proto::LedgerMetadata>> r = ReadLedgerAndWatch(id);
  const absl::StatusCode code = r.status().code();
  const Version version = r.ok() ? r->version : kNotExists;
  for (auto& [sub, w] : ws) {
    if (w->delivered && w->last_code == code && w->last_version == version) {
      continue;  // nothing new for this watcher
    }
    {
      absl::MutexLock lock(&mu_);
      if (!ledger_watches_.contains(sub)) continue;
    }
    w->delivered = true;
    w->last_code = code;
    w->last_version = version;
    w->on_change(r);
  }
}

void StoreBase::RefreshBookies() {
  std::vector<std::pair<uint64_t, std::shared_ptr<BookieWatch>>> ws;
  {
    absl::MutexLock lock(&mu_);
    ws.assign(bookie_watches_.begin(), bookie_watches_.end());
  }
  if (ws.empty()) return;
  absl::StatusOr<BookieSet> r = ListBookiesAndWatch();
  for (auto& [sub, w] : ws) {
    if (w->delivered && w->last_code == r.status().code() &&
        (!r.ok() || SameSet(w->last, *r))) {
      continue;
    }
    {
      absl::MutexLock lock(&mu_);
      if (!bookie_watches_.contains(sub)) continue;
    }
    w->delivered = true;
    w->last_code = r.status().code();
    if (r.ok()) w->last = *r;
    w->on_change(r);
  }
}

}  // namespace bk::metadata
