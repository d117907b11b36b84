// What a scenario run measured, as plain data: the input of the Markdown
// report (run_report.h) and of --json (ScenarioResultJson).

#ifndef BK_TOOLS_BKBENCH_SCENARIO_RESULT_H_
#define BK_TOOLS_BKBENCH_SCENARIO_RESULT_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/bkbench/add_path_counters.h"
#include "tools/bkbench/bookie_sampler.h"
#include "tools/bkbench/echo_ceiling.h"
#include "tools/bkbench/machine_sampler.h"
#include "tools/bkbench/scenario_spec.h"
#include "tools/bkbench/tail_reader.h"
#include "tools/bkbench/write_load.h"

namespace bk::bkbench {

// One second of one reader.
struct ReaderSecond {
  double t_s = 0;
  int64_t read = 0;         // entries read in the second
  double tail_p99_ms = -1;  // added -> read, caught-up entries only
  int64_t backlog = -1;     // writer's LAC - reader's position; -1: not joined
};

// One run of the writers (and readers) on one cluster with one weighting.
// One member of a measured ledger's first ensemble, with what the writer's
// policy saw of it when it placed the ledger (the ledger metadata's
// placement notes: `bkctl placement explain`).
struct PlacedBookie {
  std::string bookie;
  double journal_io_util = -1;         // percent
  double write_bytes_per_second = -1;  // as reported
  int64_t report_age_ms = -1;
  double probability = -1;  // its chance in the draw
};

struct LedgerPlacement {
  int64_t ledger_id = -1;
  std::vector<PlacedBookie> ensemble;
};

struct WorkloadRun {
  std::string label;  // "run", or the policy ("none", "healthy-none", ...)
  placement::Weighting weighting = placement::Weighting::kNone;
  WriteResult write;
  std::vector<ReaderResult> readers;
  // The "streams" run: the bare streams that stood in for late readers.
  std::vector<ReaderResult> streams;
  std::vector<std::vector<ReaderSecond>> reader_series;  // per reader
  std::vector<BookieSeries> bookies;
  std::vector<MachinePoint> machine;  // the machine, once a second
  // The bookies' add path over the writers' run (add_path_counters.h):
  // every add they took, a background client's too.
  AddPathCounters add_path;
  // Kind workload: each measured ledger's first ensemble and its inputs.
  std::vector<LedgerPlacement> placements;
  // The writer's adaptive estimate of every writable bookie (MiB/s: its
  // reports brought forward, plus its own placements) just before the
  // measured ledgers, ledger 0 first, were created
  // (Client::PlacementLoadEstimates); empty for other weightings.
  std::map<std::string, double> estimates_at_placement;
  // At the same moment, why the adaptive policy would leave each bookie out
  // of ledger 0 (Client::PlacementLeftOut): only those it would leave out.
  std::map<std::string, std::string> left_out_at_placement;
  int slow_bookie_ledgers = 0;  // measured ledgers whose ensemble has the
                                // slow bookie (slow-bookie scenario)
};

struct ScenarioResult {
  ScenarioSpec spec;
  uint64_t seed = 0;
  std::string cluster;  // "local cluster in DIR" or the metadata URI
  std::vector<WorkloadRun> runs;
  std::optional<EchoCeiling> echo;
  // pwrite + fdatasync on the cluster's disk, groups of 16 entries (MB/s),
  // and the median small sync (ms); < 0 when not measured.
  double disk_ceiling_mb_per_s = -1;
  double small_sync_ms = -1;
};

nlohmann::json ScenarioResultJson(const ScenarioResult& r);

// Read-cache hit ratio of a run from the bookies' counters (hits over hits +
// misses between start and end); -1 if nothing was read from storage.
double ReadCacheHitRatio(const WorkloadRun& run);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_SCENARIO_RESULT_H_
