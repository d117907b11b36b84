// bkbench: client-side benchmarks against a running cluster.
//
//   bkbench write --metadata-uri URI [--ledgers 4] [--entry-size 1024]
//       [--rate N | max] [--duration 10] [-e 3 -w 2 -a 2]
//       [--weighting load] [--journal-dir DIR] [--json]
//
// Prints progress once a second on stderr, then throughput (entries/s,
// MB/s), add latency p50/p99/p999/max from a log-linear histogram, errors,
// and -- with --journal-dir -- the machine's ceiling measured in the same
// run before and after: pwrite + fdatasync of groups the size the bookies'
// journals would have seen (entries per millisecond x entry size, as a
// journal with a ~1 ms group wait would group them).

#include <atomic>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "bench/bench_common.h"
#include "client/client.h"
#include "tools/bkbench/histogram.h"
#include "tools/bkctl/flags.h"

namespace bk::bkbench {

inline constexpr int kExitUsage = 2;  // bad flags, as bkctl

namespace {
constexpr int64_t kMaxInFlightPerLedger = 2000;

struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  LatencyHistogram total, second;
  int64_t acked = 0, failed = 0, in_flight = 0;
  std::string first_error;
};

int Usage(const std::string& msg) {
  std::cerr << "bkbench write: " << msg << "\n";
  return kExitUsage;
}

int Write(const std::vector<std::string>& raw) {
  std::vector<std::string> args;
  for (const auto& a : raw) {
    args.push_back(a.size() == 2 && a[0] == '-' && a[1] != '-' ? "-" + a : a);
  }
  auto f = bkctl::ParseFlags(
      args, {{"metadata-uri", true, "metadata store"},
             {"ledgers", false, "ledgers written at once (4)"},
             {"entry-size", false, "bytes per entry (1024)"},
             {"rate", false, "target entries/s in total, or max (max)"},
             {"duration", false, "seconds (10)"},
             {"e", false, "ensemble (3)"},
             {"w", false, "write quorum (2)"},
             {"a", false, "ack quorum (2)"},
             {"weighting", false, "none|disk|load|adaptive (load)"},
             {"journal-dir", false, "dir on the journal disk, for the ceiling"},
             {"json", false, "print the result as JSON", true}});
  if (!f.ok()) return Usage(std::string(f.status().message()));
  auto num = [&](const char* n, int64_t def, int64_t lo,
                 int64_t hi) -> absl::StatusOr<int64_t> {
    return f->Has(n) ? f->GetInt(n, lo, hi) : absl::StatusOr<int64_t>(def);
  };
  auto ledgers = num("ledgers", 4, 1, 1000);
  auto size = num("entry-size", 1024, 1, 16 << 20);
  auto duration = num("duration", 10, 1, 86400);
  auto e = num("e", 3, 1, 64), w = num("w", 2, 1, 64), a = num("a", 2, 1, 64);
  for (auto* v : {&ledgers, &size, &duration, &e, &w, &a}) {
    if (!v->ok()) return Usage(std::string(v->status().message()));
  }
  if (!(*a <= *w && *w <= *e)) return Usage("need -a <= -w <= -e");
  double rate = 0;  // 0: as fast as the window allows
  if (f->Has("rate") && f->Get("rate") != "max") {
    auto r = f->GetInt("rate", 1, 100000000);
    if (!r.ok()) return Usage(std::string(r.status().message()));
    rate = static_cast<double>(*r);
  }
  client::ClientOptions co;
  co.metadata_service_uri = f->Get("metadata-uri");
  if (f->Has("weighting")) {
    auto wt = placement::ParseWeighting(f->Get("weighting"));
    if (!wt.ok()) return Usage(std::string(wt.status().message()));
    co.placement.weighting = *wt;
  } else {
    co.placement.weighting = placement::Weighting::kLoad;
  }
  const std::string jdir = f->Get("journal-dir");
  bench::Ceiling before;
  const size_t probe_group = static_cast<size_t>(*size) * 16;
  if (!jdir.empty()) before = bench::MeasureCeiling(jdir, probe_group, 2.0);

  auto c = client::Client::Create(co);
  if (!c.ok()) {
    std::cerr << "bkbench write: " << c.status().message() << "\n";
    return 1;
  }
  std::vector<std::unique_ptr<client::LedgerWriter>> writers;
  for (int64_t i = 0; i < *ledgers; ++i) {
    auto lw = (*c)->CreateLedger({.ensemble_size = static_cast<int>(*e),
                                  .write_quorum = static_cast<int>(*w),
                                  .ack_quorum = static_cast<int>(*a),
                                  .password = "bkbench"});
    if (!lw.ok()) {
      std::cerr << "bkbench write: " << lw.status().message() << "\n";
      return 1;
    }
    writers.push_back(std::move(*lw));
  }
  const std::string payload(static_cast<size_t>(*size), 'b');
  Shared sh;
  const int64_t window = kMaxInFlightPerLedger * *ledgers;
  std::atomic<bool> stop{false};
  const absl::Time start = absl::Now();
  const absl::Time end = start + absl::Seconds(*duration);

  std::thread progress([&] {
    int64_t last_acked = 0;
    for (int s = 1; !stop.load(); ++s) {
      absl::SleepFor(absl::Seconds(1));
      std::lock_guard<std::mutex> l(sh.mu);
      std::cerr << absl::StrFormat(
          "[%3ds] %7d entries/s  p50 %6.2f ms  p99 %7.2f ms  in flight %d  "
          "errors %d\n",
          s, sh.acked - last_acked, sh.second.PercentileUs(0.5) / 1000.0,
          sh.second.PercentileUs(0.99) / 1000.0, sh.in_flight, sh.failed);
      last_acked = sh.acked;
      sh.second = LatencyHistogram();
    }
  });

  int64_t issued = 0;
  size_t rr = 0;
  while (absl::Now() < end) {
    if (rate > 0) {
      const double due = rate * absl::ToDoubleSeconds(absl::Now() - start);
      if (static_cast<double>(issued) >= due) {
        absl::SleepFor(absl::Microseconds(200));
        continue;
      }
    }
    {
      std::unique_lock<std::mutex> l(sh.mu);
      if (!sh.cv.wait_for(l, std::chrono::milliseconds(100),
                          [&] { return sh.in_flight < window; })) {
        continue;
      }
      ++sh.in_flight;
    }
    ++issued;
    const absl::Time t0 = absl::Now();
    writers[rr++ % writers.size()]->Append(
        payload, [&sh, t0](absl::StatusOr<int64_t> r) {
          const int64_t us = absl::ToInt64Microseconds(absl::Now() - t0);
          std::lock_guard<std::mutex> l(sh.mu);
          --sh.in_flight;
          if (r.ok()) {
            ++sh.acked;
            sh.total.Record(us);
            sh.second.Record(us);
          } else if (sh.failed++ == 0) {
            sh.first_error = std::string(r.status().message());
          }
          sh.cv.notify_all();
        });
  }
  for (auto& lw : writers) lw->Close().IgnoreError();
  const double secs = absl::ToDoubleSeconds(absl::Now() - start);
  stop.store(true);
  progress.join();
  writers.clear();

  const double eps = static_cast<double>(sh.acked) / secs;
  const double mbps = eps * static_cast<double>(*size) / 1e6;
  // What one journal group would hold at this rate with a ~1 ms group wait.
  const size_t group = std::max<size_t>(
      4096, static_cast<size_t>(eps / 1000.0 * static_cast<double>(*size)));
  bench::Ceiling after;
  if (!jdir.empty()) after = bench::MeasureCeiling(jdir, group, 2.0);
  nlohmann::json j = {
      {"entries_per_second", eps},
      {"mb_per_second", mbps},
      {"entries", sh.acked},
      {"errors", sh.failed},
      {"first_error", sh.first_error},
      {"seconds", secs},
      {"entry_size", *size},
      {"ledgers", *ledgers},
      {"ensemble", *e},
      {"write_quorum", *w},
      {"ack_quorum", *a},
      {"target_rate", rate},
      {"latency_ms",
       {{"p50", sh.total.PercentileUs(0.5) / 1000.0},
        {"p99", sh.total.PercentileUs(0.99) / 1000.0},
        {"p999", sh.total.PercentileUs(0.999) / 1000.0},
        {"max", static_cast<double>(sh.total.max_us()) / 1000.0}}}};
  if (!jdir.empty()) {
    j["ceiling"] = {{"journal_dir", jdir},
                    {"group_bytes", group},
                    {"before_mb_per_s", before.mb_per_s},
                    {"before_small_sync_ms", before.small_sync_ms},
                    {"after_mb_per_s", after.mb_per_s},
                    {"after_groups_per_s", after.groups_per_s},
                    {"after_small_sync_ms", after.small_sync_ms},
                    {"regime", bench::Regime(after.small_sync_ms)}};
  }
  if (f->GetBool("json")) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << absl::StrFormat(
        "write: %.0f entries/s, %.2f MB/s (%d entries of %d B over %d "
        "ledgers E%d/WQ%d/AQ%d in %.1f s), errors %d\n"
        "latency: p50 %.2f ms  p99 %.2f ms  p999 %.2f ms  max %.2f ms\n",
        eps, mbps, sh.acked, *size, *ledgers, *e, *w, *a, secs, sh.failed,
        sh.total.PercentileUs(0.5) / 1000.0,
        sh.total.PercentileUs(0.99) / 1000.0,
        sh.total.PercentileUs(0.999) / 1000.0,
        static_cast<double>(sh.total.max_us()) / 1000.0);
    if (!jdir.empty()) {
      std::cout << absl::StrFormat(
          "ceiling on %s: pwrite+fdatasync %.1f MB/s before, %.1f MB/s "
          "(%.0f groups/s of %d B) after; fsync regime %s\n",
          jdir, before.mb_per_s, after.mb_per_s, after.groups_per_s, group,
          bench::Regime(after.small_sync_ms));
    }
    if (sh.failed > 0) std::cout << "first error: " << sh.first_error << "\n";
  }
  return sh.failed > 0 ? 1 : 0;
}

}  // namespace
}  // namespace bk::bkbench

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] != "write") {
    std::cerr << "usage: bkbench write --metadata-uri URI [--ledgers N] "
                 "[--entry-size B] [--rate N|max] [--duration S] [-e E -w W "
                 "-a A] [--weighting W] [--journal-dir DIR] [--json]\n";
    return args.size() == 1 && (args[0] == "help" || args[0] == "--help")
               ? 0
               : bk::bkbench::kExitUsage;
  }
  return bk::bkbench::Write({args.begin() + 1, args.end()});
}
