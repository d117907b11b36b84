// bkbench scenario --file F [--metadata-uri URI | --local-cluster DIR]
//     [--report DIR] [--json] [--seed S] [--bookie-binary PATH]
//     [--testing-bookie-binary PATH] [--echo-seconds S] [--quiet]
//     [--control] [--stream-beside-writers]
//     [--tls-* (with --metadata-uri)]
//   the client config file of --client-conf FILE or BK_CLIENT_CONF
//   (bkbench.cc) gives every client its keys; with --metadata-uri every
//   store too (ZooKeeper credentials), on a started cluster not its TLS.

#include <unistd.h>

#include <fstream>
#include <iostream>

#include "absl/random/random.h"
#include "tools/bkbench/commands.h"
#include "tools/bkbench/run_report.h"
#include "tools/bkbench/scenario_runner.h"
#include "tools/bkctl/client_conf.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/tls_flags.h"
#include "tools/localcluster/child_process.h"

namespace bk::bkbench {
namespace {

int Usage(const std::string& msg) {
  std::cerr << "bkbench scenario: " << msg << "\n";
  return kExitUsage;
}

}  // namespace

int ScenarioCommand(const std::vector<std::string>& args) {
  std::vector<bkctl::FlagSpec> specs = {
      {"file", true, "scenario YAML (bench/scenarios/*.yaml)"},
      {"metadata-uri", false, "run on this cluster (workload kind only)"},
      {"local-cluster", false,
       "start the cluster in this dir (else a temp"
       " dir)"},
      {"report", false, "write report.md, *.dat, *.png, result.json here"},
      {"json", false, "print the result as JSON", true},
      {"seed", false, "seed of the clients' random sources"},
      {"bookie-binary", false, "path of `bookie` (beside bkbench)"},
      {"testing-bookie-binary", false,
       "path of `bookie_testing`, the slow-bookie scenario's slow cluster "
       "(beside bkbench)"},
      {"echo-seconds", false, "echo ceiling run, 0 to skip (3)"},
      {"quiet", false, "no progress on stderr", true},
      {"control", false,
       "with readers: run the writers again without them (no-readers)", true},
      {"stream-beside-writers", false,
       "with late readers: run the writers again with each late reader "
       "replaced by the bare stream of its backlog (streams)",
       true}};
  for (bkctl::FlagSpec& s : bkctl::TlsFlags()) specs.push_back(std::move(s));
  auto f = bkctl::ParseFlags(args, specs);
  if (!f.ok()) return Usage(std::string(f.status().message()));
  auto tls = bkctl::TlsOptionsOf(*f);
  if (!tls.ok()) return Usage(std::string(tls.status().message()));
  if (!tls->ca_file.empty() && !f->Has("metadata-uri")) {
    return Usage(
        "--tls-* apply to --metadata-uri (a started cluster is "
        "plaintext)");
  }
  if (f->Has("metadata-uri") && f->Has("local-cluster")) {
    return Usage("give --metadata-uri or --local-cluster, not both");
  }
  auto spec = ReadScenarioSpecFile(f->Get("file"));
  if (!spec.ok()) return Usage(std::string(spec.status().message()));
  if (spec->kind == ScenarioKind::kSlowBookie && f->Has("metadata-uri")) {
    return Usage(
        "a slow-bookie scenario starts its own clusters; drop "
        "--metadata-uri");
  }
  RunnerOptions o;
  o.metadata_uri = f->Get("metadata-uri");
  {
    // The client config file's keys (--client-conf or BK_CLIENT_CONF, as
    // bkctl: ZooKeeper credentials, timeouts, read options), then the
    // --tls-* flags. A started cluster is open and plaintext: its clients
    // take the file's keys but no TLS.
    auto conf = bkctl::ClientConfOptions();
    if (!conf.ok()) return Usage(std::string(conf.status().message()));
    o.client = *conf;
    if (f->Has("metadata-uri")) {
      o.client.tls = *tls;
    } else {
      o.client.tls = decltype(o.client.tls){};
    }
  }
  o.cluster_dir = f->Get("local-cluster");
  o.bookie_binary = f->Has("bookie-binary")
                        ? f->Get("bookie-binary")
                        : localcluster::BesideSelf("bookie");
  o.testing_bookie_binary = f->Has("testing-bookie-binary")
                                ? f->Get("testing-bookie-binary")
                                : localcluster::BesideSelf("bookie_testing");
  o.progress = !f->GetBool("quiet");
  o.control_without_readers = f->GetBool("control");
  o.stream_beside_writers = f->GetBool("stream-beside-writers");
  if (f->Has("echo-seconds")) {
    auto e = f->GetInt("echo-seconds", 0, 600);
    if (!e.ok()) return Usage(std::string(e.status().message()));
    o.echo_seconds = static_cast<double>(*e);
  }
  if (f->Has("seed")) {
    auto s = f->GetUint64("seed");
    if (!s.ok()) return Usage(std::string(s.status().message()));
    o.seed = *s;
  } else if (spec->seed != 0) {
    o.seed = spec->seed;
  }
  if (o.seed == 0) {
    absl::BitGen gen;
    o.seed = absl::Uniform<uint64_t>(gen, 1, ~uint64_t{0});
  }
  std::cerr << "bkbench scenario " << spec->name << ": seed " << o.seed << "\n";
  auto result = RunScenario(*spec, o);
  if (!result.ok()) {
    std::cerr << "bkbench scenario: " << result.status().message() << "\n";
    return 1;
  }
  int rc = 0;
  if (f->Has("report")) {
    absl::Status s = WriteRunReport(*result, f->Get("report"));
    if (!s.ok()) {
      std::cerr << "bkbench scenario: report: " << s.message() << "\n";
      rc = 1;
    }
  }
  if (f->GetBool("json")) {
    std::cout << ScenarioResultJson(*result).dump(2) << "\n";
  } else {
    std::cout << ReportMarkdown(*result);
  }
  for (const WorkloadRun& run : result->runs) {
    if (run.write.failed > 0) rc = 1;
    for (const ReaderResult& r : run.readers) rc = r.errors > 0 ? 1 : rc;
  }
  return rc;
}

}  // namespace bk::bkbench
