// bkbench: client-side benchmarks.
//
//   bkbench [--client-conf FILE] write --metadata-uri URI [--ledgers 4]
//       [--entry-size 1024]
//       [--rate N | max] [--duration 10] [-e 3 -w 2 -a 2]
//       [--weighting load] [--journal-dir DIR] [--echo-seconds 3] [--json]
//       [--tls-ca-file F [--tls-cert-file F --tls-key-file F]
//        [--tls-server-name N]]
//   bkbench repair --dir DIR --bookie-binary PATH [--mb 256]
//       [--rate-bytes B] [--batch 100] [--zk-port P]
//   bkbench scenario --file bench/scenarios/NAME.yaml
//       [--metadata-uri URI [--tls-*] | --local-cluster DIR] [--report DIR]
//       [--json] [--seed S]
//   bkbench read --local-cluster DIR | --metadata-uri URI [--entries 100000]
//       [--entry-size 1024] [-e 3 -w 2 -a 2] [--batch 1000] [--rounds 3]
//       [--open] [--bookies 3] [--bookie-binary PATH] [--bookie-config k=v,..]
//   bkbench echo [--ledgers 1] [--entry-size 1024] [--seconds 5]
//       [--window 2000] [--batch 64] [-e 3 -w 3 -a 2] [--only bare|client]
//       [--json]
//
// See README.md: what each prints, the scenario format, the report.

#include <iostream>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "client/malloc_tuning.h"
#include "tools/bkbench/commands.h"
#include "tools/bkctl/client_conf.h"

int main(int argc, char** argv) {
  // As the bookie's main() does: Debian's Abseil checks every Mutex
  // acquisition for lock-order cycles unless told not to, a cost a
  // production process does not pay (client/README.md).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // And the malloc settings the bookie runs with, as client/malloc_tuning.h
  // advises a broker: range reads free what gRPC's threads allocated.
  bk::client::TuneMallocForClient();
  // --client-conf FILE, anywhere on the line, as bkctl takes it: the
  // client library's config file (ZooKeeper credentials, TLS files, the
  // metadata URI) for write and for scenario --metadata-uri.
  auto taken = bk::bkctl::TakeClientConfFlag({argv + 1, argv + argc});
  if (!taken.ok()) {
    std::cerr << "bkbench: " << taken.status().message() << "\n";
    return bk::bkbench::kExitUsage;
  }
  const std::vector<std::string>& args = *taken;
  if (!args.empty() && args[0] == "write") {
    return bk::bkbench::WriteCommand({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "echo") {
    return bk::bkbench::EchoCommand({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "repair") {
    return bk::bkbench::RepairCommand({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "read") {
    return bk::bkbench::ReadCommand({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "scenario") {
    return bk::bkbench::ScenarioCommand({args.begin() + 1, args.end()});
  }
  std::cerr
      << "usage: bkbench write --metadata-uri URI [--ledgers N] "
         "[--entry-size B] [--rate N|max] [--duration S] [-e E -w W -a A] "
         "[--weighting W] [--journal-dir DIR] [--echo-seconds S] [--json] "
         "[--tls-*]\n"
         "       bkbench scenario --file YAML [--metadata-uri URI [--tls-*] | "
         "--local-cluster DIR] [--report DIR] [--json] [--seed S] "
         "[--bookie-binary PATH] [--echo-seconds S] [--quiet]\n"
         "       bkbench read --local-cluster DIR | --metadata-uri URI "
         "[--entries N] [--entry-size B] [-e E -w W -a A] [--batch N] "
         "[--rounds N] [--open] [--bookies N] [--bookie-binary PATH] "
         "[--bookie-config k=v,...]\n"
         "       bkbench echo [--ledgers N] [--entry-size B] [--seconds S] "
         "[--window N] [--batch N] [-e E -w W -a A] [--only bare|client] "
         "[--json]\n"
         "  --tls-ca-file FILE --tls-cert-file FILE --tls-key-file FILE "
         "--tls-server-name NAME: TLS (mutual with a certificate) towards "
         "the bookies\n"
         "  --client-conf FILE (or BK_CLIENT_CONF=FILE): the client config "
         "file, as bkctl's: ZooKeeper credentials (zkEnableSecurity, "
         "zkDigestFile), metadataServiceUri, TLS files, client keys\n";
  return args.size() == 1 && (args[0] == "help" || args[0] == "--help")
             ? 0
             : bk::bkbench::kExitUsage;
}
