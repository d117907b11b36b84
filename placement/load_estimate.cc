#include "placement/load_estimate.h"

#include <algorithm>
#include <cmath>

#include "placement/weighted_selection.h"

namespace bk::placement {
namespace {

double MedianOf(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  return values[mid];
}

}  // namespace

LoadEstimate::LoadEstimate(absl::Duration report_window,
                           absl::Duration max_report_age)
    : report_window_(report_window), max_report_age_(max_report_age) {}

void LoadEstimate::OnPlaced(const BookieId& id, double mib_per_second,
                            absl::Time at) {
  if (!(mib_per_second != 0) || !std::isfinite(mib_per_second)) return;
  pending_[id].push_back(Placed{mib_per_second, at});
}

void LoadEstimate::Retain(const Topology& topology, absl::Time now) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    std::deque<Placed>& list = it->second;
    const BookieReport* report = topology.Report(it->first);
    const bool member = topology.State(it->first) != BookieState::kUnknown;
    // A placement a report has fully covered, or one older than any report
    // the estimate would still use, no longer adds anything.
    while (!list.empty() &&
           ((report != nullptr &&
             report->received_at - list.front().at >= report_window_) ||
            now - list.front().at > max_report_age_ + report_window_)) {
      list.pop_front();
    }
    if (!member || list.empty()) {
      pending_.erase(it++);
    } else {
      ++it;
    }
  }
}

double LoadEstimate::Reported(const BookieId& id, const Topology& topology,
                              absl::Time now) const {
  const BookieReport* report = topology.Report(id);
  if (report == nullptr || report->info.write_bytes_per_second < 0) return -1;
  if (now - report->received_at > max_report_age_) return -1;
  return report->info.write_bytes_per_second / kBytesPerMiB;
}

double LoadEstimate::Pending(const BookieId& id,
                             const Topology& topology) const {
  auto it = pending_.find(id);
  if (it == pending_.end()) return 0;
  const BookieReport* report = topology.Report(id);
  const absl::Time seen =
      report != nullptr ? report->received_at : absl::InfinitePast();
  double sum = 0;
  for (const Placed& p : it->second) {
    const double covered =
        report_window_ <= absl::ZeroDuration()
            ? (seen >= p.at ? 1.0 : 0.0)
            : std::clamp(absl::FDivDuration(seen - p.at, report_window_), 0.0,
                         1.0);
    sum += p.mib_per_second * (1 - covered);
  }
  return sum;
}

std::vector<double> LoadEstimate::Estimate(
    absl::Span<const BookieId* const> bookies, const Topology& topology,
    absl::Time now) const {
  std::vector<double> reported;
  reported.reserve(bookies.size());
  std::vector<double> known;
  for (const BookieId* id : bookies) {
    reported.push_back(Reported(*id, topology, now));
    if (reported.back() >= 0) known.push_back(reported.back());
  }
  const double neutral = MedianOf(std::move(known));
  for (size_t i = 0; i < bookies.size(); ++i) {
    if (reported[i] < 0) reported[i] = neutral;
    // Closed ledgers pend negative: never below nothing.
    reported[i] = std::max(0.0, reported[i] + Pending(*bookies[i], topology));
  }
  return reported;
}

}  // namespace bk::placement
