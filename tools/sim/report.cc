#include "tools/sim/report.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace bk::sim {
namespace {

std::string Name(placement::Weighting w) {
  const absl::string_view n = placement::WeightingName(w);
  return std::string(n.data(), n.size());
}

absl::Status WriteFile(const std::filesystem::path& path,
                       const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  }
  return absl::OkStatus();
}

std::string SeriesData(const PolicySummary& s, double warmup_s) {
  std::string text = "# minutes stddev range top10 p50_s p99_s p999_s\n";
  for (const IntervalPoint& p : s.series) {
    absl::StrAppendFormat(&text, "%.3f %.4f %.4f %.4f %.6g %.6g %.6g\n",
                          (p.end_s - warmup_s) / 60, p.throughput_stddev,
                          p.throughput_range, p.top10_throughput, p.p50, p.p99,
                          p.p999);
  }
  return text;
}

std::string HerdData(const PolicySummary& s, double warmup_s) {
  std::string text = "# minutes herd slots\n";
  for (const HerdPoint& h : s.herd_series) {
    absl::StrAppendFormat(&text, "%.3f %.4f %d\n", (h.end_s - warmup_s) / 60,
                          h.herd, h.slots);
  }
  return text;
}

// "42 %", or "-" without a random run to compare with.
std::string Percent(double share) {
  if (std::isnan(share)) return "-";
  return absl::StrFormat("%.0f %%", 100 * share);
}

// One chart: column `col` of `<prefix>_<policy>.dat` for every policy.
std::string Chart(const SimulationResult& r, const std::string& dir,
                  const std::string& png, const std::string& prefix, int col,
                  const std::string& title, const std::string& ylabel,
                  bool log_y) {
  std::string gp =
      absl::StrCat("set output '", dir, "/", png, "'\n", "set title '", title,
                   "'\n", "set ylabel '", ylabel, "'\n",
                   log_y ? "set logscale y\n" : "unset logscale y\n");
  gp += "plot ";
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const std::string name = Name(r.runs[i].weighting);
    absl::StrAppend(&gp, i ? ", \\\n     " : "", "'", dir, "/", prefix, "_",
                    name, ".dat' using 1:", col, " with lines lw 2 title '",
                    name, "'");
  }
  return gp + "\n";
}

std::string Script(const SimulationResult& r, const std::string& dir) {
  std::string gp =
      "set terminal pngcairo size 1000,500 font 'sans,11'\n"
      "set grid\nset key outside right top\n"
      "set xlabel 'minutes after warm-up'\n";
  gp += Chart(r, dir, "throughput_stddev.png", "series", 2,
              "Per-bookie journal write throughput: stddev across bookies",
              "MB/s (MiB/s)", false);
  gp += Chart(r, dir, "throughput_range.png", "series", 3,
              "Per-bookie journal write throughput: range (max - min)",
              "MB/s (MiB/s)", false);
  gp +=
      Chart(r, dir, "throughput_top10.png", "series", 4,
            "Mean throughput of the 10 busiest bookies", "MB/s (MiB/s)", false);
  gp += Chart(r, dir, "latency_p50.png", "series", 5,
              "p50 add latency per interval", "seconds", true);
  gp += Chart(r, dir, "latency_p99.png", "series", 6,
              "p99 add latency per interval", "seconds", true);
  gp += Chart(r, dir, "latency_p999.png", "series", 7,
              "p99.9 add latency per interval", "seconds", true);
  gp += Chart(r, dir, "herd.png", "herd", 2,
              "Herd index per window (1 = placing as usual)", "herd index",
              false);
  return gp;
}

std::string Markdown(const SimulationResult& r) {
  const Scenario& s = r.scenario;
  std::string md = absl::StrFormat(
      "# Placement simulation: %s (seed %u)\n\n"
      "%d bookies (%d read-only) in %d racks, %d clients x %d topics, "
      "%.0f s simulated after %.0f s warm-up, reports polled every %.1f s "
      "(jitter %.0f%%), E/WQ/AQ %d/%d/%d. Wall time %.1f s for all "
      "policies.\n\n",
      s.name, r.seed, s.BookieCount(), s.readonly_bookies, s.racks,
      s.clients.count, s.clients.topics_per_client, s.duration_s - s.warmup_s,
      s.warmup_s, s.clients.report_interval_s, 100 * s.clients.report_jitter,
      s.ledgers.ensemble_size, s.ledgers.write_quorum, s.ledgers.ack_quorum,
      r.wall_seconds);
  md += "Peak values over the run (per metrics interval of " +
        absl::StrFormat("%.0f", s.metrics_interval_s) +
        " s), as BP-65 reported them; whole-run percentiles beside.\n\n"
        "| policy | stddev MB/s | gap closed | range MB/s | top10 MB/s | "
        "per disk: stddev / range MB/s | "
        "p50 s | p99 s | p999 s | herd (peak / mean) | run p99 s | ledgers | "
        "failed | ensemble changes | throttled MiB | wall s |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const PolicyRun& run : r.runs) {
    const PolicySummary& p = run.summary;
    absl::StrAppendFormat(
        &md,
        "| %s | %.1f | %s | %.1f | %.1f | %.1f / %.1f | %.4f | %.4f | %.4f | "
        "%.2f / %.2f | %.4f | %d | %d | %d | %.0f | %.1f |\n",
        Name(run.weighting), p.throughput_stddev, Percent(GapClosed(r, run)),
        p.throughput_range, p.top10_throughput, p.disk_throughput_stddev,
        p.disk_throughput_range, p.p50_write_latency, p.p99_write_latency,
        p.p999_write_latency, p.herd_index, p.mean_herd, p.run_p99,
        run.ledgers_created, run.placement_failures, run.ensemble_changes,
        p.throttled_mib, run.wall_seconds);
  }
  absl::StrAppendFormat(
      &md,
      "\nLower bound on the peak stddev (no placement can do better; "
      "tools/sim/README.md): %.1f MB/s. Gap closed = (stddev_none - "
      "stddev) / (stddev_none - bound). Per disk: across journal disks, a "
      "disk shared by several bookies carrying their sum (BP-65's "
      "figures).\n",
      LowerBoundStddev(r));
  md +=
      "\n## Per-bookie throughput spread\n\n"
      "![stddev](throughput_stddev.png)\n\n![range](throughput_range.png)\n\n"
      "![top10](throughput_top10.png)\n\n"
      "## Add latency\n\n![p50](latency_p50.png)\n\n![p99](latency_p99.png)"
      "\n\n![p999](latency_p999.png)\n\n"
      "## Herding\n\n![herd](herd.png)\n\n"
      "Herd index: see tools/sim/README.md (collision rate of a window's new "
      "ensembles over the run's own).\n";
  return md;
}

absl::Status RunGnuplot(const std::string& program, const std::string& script) {
  const std::string path = FindProgram(program);
  if (path.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "gnuplot (\"", program,
        "\") not found in PATH; install gnuplot-nox to render the report"));
  }
  std::vector<char*> argv = {const_cast<char*>(path.c_str()),
                             const_cast<char*>(script.c_str()), nullptr};
  pid_t pid = 0;
  if (int err = posix_spawn(&pid, path.c_str(), nullptr, nullptr, argv.data(),
                            environ);
      err != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start ", path, ": ", std::strerror(err)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(
          absl::StrCat("waitpid: ", std::strerror(errno)));
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        absl::StrCat(path, " failed on ", script, " (status ", status, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string FindProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    return access(program.c_str(), X_OK) == 0 ? program : "";
  }
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

absl::Status WriteReport(const SimulationResult& result, const std::string& dir,
                         const std::string& gnuplot) {
  if (dir.find('\'') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("report directory must not contain a quote: ", dir));
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create ", dir, ": ", ec.message()));
  }
  const std::string abs = std::filesystem::absolute(dir).string();
  const double warmup = result.scenario.warmup_s;
  for (const PolicyRun& run : result.runs) {
    const std::string name = Name(run.weighting);
    if (absl::Status s = WriteFile(abs + "/series_" + name + ".dat",
                                   SeriesData(run.summary, warmup));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = WriteFile(abs + "/herd_" + name + ".dat",
                                   HerdData(run.summary, warmup));
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = WriteFile(abs + "/report.md", Markdown(result));
      !s.ok()) {
    return s;
  }
  const std::string script = abs + "/charts.gp";
  if (absl::Status s = WriteFile(script, Script(result, abs)); !s.ok()) {
    return s;
  }
  return RunGnuplot(gnuplot, script);
}

}  // namespace bk::sim
