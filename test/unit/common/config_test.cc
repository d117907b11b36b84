#include "common/config.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "test/support/temp_dir.h"

namespace bk {
namespace {

ConfigSchema TestSchema() {
  ConfigSchema s;
  s.Add({"journalMaxGroupWaitMSec", OptionType::kInt, "2",
         "longest wait before a group is synced, ms", false, 0, 1000});
  s.Add({"diskUsageThreshold", OptionType::kDouble, "0.95",
         "fraction of disk use above which the bookie turns read-only", false,
         0, 1});
  s.Add({"journalSyncData", OptionType::kBool, "true", "fdatasync groups"});
  s.Add({"bookieId", OptionType::kString, "", "unique bookie id"});
  s.Add({"journalDirectories", OptionType::kList, "/tmp/j", "journal dirs"});
  s.Add({"flushInterval", OptionType::kDuration, "1s", "write cache flush"});
  s.Add({"writeCacheSize", OptionType::kBytes, "64MiB", "write cache budget"});
  s.Add({"tlsKeyPassword", OptionType::kString, "", "key password", true});
  return s;
}

std::string WriteFile(const testing::TempDir& dir, const std::string& text) {
  std::string path = dir.Sub("bk.conf");
  std::ofstream(path) << text;
  return path;
}

TEST_CASE("defaults apply when no source sets a key", "[common][config]") {
  ConfigSchema schema = TestSchema();
  auto c = Config::Load(schema, {});
  REQUIRE(c.ok());
  CHECK(c->GetInt("journalMaxGroupWaitMSec") == 2);
  CHECK(c->GetDouble("diskUsageThreshold") == Approx(0.95));
  CHECK(c->GetBool("journalSyncData"));
  CHECK(c->GetList("journalDirectories") == std::vector<std::string>{"/tmp/j"});
  CHECK(c->GetDuration("flushInterval") == absl::Seconds(1));
  CHECK(c->GetBytes("writeCacheSize") == 64ull << 20);
  CHECK(c->SourceOf("bookieId") == "default");
}

TEST_CASE("a flag beats the environment, which beats the file",
          "[common][config]") {
  testing::TempDir dir;
  ConfigSchema schema = TestSchema();
  ConfigSources src;
  src.file = WriteFile(dir,
                       "# comment\n"
                       "journalMaxGroupWaitMSec = 5\n"
                       "bookieId=from-file\n"
                       "journalDirectories=/a, /b ,,/c\n");
  src.environment = {"PATH=/usr/bin", "BK_bookieId=from-env",
                     "BK_journalMaxGroupWaitMSec=7"};
  src.flags = {{"journalMaxGroupWaitMSec", "9"}};
  auto c = Config::Load(schema, src);
  REQUIRE(c.ok());
  CHECK(c->GetInt("journalMaxGroupWaitMSec") == 9);
  CHECK(c->SourceOf("journalMaxGroupWaitMSec") == "flag");
  CHECK(c->GetString("bookieId") == "from-env");
  CHECK(c->SourceOf("bookieId") == "env");
  CHECK(c->GetList("journalDirectories") ==
        std::vector<std::string>{"/a", "/b", "/c"});
  CHECK(c->SourceOf("journalDirectories") == "file");
}

TEST_CASE("an unknown key is an error naming the key and its source",
          "[common][config]") {
  testing::TempDir dir;
  ConfigSchema schema = TestSchema();
  SECTION("in a file") {
    ConfigSources src;
    src.file = WriteFile(dir, "journalMaxGroupWaitMs=2\n");
    auto c = Config::Load(schema, src);
    REQUIRE_FALSE(c.ok());
    CHECK(std::string(c.status().message()).find("journalMaxGroupWaitMs") !=
          std::string::npos);
    CHECK(std::string(c.status().message()).find("bk.conf:1") !=
          std::string::npos);
  }
  SECTION("in the environment") {
    ConfigSources src;
    src.environment = {"BK_noSuchKey=1"};
    auto c = Config::Load(schema, src);
    REQUIRE_FALSE(c.ok());
    CHECK(std::string(c.status().message()).find("env BK_noSuchKey") !=
          std::string::npos);
  }
  SECTION("as a flag") {
    ConfigSources src;
    src.flags = {{"bogus", "1"}};
    CHECK_FALSE(Config::Load(schema, src).ok());
  }
}

TEST_CASE("malformed values are errors naming the key and the expected form",
          "[common][config]") {
  ConfigSchema schema = TestSchema();
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"journalMaxGroupWaitMSec", "2ms"}, {"journalMaxGroupWaitMSec", ""},
      {"journalMaxGroupWaitMSec", " 2"},  {"diskUsageThreshold", "high"},
      {"journalSyncData", "maybe"},       {"flushInterval", "1"},
      {"flushInterval", "1 s"},           {"flushInterval", "1h30m"},
      {"writeCacheSize", "64MB"},         {"writeCacheSize", "-1"},
      {"writeCacheSize", "1.5GiB"},       {"writeCacheSize", "99999999TiB"},
  };
  for (const auto& [key, value] : bad) {
    ConfigSources src;
    src.flags = {{key, value}};
    auto c = Config::Load(schema, src);
    INFO(key << "=" << value);
    REQUIRE_FALSE(c.ok());
    CHECK(std::string(c.status().message()).find(key) != std::string::npos);
    CHECK(std::string(c.status().message()).find("expected") !=
          std::string::npos);
  }
}

TEST_CASE("values outside the declared range are rejected",
          "[common][config]") {
  ConfigSchema schema = TestSchema();
  ConfigSources src;
  src.flags = {{"diskUsageThreshold", "1.5"}};
  auto c = Config::Load(schema, src);
  REQUIRE_FALSE(c.ok());
  CHECK(std::string(c.status().message()).find("outside") != std::string::npos);
}

TEST_CASE("a missing config file or a line without '=' is an error",
          "[common][config]") {
  testing::TempDir dir;
  ConfigSchema schema = TestSchema();
  ConfigSources src;
  src.file = dir.Sub("missing.conf");
  CHECK(Config::Load(schema, src).status().code() ==
        absl::StatusCode::kNotFound);
  src.file = WriteFile(dir, "bookieId\n");
  CHECK(Config::Load(schema, src).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("print shows the effective config, masks secrets, and reloads",
          "[common][config]") {
  testing::TempDir dir;
  ConfigSchema schema = TestSchema();
  ConfigSources src;
  src.flags = {{"bookieId", "b1"}, {"tlsKeyPassword", "hunter2"}};
  auto c = Config::Load(schema, src);
  REQUIRE(c.ok());
  std::string printed = c->Print();
  CHECK(printed.find("bookieId=b1\n") != std::string::npos);
  CHECK(printed.find("# bookieId set by flag") != std::string::npos);
  CHECK(printed.find("hunter2") == std::string::npos);
  CHECK(printed.find("tlsKeyPassword=****") != std::string::npos);
  // The printed form is a valid config file.
  ConfigSources again;
  again.file = WriteFile(dir, printed);
  auto c2 = Config::Load(schema, again);
  REQUIRE(c2.ok());
  CHECK(c2->GetString("bookieId") == "b1");
  CHECK(c2->GetBytes("writeCacheSize") == c->GetBytes("writeCacheSize"));
}

TEST_CASE("the command line splits flags, positionals and special flags",
          "[common][config]") {
  const char* argv[] = {"bookie",
                        "--bookieId=b1",
                        "--journalDirectories",
                        "/j1,/j2",
                        "--print-config",
                        "--conf=/etc/bk.conf",
                        "run",
                        "--",
                        "--not-a-flag"};
  auto cl = ParseCommandLine(9, argv);
  REQUIRE(cl.ok());
  CHECK(cl->flags.at("bookieId") == "b1");
  CHECK(cl->flags.at("journalDirectories") == "/j1,/j2");
  CHECK(cl->print_config);
  CHECK_FALSE(cl->help);
  CHECK(cl->config_file == "/etc/bk.conf");
  CHECK(cl->positional == std::vector<std::string>{"run", "--not-a-flag"});
}

TEST_CASE("the command line rejects a flag without value and a repeated flag",
          "[common][config]") {
  const char* missing[] = {"bookie", "--bookieId"};
  CHECK_FALSE(ParseCommandLine(2, missing).ok());
  const char* twice[] = {"bookie", "--a=1", "--a=2"};
  CHECK_FALSE(ParseCommandLine(3, twice).ok());
  const char* followed[] = {"bookie", "--a", "--b=1"};
  CHECK_FALSE(ParseCommandLine(3, followed).ok());
}

TEST_CASE("help lists every key with its default", "[common][config]") {
  ConfigSchema schema = TestSchema();
  std::string help = schema.Help();
  for (const OptionDef& d : schema.options()) {
    CHECK(help.find("--" + d.key + "=") != std::string::npos);
  }
  CHECK(help.find("(default 64MiB)") != std::string::npos);
}

TEST_CASE("byte sizes and durations parse their units exactly",
          "[common][config]") {
  CHECK(*ParseBytes("512KiB") == 512u * 1024);
  CHECK(*ParseBytes("1GiB") == 1ull << 30);
  CHECK(*ParseBytes("17") == 17u);
  CHECK(*ParseBytes("17B") == 17u);
  CHECK(*ParseDurationStrict("250ms") == absl::Milliseconds(250));
  CHECK(*ParseDurationStrict("1.5s") == absl::Milliseconds(1500));
  CHECK(*ParseDurationStrict("2h") == absl::Hours(2));
  CHECK_FALSE(ParseDurationStrict("ms").ok());
  CHECK_FALSE(ParseBytes("KiB").ok());
}

}  // namespace
}  // namespace bk
