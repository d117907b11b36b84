// MetadataLedgerFilter over the in-process metadata store: a ledger is
// deleted only when its metadata reads answer NotFound in two passes; a
// failed listing or read deletes nothing. (Stale reads:
// gc_stale_metadata_test.cc.)

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
#include "test/support/forwarding_store.h"
#include "test/support/ledger_metadata.h"
#include "test/support/test_seed.h"

namespace bk::bookie {
namespace {

proto::LedgerMetadata Md() {
  return testing::TestLedgerMetadata(
      {.segments = {{"bookie-0:3181"}}, .write_quorum = 1, .ack_quorum = 1});
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
class FaultyStore final : public testing::ForwardingStore {
 public:
  FaultyStore() : ForwardingStore(OpenMem()) {}

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

  absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>> ReadLedger(
      metadata::LedgerId id) override {
    {
      absl::MutexLock l(&mu_);
      ++reads_;
      auto it = read_errors_.find(id);
      if (it != read_errors_.end()) return it->second;
    }
    return ForwardingStore::ReadLedger(id);
  }
  std::unique_ptr<metadata::LedgerIterator> ListLedgers() override {
    absl::MutexLock l(&mu_);
    return std::make_unique<FailingIterator>(ForwardingStore::ListLedgers(),
                                             list_fail_after_, list_error_);
  }

 private:
  static std::unique_ptr<metadata::MetadataStore> OpenMem() {
    auto s = metadata::Open("mem://");
    REQUIRE(s.ok());
    return std::move(*s);
  }

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

uint64_t Seed() { return bk::testing::TestSeed(); }

TEST_CASE(
    "a ledger is deleted only when its metadata reads say NotFound, in two "
    "passes",
    "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1, 3});
  MetadataLedgerFilter filter(&store);
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
    CHECK(Deleted(filter, {1, 2}).empty());
  }
  CHECK(filter.stats().errors == std::size(errors));
  store.FailRead(2, absl::NotFoundError("gone"));
  CHECK(Deleted(filter, {1, 2}).empty());
  CHECK(Deleted(filter, {1, 2}) == std::set<uint64_t>{2});
  const uint64_t not_a_store_id = uint64_t{1} << 63;
  CHECK(Deleted(filter, {not_a_store_id}).empty());
  CHECK(Deleted(filter, {not_a_store_id}).empty());
  CHECK(filter.stats().deleted == 1);
}

TEST_CASE(
    "each pass syncs and lists once and reads only the ledgers the list "
    "lacks, ledgers without metadata go at the second pass",
    "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1, 3, 5, 10000, 20001});
  MetadataLedgerFilter filter(&store);
  const std::vector<uint64_t> ours = {1, 2, 3, 4, 5, 9999, 10000, 20001, 30000};
  CHECK(Deleted(filter, ours).empty());
  CHECK(filter.stats().syncs == 1);
  CHECK(filter.stats().listings == 1);
  CHECK(store.reads() == 4);
  CHECK(filter.stats().missing == 4);

  SECTION("the second pass deletes them") {
    CHECK(Deleted(filter, ours) == std::set<uint64_t>{2, 4, 9999, 30000});
    CHECK(filter.stats().syncs == 2);
    CHECK(filter.stats().listings == 2);
    CHECK(store.reads() == 8);
    CHECK(filter.stats().deleted == 4);
  }
  SECTION("a pass asked nothing asks the store nothing") {
    CHECK(Deleted(filter, {}).empty());
    CHECK(filter.stats().syncs == 1);
    CHECK(filter.stats().listings == 1);
  }
  SECTION("the next directory's ids (lower again) start a new walk") {
    LedgerDeletedFn pass = filter.NewPass();
    CHECK_FALSE(pass(3));
    CHECK(pass(4));
    CHECK(pass(2));
    CHECK_FALSE(pass(5));
    CHECK(filter.stats().listings == 3);
    CHECK(filter.stats().syncs == 2);
  }
}

TEST_CASE("a ledger created after the listing is read, found and kept",
          "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1});
  MetadataLedgerFilter filter(&store);
  CHECK(Deleted(filter, {1, 8}).empty());
  LedgerDeletedFn pass = filter.NewPass();
  CHECK_FALSE(pass(1));  // the walk has started
  Create(store, {7});
  CHECK_FALSE(pass(7));
  CHECK(pass(8));
}

TEST_CASE(
    "a failed listing deletes nothing in its pass, the next pass tries again",
    "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1, 2, 3});
  MetadataLedgerFilter filter(&store);
  store.FailList(1, absl::UnavailableError("connection loss"));
  CHECK(Deleted(filter, {1, 2, 3, 4, 5}).empty());
  CHECK(store.reads() == 0);
  CHECK(filter.stats().errors == 1);
  store.FailList(-1, absl::OkStatus());
  CHECK(Deleted(filter, {1, 2, 3, 4, 5}).empty());
  CHECK(Deleted(filter, {1, 2, 3, 4, 5}) == std::set<uint64_t>{4, 5});
}

TEST_CASE("a failed metadata read keeps that ledger and stops the pass asking",
          "[bookie][gc]") {
  FaultyStore store;
  Create(store, {1});
  MetadataLedgerFilter filter(&store);
  store.FailRead(4, absl::UnavailableError("session expired"));
  CHECK(Deleted(filter, {1, 2, 4, 6, 8}).empty());
  CHECK(store.reads() == 2);  // 2 and 4; then nothing more this pass
  CHECK(filter.stats().errors == 1);
  CHECK(Deleted(filter, {1, 2, 4, 6, 8}) == std::set<uint64_t>{2});
  CHECK(store.reads() == 4);
}

TEST_CASE(
    "random clusters: exactly the bookie's ledgers without metadata are "
    "deleted at the second pass, one read each per pass",
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
    auto pass = [&] {
      LedgerDeletedFn deleted_fn = filter.NewPass();
      std::set<uint64_t> deleted;
      for (uint64_t dir = 0; dir < 2; ++dir) {
        for (uint64_t id : on_bookie) {
          if (id % 2 == dir && deleted_fn(id)) deleted.insert(id);
        }
      }
      return deleted;
    };
    std::set<uint64_t> expected;
    std::set_difference(on_bookie.begin(), on_bookie.end(), in_metadata.begin(),
                        in_metadata.end(),
                        std::inserter(expected, expected.end()));
    INFO("round " << round);
    CHECK(pass().empty());
    CHECK(pass() == expected);
    CHECK(store.reads() == 2 * static_cast<int>(expected.size()));
    CHECK(filter.stats().listings <= 4);
  }
}

}  // namespace
}  // namespace bk::bookie
