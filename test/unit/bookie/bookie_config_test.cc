// The bookie's key table: every default is its DaemonOptions field's, and
// loading no key at all gives the daemon its default options.

#include "bookie/daemon/bookie_config.h"

#include <catch2/catch.hpp>

#include "absl/strings/match.h"

namespace bk::bookie {
namespace {

TEST_CASE("loading no bookie key gives DaemonOptions' defaults",
          "[bookie][config]") {
  const auto& table = BookieConfigTable();
  auto c = Config::Load(table.schema(), {});
  REQUIRE(c.ok());
  DaemonOptions applied;
  applied.bookie_id = "changed";
  applied.store.journal.max_group_wait = absl::Seconds(1);
  REQUIRE(table.Apply(*c, &applied).ok());
  const auto want = table.Values(DaemonOptions());
  const auto got = table.Values(applied);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(want[i].first);
    CHECK(got[i] == want[i]);
  }
  auto o = DaemonOptionsFromConfig(*c);
  REQUIRE(o.ok());
  // Derived from other keys, after the table.
  CHECK(o->bookie_id == "127.0.0.1:3181");
  CHECK(o->monitor.journal_dirs == o->store.journal.dirs);
  CHECK(o->monitor.ledger_dirs == o->store.storage.ledger_dirs);
}

TEST_CASE("every bookie key is bound to a field, none is a testing aid",
          "[bookie][config]") {
  const auto& options = BookieConfigSchema().options();
  CHECK(BookieConfigTable().Values(DaemonOptions()).size() == options.size());
  for (const OptionDef& d : options) {
    INFO(d.key);
    CHECK_FALSE(absl::StartsWith(d.key, "testing"));
    CHECK_FALSE(d.help.empty());
    CHECK_FALSE(d.unit.empty());
  }
}

TEST_CASE("the daemon's defaults where they differ from its libraries'",
          "[bookie][config]") {
  const DaemonOptions o;
  CHECK(o.store.journal.dirs == std::vector<std::string>{"/tmp/bk-txn"});
  CHECK(o.store.storage.ledger_dirs ==
        std::vector<std::string>{"/tmp/bk-data"});
  CHECK(BookieConfigSchema()
            .Find("dbStorage_readAheadCacheMaxSizeMb")
            ->default_value == "32");
}

TEST_CASE("a key's value reaches its field in the field's unit",
          "[bookie][config]") {
  ConfigSources src;
  src.flags = {{"journalMaxGroupWaitMSec", "5"},
               {"journalMaxSizeMB", "64"},
               {"journalBufferedWritesThreshold", "1MiB"},
               {"minorCompactionInterval", "60"},
               {"logLevel", "warn"},
               {"writeCachePreTouch", "false"},
               {"bookieId", "b1"}};
  auto c = Config::Load(BookieConfigSchema(), src);
  REQUIRE(c.ok());
  auto o = DaemonOptionsFromConfig(*c);
  REQUIRE(o.ok());
  CHECK(o->store.journal.max_group_wait == absl::Milliseconds(5));
  CHECK(o->store.journal.max_file_size_bytes == uint64_t{64} << 20);
  CHECK(o->store.journal.buffered_writes_threshold_bytes == 1u << 20);
  CHECK(o->store.storage.minor_compaction_interval == absl::Seconds(60));
  CHECK(o->log_level == log::Level::kWarn);
  CHECK_FALSE(o->write_cache_pre_touch);
  CHECK(DaemonOptions().write_cache_pre_touch);
  CHECK(o->bookie_id == "b1");
}

TEST_CASE("serverNumIOThreads is accepted but warned about as ignored when set",
          "[bookie][config]") {
  auto load = [](std::map<std::string, std::string> flags) {
    ConfigSources src;
    src.flags = std::move(flags);
    auto c = Config::Load(BookieConfigSchema(), src);
    REQUIRE(c.ok());
    auto o = DaemonOptionsFromConfig(*c);
    REQUIRE(o.ok());
    return *o;
  };
  CHECK(IgnoredKeyWarnings(load({})).empty());
  CHECK(IgnoredKeyWarnings(load({{"serverNumIOThreads", "0"}})).empty());
  const auto warnings = IgnoredKeyWarnings(load({{"serverNumIOThreads", "8"}}));
  REQUIRE(warnings.size() == 1);
  CHECK(absl::StrContains(warnings[0], "serverNumIOThreads=8"));
  CHECK(absl::StrContains(warnings[0], "ignored"));
  CHECK(absl::StrContains(BookieConfigSchema().Find("serverNumIOThreads")->help,
                          "ignored"));
}

TEST_CASE("httpServerMaxBodyBytes takes a size within its range",
          "[bookie][config]") {
  auto load = [](const std::string& v) {
    ConfigSources src;
    src.flags = {{"httpServerMaxBodyBytes", v}};
    return Config::Load(BookieConfigSchema(), src);
  };
  auto c = load("64KiB");
  REQUIRE(c.ok());
  auto o = DaemonOptionsFromConfig(*c);
  REQUIRE(o.ok());
  CHECK(o->http_max_body_bytes == 64u << 10);
  CHECK(DaemonOptions().http_max_body_bytes == 1u << 20);
  for (const char* bad : {"10", "1GiB", "lots"}) {
    auto r = load(bad);
    const absl::Status s =
        r.ok() ? DaemonOptionsFromConfig(*r).status() : r.status();
    INFO(bad << ": " << s);
    CHECK_FALSE(s.ok());
    CHECK(absl::StrContains(s.message(), "httpServerMaxBodyBytes"));
  }
}

}  // namespace
}  // namespace bk::bookie
