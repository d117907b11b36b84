// The text of the run report (run_report.h).

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/bkbench/run_report.h"
#include "tools/bkbench/spread.h"

namespace bk::bkbench {
namespace {

double Ms(const LatencyHistogram& h, double q) {
  return h.PercentileUs(q) / 1000.0;
}

// A percentile in ms for a table cell; "-" for an empty histogram.
std::string Cell(const LatencyHistogram& h, double q) {
  return h.count() == 0 ? std::string("-") : absl::StrFormat("%.2f", Ms(h, q));
}

const WorkloadRun* Healthy(const ScenarioResult& r) {
  for (const WorkloadRun& run : r.runs) {
    if (run.label.rfind("healthy", 0) == 0) return &run;
  }
  return nullptr;
}

// A measured rate, "-" when not measured (0).
std::string Rate(double entries_per_s) {
  return entries_per_s <= 0 ? "-" : absl::StrFormat("%.0f", entries_per_s);
}

// A backlog's rate as a share of a stream's; "-" when either is missing.
std::string Share(double backlog_rate, double backlog_s, double stream_rate) {
  return stream_rate <= 0 || backlog_s < 0
             ? "-"
             : absl::StrFormat("%.0f %%", 100 * backlog_rate / stream_rate);
}

std::string WritesTable(const ScenarioResult& r) {
  const WorkloadRun* healthy = Healthy(r);
  const bool slow = r.spec.kind == ScenarioKind::kSlowBookie;
  std::string md = absl::StrCat(
      "| run | entries | entries/s | MB/s | p50 ms | p99 ms | p999 ms | "
      "max ms | errors |",
      slow ? " ledgers on slow bookie | p50 / healthy | p99 / healthy | "
             "p999 / healthy |"
           : "",
      "\n|---|---|---|---|---|---|---|---|---|", slow ? "---|---|---|---|" : "",
      "\n");
  for (const WorkloadRun& run : r.runs) {
    const LatencyHistogram& h = run.write.latency;
    const double eps = run.write.entries_per_second();
    absl::StrAppendFormat(
        &md, "| %s | %d | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %d |",
        run.label, run.write.acked, eps,
        eps * static_cast<double>(r.spec.entry_size) / 1e6, Ms(h, 0.5),
        Ms(h, 0.99), Ms(h, 0.999), static_cast<double>(h.max_us()) / 1000.0,
        run.write.failed);
    if (slow) {
      const LatencyHistogram* hh = healthy ? &healthy->write.latency : nullptr;
      auto ratio = [&](double q) {
        return hh && hh->PercentileUs(q) > 0
                   ? absl::StrFormat("%.2fx",
                                     static_cast<double>(h.PercentileUs(q)) /
                                         hh->PercentileUs(q))
                   : std::string("-");
      };
      absl::StrAppend(
          &md, " ",
          &run == healthy
              ? std::string("-")
              : absl::StrCat(run.slow_bookie_ledgers, " of ", r.spec.ledgers),
          " | ", ratio(0.5), " | ", ratio(0.99), " | ", ratio(0.999), " |");
    }
    md += "\n";
  }
  return md;
}

std::string Ceilings(const ScenarioResult& r) {
  std::string md;
  if (r.echo) {
    double best = 0;
    for (const WorkloadRun& run : r.runs) {
      best = std::max(best, run.write.entries_per_second());
    }
    absl::StrAppendFormat(
        &md,
        "- bare gRPC stream echo of the same batching (same client, %d echo "
        "bookies in process, as fast as the window allows): %.0f adds/s "
        "(p50 %.2f ms); this run's best reached %.1f%% of it%s.\n",
        r.echo->bookies, r.echo->entries_per_second, r.echo->p50_ms,
        r.echo->entries_per_second > 0 ? 100 * best / r.echo->entries_per_second
                                       : 0,
        r.spec.rate > 0
            ? absl::StrFormat(" (at a target rate of %.0f/s)", r.spec.rate)
            : std::string());
  }
  if (r.disk_ceiling_mb_per_s >= 0) {
    absl::StrAppendFormat(
        &md,
        "- pwrite + fdatasync on the cluster's disk, groups of 16 entries: "
        "%.1f MB/s; median 4 KiB sync %.2f ms (%s regime).\n",
        r.disk_ceiling_mb_per_s, r.small_sync_ms,
        r.small_sync_ms < 1.5 ? "fast" : "slow");
  }
  return md;
}

std::string MachineSection(const ScenarioResult& r) {
  std::string md =
      "## The machine during each run\n\n"
      "The cluster, ZooKeeper and the client share this machine's CPUs. "
      "CPU busy is the share of CPU time not idle; CPU stall is the share of "
      "wall time in which at least one runnable thread waited for a CPU "
      "(Linux PSI, /proc/pressure/cpu \"some\"), IO stall the same for "
      "I/O; per second in `write_<run>.dat` and `cpu_stall.png`. A latency "
      "spike in a second of high CPU stall is the machine, not the "
      "placement.\n\n"
      "| run | CPU busy % (mean) | CPU stall % (mean) | CPU stall % (worst "
      "second) | IO stall % (mean) |\n|---|---|---|---|---|\n";
  auto pct = [](double v) {
    return v < 0 ? std::string("-") : absl::StrFormat("%.0f", v);
  };
  for (const WorkloadRun& run : r.runs) {
    const MachineSummary m = Summarise(run.machine);
    absl::StrAppend(&md, "| ", run.label, " | ", pct(m.cpu_busy_mean), " | ",
                    pct(m.cpu_stall_mean), " | ", pct(m.cpu_stall_max), " | ",
                    pct(m.io_stall_mean), " |\n");
  }
  return md + "\n![cpu stall](cpu_stall.png)\n\n";
}

// How the adds reached the bookies and where their time went there.
std::string AddPathSection(const ScenarioResult& r) {
  std::string rows;
  auto ms = [](const HistogramTotal& h) {
    const double v = h.MeanMs();
    return v < 0 ? std::string("-") : absl::StrFormat("%.2f", v);
  };
  for (const WorkloadRun& run : r.runs) {
    const AddPathCounters& a = run.add_path;
    if (a.bookies == 0) continue;
    absl::StrAppendFormat(
        &rows, "| %s | %.1f | %.1f | %s | %s | %s | %s | %s | %s |\n",
        run.label, a.EntriesPerMessage(), a.RecordsPerSync(), ms(a.add_latency),
        ms(a.journal_queue), ms(a.journal_write), ms(a.journal_sync_queue),
        ms(a.journal_sync), ms(a.journal_callback_queue));
  }
  if (rows.empty()) return "";
  return "## The bookies' add path in each run\n\n"
         "From the bookies' /metrics before and after the writers' run, "
         "every add they took (a background client's too): entries per "
         "AddEntries message, journal records per sync, an add's mean time "
         "in the bookie, and a journal group's mean time in each stage (ms; "
         "`bookie_journal_*_seconds`). A sync wait as long as the sync: the "
         "journal's disk holds the adds; long queues beside short syncs: "
         "the CPU does.\n\n"
         "| run | entries per message | records per sync | add in the "
         "bookie | group queued | writing | waiting for its sync | syncing "
         "| waiting for its callbacks |\n|---|---|---|---|---|---|---|---|---"
         "|\n" +
         rows + "\n";
}

// Where each late reader's backlog time and entries came from.
std::string BacklogSourcesTable(const WorkloadRun& run) {
  std::string rows;
  for (const ReaderResult& rr : run.readers) {
    if (rr.backlog_at_join <= 0) continue;
    const CacheCounters& c = rr.backlog_cache;
    const double all =
        c.read_cache_hits + c.write_cache_hits + c.read_cache_misses;
    absl::StrAppendFormat(
        &rows, "| %s | %.1f | %s | %s | %s | %s | %s |\n", rr.name, rr.open_ms,
        rr.first_entry_ms < 0 ? "-"
                              : absl::StrFormat("%.1f", rr.first_entry_ms),
        c.scraped ? absl::StrFormat("%.0f", c.read_cache_hits) : "-",
        c.scraped ? absl::StrFormat("%.0f", c.write_cache_hits) : "-",
        c.scraped ? absl::StrFormat("%.0f", c.read_cache_misses) : "-",
        c.scraped && all > 0
            ? absl::StrFormat("%.2f",
                              (c.read_cache_hits + c.write_cache_hits) / all)
            : "-");
  }
  if (rows.empty()) return "";
  return "\nThe backlog, per late reader: opening the ledger (before the "
         "join), join -> first entry, and the bookies' cache counters "
         "(summed over the bookies) from the join to the backlog's last "
         "entry, which also count any other reader's reads in that time; "
         "hit ratio = (read-cache + write-cache hits) / all lookups.\n\n"
         "| reader | open ms | first entry ms | read-cache hits | "
         "write-cache hits | misses | hit ratio |\n"
         "|---|---|---|---|---|---|---|\n" +
         rows;
}

std::string ReadersSection(const ScenarioResult& r) {
  const WorkloadRun& run = r.runs[0];
  std::string md =
      "## Readers\n\n"
      "Join time and backlog at join; catch-up ends at the first entry read "
      "less than caught_up_age_ms after it was added. Tailing latency is "
      "entry added (Append) -> read by the reader, for entries read once "
      "caught up. Backlog entries/s: the entries confirmed at join, read "
      "from join to the last of them; stream: the same entries streamed "
      "again after the run by raw ReadEntries calls, one bookie at a time "
      "(read_ceiling.h), and the backlog rate's share of it; beside "
      "writers: the same backlog streamed so at the same join time in the "
      "\"streams\" run, beside the same writers and tailing readers "
      "(backlog_stream.h, --stream-beside-writers), and the share of "
      "that.\n\n"
      "| reader | ledger | join s | backlog at join | catch-up s | "
      "catch-up entries/s | backlog entries/s | stream entries/s | of "
      "stream | beside writers entries/s | of it | read | written | "
      "tail p50 ms | tail p99 ms | tail p999 ms | retried reads | errors |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---"
      "|---|\n";
  for (const ReaderResult& rr : run.readers) {
    const int64_t written = run.write.last_entry[rr.ledger_index] + 1;
    absl::StrAppendFormat(
        &md,
        "| %s | %d | %.1f | %d | %s | %s | %s | %s | %s | %s | %s | %d | %d | "
        "%s | %s | %s | %d | %d |\n",
        rr.name, rr.ledger_index, rr.join_s, rr.backlog_at_join,
        rr.catch_up_s < 0 ? "never" : absl::StrFormat("%.2f", rr.catch_up_s),
        rr.catch_up_s < 0 ? "-" : absl::StrFormat("%.0f", rr.catch_up_rate),
        rr.backlog_s < 0 ? "-" : absl::StrFormat("%.0f", rr.backlog_rate),
        Rate(rr.stream_ceiling_rate),
        Share(rr.backlog_rate, rr.backlog_s, rr.stream_ceiling_rate),
        Rate(rr.stream_beside_writers_rate),
        Share(rr.backlog_rate, rr.backlog_s, rr.stream_beside_writers_rate),
        rr.entries_read, written, Cell(rr.tail_latency, 0.5),
        Cell(rr.tail_latency, 0.99), Cell(rr.tail_latency, 0.999), rr.retries,
        rr.errors);
  }
  md += BacklogSourcesTable(run);
  for (const WorkloadRun& other : r.runs) {
    if (other.label != "no-readers") continue;
    const double with = Ms(run.write.latency, 0.99);
    const double without = Ms(other.write.latency, 0.99);
    absl::StrAppendFormat(
        &md,
        "\nWriters' add p99 with these readers %.2f ms; without them (the "
        "no-readers run, same writers on the same cluster, after this one) "
        "%.2f ms: %s.\n",
        with, without,
        without > 0 ? absl::StrFormat("%.2fx", with / without)
                    : std::string("-"));
  }
  const double ratio = ReadCacheHitRatio(run);
  md +=
      "\nBookies' read caches during the run (from /metrics, "
      "bookie_read_cache_hits_total / _misses_total; reads served by the "
      "write cache counted apart): ";
  double wc = 0, total = 0;
  for (const BookieSeries& b : run.bookies) {
    const double w = b.at_end.write_cache_hits - b.at_start.write_cache_hits;
    wc += w;
    total += w + b.at_end.read_cache_hits - b.at_start.read_cache_hits +
             b.at_end.read_cache_misses - b.at_start.read_cache_misses;
  }
  md += ratio < 0 ? std::string("no reads reached the storage.\n\n")
                  : absl::StrFormat(
                        "read-cache hit ratio %.3f (hits / (hits + misses)); "
                        "%.3f of all entry lookups were served by the write "
                        "cache. Misses include the long-poll reads of the "
                        "LAC entry that every ensemble member serves, also "
                        "those that do not store it.\n\n",
                        ratio, total > 0 ? wc / total : 0.0);
  md +=
      "| bookie | read-cache hits | misses | write-cache hits |\n"
      "|---|---|---|---|\n";
  for (const BookieSeries& b : run.bookies) {
    absl::StrAppendFormat(
        &md, "| %s | %.0f | %.0f | %.0f |\n", b.id,
        b.at_end.read_cache_hits - b.at_start.read_cache_hits,
        b.at_end.read_cache_misses - b.at_start.read_cache_misses,
        b.at_end.write_cache_hits - b.at_start.write_cache_hits);
  }
  md += "\n![backlog](backlog.png)\n\n![tail latency](tail_latency.png)\n\n";
  return md;
}

std::string SlowBookieVerdict(const ScenarioResult& r) {
  const WorkloadRun* healthy = Healthy(r);
  if (healthy == nullptr) return "";
  const double h99 = healthy->write.latency.PercentileUs(0.99);
  std::string md = "## Issue 9 targets\n\n";
  for (const WorkloadRun& run : r.runs) {
    if (&run == healthy || h99 <= 0) continue;
    const double x = run.write.latency.PercentileUs(0.99) / h99;
    if (run.weighting == placement::Weighting::kAdaptive) {
      absl::StrAppendFormat(&md,
                            "- adaptive p99 = %.2fx healthy (target <= "
                            "1.5x): %s\n",
                            x, x <= 1.5 ? "met" : "missed");
    } else if (run.weighting == placement::Weighting::kNone) {
      absl::StrAppendFormat(&md,
                            "- random (none) p99 = %.2fx healthy "
                            "(target >= 5x): %s\n",
                            x, x >= 5 ? "met" : "missed");
    } else {
      absl::StrAppendFormat(&md, "- %s p99 = %.2fx healthy\n", run.label, x);
    }
  }
  return md + "\n";
}

}  // namespace

std::string ReportMarkdown(const ScenarioResult& r) {
  const ScenarioSpec& s = r.spec;
  std::string md = absl::StrFormat(
      "# bkbench scenario: %s (%s, seed %d)\n\n"
      "Cluster: %s.\n\n"
      "Writers: %d ledgers E%d/WQ%d/AQ%d, %d B entries, %s, %.0f s measured "
      "after %.0f s of warm-up; weighting %s; bookie reports polled every "
      "%d ms.\n\n",
      s.name, KindName(s.kind), r.seed, r.cluster, s.ledgers, s.ensemble,
      s.write_quorum, s.ack_quorum, s.entry_size,
      s.rate > 0 ? absl::StrFormat("%.0f entries/s in total", s.rate)
                 : std::string("as fast as possible"),
      s.duration_s, s.warmup_s,
      s.kind == ScenarioKind::kSlowBookie
          ? std::string("per run")
          : std::string(placement::WeightingName(s.weighting)),
      s.bookie_info_interval_ms);
  if (s.background_rate > 0) {
    absl::StrAppendFormat(
        &md,
        "Background: another client (weighting %s) writes %d ledgers at "
        "%.0f entries/s from the start of the warm-up to the end of each "
        "run; its adds are not in the figures below.\n\n",
        placement::WeightingName(s.background_weighting), s.background_ledgers,
        s.background_rate);
  }
  md +=
      "## Writes\n\nAdd latency is Append -> confirmed (ack quorum), over "
      "the measured phase.\n\n" +
      WritesTable(r) + "\nCeilings measured in the same run:\n\n" +
      Ceilings(r) + "\n";
  if (s.kind == ScenarioKind::kSlowBookie) md += SlowBookieVerdict(r);
  md +=
      "![throughput](throughput.png)\n\n![p50](latency_p50.png)\n\n"
      "![p99](latency_p99.png)\n\n";
  md += MachineSection(r);
  md += AddPathSection(r);
  md += SpreadSection(r);
  if (!r.runs.empty() && !r.runs[0].readers.empty()) md += ReadersSection(r);
  md +=
      "## Per-bookie load\n\nEach bookie's own GetBookieInfo report, "
      "sampled once a second (journal write MB/s and journal "
      "utilisation).\n\n";
  for (const WorkloadRun& run : r.runs) {
    if (run.bookies.empty()) continue;
    absl::StrAppend(&md, "### ", run.label, "\n\n![write](bookie_write_",
                    run.label, ".png)\n\n![util](bookie_util_", run.label,
                    ".png)\n\n");
  }
  return md;
}

}  // namespace bk::bkbench
