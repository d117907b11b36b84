#include "placement/read_reorder.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "catch2/catch.hpp"

namespace bk::placement {
namespace {

// Ensemble b0..b4; states given per test, writable unless listed.
struct Reorder {
  std::vector<BookieId> ensemble = {"b0", "b1", "b2", "b3", "b4"};
  absl::flat_hash_map<BookieId, BookieState> states;
  BookieHealthMap health;

  std::vector<int> Run(const std::vector<int>& write_set,
                       int64_t threshold = 0) const {
    return ReorderReadSequence(
        ensemble, write_set, health,
        [this](const BookieId& id) {
          auto it = states.find(id);
          return it == states.end() ? BookieState::kWritable : it->second;
        },
        threshold);
  }
};

TEST_CASE("healthy replicas keep write-set order", "[placement]") {
  Reorder r;
  CHECK(r.Run({2, 3, 4}) == std::vector<int>{2, 3, 4});
}

TEST_CASE("a down replica is read last", "[placement]") {
  Reorder r;
  r.states["b0"] = BookieState::kUnknown;
  CHECK(r.Run({0, 1, 2}) == std::vector<int>{1, 2, 0});
}

TEST_CASE("a read-only replica goes after healthy ones but before down ones",
          "[placement]") {
  Reorder r;
  r.states["b0"] = BookieState::kReadOnly;
  r.states["b1"] = BookieState::kUnknown;
  CHECK(r.Run({0, 1, 2}) == std::vector<int>{2, 0, 1});
}

TEST_CASE("slow replicas go after read-only ones, fewest pending first",
          "[placement]") {
  Reorder r;
  r.health["b0"] = {.pending_requests = 9, .slow = true};
  r.health["b1"] = {.pending_requests = 3, .slow = true};
  r.states["b2"] = BookieState::kReadOnly;
  r.states["b4"] = BookieState::kUnknown;
  CHECK(r.Run({0, 1, 2, 3, 4}) == std::vector<int>{3, 2, 1, 0, 4});
}

TEST_CASE("replicas with failures go after healthy ones, older failure first",
          "[placement]") {
  Reorder r;
  r.health["b0"] = {.last_failed_entry = 50};
  r.health["b1"] = {.last_failed_entry = 7};
  r.states["b2"] = BookieState::kReadOnly;
  CHECK(r.Run({0, 1, 2, 3}) == std::vector<int>{3, 1, 0, 2});
}

TEST_CASE("the threshold moves only the least loaded replica to the front",
          "[placement]") {
  Reorder r;
  r.health["b0"] = {.pending_requests = 20};
  r.health["b1"] = {.pending_requests = 15};
  r.health["b2"] = {.pending_requests = 4};
  CHECK(r.Run({0, 1, 2}, 10) == std::vector<int>{2, 0, 1});
  // 20 - 4 < 17: stays.
  CHECK(r.Run({0, 1, 2}, 17) == std::vector<int>{0, 1, 2});
  // Disabled by default.
  CHECK(r.Run({0, 1, 2}) == std::vector<int>{0, 1, 2});
}

}  // namespace
}  // namespace bk::placement
