#include "placement/rack_aware_policy.h"

#include <algorithm>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "placement/isolation_groups.h"
#include "placement/rack_coverage.h"
#include "placement/region_coverage.h"
#include "placement/weighted_selection.h"

namespace bk::placement {
namespace {

absl::Status CheckQuorums(int ensemble_size, int write_quorum, int ack_quorum,
                          const RegionOptions& region) {
  if (ack_quorum < 1 || write_quorum < ack_quorum ||
      ensemble_size < write_quorum) {
    return absl::InvalidArgumentError(absl::StrCat(
        "need 1 <= ack_quorum <= write_quorum <= ensemble_size, got ensemble ",
        ensemble_size, ", write quorum ", write_quorum, ", ack quorum ",
        ack_quorum));
  }
  // BookKeeper's region-aware check: an ack quorum smaller than the regions
  // it must span cannot be durable.
  if (region.enabled && ack_quorum < region.min_regions_for_durability) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ack quorum ", ack_quorum, " is below reppMinimumRegionsForDurability ",
        region.min_regions_for_durability,
        ": an ack quorum cannot span that many regions"));
  }
  return absl::OkStatus();
}

// Runs `attempt` over the pool a ledger's isolation groups allow: the
// primary groups, then (on NotEnoughBookies) primary and secondary.
// `outside(excluded, groups)` is `excluded` plus the bookies in none of
// `groups`.
template <typename Result, typename Attempt, typename Outside>
absl::StatusOr<Result> WithGroups(const IsolationGroups& groups,
                                  const BookieSet& excluded, Attempt attempt,
                                  Outside outside) {
  if (groups.empty()) return attempt(excluded);
  absl::StatusOr<Result> result = attempt(outside(excluded, groups.primary));
  if (IsNotEnoughBookies(result.status()) && !groups.secondary.empty()) {
    std::vector<std::string> both = groups.primary;
    both.insert(both.end(), groups.secondary.begin(), groups.secondary.end());
    std::sort(both.begin(), both.end());
    result = attempt(outside(excluded, both));
  }
  return result;
}

}  // namespace

RackAwarePolicy::RackAwarePolicy(const PlacementOptions& options,
                                 absl::BitGenRef gen)
    : options_(options), gen_(gen), chooser_(options.adaptive) {}

void RackAwarePolicy::OnClusterChanged(
    const std::vector<BookieNode>& writable,
    const std::vector<BookieNode>& readonly) {
  topology_.SetMembers(writable, readonly);
  chooser_.Retain(topology_, now_);
}

void RackAwarePolicy::OnBookieInfo(const BookieId& id, const BookieInfo& info,
                                   absl::Time received_at) {
  if (options_.weighting == Weighting::kAdaptive) {
    const BookieReport* previous = topology_.Report(id);
    if (previous == nullptr || previous->received_at <= received_at) {
      chooser_.OnReport(id, previous, info, received_at);
    }
  }
  topology_.SetReport(id, info, received_at);
  AdvanceTime(received_at);
}

void RackAwarePolicy::OnClientObservation(const BookieId& id,
                                          int64_t inflight_adds,
                                          absl::Duration add_latency,
                                          absl::Time at) {
  static_cast<void>(inflight_adds);  // the latency says what it costs
  chooser_.Observe(id, add_latency, at);
  AdvanceTime(at);
}

void RackAwarePolicy::PrepareView() {
  if (options_.weighting != Weighting::kAdaptive) return;
  chooser_.Retain(topology_, now_);
  view_ = chooser_.Prepare(topology_, now_);
}

void RackAwarePolicy::Quarantine(const BookieId& id, absl::Time until) {
  absl::Time& current = quarantined_until_[id];
  current = std::max(current, until);
}

void RackAwarePolicy::AdvanceTime(absl::Time now) {
  now_ = std::max(now_, now);
  absl::erase_if(quarantined_until_,
                 [this](const auto& entry) { return entry.second <= now_; });
}

bool RackAwarePolicy::IsQuarantined(const BookieId& id) const {
  auto it = quarantined_until_.find(id);
  return it != quarantined_until_.end() && it->second > now_;
}

bool RackAwarePolicy::UsesQuarantined(
    const std::vector<BookieId>& bookies) const {
  return std::any_of(bookies.begin(), bookies.end(),
                     [this](const BookieId& id) { return IsQuarantined(id); });
}

std::vector<const BookieId*> RackAwarePolicy::Pool(const BookieSet& excluded,
                                                   bool use_quarantined) const {
  const bool enforce = options_.enforce_min_num_racks_per_write_quorum;
  static const std::vector<std::string>* const kAll =
      new std::vector<std::string>();
  const std::vector<std::string>& regions =
      options_.region.enabled ? options_.region.regions_to_write : *kAll;
  std::vector<const BookieId*> pool;
  pool.reserve(topology_.writable().size());
  for (const BookieId& id : topology_.writable()) {
    if (excluded.contains(id)) continue;
    if (!use_quarantined && IsQuarantined(id)) continue;
    if (enforce && topology_.Rack(id) == kDefaultRack) continue;
    if (!regions.empty() && std::find(regions.begin(), regions.end(),
                                      topology_.Region(id)) == regions.end()) {
      continue;
    }
    pool.push_back(&id);
  }
  return pool;
}

RackAwarePolicy::WeightTable RackAwarePolicy::PrepareWeights() const {
  WeightTable table;
  const std::vector<BookieId>& all = topology_.writable();
  if (options_.weighting == Weighting::kDisk) {
    std::vector<int64_t> free_bytes;
    free_bytes.reserve(all.size());
    for (const BookieId& id : all) {
      const BookieReport* report = topology_.Report(id);
      free_bytes.push_back(report ? report->info.free_disk_bytes : -1);
    }
    std::vector<double> weights =
        DiskWeights(free_bytes, options_.bookie_max_weight_multiple);
    for (size_t i = 0; i < all.size(); ++i) table[all[i]] = weights[i];
  }
  return table;
}

size_t RackAwarePolicy::Draw(const std::vector<const BookieId*>& eligible,
                             const std::vector<const BookieId*>& candidates,
                             const WeightTable& table, double slot_mib) {
  switch (options_.weighting) {
    case Weighting::kNone:
      break;
    case Weighting::kDisk: {
      std::vector<double> weights;
      weights.reserve(eligible.size());
      for (const BookieId* id : eligible) weights.push_back(table.at(*id));
      return PickWeighted(weights, gen_);
    }
    case Weighting::kLoad: {
      // BP-65 filters and falls back over the candidates; the rack rule
      // then narrows them to `eligible`, which keep their weights.
      std::vector<const BookieInfo*> infos;
      infos.reserve(candidates.size());
      for (const BookieId* id : candidates) {
        const BookieReport* report = topology_.Report(*id);
        infos.push_back(report ? &report->info : nullptr);
      }
      LoadWeighting load = LoadWeights(infos, options_.load_threshold,
                                       options_.low_load_bookie_ratio);
      absl::flat_hash_map<const BookieId*, double> by_id;
      for (size_t i = 0; i < candidates.size(); ++i) {
        by_id[candidates[i]] = load.weights[i];
      }
      std::vector<double> weights;
      weights.reserve(eligible.size());
      for (const BookieId* id : eligible) {
        auto it = by_id.find(id);
        weights.push_back(it == by_id.end() ? 0 : it->second);
      }
      return PickWeighted(weights, gen_);
    }
    case Weighting::kAdaptive: {
      if (std::optional<size_t> i = DrawProbed(eligible, slot_mib)) {
        return *i;
      }
      return chooser_.Choose(eligible, slot_mib, view_, topology_, now_, gen_);
    }
  }
  return absl::Uniform<size_t>(gen_, 0, eligible.size());
}

BookieSet RackAwarePolicy::OutsideGroups(
    const BookieSet& excluded, const std::vector<std::string>& groups) const {
  BookieSet out = excluded;
  for (const BookieId& id : topology_.writable()) {
    if (!SharesGroup(topology_.Groups(id), groups)) out.insert(id);
  }
  return out;
}

Adherence RackAwarePolicy::Judge(const std::vector<BookieId>& ensemble,
                                 int write_quorum, int ack_quorum,
                                 bool chose_quarantined) const {
  std::vector<std::string> racks;
  racks.reserve(ensemble.size());
  for (const BookieId& id : ensemble) racks.push_back(topology_.Rack(id));
  Adherence adherence;
  if (options_.region.enabled) {
    std::vector<std::string> regions;
    regions.reserve(ensemble.size());
    for (const BookieId& id : ensemble) regions.push_back(topology_.Region(id));
    adherence = JudgeRegionAdherence(
        regions, racks,
        RegionRule{static_cast<int>(ensemble.size()), write_quorum, ack_quorum,
                   options_.region.min_regions_for_durability,
                   options_.min_num_racks_per_write_quorum},
        options_.enforce_min_num_racks_per_write_quorum);
  } else {
    adherence = JudgeRackAdherence(
        racks, write_quorum, options_.min_num_racks_per_write_quorum,
        options_.enforce_min_num_racks_per_write_quorum);
  }
  if (adherence == Adherence::kMeetsStrict && chose_quarantined) {
    return Adherence::kMeetsSoft;
  }
  return adherence;
}

absl::StatusOr<PlacementResult> RackAwarePolicy::NewEnsemble(
    int ensemble_size, int write_quorum, int ack_quorum,
    const BookieSet& excluded, const LedgerHints& hints) {
  absl::Cleanup forget_probes = [this] {
    probed_.clear();
    unanswered_.clear();
  };
  if (absl::Status s = CheckQuorums(ensemble_size, write_quorum, ack_quorum,
                                    options_.region);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<IsolationGroups> groups = IsolationGroupsOf(hints);
  if (!groups.ok()) return groups.status();
  const double slot_mib = SlotMiB(hints, ensemble_size, write_quorum);
  PrepareView();
  auto attempt = [&](const BookieSet& pool_excluded) {
    absl::StatusOr<PlacementResult> result =
        TryNewEnsemble(ensemble_size, write_quorum, ack_quorum, pool_excluded,
                       false, slot_mib);
    if (IsNotEnoughBookies(result.status()) && !quarantined_until_.empty()) {
      result = TryNewEnsemble(ensemble_size, write_quorum, ack_quorum,
                              pool_excluded, true, slot_mib);
    }
    return result;
  };
  absl::StatusOr<PlacementResult> result = WithGroups<PlacementResult>(
      *groups, excluded, attempt,
      [this](const BookieSet& ex, const std::vector<std::string>& g) {
        return OutsideGroups(ex, g);
      });
  if (result.ok()) RecordPlaced(result->ensemble, slot_mib);
  return result;
}

absl::StatusOr<PlacementResult> RackAwarePolicy::TryNewEnsemble(
    int ensemble_size, int write_quorum, int ack_quorum,
    const BookieSet& excluded, bool use_quarantined, double slot_mib) {
  if (options_.region.enabled) {
    return TryRegionEnsemble(ensemble_size, write_quorum, ack_quorum, excluded,
                             use_quarantined, slot_mib);
  }
  const bool enforce = options_.enforce_min_num_racks_per_write_quorum;
  const std::vector<const BookieId*> pool = Pool(excluded, use_quarantined);
  if (static_cast<int>(pool.size()) < ensemble_size) {
    return NotEnoughBookiesError(absl::StrCat("need ", ensemble_size, ", have ",
                                              pool.size(), " eligible"));
  }
  std::vector<std::string> racks;  // parallel to pool
  racks.reserve(pool.size());
  absl::flat_hash_set<std::string> distinct;
  for (const BookieId* id : pool) {
    racks.push_back(topology_.Rack(*id));
    distinct.insert(racks.back());
  }
  const int m =
      RequiredRacks(write_quorum, options_.min_num_racks_per_write_quorum);
  const bool coverable = static_cast<int>(distinct.size()) >= m;
  if (enforce && !coverable) {
    return NotEnoughBookiesError(absl::StrCat("need ", m, " racks, have ",
                                              distinct.size(), " eligible"));
  }

  const WeightTable table = PrepareWeights();
  // Where the pool has fewer than m racks (not enforcing), aim for as many
  // as it has: the best ensemble, though it will be judged FAIL.
  const int target = std::min<int>(m, static_cast<int>(distinct.size()));
  const int attempts = std::max(options_.max_placement_attempts, 1);
  std::vector<const BookieId*> eligible;
  std::vector<const BookieId*> candidates;  // pool members not yet used
  std::vector<size_t> eligible_pos;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    // Not enforcing, the last attempt may break coverage rather than fail.
    const bool may_break = !enforce && attempt == attempts;
    RackCoverage coverage(ensemble_size, write_quorum, target);
    std::vector<bool> used(pool.size(), false);
    std::vector<BookieId> ensemble;
    ensemble.reserve(ensemble_size);
    for (int slot = 0; slot < ensemble_size; ++slot) {
      eligible.clear();
      eligible_pos.clear();
      candidates.clear();
      for (size_t i = 0; i < pool.size(); ++i) {
        if (!used[i]) candidates.push_back(pool[i]);
        if (!used[i] && coverage.CanPlace(slot, racks[i])) {
          eligible.push_back(pool[i]);
          eligible_pos.push_back(i);
        }
      }
      if (eligible.empty() && may_break) {
        for (size_t i = 0; i < pool.size(); ++i) {
          if (!used[i]) {
            eligible.push_back(pool[i]);
            eligible_pos.push_back(i);
          }
        }
      }
      if (eligible.empty()) break;  // dead end: start again
      const size_t pick =
          eligible_pos[Draw(eligible, candidates, table, slot_mib)];
      used[pick] = true;
      coverage.Place(slot, racks[pick]);
      ensemble.push_back(*pool[pick]);
    }
    if (static_cast<int>(ensemble.size()) == ensemble_size) {
      return PlacementResult{ensemble, Judge(ensemble, write_quorum, ack_quorum,
                                             UsesQuarantined(ensemble))};
    }
  }
  return NotEnoughBookiesError(
      absl::StrCat("no ensemble of ", ensemble_size, " spanning ", m,
                   " racks per write quorum found in ", attempts, " attempts"));
}

absl::StatusOr<ReplacementResult> RackAwarePolicy::ReplaceBookie(
    const std::vector<BookieId>& ensemble, int index, int write_quorum,
    int ack_quorum, const BookieSet& excluded, const LedgerHints& hints) {
  absl::Cleanup forget_probes = [this] {
    probed_.clear();
    unanswered_.clear();
  };
  const int size = static_cast<int>(ensemble.size());
  if (absl::Status s =
          CheckQuorums(size, write_quorum, ack_quorum, options_.region);
      !s.ok()) {
    return s;
  }
  if (index < 0 || index >= size) {
    return absl::InvalidArgumentError(
        absl::StrCat("index ", index, " is outside an ensemble of ", size));
  }
  absl::StatusOr<IsolationGroups> groups = IsolationGroupsOf(hints);
  if (!groups.ok()) return groups.status();
  const double slot_mib = SlotMiB(hints, size, write_quorum);
  PrepareView();
  auto attempt = [&](const BookieSet& pool_excluded) {
    absl::StatusOr<ReplacementResult> result =
        TryReplace(ensemble, index, write_quorum, ack_quorum, pool_excluded,
                   false, slot_mib);
    if (IsNotEnoughBookies(result.status()) && !quarantined_until_.empty()) {
      result = TryReplace(ensemble, index, write_quorum, ack_quorum,
                          pool_excluded, true, slot_mib);
    }
    return result;
  };
  absl::StatusOr<ReplacementResult> result = WithGroups<ReplacementResult>(
      *groups, excluded, attempt,
      [this](const BookieSet& ex, const std::vector<std::string>& g) {
        return OutsideGroups(ex, g);
      });
  if (result.ok()) {
    // The new member takes the ledger's adds from now on, and the replaced
    // one stops taking them: its slot comes off as a close's would, on that
    // bookie alone.
    RecordPlaced({result->bookie}, slot_mib);
    RecordClosed({ensemble[index]}, slot_mib);
  }
  return result;
}

absl::StatusOr<ReplacementResult> RackAwarePolicy::TryReplace(
    const std::vector<BookieId>& ensemble, int index, int write_quorum,
    int ack_quorum, const BookieSet& excluded, bool use_quarantined,
    double slot_mib) {
  if (options_.region.enabled) {
    return TryRegionReplace(ensemble, index, write_quorum, ack_quorum, excluded,
                            use_quarantined, slot_mib);
  }
  BookieSet all_excluded = excluded;
  all_excluded.insert(ensemble.begin(), ensemble.end());
  const std::vector<const BookieId*> pool = Pool(all_excluded, use_quarantined);

  const std::string replaced_rack = topology_.Rack(ensemble[index]);
  absl::flat_hash_set<std::string> other_racks;
  for (int i = 0; i < static_cast<int>(ensemble.size()); ++i) {
    if (i != index) other_racks.insert(topology_.Rack(ensemble[i]));
  }

  const WeightTable table = PrepareWeights();
  std::vector<const BookieId*> eligible;
  auto choose_where = [&](auto accept) -> const BookieId* {
    eligible.clear();
    for (const BookieId* id : pool) {
      if (accept(topology_.Rack(*id))) eligible.push_back(id);
    }
    return eligible.empty() ? nullptr
                            : eligible[Draw(eligible, pool, table, slot_mib)];
  };
  const BookieId* chosen = choose_where(
      [&](const std::string& rack) { return rack == replaced_rack; });
  if (chosen == nullptr) {
    chosen = choose_where(
        [&](const std::string& rack) { return !other_racks.contains(rack); });
  }
  if (chosen == nullptr && !options_.enforce_min_num_racks_per_write_quorum) {
    chosen = choose_where([](const std::string&) { return true; });
  }
  if (chosen == nullptr) {
    return NotEnoughBookiesError(absl::StrCat(
        "no bookie can replace ", ensemble[index], " (", pool.size(),
        " eligible, none in its rack or an unused rack)"));
  }
  ReplacementResult result;
  result.bookie = *chosen;
  result.ensemble = ensemble;
  result.ensemble[index] = *chosen;
  result.adherence = Judge(result.ensemble, write_quorum, ack_quorum,
                           IsQuarantined(result.bookie));
  return result;
}

std::vector<int> RackAwarePolicy::ReorderReadSequence(
    const std::vector<BookieId>& ensemble, const std::vector<int>& write_set,
    const BookieHealthMap& health) const {
  std::vector<int> order = placement::ReorderReadSequence(
      ensemble, write_set, health,
      [this](const BookieId& id) { return topology_.State(id); },
      options_.read_reorder_threshold_pending_requests);
  const std::string& local = options_.region.local_region;
  if (!options_.region.enabled || local.empty()) return order;
  // Region mode: among the healthy replicas (a prefix of the order), those
  // in the client's own region first, as BookKeeper reads locally first.
  auto healthy = [&](int index) {
    const BookieId& id = ensemble[index];
    auto it = health.find(id);
    return topology_.State(id) == BookieState::kWritable &&
           (it == health.end() ||
            (it->second.last_failed_entry < 0 && !it->second.slow));
  };
  auto end = std::find_if_not(order.begin(), order.end(), healthy);
  std::stable_partition(order.begin(), end, [&](int index) {
    return topology_.Region(ensemble[index]) == local;
  });
  return order;
}

}  // namespace bk::placement
