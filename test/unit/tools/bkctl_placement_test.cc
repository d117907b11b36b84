// Runs the built bkctl binary and checks its JSON and exit codes.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "nlohmann/json.hpp"
#include "test/unit/tools/run_bkctl.h"

namespace {

using bk::test::ReadAll;
using bk::test::Result;
using bk::test::RunBkctl;

// A cluster file in the temp directory, removed at scope exit.
class TempCluster {
 public:
  explicit TempCluster(const std::string& json)
      : path_((std::filesystem::temp_directory_path() /
               absl::StrCat("bkctl_test_", getpid(), "_", counter_++, ".json"))
                  .string()) {
    std::ofstream(path_) << json;
  }
  ~TempCluster() {
    std::filesystem::remove(path_);
    std::filesystem::remove(path_ + ".err");
  }
  const std::string& path() const { return path_; }
  std::string err_path() const { return path_ + ".err"; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

const char kCluster[] = R"({"policy": {"weighting": "none"}, "bookies": [
  {"id": "b1", "rack": "/dc/r1"}, {"id": "b2", "rack": "/dc/r1"},
  {"id": "b3", "rack": "/dc/r2"}, {"id": "b4", "rack": "/dc/r2"},
  {"id": "b5", "rack": "/dc/r3"}, {"id": "b6", "rack": "/dc/r3", "readonly": true}]})";

TEST_CASE("bkctl placement newensemble prints counts, adherence and ensembles",
          "[tools][placement]") {
  TempCluster cluster(kCluster);
  Result r =
      RunBkctl(absl::StrCat("placement newensemble --cluster ", cluster.path(),
                            " --ensemble 3 --write-quorum 2 --ack-quorum 2"
                            " --exclude b5 --draws 500 --seed 42"),
               cluster.err_path());
  INFO(ReadAll(cluster.err_path()));
  REQUIRE(r.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["draws"] == 500);
  CHECK(j["counts"].size() == 6);
  CHECK(j["counts"]["b5"] == 0);  // excluded
  CHECK(j["counts"]["b6"] == 0);  // read-only
  int total = 0;
  for (const auto& [id, n] : j["counts"].items()) total += n.get<int>();
  CHECK(total == 1500);
  const auto& a = j["adherence"];
  CHECK(a["MEETS_STRICT"].get<int>() + a["MEETS_SOFT"].get<int>() +
            a["FAIL"].get<int>() ==
        500);
  CHECK(j["not_enough_bookies"] == 0);
  REQUIRE(j["ensembles"].size() == 10);
  CHECK(j["ensembles"][0].size() == 3);
}

// Three regions of two racks; b1 and b4 (regions e and w) in group "t".
const char kRegionCluster[] = R"({"policy": {"ensemblePlacementPolicy":
  "region-aware", "reppMinimumRegionsForDurability": 2}, "bookies": [
  {"id": "b1", "rack": "/e/r1", "groups": ["t"]}, {"id": "b2", "rack": "/e/r2"},
  {"id": "b3", "rack": "/w/r1"}, {"id": "b4", "rack": "/w/r2", "groups": ["t", "u"]},
  {"id": "b5", "rack": "/n/r1"}, {"id": "b6", "rack": "/n/r2", "groups": ["u"]}]})";

TEST_CASE("bkctl placement newensemble spreads over regions and honours groups",
          "[tools][placement]") {
  TempCluster cluster(kRegionCluster);
  Result r =
      RunBkctl(absl::StrCat("placement newensemble --cluster ", cluster.path(),
                            " --ensemble 3 --write-quorum 3 --ack-quorum 2"
                            " --draws 300 --seed 5"),
               cluster.err_path());
  INFO(ReadAll(cluster.err_path()));
  REQUIRE(r.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  // One member per region in every ensemble.
  CHECK(j["region_counts"] ==
        nlohmann::json({{"e", 300}, {"w", 300}, {"n", 300}}));
  CHECK(j["adherence"]["MEETS_STRICT"] == 300);
  // Primary group t has b1 and b4 only; secondary u adds b6 when needed.
  Result g = RunBkctl(
      absl::StrCat("placement newensemble --cluster ", cluster.path(),
                   " --ensemble 3 --write-quorum 3 --ack-quorum 2 --draws 50"
                   " --seed 5 --custom bookkeeperAffinityGroupPrimary=t,"
                   "bookkeeperAffinityGroupSecondary=u"),
      cluster.err_path());
  INFO(ReadAll(cluster.err_path()));
  REQUIRE(g.exit_code == 0);
  nlohmann::json k = nlohmann::json::parse(g.out);
  CHECK(k["counts"]["b1"] == 50);
  CHECK(k["counts"]["b4"] == 50);
  CHECK(k["counts"]["b6"] == 50);
  // A group name that is not a list of names is bad input.
  TempCluster bad(R"({"bookies": [{"id": "b1", "groups": ["a b"]}]})");
  Result e =
      RunBkctl(absl::StrCat("placement newensemble --cluster ", bad.path(),
                            " --ensemble 1 --write-quorum 1"
                            " --ack-quorum 1 --draws 1 --seed 1"),
               bad.err_path());
  CHECK(e.exit_code != 0);
  CHECK(ReadAll(bad.err_path()).find("bookies[0].groups") != std::string::npos);
}

TEST_CASE("bkctl placement newensemble is reproducible from its seed",
          "[tools][placement]") {
  TempCluster cluster(kCluster);
  const std::string args =
      absl::StrCat("placement newensemble --cluster=", cluster.path(),
                   " --ensemble=3 --write-quorum=3 --ack-quorum=2"
                   " --draws=200 --seed=7");
  Result first = RunBkctl(args, cluster.err_path());
  Result second = RunBkctl(args, cluster.err_path());
  REQUIRE(first.exit_code == 0);
  CHECK(first.out == second.out);
}

TEST_CASE("bkctl placement newensemble counts NotEnoughBookies",
          "[tools][placement]") {
  TempCluster cluster(kCluster);
  Result r =
      RunBkctl(absl::StrCat("placement newensemble --cluster ", cluster.path(),
                            " --ensemble 6 --write-quorum 2 --ack-quorum 2"
                            " --draws 20 --seed 1"),
               cluster.err_path());
  REQUIRE(r.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["not_enough_bookies"] == 20);
  CHECK(j["ensembles"].empty());
}

TEST_CASE("bkctl placement replace counts the chosen replacement",
          "[tools][placement]") {
  TempCluster cluster(kCluster);
  Result r =
      RunBkctl(absl::StrCat("placement replace --cluster ", cluster.path(),
                            " --ensemble b1,b3,b5 --replace b3 --write-quorum 2"
                            " --ack-quorum 2 --draws 300 --seed 3"),
               cluster.err_path());
  INFO(ReadAll(cluster.err_path()));
  REQUIRE(r.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  // b4 is the only other bookie in b3's rack.
  CHECK(j["counts"]["b4"] == 300);
  CHECK(j["adherence"]["MEETS_STRICT"] == 300);
  REQUIRE(j["ensembles"].size() == 10);
  CHECK(j["ensembles"][0] == nlohmann::json({"b1", "b4", "b5"}));
}

TEST_CASE("bkctl rejects bad arguments with one line and a usage exit code",
          "[tools][placement]") {
  TempCluster cluster(kCluster);
  const std::string base = absl::StrCat(
      "placement newensemble --cluster ", cluster.path(),
      " --ensemble 3 --write-quorum 2 --ack-quorum 2 --draws 5 --seed 1");
  Result r = RunBkctl(base + " --colour red", cluster.err_path());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(ReadAll(cluster.err_path()) ==
        "bkctl placement: unknown flag --colour\n");
  r = RunBkctl(base + " --exclude b9", cluster.err_path());
  CHECK(r.exit_code == 2);
  r = RunBkctl("placement nosuch", cluster.err_path());
  CHECK(r.exit_code == 2);
  r = RunBkctl(absl::StrCat("placement replace --cluster ", cluster.path(),
                            " --ensemble b1,b3 --replace b5 --write-quorum 2"
                            " --ack-quorum 2 --draws 5 --seed 1"),
               cluster.err_path());
  CHECK(r.exit_code == 2);
  CHECK(ReadAll(cluster.err_path()) ==
        "bkctl placement: --replace: \"b5\" is not in --ensemble\n");
}

TEST_CASE("bkctl reports an invalid cluster file naming the key",
          "[tools][placement]") {
  TempCluster cluster(R"({"bookies": [{"id": "b1", "racks": "/a/b"}]})");
  Result r =
      RunBkctl(absl::StrCat("placement newensemble --cluster ", cluster.path(),
                            " --ensemble 1 --write-quorum 1 --ack-quorum 1"
                            " --draws 1 --seed 1"),
               cluster.err_path());
  CHECK(r.exit_code == 1);
  CHECK(ReadAll(cluster.err_path()).find("unknown key \"bookies[0].racks\"") !=
        std::string::npos);
}

TEST_CASE("bkctl help lists the placement commands", "[tools]") {
  TempCluster cluster("{}");
  Result r = RunBkctl("help", cluster.err_path());
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("placement newensemble") != std::string::npos);
  CHECK(r.out.find("placement replace") != std::string::npos);
}

TEST_CASE(
    "bkctl takes --metadata-uri before the command too, and from "
    "BK_metadataServiceUri",
    "[tools]") {
  TempCluster scratch(kCluster);  // for its stderr file
  const std::string err = scratch.err_path();
  // A fresh in-process store: no bookies, no ledgers.
  Result r = RunBkctl("--metadata-uri mem://global listbookies --json", err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "[]\n");
  r = RunBkctl("--metadata-uri=mem://global ledger list --json", err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "[]\n");
  r = RunBkctl("listbookies --json", err);  // no flag, no environment
  CHECK(r.exit_code == 2);
  CHECK(ReadAll(err).find("BK_metadataServiceUri") != std::string::npos);
  r = RunBkctl("--json listbookies", err);  // a switch cannot lead
  CHECK(r.exit_code == 2);
  CHECK(ReadAll(err).find("cannot come before the command") !=
        std::string::npos);
  r = RunBkctl(
      "--metadata-uri mem://global listbookies --metadata-uri mem://again",
      err);
  CHECK(r.exit_code == 2);  // given twice
  setenv("BK_metadataServiceUri", "mem://from-env", 1);
  r = RunBkctl("listbookies --json", err);
  unsetenv("BK_metadataServiceUri");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "[]\n");
  // From a client config file, named before or after the command.
  const std::string conf = scratch.err_path() + ".client.conf";
  std::ofstream(conf) << "metadataServiceUri=mem://from-file\n";
  r = RunBkctl("--client-conf " + conf + " listbookies --json", err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "[]\n");
  r = RunBkctl("ledger list --json --client-conf=" + conf, err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "[]\n");
  r = RunBkctl("listbookies --client-conf", err);
  CHECK(r.exit_code == 2);
}

}  // namespace
