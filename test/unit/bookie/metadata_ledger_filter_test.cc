// MetadataLedgerFilter over the in-process metadata store: a ledger is
// deleted only when its metadata read answers NotFound; a failed listing or
// read deletes nothing.

#include "bookie/daemon/metadata_ledger_filter.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace bk::bookie {
namespace {

proto::LedgerMetadata Md() {
  proto::LedgerMetadata md;
  md.set_ensemble_size(1);
  md.set_write_quorum_size(1);
  md.set_ack_quorum_size(1);
  proto::Segment* seg = md.add_segments();
  seg->set_first_entry_id(0);
  seg->add_bookies("bookie-0:3181");
  return md;
}

// A ledger list that fails after `fail_after` ids (-1: never).
class FailingIterator final : public metadata::LedgerIterator {
 public:
  FailingIterator(std::unique_ptr<metadata::LedgerIterator> inner,
                  int fail_after, absl::Status error)
      : inner_(std::move(inner)), left_(fail_after), error_(error) {}
  bool Next(metadata::LedgerId* id) override {
    if (left_ == 0) return false;
    if (left_ > 0) --left_;
    return inner_->Next(id);
  }
  absl::Status status() const override {
    return left_ == 0 ? error_ : inner_->status();
  }

 private:
  std::unique_ptr<metadata::LedgerIterator> inner_;
  int left_;
  absl::Status error_;
};

// The in-process store with errors injected into ReadLedger (per ledger)
// and ListLedgers; everything else is the real store.
class FaultyStore final : public metadata::MetadataStore {
 public:
  FaultyStore() {
    auto s = metadata::Open("mem://");
    REQUIRE(s.ok());
    inner_ = std::move(*s);
  }
  metadata::MetadataStore& inner() { return *inner_; }

  void FailRead(metadata::LedgerId id, absl::Status error) {
    absl::MutexLock l(&mu_);
    read_errors_[id] = error;
  }
  void FailList(int after, absl::Status error) {
    absl::MutexLock l(&mu_);
    list_fail_after_ = after;
    list_error_ = error;
  }
  int reads() {
    absl::MutexLock l(&mu_);
    return reads_;
  }

  const std::string& uri() const override { return inner_->uri(); }
  absl::StatusOr<metadata::LedgerId> NewLedgerId() override {
    return inner_->NewLedgerId();
  }
  void NewLedgerIdAsync(metadata::Callback<metadata::LedgerId> done) override {
    inner_->NewLedgerIdAsync(std::move(done));
  }
  absl::StatusOr<metadata::Version> CreateLedger(
      metadata::LedgerId id, const proto::LedgerMetadata& md) override {
    return inner_->CreateLedger(id, md);
  }
  void CreateLedgerAsync(metadata::LedgerId id, const proto::LedgerMetadata& md,
                         metadata::Callback<metadata::Version> done) override {
    inner_->CreateLedgerAsync(id, md, std::move(done));
  }
  absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>> ReadLedger(
      metadata::LedgerId id) override {
    {
      absl::MutexLock l(&mu_);
      ++reads_;
      auto it = read_errors_.find(id);
      if (it != read_errors_.end()) return it->second;
    }
    return inner_->ReadLedger(id);
  }
  void ReadLedgerAsync(
      metadata::LedgerId id,
      metadata::Callback<metadata::Versioned<proto::LedgerMetadata>> done)
      override {
    inner_->ReadLedgerAsync(id, std::move(done));
  }
  absl::StatusOr<metadata::Version> CompareAndSetLedger(
      metadata::LedgerId id, const proto::LedgerMetadata& md,
      metadata::Version expected) override {
    return inner_->CompareAndSetLedger(id, md, expected);
  }
  void CompareAndSetLedgerAsync(
      metadata::LedgerId id, const proto::LedgerMetadata& md,
      metadata::Version expected,
      metadata::Callback<metadata::Version> done) override {
    inner_->CompareAndSetLedgerAsync(id, md, expected, std::move(done));
  }
  absl::Status DeleteLedger(metadata::LedgerId id,
                            metadata::Version expected) override {
    return inner_->DeleteLedger(id, expected);
  }
  void DeleteLedgerAsync(metadata::LedgerId id, metadata::Version expected,
                         metadata::StatusCallback done) override {
    inner_->DeleteLedgerAsync(id, expected, std::move(done));
  }
  std::unique_ptr<metadata::LedgerIterator> ListLedgers() override {
    absl::MutexLock l(&mu_);
    return std::make_unique<FailingIterator>(inner_->ListLedgers(),
                                             list_fail_after_, list_error_);
  }
  std::unique_ptr<metadata::Subscription> WatchLedger(
      metadata::LedgerId id,
      absl::AnyInvocable<
          void(absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>>)>
          on_change) override {
    return inner_->WatchLedger(id, std::move(on_change));
  }
  absl::Status RegisterBookie(const proto::BookieServiceInfo& info) override {
    return inner_->RegisterBookie(info);
  }
  absl::Status UnregisterBookie(const std::string& id) override {
    return inner_->UnregisterBookie(id);
  }
  absl::StatusOr<metadata::BookieSet> ListBookies() override {
    return inner_->ListBookies();
  }
  std::unique_ptr<metadata::Subscription> WatchBookies(
      absl::AnyInvocable<void(absl::StatusOr<metadata::BookieSet>)> on_change)
      override {
    return inner_->WatchBookies(std::move(on_change));
  }
  absl::StatusOr<metadata::Versioned<proto::Cookie>> ReadCookie(
      const std::string& id) override {
    return inner_->ReadCookie(id);
  }
  absl::StatusOr<metadata::Version> WriteCookie(
      const std::string& id, const proto::Cookie& cookie,
      metadata::Version expected) override {
    return inner_->WriteCookie(id, cookie, expected);
  }
  absl::Status DeleteCookie(const std::string& id,
                            metadata::Version expected) override {
    return inner_->DeleteCookie(id, expected);
  }
  absl::StatusOr<std::string> InstanceId() override {
    return inner_->InstanceId();
  }
  std::unique_ptr<metadata::Subscription> AddSessionListener(
      absl::AnyInvocable<void(metadata::SessionEvent)> listener) override {
    return inner_->AddSessionListener(std::move(listener));
  }

 private:
  std::unique_ptr<metadata::MetadataStore> inner_;
  absl::Mutex mu_;
  std::map<metadata::LedgerId, absl::Status> read_errors_ ABSL_GUARDED_BY(mu_);
  int list_fail_after_ ABSL_GUARDED_BY(mu_) = -1;
  absl::Status list_error_ ABSL_GUARDED_BY(mu_);
  int reads_ ABSL_GUARDED_BY(mu_) = 0;
};

void Create(FaultyStore& store, std::initializer_list<int64_t> ids) {
  for (int64_t id : ids) REQUIRE(store.CreateLedger(id, Md()).ok());
}

// Asks the filter of one pass about `ids` (ascending), as GC does.
std::set<uint64_t> Deleted(MetadataLedgerFilter& filter,
                           std::vector<uint64_t> ids) {
  LedgerDeletedFn pass = filter.NewPass();
  std::set<uint64_t> out;
  for (uint64_t id : ids) {
    if (pass(id)) out.insert(id);
  }
  return out;
}

uint64_t Seed() {
  const char* env = std::getenv("BK_TEST_SEED");
  static const uint64_t seed = env ? std::stoull(env) : std::random_device()();
  return seed;
}

TEST_CASE("a ledger is deleted only when its metadata read says NotFound",
          "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1, 3});
  MetadataLedgerFilter filter(&store);
  CHECK(filter.VerifyDeleted(2));
  CHECK_FALSE(filter.VerifyDeleted(1));
  const absl::Status errors[] = {
      absl::UnavailableError("ensemble unreachable"),
      absl::DeadlineExceededError("timeout"),
      absl::DataLossError("undecodable record"),
      absl::InternalError("session expired"),
      absl::PermissionDeniedError("auth"),
      absl::AbortedError("raced"),
  };
  for (const absl::Status& e : errors) {
    INFO(e.ToString());
    store.FailRead(2, e);
    CHECK_FALSE(filter.VerifyDeleted(2));
  }
  store.FailRead(2, absl::NotFoundError("gone"));
  CHECK(filter.VerifyDeleted(2));
  CHECK_FALSE(filter.VerifyDeleted(uint64_t{1} << 63));  // not a store id
  CHECK(filter.stats().errors == std::size(errors));
}

TEST_CASE(
    "one pass lists once and reads only the ledgers the list lacks; ledgers "
    "without metadata are deleted",
    "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1, 3, 5, 10000, 20001});
  MetadataLedgerFilter filter(&store);
  CHECK(Deleted(filter, {1, 2, 3, 4, 5, 9999, 10000, 20001, 30000}) ==
        std::set<uint64_t>{2, 4, 9999, 30000});
  CHECK(filter.stats().listings == 1);
  CHECK(store.reads() == 4);
  CHECK(filter.stats().deleted == 4);

  SECTION("a pass asked nothing asks the store nothing") {
    CHECK(Deleted(filter, {}).empty());
    CHECK(filter.stats().listings == 1);
  }
  SECTION("the next directory's ids (lower again) start a new walk") {
    LedgerDeletedFn pass = filter.NewPass();
    CHECK_FALSE(pass(3));
    CHECK(pass(4));
    CHECK(pass(2));
    CHECK_FALSE(pass(5));
    CHECK(filter.stats().listings == 3);
  }
}

TEST_CASE("a ledger created after the listing is read, found and kept",
          "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1});
  MetadataLedgerFilter filter(&store);
  LedgerDeletedFn pass = filter.NewPass();
  CHECK_FALSE(pass(1));  // the walk has started
  Create(store, {7});
  CHECK_FALSE(pass(7));
  CHECK(pass(8));
}

TEST_CASE(
    "a failed listing deletes nothing in its pass; the next pass tries again",
    "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1, 2, 3});
  MetadataLedgerFilter filter(&store);
  store.FailList(1, absl::UnavailableError("connection loss"));
  CHECK(Deleted(filter, {1, 2, 3, 4, 5}).empty());
  CHECK(store.reads() == 0);
  CHECK(filter.stats().errors == 1);
  store.FailList(-1, absl::OkStatus());
  CHECK(Deleted(filter, {1, 2, 3, 4, 5}) == std::set<uint64_t>{4, 5});
}

TEST_CASE(
    "a failed metadata read keeps that ledger and stops the pass deleting",
    "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1});
  MetadataLedgerFilter filter(&store);
  store.FailRead(4, absl::UnavailableError("session expired"));
  CHECK(Deleted(filter, {1, 2, 4, 6, 8}) == std::set<uint64_t>{2});
  CHECK(store.reads() == 2);  // 2 and 4; then nothing more this pass
  CHECK(filter.stats().errors == 1);
}

TEST_CASE(
    "random clusters: exactly the bookie's ledgers without metadata are "
    "deleted, one read each",
    "[bookie][gc]") {
  const uint64_t seed = Seed();
  INFO("seed " << seed << " (BK_TEST_SEED to repeat)");
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20; ++round) {
    FaultyStore store;
    std::set<uint64_t> in_metadata, on_bookie;
    const int n = 1 + static_cast<int>(rng() % 300);
    for (int i = 0; i < n; ++i) {
      const uint64_t id = rng() % 1000;
      const int where = static_cast<int>(rng() % 3);  // 0 both, 1 md, 2 bookie
      if (where != 2 && in_metadata.insert(id).second) {
        REQUIRE(store.CreateLedger(static_cast<int64_t>(id), Md()).ok());
      }
      if (where != 1) on_bookie.insert(id);
    }
    MetadataLedgerFilter filter(&store);
    // Two directories (ledger % 2), each asked in ascending order.
    LedgerDeletedFn pass = filter.NewPass();
    std::set<uint64_t> deleted;
    for (uint64_t dir = 0; dir < 2; ++dir) {
      for (uint64_t id : on_bookie) {
        if (id % 2 == dir && pass(id)) deleted.insert(id);
      }
    }
    std::set<uint64_t> expected;
    std::set_difference(on_bookie.begin(), on_bookie.end(), in_metadata.begin(),
                        in_metadata.end(),
                        std::inserter(expected, expected.end()));
    INFO("round " << round);
    CHECK(deleted == expected);
    CHECK(store.reads() == static_cast<int>(expected.size()));
    CHECK(filter.stats().listings <= 2);
  }
}

}  // namespace
}  // namespace bk::bookie
