// FaultyMetadataStore fails exactly the calls it was armed for, writes
// nothing for them and forwards the rest: what the metadata-failure tests
// of the client rely on.

#include "test/unit/client/faulty_metadata_store.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

namespace bk::client::testing {
namespace {

proto::LedgerMetadata OneBookieLedger(int64_t last_entry_id) {
  proto::LedgerMetadata md;
  md.set_ensemble_size(1);
  md.set_write_quorum_size(1);
  md.set_ack_quorum_size(1);
  proto::Segment* seg = md.add_segments();
  seg->set_first_entry_id(0);
  seg->add_bookies("b0");
  md.set_state(proto::OPEN);
  md.set_last_entry_id(last_entry_id);
  return md;
}

std::unique_ptr<FaultyMetadataStore> OpenFaulty() {
  auto target = metadata::Open("mem://");
  REQUIRE(target.ok());
  return std::make_unique<FaultyMetadataStore>(std::move(*target));
}

// The async call's answer and the thread it came on, within 10 s.
struct AsyncAnswer {
  absl::StatusOr<metadata::Version> version;
  std::thread::id thread;
};
AsyncAnswer Await(std::future<AsyncAnswer>& f) {
  REQUIRE(f.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  return f.get();
}

TEST_CASE(
    "a faulty metadata store fails the armed number of ledger creates and "
    "compare-and-sets, writes nothing for them, then forwards",
    "[client][metadata]") {
  auto store = OpenFaulty();
  store->FailCreates(1, absl::UnavailableError("injected"));
  auto created = store->CreateLedger(7, OneBookieLedger(-1));
  CHECK(absl::IsUnavailable(created.status()));
  CHECK(absl::IsNotFound(store->ReadLedger(7).status()));
  created = store->CreateLedger(7, OneBookieLedger(-1));
  REQUIRE(created.ok());
  CHECK(*created == 0);

  store->FailCompareAndSets(2, absl::UnavailableError("injected"));
  for (int i = 0; i < 2; ++i) {
    auto set = store->CompareAndSetLedger(7, OneBookieLedger(5), 0);
    CHECK(absl::IsUnavailable(set.status()));
  }
  auto read = store->ReadLedger(7);
  REQUIRE(read.ok());
  CHECK(read->version == 0);
  CHECK(read->value.last_entry_id() == -1);
  auto set = store->CompareAndSetLedger(7, OneBookieLedger(5), 0);
  REQUIRE(set.ok());
  CHECK(*set == 1);
  CHECK(store->failed_creates() == 1);
  CHECK(store->failed_compare_and_sets() == 2);
}

TEST_CASE(
    "a faulty metadata store answers a failed async create or "
    "compare-and-set on the store's callback thread, not the caller's",
    "[client][metadata]") {
  auto store = OpenFaulty();
  const std::thread::id caller = std::this_thread::get_id();
  auto call = [&](bool create) {
    auto p = std::make_shared<std::promise<AsyncAnswer>>();
    std::future<AsyncAnswer> f = p->get_future();
    auto done = [p](absl::StatusOr<metadata::Version> v) {
      p->set_value({std::move(v), std::this_thread::get_id()});
    };
    if (create) {
      store->CreateLedgerAsync(8, OneBookieLedger(-1), std::move(done));
    } else {
      store->CompareAndSetLedgerAsync(8, OneBookieLedger(5), 0,
                                      std::move(done));
    }
    return Await(f);
  };
  store->FailCreates(1, absl::UnavailableError("injected"));
  AsyncAnswer a = call(/*create=*/true);
  CHECK(absl::IsUnavailable(a.version.status()));
  CHECK(a.thread != caller);
  a = call(/*create=*/true);
  REQUIRE(a.version.ok());

  store->FailCompareAndSets(1, absl::UnavailableError("injected"));
  a = call(/*create=*/false);
  CHECK(absl::IsUnavailable(a.version.status()));
  CHECK(a.thread != caller);
  a = call(/*create=*/false);
  REQUIRE(a.version.ok());
  CHECK(*a.version == 1);
}

}  // namespace
}  // namespace bk::client::testing
