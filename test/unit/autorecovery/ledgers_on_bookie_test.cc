// LedgersOnBookie against the in-process metadata store: every ledger
// naming the bookie in any segment, in ascending order, deleted ones left
// out.

#include "autorecovery/ledgers_on_bookie.h"

#include <catch2/catch.hpp>

#include "metadata/metadata_store.h"
#include "test/support/ledger_metadata.h"

namespace bk::autorecovery {
namespace {

proto::LedgerMetadata Md(std::vector<std::vector<std::string>> segments) {
  const int64_t last = 10 * static_cast<int64_t>(segments.size()) - 1;
  return testing::TestLedgerMetadata({.segments = std::move(segments),
                                      .state = proto::CLOSED,
                                      .last_entry_id = last});
}

TEST_CASE(
    "ledgers on a bookie are those naming it in any segment, ascending, "
    "without deleted ones",
    "[autorecovery]") {
  auto s = metadata::Open("mem://ledgers-on-bookie");
  REQUIRE(s.ok());
  auto& store = *s;
  REQUIRE(store->CreateLedger(7, Md({{"bk0", "bk1", "bk2"}})).ok());
  // Named only in an earlier segment, replaced in the last one.
  REQUIRE(
      store->CreateLedger(3, Md({{"bk1", "bk2", "bk3"}, {"bk1", "bk2", "bk4"}}))
          .ok());
  REQUIRE(store->CreateLedger(5, Md({{"bk0", "bk2", "bk4"}})).ok());
  auto gone = store->CreateLedger(9, Md({{"bk3", "bk0", "bk1"}}));
  REQUIRE(gone.ok());
  REQUIRE(store->DeleteLedger(9, *gone).ok());

  auto on3 = LedgersOnBookie(store.get(), "bk3");
  REQUIRE(on3.ok());
  CHECK(*on3 == std::vector<int64_t>{3});
  auto on2 = LedgersOnBookie(store.get(), "bk2");
  REQUIRE(on2.ok());
  CHECK(*on2 == std::vector<int64_t>{3, 5, 7});
  auto none = LedgersOnBookie(store.get(), "bk9");
  REQUIRE(none.ok());
  CHECK(none->empty());
}

}  // namespace
}  // namespace bk::autorecovery
