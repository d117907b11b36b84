// bkbench echo: what the client library costs over the RPC under it, in one
// run, with no bookie store involved.
//
//   (a) bare: RunStreamLoad (bookie/echo/stream_load.h) against one echo
//       server: raw AddEntries streams, batches of --batch entries, no
//       client library. CPU per add is the RPC stack's own cost.
//   (b) client: the client library writing --ledgers ledgers at E/WQ/AQ
//       against E echo servers (echo_ceiling.h), as fast as the window
//       allows. Each entry is WQ replica-adds on the wire.
//
// Both run in this process on this machine, one after the other, so CPU per
// replica-add of (b) over CPU per add of (a) is the client library's cost
// as a multiple of the RPC's. Allocations are counted by replacing the
// global operator new (common/alloc/alloc_counter.h, linked into bkbench
// only); "large" ones (>= 1 KiB) are where a copy of a 1 KiB payload lands.

#include <iostream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bookie/echo/echo_service.h"
#include "bookie/echo/stream_load.h"
#include "common/alloc/alloc_counter.h"
#include "tools/bkbench/commands.h"
#include "tools/bkbench/echo_ceiling.h"
#include "tools/bkctl/flags.h"

namespace bk::bkbench {
namespace {

int Usage(const std::string& msg) {
  std::cerr << "bkbench echo: " << msg << "\n";
  return kExitUsage;
}

}  // namespace

int EchoCommand(const std::vector<std::string>& raw) {
  const std::vector<std::string> args = bkctl::ShortFlagsToLong(raw);
  const std::vector<bkctl::FlagSpec> specs = {
      {"ledgers", false, "ledgers written at once (1)"},
      {"entry-size", false, "bytes per entry (1024)"},
      {"seconds", false, "seconds per measured run (5)"},
      {"window", false, "adds in flight per ledger (2000)"},
      {"batch", false, "entries per message of the bare run (64)"},
      {"e", false, "ensemble (3)"},
      {"w", false, "write quorum (3)"},
      {"a", false, "ack quorum (2)"},
      {"only", false, "bare|client: one of the two runs"},
      {"json", false, "print the result as JSON", true}};
  auto f = bkctl::ParseFlags(args, specs);
  if (!f.ok()) return Usage(std::string(f.status().message()));
  auto num = [&](const char* n, int64_t def, int64_t lo,
                 int64_t hi) -> absl::StatusOr<int64_t> {
    return f->Has(n) ? f->GetInt(n, lo, hi) : absl::StatusOr<int64_t>(def);
  };
  auto ledgers = num("ledgers", 1, 1, 1000);
  auto size = num("entry-size", 1024, 8, 16 << 20);
  auto seconds = num("seconds", 5, 1, 3600);
  auto window = num("window", 2000, 1, 1 << 20);
  auto batch = num("batch", 64, 1, 4096);
  auto e = num("e", 3, 1, 64), w = num("w", 3, 1, 64), a = num("a", 2, 1, 64);
  for (auto* v : {&ledgers, &size, &seconds, &window, &batch, &e, &w, &a}) {
    if (!v->ok()) return Usage(std::string(v->status().message()));
  }
  if (!(*a <= *w && *w <= *e)) return Usage("need -a <= -w <= -e");
  const std::string only = f->Get("only");
  if (!only.empty() && only != "bare" && only != "client") {
    return Usage("--only takes bare or client");
  }

  nlohmann::json j = {{"entry_size", *size}};
  double bare_cpu_us = 0;
  if (only != "client") {
    auto server = bookie::StartEchoServer();
    if (!server.ok()) {
      std::cerr << "bkbench echo: " << server.status().message() << "\n";
      return 1;
    }
    bookie::StreamLoadOptions so;
    so.entry_size = static_cast<size_t>(*size);
    so.batch = static_cast<int>(*batch);
    const std::string target = absl::StrCat("127.0.0.1:", (*server)->port);
    so.seconds = 1;
    bookie::RunStreamLoad(target, so);  // warm-up
    so.seconds = static_cast<double>(*seconds);
    const uint64_t a0 = alloc::Allocations();
    bookie::StreamLoadResult r = bookie::RunStreamLoad(target, so);
    const uint64_t allocs = alloc::Allocations() - a0;
    bare_cpu_us = r.adds > 0 ? r.cpu_seconds / r.adds * 1e6 : 0;
    j["bare"] = {{"adds_per_second", r.AddsPerSecond()},
                 {"cpu_us_per_add", bare_cpu_us},
                 {"allocations_per_add",
                  r.adds > 0 ? static_cast<double>(allocs) / r.adds : 0},
                 {"p50_ms", r.PercentileUs(0.5) / 1000},
                 {"p99_ms", r.PercentileUs(0.99) / 1000},
                 {"streams", so.streams},
                 {"batch", so.batch},
                 {"errors", r.errors}};
  }
  double client_cpu_us = 0;
  if (only != "bare") {
    WriteLoadOptions wo;
    wo.ledgers = static_cast<int>(*ledgers);
    wo.entry_size = *size;
    wo.ensemble = static_cast<int>(*e);
    wo.write_quorum = static_cast<int>(*w);
    wo.ack_quorum = static_cast<int>(*a);
    wo.max_in_flight_per_ledger = *window;
    auto c =
        MeasureEchoCeiling(wo, absl::Seconds(*seconds),
                           {&alloc::Allocations, &alloc::LargeAllocations});
    if (!c.ok()) {
      std::cerr << "bkbench echo: " << c.status().message() << "\n";
      return 1;
    }
    const double replica_adds = static_cast<double>(c->entries) * (*w);
    const double per_entry = c->entries > 0 ? 1.0 / c->entries : 0;
    client_cpu_us = replica_adds > 0 ? c->cpu_seconds / replica_adds * 1e6 : 0;
    j["client"] = {
        {"entries_per_second", c->entries_per_second},
        {"replica_adds_per_second", c->entries_per_second * (*w)},
        {"cpu_us_per_replica_add", client_cpu_us},
        {"cpu_us_per_entry", c->cpu_seconds * per_entry * 1e6},
        {"allocations_per_entry", c->allocations * per_entry},
        {"large_allocations_per_entry", c->large_allocations * per_entry},
        {"p50_ms", c->p50_ms},
        {"p99_ms", c->p99_ms},
        {"ledgers", *ledgers},
        {"window_per_ledger", *window},
        {"ensemble", *e},
        {"write_quorum", *w},
        {"ack_quorum", *a}};
  }
  if (bare_cpu_us > 0 && client_cpu_us > 0) {
    j["client_over_bare_cpu"] = client_cpu_us / bare_cpu_us;
    j["bare_over_client_replica_adds_per_second"] =
        j["bare"]["adds_per_second"].get<double>() /
        j["client"]["replica_adds_per_second"].get<double>();
  }
  if (f->GetBool("json")) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (j.contains("bare")) {
    const auto& b = j["bare"];
    std::cout << absl::StrFormat(
        "bare gRPC stream echo: %.0f adds/s, %.2f us CPU/add, %.2f "
        "allocations/add (%d streams, batches of %d, %d B), p50 %.2f ms p99 "
        "%.2f ms\n",
        b["adds_per_second"].get<double>(), bare_cpu_us,
        b["allocations_per_add"].get<double>(), b["streams"].get<int>(),
        b["batch"].get<int>(), *size, b["p50_ms"].get<double>(),
        b["p99_ms"].get<double>());
  }
  if (j.contains("client")) {
    const auto& c = j["client"];
    std::cout << absl::StrFormat(
        "client library echo E%d/WQ%d/AQ%d, %d ledger(s) x %d in flight: %.0f "
        "entries/s = %.0f replica-adds/s, %.2f us CPU/replica-add, %.1f "
        "allocations/entry (%.2f of >= 1 KiB), p50 %.2f ms p99 %.2f ms\n",
        *e, *w, *a, *ledgers, *window, c["entries_per_second"].get<double>(),
        c["replica_adds_per_second"].get<double>(), client_cpu_us,
        c["allocations_per_entry"].get<double>(),
        c["large_allocations_per_entry"].get<double>(),
        c["p50_ms"].get<double>(), c["p99_ms"].get<double>());
  }
  if (j.contains("client_over_bare_cpu")) {
    std::cout << absl::StrFormat(
        "client library CPU per replica-add = %.2f x the bare RPC's per add; "
        "bare adds/s = %.2f x the client's replica-adds/s (target <= 3)\n",
        j["client_over_bare_cpu"].get<double>(),
        j["bare_over_client_replica_adds_per_second"].get<double>());
  }
  return 0;
}

}  // namespace bk::bkbench
