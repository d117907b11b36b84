// LedgerFifo (client/internal/ledger_fifo.h): the add stream's waiting adds.
// Answers in order take from the front; answers out of order, duplicates,
// many ledgers and the ring's growth return exactly what was pushed, once,
// checked against a plain list of the same operations.

#include "client/internal/ledger_fifo.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <iostream>
#include <list>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace bk::client::internal {
namespace {

TEST_CASE("ledger fifo returns in-order answers from the front") {
  LedgerFifo<std::string> f;
  for (int64_t e = 0; e < 100; ++e) f.Push(7, e, "v" + std::to_string(e));
  CHECK(f.size() == 100);
  for (int64_t e = 0; e < 100; ++e) {
    std::optional<std::string> v = f.Take(7, e);
    REQUIRE(v.has_value());
    CHECK(*v == "v" + std::to_string(e));
  }
  CHECK(f.empty());
  CHECK_FALSE(f.Take(7, 0).has_value());
  CHECK_FALSE(f.Take(8, 0).has_value());
}

TEST_CASE("ledger fifo takes an answer that overtakes older ones") {
  LedgerFifo<int> f;
  for (int e = 0; e < 6; ++e) f.Push(1, e, e * 10);
  // A refusal of entry 4 comes back before the syncs of 0-3.
  CHECK(f.Take(1, 4) == std::optional<int>(40));
  CHECK_FALSE(f.Take(1, 4).has_value());
  CHECK(f.size() == 5);
  for (int e : {0, 1, 2, 3, 5})
    CHECK(f.Take(1, e) == std::optional<int>(e * 10));
  CHECK(f.empty());
  // The ring is reused after its holes were reclaimed.
  f.Push(1, 6, 60);
  CHECK(f.Take(1, 6) == std::optional<int>(60));
}

TEST_CASE("ledger fifo returns the oldest of a twice-sent entry first") {
  LedgerFifo<std::string> f;
  f.Push(3, 5, "first");
  f.Push(3, 6, "other");
  f.Push(3, 5, "resent");
  CHECK(f.Take(3, 5) == std::optional<std::string>("first"));
  CHECK(f.Take(3, 5) == std::optional<std::string>("resent"));
  CHECK(f.Take(3, 6) == std::optional<std::string>("other"));
  CHECK(f.empty());
}

TEST_CASE(
    "ledger fifo TakeAll hands over every value once, in order per ledger") {
  LedgerFifo<int> f;
  for (int e = 0; e < 20; ++e) f.Push(static_cast<uint64_t>(e % 3), e, e);
  f.Take(1, 4);  // a hole in ledger 1
  std::vector<std::tuple<uint64_t, int64_t, int>> got;
  f.TakeAll([&](uint64_t l, int64_t e, int&& v) { got.emplace_back(l, e, v); });
  CHECK(f.empty());
  REQUIRE(got.size() == 19);
  for (size_t i = 0; i < got.size(); ++i) {
    const auto [l, e, v] = got[i];
    CHECK(static_cast<int64_t>(v) == e);
    CHECK(static_cast<uint64_t>(e % 3) == l);
    CHECK(e != 4);
    for (size_t j = i + 1; j < got.size(); ++j) {
      if (std::get<0>(got[j]) == l) CHECK(std::get<1>(got[j]) > e);
    }
  }
  CHECK_FALSE(f.Take(0, 0).has_value());
}

TEST_CASE("ledger fifo matches a plain list over random operations") {
  const uint32_t seed = std::random_device{}();
  std::cout << "ledger_fifo_test seed " << seed << "\n";
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  LedgerFifo<int> f;
  // The reference: every waiting (ledger, entry, value) in push order.
  std::list<std::tuple<uint64_t, int64_t, int>> ref;
  std::vector<int64_t> next_entry(200, 0);
  int value = 0;
  for (int step = 0; step < 20000; ++step) {
    // Many ledgers (more than kKeepEmpty), so empty queues are dropped too.
    const uint64_t ledger = rng() % 200;
    const int op = static_cast<int>(rng() % 10);
    if (op < 5) {
      // Mostly new entries; sometimes an entry sent again.
      int64_t entry = next_entry[ledger]++;
      if (rng() % 20 == 0 && entry > 0)
        entry = static_cast<int64_t>(rng() % entry);
      f.Push(ledger, entry, value);
      ref.emplace_back(ledger, entry, value);
      ++value;
      continue;
    }
    // An answer: usually the ledger's oldest, sometimes any of its entries
    // or one that never waited.
    int64_t entry = -1;
    std::vector<int64_t> waiting;
    for (const auto& [l, e, v] : ref) {
      if (l == ledger) waiting.push_back(e);
    }
    if (!waiting.empty()) {
      entry = op < 8 ? waiting.front() : waiting[rng() % waiting.size()];
    } else {
      entry = static_cast<int64_t>(rng() % 50);
    }
    std::optional<int> want;
    for (auto it = ref.begin(); it != ref.end(); ++it) {
      if (std::get<0>(*it) == ledger && std::get<1>(*it) == entry) {
        want = std::get<2>(*it);
        ref.erase(it);
        break;
      }
    }
    REQUIRE(f.Take(ledger, entry) == want);
    REQUIRE(f.size() == ref.size());
  }
  // What is left, all of it, once.
  size_t left = 0;
  f.TakeAll([&](uint64_t l, int64_t e, int&& v) {
    ++left;
    bool found = false;
    for (auto it = ref.begin(); it != ref.end(); ++it) {
      if (*it == std::make_tuple(l, e, v)) {
        ref.erase(it);
        found = true;
        break;
      }
    }
    CHECK(found);
  });
  CHECK(ref.empty());
  CHECK(left > 0);
  CHECK(f.empty());
}

}  // namespace
}  // namespace bk::client::internal
