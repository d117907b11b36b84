// Reads a Scenario from YAML, strictly: an unknown key, a value of the wrong
// type or an impossible value is kInvalidArgument naming the key
// ("clients.report_interval_s"); missing keys take the defaults of
// scenario.h. yaml-cpp's exceptions never leave this reader.
//
// The format, every key optional except devices and bookie_groups:
//
//   name: bp65
//   duration_s: 3600          tick_ms: 250          metrics_interval_s: 60
//   herd_window_s: 10         warmup_s: 300         max_queue_s: 30
//   add_timeout_s: 30         racks: 15             readonly_bookies: 5
//   regions: 1                (devices over regions, then racks in each)
//   add_lag_timeout_s: 0      (this client's addEntryLagTimeoutMs; 0 off)
//   devices:       [{name: hdd, capacity_mib_per_second: 110, sync_ms: 6}]
//   bookie_groups: [{count: 45, device: hdd, bookies_per_device: 3,
//                    disk_capacity_gib: 4096, disk_used_fraction: 0.5}]
//   gray_failures: [{bookie: 7, start_s: 900, duration_s: 300, slowdown: 10}]
//   clients:  {count, topics_per_client, report_interval_s, report_jitter,
//              observation_interval_s, quarantine_s, rate_hints,
//              perfect_reports, clairvoyant, shared_placements}
//   traffic:  {mean_mib_per_second, pareto_shape, max_mib_per_second,
//              burst_sigma, entry_bytes, partition_mib_per_second}
//   ledgers:  {ensemble_size, write_quorum, ack_quorum, lifetime_s,
//              lifetime_jitter}
//   monitor:  {sample_interval_s, window_samples}
//   policies: [none, disk, load, adaptive]
//   placement: {minNumRacksPerWriteQuorum, enforceMinNumRacksPerWriteQuorum,
//               bookieMaxWeightMultipleForWeightBasedPlacement, loadThreshold,
//               lowLoadBookieRatio, ensemblePlacementPolicy (rack-aware |
//               region-aware), reppMinimumRegionsForDurability,
//               reppEnableDurabilityEnforcementInReplace,
//               adaptive: {report_window_s, max_report_age_s,
//                          forecast_max_age_s, avoid_util_percent,
//                          big_slot_multiple, big_slot_util_percent,
//                          big_slot_choices, reserve_for_big,
//                          small_slot_max_multiple, rank_spread, rate_memory,
//                          rankless_tilt, slow_latency_multiple,
//                          observation_max_age_s, probe_candidates,
//                          probe_pick (least | random | mixed | rule),
//                          probe_choose_least, probe_slow_latency_multiple,
//                          probe_slow_floor_multiple,
//                          latency_floor_memory_s}}

#ifndef BK_TOOLS_SIM_SCENARIO_YAML_H_
#define BK_TOOLS_SIM_SCENARIO_YAML_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/sim/scenario.h"

namespace bk::sim {

absl::StatusOr<Scenario> ParseScenarioYaml(absl::string_view text);
// kNotFound if the file cannot be read; otherwise as ParseScenarioYaml.
absl::StatusOr<Scenario> ReadScenarioFile(const std::string& path);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_SCENARIO_YAML_H_
