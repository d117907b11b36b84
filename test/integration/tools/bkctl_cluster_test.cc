// bkctl's data commands against a live cluster (a ZooKeeper and 3 bookie
// processes from tools/localcluster): listbookies, simpletest,
// bookiesanity, and write + SIGKILL of a bookie + read --verify-acked-log;
// then bkctl and bkbench against bookies that require mutual TLS.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "test/integration/tools/tool_runner.h"
#include "test/support/bookie_process.h"
#include "test/support/temp_dir.h"
#include "test/support/test_certificates.h"
#include "tools/localcluster/local_cluster.h"

namespace {

using Result = bk::testing::ToolResult;
using bk::testing::RunTool;

Result Run(const std::string& program, const std::string& args,
           const std::string& scratch) {
  return RunTool(program, args, scratch);
}

Result Bkctl(const std::string& args, const std::string& scratch) {
  return RunTool(BKCTL_PATH, args, scratch);
}

size_t Lines(const std::string& s) { return bk::testing::CountLines(s); }

std::unique_ptr<bk::localcluster::LocalCluster> StartCluster(
    const std::string& dir, std::vector<std::string> extra_config = {}) {
  return bk::testing::StartToolCluster(dir, BK_BOOKIE_BINARY,
                                       std::move(extra_config));
}

}  // namespace

TEST_CASE(
    "bkctl commands work against a live cluster and survive a killed "
    "bookie",
    "[integration][tools]") {
  bk::testing::TempDir tmp;
  auto cluster = StartCluster(tmp.path());
  REQUIRE(cluster != nullptr);
  const std::string uri = " --metadata-uri " + cluster->metadata_uri();

  Result list = Bkctl("listbookies" + uri, tmp.path());
  INFO(list.err);
  REQUIRE(list.exit_code == 0);
  CHECK(Lines(list.out) == 3);
  for (const auto& b : cluster->bookies()) {
    CHECK(absl::StrContains(list.out, b.id));
  }

  Result simple = Bkctl("simpletest -e 3 -w 2 -a 2 -n 500" + uri, tmp.path());
  INFO(simple.out << simple.err);
  CHECK(simple.exit_code == 0);
  CHECK(absl::StrContains(simple.out, "mismatched 0"));

  Result sanity = Bkctl("bookiesanity" + uri, tmp.path());
  INFO(sanity.out << sanity.err);
  CHECK(sanity.exit_code == 0);
  CHECK(Lines(sanity.out) == 3);

  // Isolation groups: tag every bookie, read them back; the writer below
  // records them in its placement notes, which `placement explain` shows.
  for (const auto& b : cluster->bookies()) {
    Result set = Bkctl(
        "bookiegroups set --bookie " + b.id + " --groups tenant-a,shared" + uri,
        tmp.path());
    INFO(set.err);
    CHECK(set.exit_code == 0);
  }
  Result got =
      Bkctl("bookiegroups get --bookie " + cluster->bookies()[0].id + uri,
            tmp.path());
  CHECK(got.out == cluster->bookies()[0].id + "\tshared,tenant-a\n");
  Result groups = Bkctl("bookiegroups list --json" + uri, tmp.path());
  INFO(groups.err);
  REQUIRE(groups.exit_code == 0);
  CHECK(nlohmann::json::parse(groups.out).size() == 3);
  Result bad = Bkctl("bookiegroups set --bookie " + cluster->bookies()[0].id +
                         " --groups 'a b'" + uri,
                     tmp.path());
  CHECK(bad.exit_code == 2);

  // Write with E3/WQ3/AQ2, SIGKILL a bookie once entries are acknowledged,
  // then every acknowledged entry must read back identical.
  const std::string log = tmp.path() + "/acked.log";
  auto writer = std::async(std::launch::async, [&] {
    return Bkctl(
        "write -e 3 -w 3 -a 2 -n 30000 --entry-size 256"
        " --acked-log " +
            log + uri,
        tmp.path());
  });
  REQUIRE(bk::testing::PollUntil(
      [&] { return Lines(bk::testing::ReadWholeFile(log)) >= 2000; },
      absl::Seconds(20)));
  cluster->KillBookie(0);
  Result write = writer.get();
  INFO(write.out << write.err);
  const size_t acked = Lines(bk::testing::ReadWholeFile(log));
  CHECK(acked >= 2000);
  std::vector<std::string> first =
      absl::StrSplit(bk::testing::ReadWholeFile(log).substr(
                         0, bk::testing::ReadWholeFile(log).find('\n')),
                     ' ');
  REQUIRE(first.size() == 3);
  Result read =
      Bkctl("read --ledger " + first[0] + " --verify-acked-log " + log + uri,
            tmp.path());
  INFO(read.out << read.err);
  CHECK(read.exit_code == 0);
  CHECK(
      absl::StrContains(read.out, "0 differ, 0 acknowledged entries missing"));
  // Every member of the first ensemble with its region and groups.
  Result explain =
      Bkctl("placement explain --json --ledger " + first[0] + uri, tmp.path());
  INFO(explain.out << explain.err);
  REQUIRE(explain.exit_code == 0);
  const auto explained = nlohmann::json::parse(explain.out);
  // Three bookies, three members: nobody was left out.
  CHECK(explained["left_out"] == nlohmann::json::array());
  for (const auto& member : explained["segments"][0]["bookies"]) {
    const std::string rack = member["rack"].get<std::string>();
    CHECK(member["region"] == rack.substr(1, rack.find('/', 1) - 1));
    CHECK(member["groups"] == nlohmann::json::array({"shared", "tenant-a"}));
  }
  cluster->Stop();
}

TEST_CASE("bkctl data commands reject bad arguments with one line and exit 2",
          "[integration][tools]") {
  bk::testing::TempDir tmp;
  for (const std::string args :
       {"simpletest -e 3", "simpletest --metadata-uri mem:// -e 2 -w 3",
        "write --metadata-uri mem:// --bogus 1", "read --metadata-uri mem://",
        "read --metadata-uri mem:// --ledger x", "bookiesanity",
        "format --conf /nonexistent"}) {
    Result r = Bkctl(args, tmp.path());
    INFO(args << " -> " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(Lines(r.err) == 1);
    CHECK(absl::StartsWith(r.err, "bkctl "));
  }
}

TEST_CASE(
    "bkctl and bkbench reach bookies that require mutual TLS with the "
    "--tls flags, and fail without a client certificate",
    "[integration][tools]") {
  bk::testing::TempDir tmp;
  REQUIRE(bk::testing::MakeTestCertificates(tmp.path()).ok());
  auto cluster =
      StartCluster(tmp.path(), {"tlsCertificatePath=" + tmp.Sub("server.pem"),
                                "tlsKeyStore=" + tmp.Sub("server.key"),
                                "tlsTrustStore=" + tmp.Sub("ca.pem"),
                                "tlsClientAuthentication=true"});
  REQUIRE(cluster != nullptr);
  const std::string uri = " --metadata-uri " + cluster->metadata_uri();
  const std::string ca = " --tls-ca-file " + tmp.Sub("ca.pem");
  const std::string mtls = ca + " --tls-cert-file " + tmp.Sub("client.pem") +
                           " --tls-key-file " + tmp.Sub("client.key");

  Result info = Bkctl("bookieinfo" + uri + mtls, tmp.path());
  INFO(info.out << info.err);
  CHECK(info.exit_code == 0);
  CHECK(Lines(info.out) == 3);
  CHECK_FALSE(absl::StrContains(info.out, "error"));

  Result sanity = Bkctl("bookiesanity" + uri + mtls, tmp.path());
  INFO(sanity.out << sanity.err);
  CHECK(sanity.exit_code == 0);
  CHECK(Lines(sanity.out) == 3);

  Result simple =
      Bkctl("simpletest -e 3 -w 2 -a 2 -n 50" + uri + mtls, tmp.path());
  INFO(simple.out << simple.err);
  CHECK(simple.exit_code == 0);
  CHECK(absl::StrContains(simple.out, "mismatched 0"));

  Result bench = Run(BKBENCH_PATH,
                     "write --duration 1 --echo-seconds 0 --ledgers 1 "
                     "--rate 200 -e 3 -w 2 -a 2" +
                         uri + mtls,
                     tmp.path());
  INFO(bench.out << bench.err);
  CHECK(bench.exit_code == 0);
  CHECK(absl::StrContains(bench.out, "errors 0"));

  // The CA alone is not enough for these bookies, and plaintext is not
  // either: every bookie is reported, the command fails.
  for (const std::string& flags : {ca, std::string()}) {
    Result refused = Bkctl("bookiesanity" + uri + flags, tmp.path());
    INFO(flags << " -> " << refused.out << refused.err);
    CHECK(refused.exit_code == 1);
    Result no_info = Bkctl("bookieinfo" + uri + flags, tmp.path());
    CHECK(no_info.exit_code == 1);
    CHECK(Lines(no_info.out) == 3);
  }

  // A certificate without its key is a usage error, before any connection.
  Result usage = Bkctl(
      "bookieinfo" + uri + ca + " --tls-cert-file " + tmp.Sub("client.pem"),
      tmp.path());
  CHECK(usage.exit_code == 2);
  cluster->Stop();
}
