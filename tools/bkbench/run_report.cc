// Data files and gnuplot charts of the run report (run_markdown.cc writes
// the text).

#include "tools/bkbench/run_report.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/sim/report.h"

extern char** environ;

namespace bk::bkbench {
namespace {

std::string Num(double v) { return v < 0 ? "NaN" : absl::StrFormat("%.4g", v); }

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// The writers' seconds, and beside each the machine's second of the same
// index (both count whole seconds from the start of the measured phase).
std::string WriteData(const WorkloadRun& run) {
  std::string t =
      "# t_s adds_per_s p50_ms p99_ms errors cpu_busy_pct cpu_stall_pct "
      "io_stall_pct\n";
  for (size_t i = 0; i < run.write.series.size(); ++i) {
    const WriteSecond& s = run.write.series[i];
    const MachinePoint m =
        i < run.machine.size() ? run.machine[i] : MachinePoint{};
    absl::StrAppend(&t, Num(s.t_s), " ", s.acked, " ", Num(s.p50_ms), " ",
                    Num(s.p99_ms), " ", s.errors, " ", Num(m.cpu_busy_pct), " ",
                    Num(m.cpu_stall_pct), " ", Num(m.io_stall_pct), "\n");
  }
  return t;
}

// Column 1 time, then one column per bookie of `field`.
template <typename F>
std::string BookieData(const WorkloadRun& run, F field) {
  std::string t = "# t_s";
  for (const auto& b : run.bookies) absl::StrAppend(&t, " ", b.id);
  t += "\n";
  const size_t n = run.bookies.empty() ? 0 : run.bookies[0].points.size();
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&t, Num(run.bookies[0].points[i].t_s));
    for (const auto& b : run.bookies) {
      absl::StrAppend(&t, " ",
                      i < b.points.size() ? Num(field(b.points[i])) : "NaN");
    }
    t += "\n";
  }
  return t;
}

template <typename F>
std::string ReaderData(const WorkloadRun& run, F field) {
  std::string t = "# t_s";
  for (const auto& r : run.readers) absl::StrAppend(&t, " ", r.name);
  t += "\n";
  const size_t n = run.reader_series.empty() ? 0 : run.reader_series[0].size();
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&t, Num(run.reader_series[0][i].t_s));
    for (const auto& s : run.reader_series) {
      absl::StrAppend(&t, " ", i < s.size() ? Num(field(s[i])) : "NaN");
    }
    t += "\n";
  }
  return t;
}

std::string Header(const std::string& dir, const std::string& png,
                   const std::string& title, const std::string& ylabel,
                   bool log_y) {
  return absl::StrCat(
      "set terminal pngcairo size 1000,450 font 'sans,10'\n"
      "set grid\nset key outside right top\nset datafile missing 'NaN'\n"
      "set xlabel 'seconds into the measured phase'\n"
      "set output '",
      dir, "/", png, "'\nset title '", title, "'\nset ylabel '", ylabel, "'\n",
      log_y ? "set logscale y\n" : "", "set yrange [0:*]\n",
      log_y ? "set yrange [*:*]\n" : "");
}

// One line per run: column `col` of write_<label>.dat.
std::string RunsChart(const ScenarioResult& r, const std::string& dir,
                      const std::string& png, int col, const std::string& title,
                      const std::string& ylabel, bool log_y) {
  std::string gp = Header(dir, png, title, ylabel, log_y) + "plot ";
  for (size_t i = 0; i < r.runs.size(); ++i) {
    absl::StrAppend(&gp, i ? ", " : "", "'", dir, "/write_", r.runs[i].label,
                    ".dat' using 1:", col, " with linespoints title '",
                    r.runs[i].label, "'");
  }
  return gp + "\n";
}

// One line per column 2.. of `dat`, titled by `names`.
std::string ColumnsChart(const std::string& dir, const std::string& png,
                         const std::string& dat,
                         const std::vector<std::string>& names,
                         const std::string& title, const std::string& ylabel) {
  std::string gp = Header(dir, png, title, ylabel, false) + "plot ";
  for (size_t i = 0; i < names.size(); ++i) {
    absl::StrAppend(&gp, i ? ", " : "", "'", dir, "/", dat, "' using 1:", i + 2,
                    " with lines lw 2 title '", names[i], "'");
  }
  return gp + "\n";
}

absl::Status RunGnuplot(const std::string& program, const std::string& script) {
  const std::string path = sim::FindProgram(program);
  if (path.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "gnuplot (\"", program,
        "\") not found in PATH; install gnuplot-nox to render the charts"));
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
    if (errno != EINTR) return absl::InternalError("waitpid failed");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat(path, " failed on ", script));
  }
  return absl::OkStatus();
}

// Whether any run knows the CPU pressure of some second (gnuplot fails on a
// chart whose every point is missing).
bool HasMachine(const ScenarioResult& r) {
  for (const WorkloadRun& run : r.runs) {
    if (Summarise(run.machine).cpu_stall_mean >= 0) return true;
  }
  return false;
}

bool HasReaders(const ScenarioResult& r) {
  return !r.runs.empty() && !r.runs[0].readers.empty();
}

}  // namespace

std::vector<std::string> ReportCharts(const ScenarioResult& r) {
  std::vector<std::string> png = {"throughput.png", "latency_p50.png",
                                  "latency_p99.png"};
  if (HasMachine(r)) png.push_back("cpu_stall.png");
  for (const WorkloadRun& run : r.runs) {
    if (run.bookies.empty()) continue;
    png.push_back("bookie_write_" + run.label + ".png");
    png.push_back("bookie_util_" + run.label + ".png");
  }
  if (HasReaders(r)) {
    png.push_back("backlog.png");
    png.push_back("tail_latency.png");
  }
  return png;
}

absl::Status WriteRunReport(const ScenarioResult& r, const std::string& dir,
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
  const std::string d = std::filesystem::absolute(dir).string();
  std::vector<std::pair<std::string, std::string>> files = {
      {"report.md", ReportMarkdown(r)},
      {"result.json", ScenarioResultJson(r).dump(2) + "\n"}};
  std::vector<std::pair<std::string, std::string>> charts;
  charts.push_back({"throughput", RunsChart(r, d, "throughput.png", 2,
                                            "Acknowledged adds per second",
                                            "adds/s", false)});
  charts.push_back(
      {"latency_p50", RunsChart(r, d, "latency_p50.png", 3,
                                "p50 add latency per second", "ms", true)});
  charts.push_back(
      {"latency_p99", RunsChart(r, d, "latency_p99.png", 4,
                                "p99 add latency per second", "ms", true)});
  if (HasMachine(r)) {
    charts.push_back(
        {"cpu_stall",
         RunsChart(r, d, "cpu_stall.png", 7,
                   "CPU pressure: share of each second with a runnable thread "
                   "waiting for a CPU (PSI cpu some)",
                   "%", false)});
  }
  for (const WorkloadRun& run : r.runs) {
    files.push_back({"write_" + run.label + ".dat", WriteData(run)});
    if (run.bookies.empty()) continue;
    std::vector<std::string> ids;
    for (const auto& b : run.bookies) ids.push_back(b.id);
    files.push_back({"bookie_write_" + run.label + ".dat",
                     BookieData(run, [](const BookieLoadPoint& p) {
                       return p.write_mb_per_s;
                     })});
    files.push_back({"bookie_util_" + run.label + ".dat",
                     BookieData(run, [](const BookieLoadPoint& p) {
                       return p.journal_util;
                     })});
    charts.push_back(
        {"bookie_write_" + run.label,
         ColumnsChart(d, "bookie_write_" + run.label + ".png",
                      "bookie_write_" + run.label + ".dat", ids,
                      "Journal writes per bookie (GetBookieInfo), " + run.label,
                      "MB/s")});
    charts.push_back(
        {"bookie_util_" + run.label,
         ColumnsChart(d, "bookie_util_" + run.label + ".png",
                      "bookie_util_" + run.label + ".dat", ids,
                      "Journal utilisation per bookie, " + run.label, "%")});
  }
  if (HasReaders(r)) {
    const WorkloadRun& run = r.runs[0];
    std::vector<std::string> names;
    for (const auto& rr : run.readers) names.push_back(rr.name);
    files.push_back({"backlog.dat", ReaderData(run, [](const ReaderSecond& s) {
                       return static_cast<double>(s.backlog);
                     })});
    files.push_back({"tail.dat", ReaderData(run, [](const ReaderSecond& s) {
                       return s.tail_p99_ms;
                     })});
    charts.push_back(
        {"backlog",
         ColumnsChart(d, "backlog.png", "backlog.dat", names,
                      "Reader backlog (entries confirmed, not yet read)",
                      "entries")});
    charts.push_back(
        {"tail_latency",
         ColumnsChart(d, "tail_latency.png", "tail.dat", names,
                      "Tailing read latency p99 (added -> read), caught up",
                      "ms")});
  }
  for (const auto& [name, gp] : charts) files.push_back({name + ".gp", gp});
  for (const auto& [name, text] : files) {
    if (absl::Status s = WriteFile(d + "/" + name, text); !s.ok()) return s;
  }
  // One gnuplot per chart, so that a chart without data (a reader that
  // never caught up) costs only that chart.
  absl::Status first;
  for (const auto& [name, gp] : charts) {
    absl::Status s = RunGnuplot(gnuplot, d + "/" + name + ".gp");
    if (absl::IsFailedPrecondition(s)) return s;
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace bk::bkbench
