#include "tools/bkbench/scenario_result.h"

#include "tools/bkbench/spread.h"

namespace bk::bkbench {
namespace {

using nlohmann::json;

json Latency(const LatencyHistogram& h) {
  return {{"count", h.count()},
          {"p50", h.PercentileUs(0.5) / 1000.0},
          {"p99", h.PercentileUs(0.99) / 1000.0},
          {"p999", h.PercentileUs(0.999) / 1000.0},
          {"max", static_cast<double>(h.max_us()) / 1000.0}};
}

json ReaderJson(const ReaderResult& r) {
  return {{"name", r.name},
          {"ledger_index", r.ledger_index},
          {"ledger_id", r.ledger_id},
          {"join_s", r.join_s},
          {"backlog_at_join", r.backlog_at_join},
          {"catch_up_s", r.catch_up_s},
          {"catch_up_entries_per_second", r.catch_up_rate},
          {"backlog_s", r.backlog_s},
          {"backlog_entries_per_second", r.backlog_rate},
          {"stream_ceiling_entries_per_second", r.stream_ceiling_rate},
          {"stream_beside_writers_entries_per_second",
           r.stream_beside_writers_rate},
          {"open_ms", r.open_ms},
          {"first_entry_ms", r.first_entry_ms},
          {"backlog_cache",
           r.backlog_cache.scraped
               ? json{{"read_cache_hits", r.backlog_cache.read_cache_hits},
                      {"read_cache_misses", r.backlog_cache.read_cache_misses},
                      {"write_cache_hits", r.backlog_cache.write_cache_hits}}
               : json(nullptr)},
          {"entries_read", r.entries_read},
          {"read_retries", r.retries},
          {"first_retry_error", r.first_retry_error},
          {"errors", r.errors},
          {"first_error", r.first_error},
          {"tail_latency_ms", Latency(r.tail_latency)}};
}

json RunJson(const WorkloadRun& run) {
  json readers = json::array();
  for (const ReaderResult& r : run.readers) readers.push_back(ReaderJson(r));
  json streams = json::array();
  for (const ReaderResult& r : run.streams) streams.push_back(ReaderJson(r));
  json placements = json::array();
  for (const LedgerPlacement& lp : run.placements) {
    json members = json::array();
    for (const PlacedBookie& b : lp.ensemble) {
      members.push_back({{"bookie", b.bookie},
                         {"journal_io_util", b.journal_io_util},
                         {"write_bytes_per_second", b.write_bytes_per_second},
                         {"report_age_ms", b.report_age_ms},
                         {"probability", b.probability}});
    }
    placements.push_back({{"ledger_id", lp.ledger_id}, {"ensemble", members}});
  }
  json estimates = json::object();
  for (const auto& [bookie, mib] : run.estimates_at_placement) {
    estimates[bookie] = mib;
  }
  json left_out = json::object();
  for (const auto& [bookie, why] : run.left_out_at_placement) {
    left_out[bookie] = why;
  }
  const Spread spread = BookieWriteSpread(run);
  json bookies = json::array();
  for (const BookieSeries& b : run.bookies) {
    double mb = 0, util = 0;
    int n = 0;
    for (const auto& p : b.points) {
      if (p.write_mb_per_s < 0) continue;
      mb += p.write_mb_per_s;
      util += p.journal_util;
      ++n;
    }
    bookies.push_back({{"id", b.id},
                       {"rack", b.rack},
                       {"mean_write_mb_per_s", n ? mb / n : -1},
                       {"mean_journal_util", n ? util / n : -1},
                       {"read_cache_hits",
                        b.at_end.read_cache_hits - b.at_start.read_cache_hits},
                       {"read_cache_misses", b.at_end.read_cache_misses -
                                                 b.at_start.read_cache_misses},
                       {"write_cache_hits", b.at_end.write_cache_hits -
                                                b.at_start.write_cache_hits}});
  }
  json entries_per_ledger = json::array();
  for (int64_t last : run.write.last_entry)
    entries_per_ledger.push_back(last + 1);
  const MachineSummary m = Summarise(run.machine);
  nlohmann::json add_path = nullptr;
  if (run.add_path.bookies > 0) add_path = run.add_path.ToJson();
  return {{"label", run.label},
          {"weighting", std::string(placement::WeightingName(run.weighting))},
          {"entries_written", run.write.acked},
          {"entries_per_ledger", entries_per_ledger},
          {"ledger_ids", run.write.ledger_ids},
          {"write_errors", run.write.failed},
          {"first_write_error", run.write.first_error},
          {"seconds", run.write.seconds},
          {"entries_per_second", run.write.entries_per_second()},
          {"add_latency_ms", Latency(run.write.latency)},
          {"slow_bookie_ledgers", run.slow_bookie_ledgers},
          {"read_cache_hit_ratio", ReadCacheHitRatio(run)},
          {"bookies_add_path", add_path},
          {"readers", readers},
          {"streams", streams},
          {"bookies", bookies},
          {"placements", placements},
          {"estimates_at_placement_mib_per_s", estimates},
          {"left_out_at_placement", left_out},
          {"bookie_write_mb_per_s_spread",
           {{"stddev", spread.stddev},
            {"min", spread.min},
            {"max", spread.max},
            {"means", spread.mean_mb_per_s}}},
          {"machine",
           {{"cpu_busy_pct_mean", m.cpu_busy_mean},
            {"cpu_stall_pct_mean", m.cpu_stall_mean},
            {"cpu_stall_pct_max", m.cpu_stall_max},
            {"io_stall_pct_mean", m.io_stall_mean}}}};
}

}  // namespace

double ReadCacheHitRatio(const WorkloadRun& run) {
  double hits = 0, misses = 0;
  for (const BookieSeries& b : run.bookies) {
    hits += b.at_end.read_cache_hits - b.at_start.read_cache_hits;
    misses += b.at_end.read_cache_misses - b.at_start.read_cache_misses;
  }
  return hits + misses > 0 ? hits / (hits + misses) : -1;
}

json ScenarioResultJson(const ScenarioResult& r) {
  json runs = json::array();
  for (const WorkloadRun& run : r.runs) runs.push_back(RunJson(run));
  json j = {{"scenario", r.spec.name},
            {"kind", std::string(KindName(r.spec.kind))},
            {"seed", r.seed},
            {"cluster", r.cluster},
            {"duration_s", r.spec.duration_s},
            {"warmup_s", r.spec.warmup_s},
            {"entry_size", r.spec.entry_size},
            {"target_rate", r.spec.rate},
            {"background_rate", r.spec.background_rate},
            {"background_ledgers", r.spec.background_ledgers},
            {"runs", runs}};
  if (r.echo) {
    j["echo_ceiling"] = {{"entries_per_second", r.echo->entries_per_second},
                         {"p50_ms", r.echo->p50_ms},
                         {"p99_ms", r.echo->p99_ms},
                         {"bookies", r.echo->bookies}};
  }
  if (r.disk_ceiling_mb_per_s >= 0) {
    j["disk_ceiling"] = {{"mb_per_s", r.disk_ceiling_mb_per_s},
                         {"small_sync_ms", r.small_sync_ms}};
  }
  if (r.spec.kind == ScenarioKind::kSlowBookie) {
    const WorkloadRun* healthy = nullptr;
    for (const WorkloadRun& run : r.runs) {
      if (run.label.rfind("healthy", 0) == 0) healthy = &run;
    }
    if (healthy != nullptr) {
      const double h99 = healthy->write.latency.PercentileUs(0.99);
      json ratios = json::object();
      for (const WorkloadRun& run : r.runs) {
        if (&run == healthy || h99 <= 0) continue;
        ratios[run.label] = run.write.latency.PercentileUs(0.99) / h99;
      }
      j["p99_ratio_to_healthy"] = ratios;
    }
  }
  return j;
}

}  // namespace bk::bkbench
