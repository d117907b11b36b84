#include "tools/sim/scenario.h"

#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace bk::sim {
namespace {

// Builds "KEY must be WHAT, got VALUE" errors.
absl::Status Bad(absl::string_view key, absl::string_view what, double value) {
  return absl::InvalidArgumentError(
      absl::StrCat(key, " must be ", what, ", got ", value));
}

bool InRange(double v, double lo, double hi) {
  return std::isfinite(v) && v >= lo && v <= hi;
}
bool Positive(double v) { return std::isfinite(v) && v > 0; }

absl::Status ValidateBookies(const Scenario& s) {
  if (s.devices.empty()) {
    return absl::InvalidArgumentError("devices: at least one device class");
  }
  absl::flat_hash_set<std::string> names;
  for (const DeviceClass& d : s.devices) {
    if (d.name.empty())
      return absl::InvalidArgumentError("devices: empty name");
    if (!names.insert(d.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("devices.", d.name, ": defined twice"));
    }
    const std::string key = absl::StrCat("devices.", d.name, ".");
    if (!Positive(d.capacity_mib_per_second)) {
      return Bad(key + "capacity_mib_per_second", "> 0",
                 d.capacity_mib_per_second);
    }
    if (!Positive(d.sync_ms)) return Bad(key + "sync_ms", "> 0", d.sync_ms);
  }
  if (s.bookie_groups.empty()) {
    return absl::InvalidArgumentError("bookie_groups: at least one group");
  }
  for (size_t i = 0; i < s.bookie_groups.size(); ++i) {
    const BookieGroup& g = s.bookie_groups[i];
    const std::string key = absl::StrCat("bookie_groups[", i, "].");
    if (!names.contains(g.device)) {
      return absl::InvalidArgumentError(
          absl::StrCat(key, "device: unknown device class \"", g.device, "\""));
    }
    if (g.bookies_per_device < 1 || g.bookies_per_device > 64) {
      return Bad(key + "bookies_per_device", "in [1, 64]",
                 g.bookies_per_device);
    }
    if (g.count < 1 || g.count > 100000 || g.count % g.bookies_per_device) {
      return Bad(key + "count",
                 absl::StrCat("in [1, 100000] and a multiple of ",
                              g.bookies_per_device),
                 g.count);
    }
    if (!Positive(g.disk_capacity_gib)) {
      return Bad(key + "disk_capacity_gib", "> 0", g.disk_capacity_gib);
    }
    if (!InRange(g.disk_used_fraction, 0, 0.999)) {
      return Bad(key + "disk_used_fraction", "in [0, 1)", g.disk_used_fraction);
    }
  }
  const int n = s.BookieCount();
  if (s.racks < 1 || s.racks > n) {
    return Bad("racks", absl::StrCat("in [1, bookies = ", n, "]"), s.racks);
  }
  if (s.regions < 1 || s.regions > n) {
    return Bad("regions", absl::StrCat("in [1, bookies = ", n, "]"), s.regions);
  }
  const placement::RegionOptions& region = s.placement.region;
  if (region.enabled &&
      s.ledgers.ack_quorum < region.min_regions_for_durability) {
    return Bad("ledgers.ack_quorum",
               absl::StrCat(">= placement.reppMinimumRegionsForDurability = ",
                            region.min_regions_for_durability),
               s.ledgers.ack_quorum);
  }
  if (s.readonly_bookies < 0 || s.readonly_bookies >= n) {
    return Bad("readonly_bookies",
               absl::StrCat("in [0, bookies = ", n, ") so one is writable"),
               s.readonly_bookies);
  }
  for (size_t i = 0; i < s.gray_failures.size(); ++i) {
    const GrayFailure& f = s.gray_failures[i];
    const std::string key = absl::StrCat("gray_failures[", i, "].");
    if (f.bookie < 0 || f.bookie >= n) {
      return Bad(key + "bookie", absl::StrCat("in [0, ", n, ")"), f.bookie);
    }
    if (!InRange(f.start_s, 0, s.duration_s) || f.start_s == s.duration_s) {
      return Bad(key + "start_s", "in [0, duration_s)", f.start_s);
    }
    if (!Positive(f.duration_s)) {
      return Bad(key + "duration_s", "> 0", f.duration_s);
    }
    if (!InRange(f.slowdown, 1, 1e6)) {
      return Bad(key + "slowdown", "in [1, 1e6]", f.slowdown);
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateClientsAndTraffic(const Scenario& s) {
  const ClientConfig& c = s.clients;
  if (c.count < 1 || c.count > 1000) {
    return Bad("clients.count", "in [1, 1000]", c.count);
  }
  if (c.topics_per_client < 1 || c.topics_per_client > 100000) {
    return Bad("clients.topics_per_client", "in [1, 100000]",
               c.topics_per_client);
  }
  if (!InRange(c.report_interval_s, 1e-3, 86400)) {
    return Bad("clients.report_interval_s", "in [0.001, 86400]",
               c.report_interval_s);
  }
  if (!InRange(c.report_jitter, 0, 0.99)) {
    return Bad("clients.report_jitter", "in [0, 1)", c.report_jitter);
  }
  if (!InRange(c.observation_interval_s, 1e-3, 3600)) {
    return Bad("clients.observation_interval_s", "in [0.001, 3600]",
               c.observation_interval_s);
  }
  if (!InRange(c.quarantine_s, 0, 86400)) {
    return Bad("clients.quarantine_s", "in [0, 86400]", c.quarantine_s);
  }
  if (c.clairvoyant && c.greedy) {
    return absl::InvalidArgumentError(
        "clients.clairvoyant and clients.greedy: at most one oracle places "
        "the new ledgers");
  }
  const TrafficConfig& t = s.traffic;
  if (!Positive(t.mean_mib_per_second)) {
    return Bad("traffic.mean_mib_per_second", "> 0", t.mean_mib_per_second);
  }
  if (!InRange(t.pareto_shape, 1.01, 100)) {
    return Bad("traffic.pareto_shape", "in (1, 100] (a finite mean)",
               t.pareto_shape);
  }
  if (!InRange(t.partition_mib_per_second, 0, t.max_mib_per_second)) {
    return Bad("traffic.partition_mib_per_second", "in [0, max_mib_per_second]",
               t.partition_mib_per_second);
  }
  if (!std::isfinite(t.max_mib_per_second) ||
      t.max_mib_per_second < t.mean_mib_per_second) {
    return Bad("traffic.max_mib_per_second", ">= mean_mib_per_second",
               t.max_mib_per_second);
  }
  if (!InRange(t.burst_sigma, 0, 3)) {
    return Bad("traffic.burst_sigma", "in [0, 3]", t.burst_sigma);
  }
  if (!InRange(t.entry_bytes, 1, 64 << 20)) {
    return Bad("traffic.entry_bytes", "in [1, 64 MiB]", t.entry_bytes);
  }
  const LedgerConfig& l = s.ledgers;
  if (l.ack_quorum < 1 || l.ack_quorum > l.write_quorum) {
    return Bad("ledgers.ack_quorum", "in [1, write_quorum]", l.ack_quorum);
  }
  if (l.write_quorum > l.ensemble_size) {
    return Bad("ledgers.write_quorum", "<= ensemble_size", l.write_quorum);
  }
  if (l.ensemble_size > s.BookieCount() - s.readonly_bookies) {
    return Bad("ledgers.ensemble_size", "<= the writable bookies",
               l.ensemble_size);
  }
  if (!Positive(l.lifetime_s)) {
    return Bad("ledgers.lifetime_s", "> 0", l.lifetime_s);
  }
  if (!InRange(l.lifetime_jitter, 0, 0.99)) {
    return Bad("ledgers.lifetime_jitter", "in [0, 1)", l.lifetime_jitter);
  }
  return absl::OkStatus();
}

}  // namespace

int Scenario::BookieCount() const {
  int n = 0;
  for (const BookieGroup& g : bookie_groups) n += g.count;
  return n;
}

absl::Status ValidateScenario(const Scenario& s) {
  if (!InRange(s.duration_s, 1e-3, 30 * 86400)) {
    return Bad("duration_s", "in (0, 30 days]", s.duration_s);
  }
  if (!InRange(s.tick_ms, 0.1, 10000)) {
    return Bad("tick_ms", "in [0.1, 10000]", s.tick_ms);
  }
  const double tick_s = s.tick_ms / 1000;
  if (!InRange(s.metrics_interval_s, tick_s, s.duration_s)) {
    return Bad("metrics_interval_s", "in [tick, duration_s]",
               s.metrics_interval_s);
  }
  if (!InRange(s.herd_window_s, tick_s, s.duration_s)) {
    return Bad("herd_window_s", "in [tick, duration_s]", s.herd_window_s);
  }
  if (!InRange(s.warmup_s, 0, s.duration_s) || s.warmup_s == s.duration_s) {
    return Bad("warmup_s", "in [0, duration_s)", s.warmup_s);
  }
  if (!InRange(s.max_queue_s, tick_s, 3600)) {
    return Bad("max_queue_s", "in [tick, 3600]", s.max_queue_s);
  }
  if (!InRange(s.add_lag_timeout_s, 0, 3600)) {
    return Bad("add_lag_timeout_s", "in [0, 3600]", s.add_lag_timeout_s);
  }
  if (!InRange(s.add_timeout_s, 0, 3600)) {
    return Bad("add_timeout_s", "in [0, 3600]", s.add_timeout_s);
  }
  if (!InRange(s.journal_max_group_wait_ms, 0, 1000)) {
    return Bad("journal_max_group_wait_ms", "in [0, 1000]",
               s.journal_max_group_wait_ms);
  }
  if (!InRange(s.monitor.sample_interval_s, tick_s, 3600)) {
    return Bad("monitor.sample_interval_s", "in [tick, 3600]",
               s.monitor.sample_interval_s);
  }
  if (s.monitor.window_samples < 1 || s.monitor.window_samples > 1000) {
    return Bad("monitor.window_samples", "in [1, 1000]",
               s.monitor.window_samples);
  }
  if (absl::Status st = ValidateBookies(s); !st.ok()) return st;
  if (absl::Status st = ValidateClientsAndTraffic(s); !st.ok()) return st;
  if (s.policies.empty()) {
    return absl::InvalidArgumentError("policies: at least one policy");
  }
  absl::flat_hash_set<int> seen;
  for (placement::Weighting w : s.policies) {
    if (!seen.insert(static_cast<int>(w)).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "policies: \"", placement::WeightingName(w), "\" listed twice"));
    }
  }
  if (absl::Status st = placement::ValidatePlacementOptions(s.placement);
      !st.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("placement: ", st.message()));
  }
  return absl::OkStatus();
}

}  // namespace bk::sim
