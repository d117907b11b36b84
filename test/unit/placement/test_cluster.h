// Helpers shared by the placement tests: clusters built in one line and
// draw counting.

#ifndef BK_TEST_UNIT_PLACEMENT_TEST_CLUSTER_H_
#define BK_TEST_UNIT_PLACEMENT_TEST_CLUSTER_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "placement/types.h"

namespace bk::placement::testing {

// Bookies b0..b{n-1}; bookie i sits in rack "/region/r{i % racks}".
inline std::vector<BookieNode> MakeBookies(int n, int racks) {
  std::vector<BookieNode> nodes;
  for (int i = 0; i < n; ++i) {
    nodes.push_back(
        {absl::StrCat("b", i), absl::StrCat("/region/r", i % racks)});
  }
  return nodes;
}

inline std::string Id(int i) { return absl::StrCat("b", i); }

// Bookies b0..b{n-1} over `regions` regions of `racks` racks each: bookie i
// sits in "/g{i % regions}/k{(i / regions) % racks}", so consecutive ids
// walk the regions and every region's bookies walk its racks.
inline std::vector<BookieNode> MakeRegionBookies(int n, int regions,
                                                 int racks) {
  std::vector<BookieNode> nodes;
  for (int i = 0; i < n; ++i) {
    nodes.push_back(
        {absl::StrCat("b", i),
         absl::StrCat("/g", i % regions, "/k", (i / regions) % racks)});
  }
  return nodes;
}

using Counts = absl::flat_hash_map<std::string, int>;

}  // namespace bk::placement::testing

#endif  // BK_TEST_UNIT_PLACEMENT_TEST_CLUSTER_H_
