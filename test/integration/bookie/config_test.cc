// The bookie binary's command line: bad configuration exits 1 with one line
// naming the key, --help lists every key, --print-config round-trips.

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "bookie/daemon/bookie_config.h"
#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

using bk::testing::RunProcess;
using bk::testing::RunResult;

RunResult Run(const std::vector<std::string>& args) {
  auto r = RunProcess(BookieBinary(), args, absl::Seconds(20));
  REQUIRE(r.ok());
  return *r;
}

// Exit 1 and exactly one "bookie: ..." line on stderr, naming `key`. (A
// start refused after logging began may have log lines before it.)
void ExpectRefusal(const std::vector<std::string>& args,
                   const std::string& key) {
  RunResult r = Run(args);
  INFO("stderr: " << r.err);
  CHECK(r.exit.signal == 0);
  CHECK(r.exit.exit_code == 1);
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(r.err, '\n'))
    if (absl::StartsWith(line, "bookie: ")) lines.emplace_back(line);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find(key) != std::string::npos);
}

TEST_CASE("bad configuration exits 1 with one line naming the key",
          "[integration][bookie]") {
  TempDir dir;
  const std::string mem = "--metadataServiceUri=mem://";
  SECTION("unknown flag") {
    ExpectRefusal({"--noSuchKey=1", mem}, "noSuchKey");
  }
  SECTION("unknown key in a file") {
    std::ofstream(dir.Sub("bk.conf")) << "bookieId=b1\nbogusKey=3\n";
    ExpectRefusal({"--conf=" + dir.Sub("bk.conf")}, "bogusKey");
  }
  SECTION("unknown BK_ environment variable is refused too") {
    // RunProcess inherits our environment: set, run, unset.
    setenv("BK_notAKey", "1", 1);
    ExpectRefusal({mem}, "notAKey");
    unsetenv("BK_notAKey");
  }
  SECTION("a testing key is unknown to the production bookie") {
    ExpectRefusal({"--testingSyncDelayMs=1", mem}, "testingSyncDelayMs");
    ExpectRefusal({"--testingFailSyncNth=1", mem}, "testingFailSyncNth");
  }
  SECTION("malformed integer, with the accepted range") {
    ExpectRefusal({"--bookiePort=abc", mem}, "bookiePort");
    ExpectRefusal({"--bookiePort=abc", mem}, "[0, 65535]");
  }
  SECTION("out of range") {
    ExpectRefusal({"--bookiePort=70000", mem}, "bookiePort");
  }
  SECTION("malformed double") {
    ExpectRefusal({"--diskUsageThreshold=lots", mem}, "diskUsageThreshold");
  }
  SECTION("malformed bool") {
    ExpectRefusal({"--journalSyncData=maybe", mem}, "journalSyncData");
  }
  SECTION("bad network location") {
    ExpectRefusal({"--networkLocation=rack1", mem}, "networkLocation");
    ExpectRefusal({"--networkLocation=/a/b/c", mem}, "networkLocation");
  }
  SECTION("bad metadata URI") {
    ExpectRefusal({"--metadataServiceUri=etcd://x", "--bookieId=b",
                   "--journalDirectories=" + dir.Sub("j"),
                   "--ledgerDirectories=" + dir.Sub("l")},
                  "etcd");
  }
  SECTION("TLS key without certificate") {
    ExpectRefusal({"--tlsKeyStore=/nonexistent.pem", "--bookieId=b", mem,
                   "--bookiePort=0", "--httpServerPort=0",
                   "--journalDirectories=" + dir.Sub("j"),
                   "--ledgerDirectories=" + dir.Sub("l")},
                  "tlsCertificatePath");
  }
}

TEST_CASE("the help text lists every key with its default",
          "[integration][bookie]") {
  RunResult r = Run({"--help"});
  CHECK(r.exit.exit_code == 0);
  const auto& schema = bookie::BookieConfigSchema();
  REQUIRE(schema.options().size() > 30);
  for (const auto& def : schema.options()) {
    INFO(def.key);
    CHECK(r.out.find(def.key) != std::string::npos);
    CHECK(r.out.find(def.help) != std::string::npos);
  }
}

TEST_CASE("bookie_testing takes every bookie key and the testing keys",
          "[integration][bookie]") {
  auto r = RunProcess(TestingBookieBinary(),
                      {"--print-config", "--testingFailSyncNth=3",
                       "--testingSyncDelayMs=20", "--bookieId=t1"},
                      absl::Seconds(20));
  REQUIRE(r.ok());
  INFO(r->err);
  REQUIRE(r->exit.exit_code == 0);
  CHECK(r->out.find("\ntestingFailSyncNth=3\n") != std::string::npos);
  CHECK(r->out.find("\ntestingSyncDelayMs=20\n") != std::string::npos);
  CHECK(r->out.find("testingFailSyncPath=.jnl\n") != std::string::npos);
  for (const auto& def : bookie::BookieConfigSchema().options()) {
    INFO(def.key);
    CHECK(r->out.find("\n" + def.key + "=") != std::string::npos);
  }
}

TEST_CASE("the printed config round-trips through a config file",
          "[integration][bookie]") {
  TempDir dir;
  RunResult first =
      Run({"--print-config", "--bookieId=rt-1", "--networkLocation=/eu/r7",
           "--bookiePort=4181", "--ledgerDirectories=/d1,/d2"});
  REQUIRE(first.exit.exit_code == 0);
  CHECK(first.out.find("networkLocation=/eu/r7") != std::string::npos);
  std::ofstream(dir.Sub("printed.conf")) << first.out;
  RunResult second =
      Run({"--print-config", "--conf=" + dir.Sub("printed.conf")});
  INFO(second.err);
  REQUIRE(second.exit.exit_code == 0);
  // Same key=value lines (comments say where each value came from, which
  // differs: flag the first time, file the second).
  auto values = [](const std::string& text) {
    std::vector<std::string> out;
    for (absl::string_view line : absl::StrSplit(text, '\n'))
      if (!line.empty() && line[0] != '#') out.emplace_back(line);
    return out;
  };
  CHECK(values(first.out) == values(second.out));
  // Every key of the program: the bookie's table and those its main adds
  // (in-process autorecovery), as the template lists them ("#key=value").
  RunResult tmpl = Run({"--print-config-template"});
  REQUIRE(tmpl.exit.exit_code == 0);
  size_t keys = 0;
  for (absl::string_view line : absl::StrSplit(tmpl.out, '\n')) {
    if (line.size() > 1 && line[0] == '#' && line[1] != ' ' &&
        absl::StrContains(line, "=")) {
      ++keys;
    }
  }
  CHECK(keys > bookie::BookieConfigSchema().options().size());
  CHECK(values(first.out).size() == keys);
  for (const auto& def : bookie::BookieConfigSchema().options()) {
    INFO(def.key);
    CHECK(first.out.find(def.key + "=") != std::string::npos);
  }
  CHECK(first.out.find("autoRecoveryDaemonEnabled=false") != std::string::npos);
}

}  // namespace
}  // namespace bk::it
