// RackAwarePolicy's region mode: new ensembles and replacements under the
// region rule (region_coverage.h). The header states the order of choices.

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "placement/rack_aware_policy.h"
#include "placement/region_coverage.h"

namespace bk::placement {
namespace {

// Distinct racks per region over `ids`.
absl::flat_hash_map<std::string, int> RacksPerRegion(
    const std::vector<const BookieId*>& ids, const Topology& topology) {
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> racks;
  for (const BookieId* id : ids) {
    racks[topology.Region(*id)].insert(topology.Rack(*id));
  }
  absl::flat_hash_map<std::string, int> counts;
  for (const auto& [region, set] : racks) {
    counts[region] = static_cast<int>(set.size());
  }
  return counts;
}

// The regions and racks of `ensemble`, slot by slot.
struct Places {
  std::vector<std::string> regions;
  std::vector<std::string> racks;
};

Places PlacesOf(const std::vector<BookieId>& ensemble,
                const Topology& topology) {
  Places places;
  for (const BookieId& id : ensemble) {
    places.regions.push_back(topology.Region(id));
    places.racks.push_back(topology.Rack(id));
  }
  return places;
}

// Whether the write quorums through `slot` meet the region rule: with
// `durability_only`, the durability part alone; with `skip_slot`, counting
// every member but the one at `slot` (is the rest already broken?).
bool QuorumsThroughMeet(const Places& places, int slot, const RegionRule& rule,
                        bool durability_only, bool skip_slot) {
  const int n = static_cast<int>(places.regions.size());
  const int quorums = n == rule.write_quorum ? 1 : rule.write_quorum;
  for (int back = 0; back < quorums; ++back) {
    const int start = (slot - back + n) % n;
    std::vector<std::string> regions;
    std::vector<std::string> racks;
    absl::flat_hash_map<std::string, int> counts;
    for (int k = 0; k < rule.write_quorum; ++k) {
      const int member = (start + k) % n;
      if (skip_slot && member == slot) continue;
      regions.push_back(places.regions[member]);
      racks.push_back(places.racks[member]);
      ++counts[places.regions[member]];
    }
    if (durability_only || skip_slot) {
      std::vector<int> c;
      for (const auto& [region, count] : counts) c.push_back(count);
      if (!MeetsDurability(c, rule.min_regions, rule.ack_quorum)) return false;
      continue;
    }
    RegionRule one = rule;
    one.ensemble_size = static_cast<int>(regions.size());
    one.write_quorum = one.ensemble_size;
    if (JudgeRegionAdherence(regions, racks, one, false) == Adherence::kFail) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<PlacementResult> RackAwarePolicy::TryRegionEnsemble(
    int ensemble_size, int write_quorum, int ack_quorum,
    const BookieSet& excluded, bool use_quarantined, double slot_mib) {
  const std::vector<const BookieId*> pool = Pool(excluded, use_quarantined);
  if (static_cast<int>(pool.size()) < ensemble_size) {
    return NotEnoughBookiesError(absl::StrCat("need ", ensemble_size, ", have ",
                                              pool.size(), " eligible"));
  }
  const RegionOptions& ro = options_.region;
  const absl::flat_hash_map<std::string, int> racks_per_region =
      RacksPerRegion(pool, topology_);
  const int d = ro.min_regions_for_durability;
  if (d >= 2 && static_cast<int>(racks_per_region.size()) < d) {
    return NotEnoughBookiesError(
        absl::StrCat("need ", d, " regions for durability, have ",
                     racks_per_region.size(), " eligible"));
  }
  const RegionRule rule{ensemble_size, write_quorum, ack_quorum, d,
                        options_.min_num_racks_per_write_quorum};
  std::vector<std::string> regions;  // parallel to pool
  std::vector<std::string> racks;
  for (const BookieId* id : pool) {
    regions.push_back(topology_.Region(*id));
    racks.push_back(topology_.Rack(*id));
  }

  const WeightTable table = PrepareWeights();
  const int attempts = std::max(options_.max_placement_attempts, 1);
  std::vector<size_t> allowed;
  std::vector<const BookieId*> eligible;
  std::vector<const BookieId*> candidates;
  std::vector<size_t> eligible_pos;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    // Without a durability rule the spread is a best effort: the last
    // attempt may break it rather than fail.
    const bool may_break = d <= 1 && attempt == attempts;
    RegionCoverage coverage(rule, racks_per_region);
    std::vector<bool> used(pool.size(), false);
    std::vector<BookieId> ensemble;
    for (int slot = 0; slot < ensemble_size; ++slot) {
      allowed.clear();
      candidates.clear();
      for (size_t i = 0; i < pool.size(); ++i) {
        if (used[i]) continue;
        candidates.push_back(pool[i]);
        if (coverage.CanPlace(slot, regions[i], racks[i])) allowed.push_back(i);
      }
      if (allowed.empty() && may_break) {
        for (size_t i = 0; i < pool.size(); ++i) {
          if (!used[i]) allowed.push_back(i);
        }
      }
      if (allowed.empty()) break;  // dead end: start again
      // The client's own region for the first member, when allowed.
      if (slot == 0 && !ro.local_region.empty() &&
          std::any_of(allowed.begin(), allowed.end(), [&](size_t i) {
            return regions[i] == ro.local_region;
          })) {
        std::erase_if(allowed,
                      [&](size_t i) { return regions[i] != ro.local_region; });
      } else {
        // Even spread: the allowed regions holding the fewest members.
        int fewest = ensemble_size;
        for (size_t i : allowed) {
          fewest = std::min(fewest, coverage.Count(regions[i]));
        }
        std::erase_if(allowed, [&](size_t i) {
          return coverage.Count(regions[i]) != fewest;
        });
      }
      eligible.clear();
      eligible_pos.clear();
      for (size_t i : allowed) {
        eligible.push_back(pool[i]);
        eligible_pos.push_back(i);
      }
      const size_t pick =
          eligible_pos[Draw(eligible, candidates, table, slot_mib)];
      used[pick] = true;
      coverage.Place(slot, regions[pick], racks[pick]);
      ensemble.push_back(*pool[pick]);
    }
    if (static_cast<int>(ensemble.size()) == ensemble_size) {
      return PlacementResult{ensemble, Judge(ensemble, write_quorum, ack_quorum,
                                             UsesQuarantined(ensemble))};
    }
  }
  return NotEnoughBookiesError(absl::StrCat(
      "no ensemble of ", ensemble_size, " meeting the region rule (", d,
      " regions per ack quorum, ", racks_per_region.size(),
      " regions eligible) found in ", attempts, " attempts"));
}

absl::StatusOr<ReplacementResult> RackAwarePolicy::TryRegionReplace(
    const std::vector<BookieId>& ensemble, int index, int write_quorum,
    int ack_quorum, const BookieSet& excluded, bool use_quarantined,
    double slot_mib) {
  BookieSet all_excluded = excluded;
  all_excluded.insert(ensemble.begin(), ensemble.end());
  const std::vector<const BookieId*> pool = Pool(all_excluded, use_quarantined);
  const RegionOptions& ro = options_.region;
  const RegionRule rule{static_cast<int>(ensemble.size()), write_quorum,
                        ack_quorum, ro.min_regions_for_durability,
                        options_.min_num_racks_per_write_quorum};
  const std::string replaced_rack = topology_.Rack(ensemble[index]);
  const std::string replaced_region = topology_.Region(ensemble[index]);
  Places places = PlacesOf(ensemble, topology_);
  // The rest of the ensemble already breaks durability (BookKeeper's
  // "anomalous ensemble"): durability cannot be kept, so it is not enforced.
  const bool anomalous =
      !QuorumsThroughMeet(places, index, rule, true, /*skip_slot=*/true);
  const bool enforce = ro.enforce_durability_in_replace && !anomalous;

  const WeightTable table = PrepareWeights();
  std::vector<const BookieId*> eligible;
  auto choose_where = [&](auto accept) -> const BookieId* {
    eligible.clear();
    for (const BookieId* id : pool) {
      if (accept(*id)) eligible.push_back(id);
    }
    return eligible.empty() ? nullptr
                            : eligible[Draw(eligible, pool, table, slot_mib)];
  };
  auto meets = [&](const BookieId& id, bool durability_only) {
    places.regions[index] = topology_.Region(id);
    places.racks[index] = topology_.Rack(id);
    return QuorumsThroughMeet(places, index, rule, durability_only, false);
  };
  const BookieId* chosen = choose_where([&](const BookieId& id) {
    return topology_.Rack(id) == replaced_rack && meets(id, false);
  });
  if (chosen == nullptr) {
    chosen = choose_where([&](const BookieId& id) {
      return topology_.Region(id) == replaced_region && meets(id, false);
    });
  }
  if (chosen == nullptr) {
    chosen = choose_where([&](const BookieId& id) { return meets(id, false); });
  }
  if (chosen == nullptr) {
    chosen = choose_where([&](const BookieId& id) { return meets(id, true); });
  }
  if (chosen == nullptr && !enforce) {
    chosen = choose_where([&](const BookieId& id) {
      return topology_.Region(id) == replaced_region;
    });
    if (chosen == nullptr) {
      chosen = choose_where([](const BookieId&) { return true; });
    }
  }
  if (chosen == nullptr) {
    return NotEnoughBookiesError(
        absl::StrCat("no bookie can replace ", ensemble[index], " (",
                     pool.size(), " eligible, none keeps ", rule.min_regions,
                     " regions per ack quorum)"));
  }
  ReplacementResult result;
  result.bookie = *chosen;
  result.ensemble = ensemble;
  result.ensemble[index] = *chosen;
  result.adherence = Judge(result.ensemble, write_quorum, ack_quorum,
                           IsQuarantined(result.bookie));
  return result;
}

}  // namespace bk::placement
