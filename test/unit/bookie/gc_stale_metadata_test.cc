// GC against a metadata store that answers stale reads, as a ZooKeeper
// session on a follower that lags the leader does: a ledger is deleted only
// after the store was synced and two passes in a row found its metadata
// missing (BookKeeper syncs before listing; the second pass is our margin).

#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "bookie/daemon/metadata_ledger_filter.h"
#include "test/support/forwarding_store.h"
#include "test/support/ledger_metadata.h"
#include "test/support/test_seed.h"

namespace bk::bookie {
namespace {

proto::LedgerMetadata Md() {
  return testing::TestLedgerMetadata(
      {.segments = {{"bookie-0:3181"}}, .write_quorum = 1, .ack_quorum = 1});
}

// Ids of a ledger list, minus the hidden ones.
class HidingIterator final : public metadata::LedgerIterator {
 public:
  HidingIterator(std::unique_ptr<metadata::LedgerIterator> inner,
                 absl::flat_hash_set<metadata::LedgerId> hidden)
      : inner_(std::move(inner)), hidden_(std::move(hidden)) {}
  bool Next(metadata::LedgerId* id) override {
    while (inner_->Next(id)) {
      if (!hidden_.contains(*id)) return true;
    }
    return false;
  }
  absl::Status status() const override { return inner_->status(); }

 private:
  std::unique_ptr<metadata::LedgerIterator> inner_;
  const absl::flat_hash_set<metadata::LedgerId> hidden_;
};

// The leader's store read through a lagging server: a hidden ledger (one
// the server has not applied yet) is missing from reads and lists until a
// Sync catches the server up. A server that ignores sync
// (`sync_catches_up = false`) keeps them hidden until Show().
class LaggingStore final : public testing::ForwardingStore {
 public:
  explicit LaggingStore(metadata::MetadataStore* leader)
      : ForwardingStore(leader) {}

  // The leader has `id`; this server does not know it yet.
  void Hide(metadata::LedgerId id) {
    absl::MutexLock l(&mu_);
    hidden_.insert(id);
  }
  void Show(metadata::LedgerId id) {
    absl::MutexLock l(&mu_);
    hidden_.erase(id);
  }
  void set_sync_catches_up(bool v) {
    absl::MutexLock l(&mu_);
    sync_catches_up_ = v;
  }
  void set_sync_error(absl::Status s) {
    absl::MutexLock l(&mu_);
    sync_error_ = std::move(s);
  }
  int syncs() {
    absl::MutexLock l(&mu_);
    return syncs_;
  }
  int reads() {
    absl::MutexLock l(&mu_);
    return reads_;
  }

  absl::Status Sync() override {
    absl::MutexLock l(&mu_);
    ++syncs_;
    if (!sync_error_.ok()) return sync_error_;
    if (sync_catches_up_) hidden_.clear();
    return absl::OkStatus();
  }
  absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>> ReadLedger(
      metadata::LedgerId id) override {
    {
      absl::MutexLock l(&mu_);
      ++reads_;
      if (hidden_.contains(id)) {
        return absl::NotFoundError("not applied on this server yet");
      }
    }
    return ForwardingStore::ReadLedger(id);
  }
  std::unique_ptr<metadata::LedgerIterator> ListLedgers() override {
    absl::MutexLock l(&mu_);
    return std::make_unique<HidingIterator>(ForwardingStore::ListLedgers(),
                                            hidden_);
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_set<metadata::LedgerId> hidden_ ABSL_GUARDED_BY(mu_);
  bool sync_catches_up_ ABSL_GUARDED_BY(mu_) = true;
  absl::Status sync_error_ ABSL_GUARDED_BY(mu_);
  int syncs_ ABSL_GUARDED_BY(mu_) = 0;
  int reads_ ABSL_GUARDED_BY(mu_) = 0;
};

struct Cluster {
  Cluster() {
    auto s = metadata::Open("mem://");
    REQUIRE(s.ok());
    leader = std::move(*s);
  }
  void Create(metadata::LedgerId id) {
    REQUIRE(leader->CreateLedger(id, Md()).ok());
  }
  void Delete(metadata::LedgerId id) {
    REQUIRE(leader->DeleteLedger(id, metadata::kAnyVersion).ok());
  }
  std::unique_ptr<metadata::MetadataStore> leader;
};

// One GC pass over `ids` (ascending, one directory).
std::set<uint64_t> Pass(MetadataLedgerFilter& filter,
                        const std::vector<uint64_t>& ids) {
  LedgerDeletedFn pass = filter.NewPass();
  std::set<uint64_t> out;
  for (uint64_t id : ids) {
    if (pass(id)) out.insert(id);
  }
  return out;
}

uint64_t Seed() { return bk::testing::TestSeed(); }

TEST_CASE(
    "GC syncs the store first: a ledger a lagging server has not seen yet "
    "is kept",
    "[bookie][gc]") {
  Cluster c;
  c.Create(1);
  c.Create(2);
  LaggingStore store(c.leader.get());
  store.Hide(2);  // created a moment ago on the leader
  MetadataLedgerFilter filter(&store);
  for (int pass = 0; pass < 3; ++pass) {
    INFO("pass " << pass);
    CHECK(Pass(filter, {1, 2}).empty());
    CHECK(store.syncs() == pass + 1);  // one sync per pass
  }
  CHECK(filter.stats().deleted == 0);
}

TEST_CASE(
    "a ledger is deleted only when two passes in a row find its metadata "
    "missing",
    "[bookie][gc]") {
  Cluster c;
  c.Create(1);
  c.Create(5);
  LaggingStore store(c.leader.get());
  store.set_sync_catches_up(false);  // a server that ignores sync
  MetadataLedgerFilter filter(&store);

  store.Hide(5);
  CHECK(Pass(filter, {1, 5}).empty());  // missing once: kept
  store.Show(5);
  CHECK(Pass(filter, {1, 5}).empty());  // there after all: forgotten
  store.Hide(5);
  CHECK(Pass(filter, {1, 5}).empty());  // missing once again: kept
  CHECK(filter.stats().missing == 2);
  store.Show(5);
  c.Delete(5);
  CHECK(Pass(filter, {1, 5}) == std::set<uint64_t>{5});  // missing twice
  CHECK(filter.stats().deleted == 1);

  SECTION("a ledger never seen missing before is not deleted at once") {
    CHECK(Pass(filter, {1, 7}).empty());
    CHECK(Pass(filter, {1, 7}) == std::set<uint64_t>{7});
  }
  SECTION("a pass that stops early does not count against a ledger") {
    CHECK(Pass(filter, {1, 8}).empty());  // 8 missing once
    store.set_sync_error(absl::UnavailableError("connection loss"));
    CHECK(Pass(filter, {1, 8}).empty());  // asked nothing
    store.set_sync_error(absl::OkStatus());
    CHECK(Pass(filter, {1, 8}) == std::set<uint64_t>{8});
  }
}

TEST_CASE("a failed sync deletes nothing in its pass and asks nothing more",
          "[bookie][gc]") {
  Cluster c;
  c.Create(1);
  LaggingStore store(c.leader.get());
  MetadataLedgerFilter filter(&store);
  store.set_sync_error(absl::UnavailableError("ensemble unreachable"));
  for (int pass = 0; pass < 3; ++pass) {
    CHECK(Pass(filter, {1, 2, 3}).empty());
  }
  CHECK(store.reads() == 0);
  CHECK(filter.stats().listings == 0);
  CHECK(filter.stats().errors == 3);
  store.set_sync_error(absl::OkStatus());
  CHECK(Pass(filter, {1, 2, 3}).empty());
  CHECK(Pass(filter, {1, 2, 3}) == std::set<uint64_t>{2, 3});
}

TEST_CASE("a pass asked about no ledger does not sync", "[bookie][gc]") {
  Cluster c;
  LaggingStore store(c.leader.get());
  MetadataLedgerFilter filter(&store);
  CHECK(Pass(filter, {}).empty());
  CHECK(store.syncs() == 0);
}

TEST_CASE(
    "random lag: no ledger the leader holds is ever deleted, and every "
    "ledger without metadata goes at its second pass",
    "[bookie][gc]") {
  const uint64_t seed = Seed();
  INFO("seed " << seed << " (BK_TEST_SEED to repeat)");
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 10; ++round) {
    INFO("round " << round);
    Cluster c;
    LaggingStore store(c.leader.get());
    MetadataLedgerFilter filter(&store);
    std::set<uint64_t> on_bookie, in_metadata;
    std::map<uint64_t, int> missing_passes;  // consecutive, per ledger
    for (int pass = 0; pass < 12; ++pass) {
      INFO("pass " << pass);
      // Writers create ledgers the server may not have applied yet, and
      // delete some; the bookie holds some ledgers the store never had.
      for (int n = static_cast<int>(rng() % 20); n > 0; --n) {
        const uint64_t id = rng() % 200;
        switch (rng() % 4) {
          case 0:
          case 1:
            if (in_metadata.insert(id).second) {
              c.Create(static_cast<metadata::LedgerId>(id));
              if (rng() % 2 == 0) store.Hide(static_cast<int64_t>(id));
            }
            on_bookie.insert(id);
            break;
          case 2:
            if (in_metadata.erase(id) > 0) {
              c.Delete(static_cast<metadata::LedgerId>(id));
            }
            break;
          default:
            on_bookie.insert(id);
        }
      }
      const std::set<uint64_t> deleted = Pass(
          filter, std::vector<uint64_t>(on_bookie.begin(), on_bookie.end()));
      for (uint64_t id : on_bookie) {
        const bool missing = in_metadata.count(id) == 0;
        missing_passes[id] = missing ? missing_passes[id] + 1 : 0;
        INFO("ledger " << id);
        CHECK(deleted.count(id) == (missing_passes[id] == 2 ? 1u : 0u));
      }
      for (uint64_t id : deleted) {
        on_bookie.erase(id);
        missing_passes.erase(id);
      }
    }
  }
}

}  // namespace
}  // namespace bk::bookie
