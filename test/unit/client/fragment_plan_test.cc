// PlanChunks: which entries a re-replication copies, in what chunks, and
// from which replica each chunk is streamed.

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "client/internal/fragment_copy.h"
#include "client/internal/quorum.h"

namespace bk::client::internal {
namespace {

// Every entry the plan copies, with the replica it is read from.
std::map<int64_t, std::string> Covered(const std::vector<ChunkPlan>& plans) {
  std::map<int64_t, std::string> out;
  for (const auto& p : plans) {
    for (int i = 0; i < p.count; ++i) {
      const int64_t id = p.first + i * p.stride;
      CHECK(out.count(id) == 0);  // no entry twice
      out[id] = p.source;
    }
  }
  return out;
}

TEST_CASE(
    "a copy plan covers exactly the lost slot's entries, each read from "
    "another replica of its write set",
    "[client]") {
  const std::vector<std::string> names = {"b0", "b1", "b2", "b3"};
  for (int e : {3, 4}) {
    for (int wq = 1; wq <= e; ++wq) {
      for (int slot = 0; slot < e; ++slot) {
        FragmentCopy c;
        c.ensemble.assign(names.begin(), names.begin() + e);
        if (wq > 1) c.ensemble[slot] = "";  // the lost one is not read
        c.write_quorum = wq;
        c.slot = slot;
        c.first_entry = 5;
        c.last_entry = 61;
        c.batch_size = 4;
        INFO("E " << e << " WQ " << wq << " slot " << slot);
        const auto plans = PlanChunks(c);
        const auto covered = Covered(plans);
        for (int64_t id = 0; id < 70; ++id) {
          const auto ws = WriteSet(id, e, wq);
          const bool held = std::find(ws.begin(), ws.end(), slot) != ws.end();
          const bool in_range = id >= 5 && id <= 61;
          REQUIRE(covered.count(id) == (held && in_range ? 1u : 0u));
          if (covered.count(id) == 0) continue;
          const std::string& src = covered.at(id);
          if (wq == 1) {
            CHECK(src == names[slot]);  // its only replica
            continue;
          }
          CHECK(src != names[slot]);
          bool in_ws = false;
          for (int s : ws) in_ws |= names[s] == src;
          CHECK(in_ws);
        }
        for (const auto& p : plans) {
          CHECK(p.count >= 1);
          CHECK(p.count <= 4);
          CHECK(p.stride == e);
        }
      }
    }
  }
}

TEST_CASE("a copy plan takes the surviving replicas of a quorum in turn",
          "[client]") {
  FragmentCopy c;
  c.ensemble = {"b0", "", "b2"};  // E = WQ = 3, slot 1 lost
  c.write_quorum = 3;
  c.slot = 1;
  c.first_entry = 0;
  c.last_entry = 299;
  c.batch_size = 10;
  std::map<std::string, int64_t> per_source;
  for (const auto& p : PlanChunks(c)) per_source[p.source] += p.count;
  CHECK(per_source.size() == 2);
  CHECK(per_source["b0"] == 150);
  CHECK(per_source["b2"] == 150);
}

TEST_CASE("an empty or inverted range plans nothing", "[client]") {
  FragmentCopy c;
  c.ensemble = {"b0", "", "b2"};
  c.write_quorum = 2;
  c.slot = 1;
  c.first_entry = 10;
  c.last_entry = 9;
  CHECK(PlanChunks(c).empty());
}

}  // namespace
}  // namespace bk::client::internal
