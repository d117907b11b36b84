#include "placement/adaptive_chooser.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/random/distributions.h"
#include "placement/weighted_selection.h"

namespace bk::placement {
namespace {

double MedianOf(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  return values[mid];
}

// (estimated load, index into eligible), least loaded first.
using Ranked = std::vector<std::pair<double, size_t>>;

}  // namespace

AdaptiveChooser::AdaptiveChooser(const AdaptiveOptions& options)
    : options_(options),
      estimate_(options.report_window, options.max_report_age),
      drift_(options.forecast_max_age),
      floor_(options.latency_floor_memory) {}

void AdaptiveChooser::OnReport(const BookieId& id, const BookieReport* previous,
                               const BookieInfo& info, absl::Time received_at) {
  floor_.Learn(id, info.add_latency_p99_ms, received_at);
  if (previous == nullptr) return;
  report_gaps_[id] = received_at - previous->received_at;
  drift_.Learn(previous->info.write_bytes_per_second / kBytesPerMiB,
               previous->received_at,
               info.write_bytes_per_second / kBytesPerMiB, received_at);
}

void AdaptiveChooser::Observe(const BookieId& id, absl::Duration add_latency,
                              absl::Time at) {
  Observation obs{std::max(add_latency, absl::ZeroDuration()), at};
  auto [it, inserted] = observations_.try_emplace(id, obs);
  if (!inserted && it->second.at <= at) it->second = obs;
}

void AdaptiveChooser::Retain(const Topology& topology, absl::Time now) {
  absl::erase_if(observations_, [&topology](const auto& entry) {
    return topology.State(entry.first) == BookieState::kUnknown;
  });
  absl::erase_if(report_gaps_, [&topology](const auto& entry) {
    return topology.State(entry.first) == BookieState::kUnknown;
  });
  estimate_.Retain(topology, now);
  floor_.Retain(topology);
}

AdaptiveChooser::View AdaptiveChooser::Prepare(const Topology& topology,
                                               absl::Time now) const {
  std::vector<const BookieId*> ids;
  ids.reserve(topology.writable().size());
  for (const BookieId& id : topology.writable()) ids.push_back(&id);
  std::vector<double> load = estimate_.Estimate(ids, topology, now);
  for (size_t i = 0; i < ids.size(); ++i) {
    const BookieReport* r = topology.Report(*ids[i]);
    if (r == nullptr || r->info.write_bytes_per_second < 0 ||
        now - r->received_at > options_.max_report_age) {
      continue;  // the estimate holds the median: nothing to bring forward
    }
    const double mib = r->info.write_bytes_per_second / kBytesPerMiB;
    load[i] += drift_.Forecast(mib, now - r->received_at) - mib;
  }
  View view;
  std::vector<double> latencies;
  for (const BookieId* id : ids) {
    const BookieReport* r = topology.Report(*id);
    if (r != nullptr && r->info.add_latency_p99_ms >= 0 &&
        now - r->received_at <= options_.max_report_age) {
      latencies.push_back(r->info.add_latency_p99_ms);
    }
  }
  view.median_latency_ms = MedianOf(std::move(latencies));
  double sum = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    view.load[*ids[i]] = load[i];
    sum += load[i];
  }
  view.mean = ids.empty() ? 0 : sum / static_cast<double>(ids.size());
  return view;
}

void AdaptiveChooser::OnPlaced(absl::Span<const BookieId> bookies,
                               double slot_mib, absl::Time at) {
  // A slot without a rate (slot_mib < 0: no hint) adds nothing the
  // estimate could count. Passed on, it would pend as a negative rate,
  // which the estimate takes for a closed slot (OnClosed).
  if (!(slot_mib >= 0)) return;
  for (const BookieId& id : bookies) estimate_.OnPlaced(id, slot_mib, at);
  const size_t cap = static_cast<size_t>(options_.rate_memory);
  if (rates_.size() < cap) {
    rates_.push_back(slot_mib);
  } else {
    rates_[next_rate_] = slot_mib;
    next_rate_ = (next_rate_ + 1) % cap;
  }
}

void AdaptiveChooser::OnClosed(absl::Span<const BookieId> bookies,
                               double slot_mib, absl::Time at) {
  if (!(slot_mib > 0)) return;
  for (const BookieId& id : bookies) estimate_.OnPlaced(id, -slot_mib, at);
}

double AdaptiveChooser::Quantile(double slot_mib, double u) const {
  if (rates_.size() < 8) return u;
  double below = 0;
  double equal = 0;
  for (double r : rates_) {
    if (r < slot_mib) {
      below += 1;
    } else if (r == slot_mib) {
      equal += 1;
    }
  }
  return (below + u * equal) / static_cast<double>(rates_.size());
}

bool AdaptiveChooser::RatesSpread() const {
  if (options_.rank_match_min_spread <= 0 || rates_.size() < 8) return true;
  double sum = 0;
  for (double r : rates_) sum += r;
  const double mean = sum / static_cast<double>(rates_.size());
  if (!(mean > 0)) return false;
  double sq = 0;
  for (double r : rates_) sq += (r - mean) * (r - mean);
  const double cv = std::sqrt(sq / static_cast<double>(rates_.size())) / mean;
  return cv >= options_.rank_match_min_spread;
}

bool AdaptiveChooser::RemembersBig(double mean) const {
  const double big = options_.big_slot_multiple * mean;
  return std::any_of(rates_.begin(), rates_.end(),
                     [big](double r) { return r > big; });
}

double AdaptiveChooser::Util(const BookieId& id, const Topology& topology,
                             absl::Time now) const {
  const BookieReport* r = topology.Report(id);
  if (r == nullptr || r->info.journal_io_util < 0 ||
      now - r->received_at > options_.max_report_age) {
    return -1;
  }
  return r->info.journal_io_util;
}

double AdaptiveChooser::ObservedMedianS(absl::Time now) const {
  if (options_.slow_latency_multiple <= 0) return 0;
  std::vector<double> fresh;
  for (const auto& [id, obs] : observations_) {
    if (now - obs.at <= options_.observation_max_age) {
      fresh.push_back(absl::ToDoubleSeconds(obs.add_latency));
    }
  }
  return MedianOf(std::move(fresh));
}

bool AdaptiveChooser::SeenSlow(const BookieId& id, double median_s,
                               absl::Time now) const {
  if (median_s <= 0) return false;
  auto it = observations_.find(id);
  return it != observations_.end() &&
         now - it->second.at <= options_.observation_max_age &&
         absl::ToDoubleSeconds(it->second.add_latency) >
             options_.slow_latency_multiple * median_s;
}

std::vector<size_t> AdaptiveChooser::Unsaturated(
    absl::Span<const BookieId* const> eligible, const Topology& topology,
    absl::Time now, bool by_util) const {
  const double median_s = ObservedMedianS(now);
  std::vector<size_t> keep;
  keep.reserve(eligible.size());
  for (size_t i = 0; i < eligible.size(); ++i) {
    if (by_util &&
        Util(*eligible[i], topology, now) >= options_.avoid_util_percent) {
      continue;
    }
    if (SeenSlow(*eligible[i], median_s, now)) continue;
    keep.push_back(i);
  }
  if (keep.empty()) {
    keep.resize(eligible.size());
    std::iota(keep.begin(), keep.end(), 0);
  }
  return keep;
}

bool AdaptiveChooser::FreshReports(absl::Span<const BookieId* const> eligible,
                                   const Topology& topology,
                                   absl::Time now) const {
  const absl::Duration fresh = options_.least_loaded_report_age;
  if (fresh <= absl::ZeroDuration()) return false;
  for (const BookieId* id : eligible) {
    const BookieReport* r = topology.Report(*id);
    if (r == nullptr || r->info.write_bytes_per_second < 0 ||
        now - r->received_at > fresh) {
      return false;
    }
    // Polled that often, not just polled a moment ago: with 30 s polls a
    // report is fresh for a moment after each poll, but the other clients'
    // views are up to 30 s old, and the least loaded draws them all.
    auto gap = report_gaps_.find(*id);
    if (gap == report_gaps_.end() || gap->second > fresh) return false;
  }
  return true;
}

size_t AdaptiveChooser::Choose(absl::Span<const BookieId* const> eligible,
                               double slot_mib, const View& view,
                               const Topology& topology, absl::Time now,
                               absl::BitGenRef gen) const {
  if (slot_mib >= 0 && FreshReports(eligible, topology, now)) {
    // A slowed journal writes less, so it would look least loaded: leave
    // out the bookies whose reports give a slow add latency, as a probe's
    // answer is judged (if any others remain). That, on reports this
    // fresh, is what says a journal is saturated; its utilisation is not
    // asked (step 1 without it): a group-committing journal on a disk
    // whose syncs take milliseconds reads 90 % busy and more at a fraction
    // of the bytes it can write, and leaving such bookies out cost a
    // tenth of the spread's gap on some seeds (tools/sim/README.md, "The
    // online limit").
    std::vector<const BookieId*> quick;
    std::vector<size_t> quick_pos;
    for (size_t i = 0; i < eligible.size(); ++i) {
      if (ReportsSlow(*eligible[i], view, topology, now)) continue;
      quick.push_back(eligible[i]);
      quick_pos.push_back(i);
    }
    if (quick.empty()) {
      return LeastLoaded(eligible, slot_mib, view, topology, now, gen,
                         /*by_util=*/false);
    }
    return quick_pos[LeastLoaded(quick, slot_mib, view, topology, now, gen,
                                 /*by_util=*/false)];
  }
  std::vector<size_t> keep = Unsaturated(eligible, topology, now, true);
  // Shuffled before a stable sort, so that equal estimates (no reports
  // yet, or several idle bookies) are ranked in random order, not by their
  // position in `eligible`.
  auto rank = [&](const std::vector<size_t>& indices) {
    Ranked ranked;
    ranked.reserve(indices.size());
    for (size_t i : indices) {
      auto it = view.load.find(*eligible[i]);
      ranked.emplace_back(it == view.load.end() ? view.mean : it->second, i);
    }
    for (size_t k = ranked.size(); k > 1; --k) {
      std::swap(ranked[k - 1], ranked[absl::Uniform<size_t>(gen, 0, k)]);
    }
    std::stable_sort(
        ranked.begin(), ranked.end(),
        [](const auto& a, const auto& b) { return a.first < b.first; });
    return ranked;
  };

  const bool has_rate = slot_mib >= 0;
  if (has_rate && slot_mib > options_.big_slot_multiple * view.mean) {
    std::vector<size_t> roomy;
    for (size_t i : keep) {
      const double u = Util(*eligible[i], topology, now);
      if (u >= 0 && u <= options_.big_slot_util_percent) roomy.push_back(i);
    }
    const Ranked ranked = rank(roomy.empty() ? keep : roomy);
    // At most one in 8 candidates: in a small cluster (or a slot the rack
    // rule narrows to a few bookies) the least loaded, not a draw over
    // nearly all of them.
    const size_t d = std::clamp<size_t>(
        ranked.size() / 8, 1, static_cast<size_t>(options_.big_slot_choices));
    return ranked[absl::Uniform<size_t>(gen, 0, d)].second;
  }

  Ranked ranked = rank(keep);
  if (options_.small_slot_max_multiple > 0) {
    const double cap = options_.small_slot_max_multiple * view.mean;
    Ranked within;
    for (const auto& r : ranked) {
      if (r.first <= cap) within.push_back(r);
    }
    if (!within.empty()) ranked.swap(within);
  }
  // At most one in 16 candidates: a small cluster keeps its few bookies
  // for every slot. And only while big slots come: without them the
  // reserved bookies would take nothing and drain to idle.
  const size_t reserve = std::min(static_cast<size_t>(options_.reserve_for_big),
                                  ranked.size() / 16);
  if (has_rate && reserve > 0 && RemembersBig(view.mean)) {
    ranked.erase(ranked.begin(), ranked.begin() + reserve);
  }
  const size_t n = ranked.size();
  if (n == 1) return ranked[0].second;

  if (has_rate && RatesSpread()) {
    const double top = static_cast<double>(n - 1);
    const double q = Quantile(slot_mib, absl::Uniform<double>(gen, 0, 1));
    const double target = (1 - q) * top;
    const double w =
        std::max(1.0, options_.rank_spread * static_cast<double>(n));
    // Reflected, not clipped: a clipped window would draw the two ends
    // twice as often as the middle ranks (a herd on the least and the most
    // loaded bookies).
    double pos = target + absl::Uniform<double>(gen, -w, w);
    if (pos < 0) pos = -pos;
    if (pos > top) pos = 2 * top - pos;
    pos = std::clamp(pos, 0.0, top);
    return ranked[static_cast<size_t>(std::lround(pos))].second;
  }

  std::vector<double> weights(n);
  for (size_t r = 0; r < n; ++r) {
    weights[r] =
        1 + options_.rankless_tilt *
                (1 - 2 * static_cast<double>(r) / static_cast<double>(n - 1));
  }
  return ranked[PickWeighted(weights, gen)].second;
}

bool AdaptiveChooser::ReportsSlow(const BookieId& id, const View& view,
                                  const Topology& topology,
                                  absl::Time now) const {
  const BookieReport* r = topology.Report(id);
  if (r == nullptr || now - r->received_at > options_.max_report_age) {
    return false;
  }
  const double p99 = r->info.add_latency_p99_ms;
  if (options_.probe_slow_latency_multiple > 0 && view.median_latency_ms > 0 &&
      p99 > options_.probe_slow_latency_multiple * view.median_latency_ms) {
    return true;
  }
  const double floor = floor_.Floor(id);
  return options_.probe_slow_floor_multiple > 0 && floor > 0 &&
         p99 > options_.probe_slow_floor_multiple * floor;
}

size_t AdaptiveChooser::ChooseLeast(absl::Span<const BookieId* const> eligible,
                                    double slot_mib, const View& view,
                                    const Topology& topology, absl::Time now,
                                    absl::BitGenRef gen) const {
  // On fresh reports step 1 does not ask utilisation, here as in Choose:
  // the candidates were drawn by the fresh rule, and a probe's answer must
  // not leave out again the busy-reading journals it let in.
  const bool fresh = slot_mib >= 0 && FreshReports(eligible, topology, now);
  return LeastLoaded(eligible, slot_mib, view, topology, now, gen,
                     /*by_util=*/!fresh);
}

size_t AdaptiveChooser::LeastLoaded(absl::Span<const BookieId* const> eligible,
                                    double slot_mib, const View& view,
                                    const Topology& topology, absl::Time now,
                                    absl::BitGenRef gen, bool by_util) const {
  std::vector<size_t> keep = Unsaturated(eligible, topology, now, by_util);
  if (slot_mib >= 0 && slot_mib > options_.big_slot_multiple * view.mean) {
    std::vector<size_t> roomy;
    for (size_t i : keep) {
      const double u = Util(*eligible[i], topology, now);
      if (u >= 0 && u <= options_.big_slot_util_percent) roomy.push_back(i);
    }
    if (!roomy.empty()) keep.swap(roomy);
  }
  auto load = [&](size_t i) {
    auto it = view.load.find(*eligible[i]);
    return it == view.load.end() ? view.mean : it->second;
  };
  size_t best = keep[0];
  double ties = 1;
  for (size_t k = 1; k < keep.size(); ++k) {
    const double l = load(keep[k]);
    if (l < load(best)) {
      best = keep[k];
      ties = 1;
    } else if (l == load(best)) {
      // Reservoir draw among equals.
      ties += 1;
      if (absl::Uniform<double>(gen, 0, ties) < 1) best = keep[k];
    }
  }
  return best;
}

}  // namespace bk::placement
