// RackAwarePolicy's probe on placement: which bookies to ask for a fresh
// report before a choice, taking their answers, and choosing among the
// bookies that answered (the header states the rule; placement/README.md,
// "Probe on placement").

#include <algorithm>
#include <optional>

#include "absl/random/distributions.h"
#include "placement/rack_aware_policy.h"

namespace bk::placement {

std::vector<BookieId> RackAwarePolicy::ProbeCandidates(
    int ensemble_size, int write_quorum, int slots, const BookieSet& excluded,
    const LedgerHints& hints) {
  const AdaptiveOptions& a = options_.adaptive;
  if (options_.weighting != Weighting::kAdaptive || a.probe_candidates <= 0 ||
      slots <= 0 || ensemble_size <= 0) {
    return {};
  }
  PrepareView();
  std::vector<const BookieId*> pool = Pool(excluded, false);
  const size_t want =
      std::min(pool.size(), static_cast<size_t>(a.probe_candidates) * slots);
  std::vector<BookieId> out;
  out.reserve(want);
  if (a.probe_pick == AdaptiveOptions::ProbePick::kRule) {
    const double slot_mib = SlotMiB(hints, ensemble_size, write_quorum);
    for (size_t k = 0; k < want; ++k) {
      const size_t i =
          chooser_.Choose(pool, slot_mib, view_, topology_, now_, gen_);
      out.push_back(*pool[i]);
      pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return out;
  }
  // Shuffled first: ties in the estimate fall in random order.
  for (size_t k = pool.size(); k > 1; --k) {
    std::swap(pool[k - 1], pool[absl::Uniform<size_t>(gen_, 0, k)]);
  }
  size_t least = 0;
  switch (a.probe_pick) {
    case AdaptiveOptions::ProbePick::kLeast:
      least = want;
      break;
    case AdaptiveOptions::ProbePick::kMixed:
      least = (want + 1) / 2;
      break;
    case AdaptiveOptions::ProbePick::kRandom:
    case AdaptiveOptions::ProbePick::kRule:
      break;
  }
  auto load = [this](const BookieId* id) {
    auto it = view_.load.find(*id);
    return it == view_.load.end() ? view_.mean : it->second;
  };
  if (least > 0) {
    std::partial_sort(pool.begin(), pool.begin() + least, pool.end(),
                      [&](const BookieId* x, const BookieId* y) {
                        return load(x) < load(y);
                      });
  }
  // The rest uniformly from what is left (partial_sort leaves it in an
  // order that depends on the loads).
  for (size_t k = least; k < want; ++k) {
    std::swap(pool[k], pool[absl::Uniform<size_t>(gen_, k, pool.size())]);
  }
  for (size_t k = 0; k < want; ++k) out.push_back(*pool[k]);
  return out;
}

void RackAwarePolicy::OnProbeReport(const BookieId& id, const BookieInfo& info,
                                    absl::Time at) {
  OnBookieInfo(id, info, at);
  if (options_.weighting == Weighting::kAdaptive &&
      topology_.State(id) == BookieState::kWritable) {
    probed_.insert(id);
    unanswered_.erase(id);
  }
}

void RackAwarePolicy::OnProbeUnanswered(const BookieId& id) {
  if (options_.weighting == Weighting::kAdaptive && !probed_.contains(id)) {
    unanswered_.insert(id);
  }
}

std::optional<size_t> RackAwarePolicy::DrawProbed(
    const std::vector<const BookieId*>& eligible, double slot_mib) {
  if (probed_.empty() && unanswered_.empty()) return std::nullopt;
  // Tiers, best first: answered with a healthy latency; not asked; answered
  // slow. A bookie asked that did not answer is left to the caller's draw
  // over all of `eligible`, which happens only when nothing else is
  // eligible: a slow answer is still an answer.
  enum Tier { kAnswered, kNotAsked, kSlow, kTiers };
  std::vector<const BookieId*> tier[kTiers];
  std::vector<size_t> at[kTiers];
  for (size_t i = 0; i < eligible.size(); ++i) {
    const BookieId& id = *eligible[i];
    if (unanswered_.contains(id)) continue;
    Tier t = kNotAsked;
    if (probed_.contains(id)) {
      t = chooser_.ReportsSlow(id, view_, topology_, now_) ? kSlow : kAnswered;
    }
    tier[t].push_back(eligible[i]);
    at[t].push_back(i);
  }
  if (!tier[kAnswered].empty()) {
    return at[kAnswered]
             [options_.adaptive.probe_choose_least
                  ? chooser_.ChooseLeast(tier[kAnswered], slot_mib, view_,
                                         topology_, now_, gen_)
                  : chooser_.Choose(tier[kAnswered], slot_mib, view_, topology_,
                                    now_, gen_)];
  }
  for (const Tier t : {kNotAsked, kSlow}) {
    if (!tier[t].empty()) {
      return at[t][chooser_.Choose(tier[t], slot_mib, view_, topology_, now_,
                                   gen_)];
    }
  }
  return std::nullopt;
}

}  // namespace bk::placement
