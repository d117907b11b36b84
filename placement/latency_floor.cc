#include "placement/latency_floor.h"

#include <cmath>

namespace bk::placement {

LatencyFloor::LatencyFloor(absl::Duration memory) : memory_(memory) {}

void LatencyFloor::Learn(const BookieId& id, double p99_ms, absl::Time at) {
  if (!(p99_ms > 0) || !std::isfinite(p99_ms)) return;
  auto [it, inserted] = floors_.try_emplace(id, Entry{p99_ms, at});
  if (inserted) return;
  Entry& e = it->second;
  if (at < e.at) return;
  if (p99_ms <= e.ms) {
    e = Entry{p99_ms, at};
    return;
  }
  const double rise = 1 - std::exp(-absl::FDivDuration(at - e.at, memory_));
  e.ms = std::exp(std::log(e.ms) + rise * (std::log(p99_ms) - std::log(e.ms)));
  e.at = at;
}

double LatencyFloor::Floor(const BookieId& id) const {
  auto it = floors_.find(id);
  return it == floors_.end() ? -1 : it->second.ms;
}

void LatencyFloor::Retain(const Topology& topology) {
  absl::erase_if(floors_, [&topology](const auto& entry) {
    return topology.State(entry.first) == BookieState::kUnknown;
  });
}

}  // namespace bk::placement
