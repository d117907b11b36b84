#include "tools/sim/cluster.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/sim/seeds.h"

namespace bk::sim {

Cluster BuildCluster(const Scenario& scenario, uint64_t seed) {
  std::mt19937_64 rng(DeriveSeed(seed, Stream::kCluster));
  Cluster c;
  const int n = scenario.BookieCount();
  const int readonly = scenario.readonly_bookies;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  for (const BookieGroup& g : scenario.bookie_groups) {
    const DeviceClass* cls = nullptr;
    for (const DeviceClass& d : scenario.devices) {
      if (d.name == g.device) cls = &d;
    }
    for (int first = 0; first < g.count; first += g.bookies_per_device) {
      const int device = static_cast<int>(c.devices.size());
      c.devices.emplace_back(cls->capacity_mib_per_second * 1024 * 1024,
                             cls->sync_ms / 1000,
                             scenario.journal_max_group_wait_ms / 1000,
                             scenario.max_queue_s, g.bookies_per_device);
      c.device_bookies.emplace_back();
      const std::string rack =
          scenario.regions <= 1
              ? absl::StrCat("/region/rack-", device % scenario.racks)
              : absl::StrCat("/region-", device % scenario.regions, "/rack-",
                             (device / scenario.regions) % scenario.racks);
      for (int k = 0; k < g.bookies_per_device; ++k) {
        const int i = static_cast<int>(c.bookies.size());
        SimBookie b;
        b.node.id = absl::StrFormat("b%03d", i);
        b.node.network_location = rack;
        b.device = device;
        b.slot = k;
        b.readonly = static_cast<int64_t>(i + 1) * readonly / n >
                     static_cast<int64_t>(i) * readonly / n;
        c.device_bookies.back().push_back(i);
        const double total = g.disk_capacity_gib * kGiB;
        const double used = std::min(
            0.999, g.disk_used_fraction * absl::Uniform(rng, 0.5, 1.5));
        c.monitors.emplace_back(scenario.monitor.window_samples,
                                static_cast<int64_t>(total),
                                static_cast<int64_t>(total * (1 - used)));
        (b.readonly ? c.readonly : c.writable).push_back(b.node);
        c.bookies.push_back(std::move(b));
      }
    }
  }
  return c;
}

}  // namespace bk::sim
