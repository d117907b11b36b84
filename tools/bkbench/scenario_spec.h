// ScenarioSpec: a bkbench scenario read from YAML, strictly. An unknown key,
// a value of the wrong type or an impossible value (a reader that joins
// after the run ends, a negative rate, a zero duration, a slow bookie that
// is not in the cluster) is kInvalidArgument naming the key
// ("readers[1].join_s: ..."); absent keys take the defaults below.
// yaml-cpp's exceptions never leave this reader.
//
// Two kinds:
//   workload     writers on `ledgers.count` ledgers, and readers, each on
//                one ledger, joining at join_s: at 0 a tailing reader, later
//                a catch-up reader that first reads the backlog.
//   slow-bookie  bkbench starts a cluster with bookie `slow_bookie.index`'s
//                journal syncs slowed by `slow_bookie.sync_delay_ms`
//                (testingSyncDelayMs), runs the write workload once per
//                entry of `policies`, then once on an all-healthy cluster.
//
//   name: tailing
//   kind: workload                 # or slow-bookie
//   duration_s: 30                 # measured phase, > 0
//   warmup_s: 0                    # writes before the measured phase
//   cluster: {bookies: 3, racks: 3, bookie_config: ["flushInterval=1000"]}
//   client:  {weighting: load, bookie_info_interval_ms: 1000}
//   ledgers: {count: 4, ensemble: 3, write_quorum: 2, ack_quorum: 2}
//   writers: {entry_size: 1024, rate: 2000}       # rate 0: as fast as possible
//   readers: [{name: tail-0, ledger: 0, join_s: 0, caught_up_age_ms: 100}]
//   background: {ledgers: 9, rate: 1000, weighting: none}
//                  # another client writing through warm-up and measured
//                  # phase (the cluster's other traffic); rate 0: off
//   slow_bookie: {index: 4, sync_delay_ms: 20}     # slow-bookie only
//   policies: [none, load, adaptive]              # slow-bookie only
//   healthy_weighting: none                       # slow-bookie only

#ifndef BK_TOOLS_BKBENCH_SCENARIO_SPEC_H_
#define BK_TOOLS_BKBENCH_SCENARIO_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "placement/options.h"

namespace bk::bkbench {

enum class ScenarioKind { kWorkload, kSlowBookie };

struct ReaderSpec {
  std::string name;
  int ledger = 0;     // index into the scenario's ledgers
  double join_s = 0;  // after the start of the measured phase
  // A reader has caught up once it reads an entry added less than this ago.
  double caught_up_age_ms = 100;
  // Not from the YAML: the runner's "streams" run replaces a late reader
  // by the bare stream of its backlog (backlog_stream.h).
  bool bare_stream = false;
};

struct ScenarioSpec {
  std::string name;
  ScenarioKind kind = ScenarioKind::kWorkload;
  double duration_s = 10;
  double warmup_s = 0;
  uint64_t seed = 0;  // 0: drawn at start and printed

  // When bkbench starts its own cluster.
  int bookies = 3;
  int racks = 3;
  std::vector<std::string> bookie_config;

  placement::Weighting weighting = placement::Weighting::kLoad;
  int64_t bookie_info_interval_ms = 1000;

  int ledgers = 4;
  int ensemble = 3;
  int write_quorum = 2;
  int ack_quorum = 2;
  int64_t entry_size = 1024;
  double rate = 1000;  // entries/s over all ledgers; 0: as fast as possible
  // writers.hot_ledger_x: ledger 0 adds this many times as fast as each
  // other ledger (the total rate unchanged), and its rate hint says so.
  int hot_ledger_x = 1;

  std::vector<ReaderSpec> readers;

  // Background writers on a client of their own, from the start of the
  // warm-up to the end of the measured phase; not in the measured figures.
  int background_ledgers = 0;
  double background_rate = 0;  // 0: no background writers
  placement::Weighting background_weighting = placement::Weighting::kNone;

  // kSlowBookie.
  int slow_bookie = -1;
  int64_t sync_delay_ms = 0;
  // > 0: the healthy run goes first, and the slow bookie's delay is this
  // many times its add p99 (at least sync_delay_ms), so that the contrast
  // measures placement, not how slow this machine is (issue 23, item 4).
  double sync_delay_x_healthy_p99 = 0;
  // kSlowBookie; and kWorkload, where each policy gets its own run (a
  // fresh client) on the same cluster, compared by spread.
  std::vector<placement::Weighting> policies;
  placement::Weighting healthy_weighting = placement::Weighting::kNone;
};

absl::StatusOr<ScenarioSpec> ParseScenarioSpec(absl::string_view yaml);
// kNotFound if the file cannot be read; otherwise as ParseScenarioSpec.
absl::StatusOr<ScenarioSpec> ReadScenarioSpecFile(const std::string& path);

absl::string_view KindName(ScenarioKind kind);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_SCENARIO_SPEC_H_
