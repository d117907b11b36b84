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
  }
}

std::optional<size_t> RackAwarePolicy::DrawProbed(
    const std::vector<const BookieId*>& eligible, double slot_mib) {
  if (probed_.empty()) return std::nullopt;
  // The bookies that answered, where any is eligible, chosen among by
  // their fresh figures; those whose fresh report gives a slow add latency
  // are left out, here and (while any other is eligible) in the draw over
  // the rest.
  std::vector<const BookieId*> answered;
  std::vector<const BookieId*> rest;
  std::vector<size_t> at;
  std::vector<size_t> rest_at;
  for (size_t i = 0; i < eligible.size(); ++i) {
    const bool probed = probed_.contains(*eligible[i]);
    if (probed && chooser_.ReportsSlow(*eligible[i], view_, topology_, now_)) {
      continue;
    }
    (probed ? answered : rest).push_back(eligible[i]);
    (probed ? at : rest_at).push_back(i);
  }
  if (answered.empty() && !rest.empty()) {
    return rest_at[chooser_.Choose(rest, slot_mib, view_, topology_, now_,
                                   gen_)];
  }
  if (!answered.empty()) {
    return at[options_.adaptive.probe_choose_least
                  ? chooser_.ChooseLeast(answered, slot_mib, view_, topology_,
                                         now_, gen_)
                  : chooser_.Choose(answered, slot_mib, view_, topology_, now_,
                                    gen_)];
  }
  return std::nullopt;
}

}  // namespace bk::placement
