// LedgerChecker against in-process bookies: which bookie of a fragment
// lacks which entries, and what is not judged (a bookie that does not
// answer, the open last segment).

#include "client/ledger_checker.h"

#include <catch2/catch.hpp>

#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

// A ledger of `n` entries at E3/WQ2/AQ2; closed unless `close` is false.
int64_t WriteLedger(Client* client, int n, bool close = true) {
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 2,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  for (int e = 0; e < n; ++e) {
    auto f = (*w)->Append(Payload(e));
    REQUIRE(Get(f).ok());
  }
  const int64_t id = (*w)->ledger_id();
  if (close) REQUIRE((*w)->Close().ok());
  return id;
}

TEST_CASE(
    "the ledger checker finds the bookie that lost a ledger, counting exactly "
    "the entries of its write quorums",
    "[client]") {
  INFO("seed " << TestSeed());
  LocalBookies bookies(4);
  auto client = MakeClient(FastOptions(bookies));
  const int64_t id = WriteLedger(client.get(), 20);
  LedgerChecker checker(client.get());

  auto healthy = checker.Check(id, absl::Seconds(5));
  REQUIRE(healthy.ok());
  CHECK(healthy->gaps.empty());
  CHECK(healthy->unreachable.empty());
  CHECK(healthy->fragments_checked == 3);
  CHECK_FALSE(healthy->skipped_last_segment);

  // The bookie in slot 1 loses the ledger (as with a lost ledger dir).
  const auto md = ReadMetadata(bookies, id);
  const std::string lost = md.segments(0).bookies(1);
  REQUIRE(bookies.store(bookies.IndexOf(lost))->DeleteLedger(id).ok());
  auto found = checker.Check(id, absl::Seconds(5));
  REQUIRE(found.ok());
  REQUIRE(found->gaps.size() == 1);
  const FragmentGap& gap = found->gaps[0];
  CHECK(gap.bookie == lost);
  CHECK(gap.segment == 0);
  CHECK(gap.first_entry == 0);
  CHECK(gap.last_entry == 19);
  // Slot 1 holds entries e with e mod 3 in {0, 1}: 7 + 7 of 0..19.
  CHECK(gap.missing_entries == 14);
  CHECK(gap.first_missing == 0);

  // A bookie that does not answer is not judged.
  const std::string silent = md.segments(0).bookies(2);
  bookies.Stop(bookies.IndexOf(silent));
  auto partial = checker.Check(id, absl::Seconds(2));
  REQUIRE(partial.ok());
  CHECK(partial->unreachable == std::vector<std::string>{silent});
  CHECK(partial->fragments_checked == 2);
  REQUIRE(partial->gaps.size() == 1);
  CHECK(partial->gaps[0].bookie == lost);
}

TEST_CASE("the ledger checker leaves an open ledger's last segment alone",
          "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  const int64_t id = WriteLedger(client.get(), 5, /*close=*/false);
  LedgerChecker checker(client.get());
  auto r = checker.Check(id, absl::Seconds(5));
  REQUIRE(r.ok());
  CHECK(r->skipped_last_segment);
  CHECK(r->fragments_checked == 0);
  CHECK(r->gaps.empty());
  CHECK(absl::IsNotFound(checker.Check(id + 1000, absl::Seconds(5)).status()));
}

}  // namespace
}  // namespace bk::client::testing
