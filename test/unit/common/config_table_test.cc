#include "common/config_table.h"

#include <catch2/catch.hpp>

#include "common/config_doc.h"

namespace bk {
namespace {

enum class Color { kRed, kGreen };
const char* ColorName(Color c) { return c == Color::kRed ? "red" : "green"; }

struct Inner {
  absl::Duration wait = absl::Milliseconds(2);
  uint64_t file_bytes = uint64_t{16} << 20;
};

struct TestOptions {
  Inner inner;
  bool sync = true;
  int port = 3181;
  double ratio = 0.95;
  std::string name = "b1";
  std::vector<std::string> dirs = {"/a", "/b"};
  absl::Duration interval = absl::Hours(1);
  absl::Duration timeout = absl::Milliseconds(2500);
  uint64_t buffer_bytes = 512 * 1024;
  Color color = Color::kGreen;
  bool alias_seen = false;
};

const ConfigTable<TestOptions>& Table() {
  static const auto* t = [] {
    auto* t = new ConfigTable<TestOptions>();
    t->Millis("waitMs", BK_FIELD(inner.wait), {0, 1000}, "wait");
    t->MiB("fileMB", BK_FIELD(inner.file_bytes), {1, 1024}, "file size");
    t->Value("sync", BK_FIELD(sync), "-", {}, "sync");
    t->Value("port", BK_FIELD(port), "port number", {0, 65535}, "port");
    t->Value("ratio", BK_FIELD(ratio), "fraction", {0, 1}, "ratio");
    t->Value("name", BK_FIELD(name), "-", {}, "name");
    t->Value("dirs", BK_FIELD(dirs), "-", {}, "dirs");
    t->Seconds("intervalS", BK_FIELD(interval), {0, 1e6}, "interval");
    t->SecondsReal("timeoutSec", BK_FIELD(timeout), {0, 60}, "timeout");
    t->Bytes("buffer", BK_FIELD(buffer_bytes), "bytes", {}, "buffer");
    t->Choice("color", BK_FIELD(color), {Color::kRed, Color::kGreen}, ColorName,
              "color");
    t->Custom(
        {"legacyRed", OptionType::kBool, "false", "alias", false, 1, 0, "-"},
        [](const Config& c, TestOptions& o) {
          if (c.GetBool("legacyRed")) o.color = Color::kRed;
          o.alias_seen = true;
          return absl::OkStatus();
        });
    return t;
  }();
  return *t;
}

absl::StatusOr<TestOptions> Load(std::map<std::string, std::string> flags) {
  ConfigSources src;
  src.flags = std::move(flags);
  auto c = Config::Load(Table().schema(), src);
  if (!c.ok()) return c.status();
  TestOptions o;
  if (absl::Status s = Table().Apply(*c, &o); !s.ok()) return s;
  return o;
}

std::string DefaultOf(const std::string& key) {
  return Table().schema().Find(key)->default_value;
}

TEST_CASE("a key's default is its field's default, written in its unit",
          "[common][config]") {
  CHECK(DefaultOf("waitMs") == "2");
  CHECK(DefaultOf("fileMB") == "16");
  CHECK(DefaultOf("sync") == "true");
  CHECK(DefaultOf("port") == "3181");
  CHECK(DefaultOf("ratio") == "0.95");
  CHECK(DefaultOf("name") == "b1");
  CHECK(DefaultOf("dirs") == "/a,/b");
  CHECK(DefaultOf("intervalS") == "3600");
  CHECK(DefaultOf("timeoutSec") == "2.5");
  CHECK(DefaultOf("buffer") == "512KiB");
  CHECK(DefaultOf("color") == "green");
  CHECK(DefaultOf("legacyRed") == "false");
  CHECK(Table().schema().Find("waitMs")->unit == "ms");
  CHECK(Table().schema().Find("color")->unit == "red|green");
}

TEST_CASE("apply sets every bound field, converting from the key's unit",
          "[common][config]") {
  auto o = Load({{"waitMs", "7"},
                 {"fileMB", "3"},
                 {"sync", "false"},
                 {"port", "0"},
                 {"ratio", "0.5"},
                 {"name", "x"},
                 {"dirs", "/c"},
                 {"intervalS", "60"},
                 {"timeoutSec", "0.25"},
                 {"buffer", "1MiB"},
                 {"color", "red"}});
  REQUIRE(o.ok());
  CHECK(o->inner.wait == absl::Milliseconds(7));
  CHECK(o->inner.file_bytes == uint64_t{3} << 20);
  CHECK_FALSE(o->sync);
  CHECK(o->port == 0);
  CHECK(o->ratio == 0.5);
  CHECK(o->name == "x");
  CHECK(o->dirs == std::vector<std::string>{"/c"});
  CHECK(o->interval == absl::Seconds(60));
  CHECK(o->timeout == absl::Milliseconds(250));
  CHECK(o->buffer_bytes == 1u << 20);
  CHECK(o->color == Color::kRed);
  CHECK(o->alias_seen);
}

TEST_CASE("loading nothing reproduces the struct's defaults",
          "[common][config]") {
  auto o = Load({});
  REQUIRE(o.ok());
  CHECK(Table().Values(*o) == Table().Values(TestOptions()));
  CHECK(Table().Values(*o).size() == Table().schema().options().size() - 1);
}

TEST_CASE("custom keys run in table order, after the keys before them",
          "[common][config]") {
  auto o = Load({{"legacyRed", "true"}, {"color", "green"}});
  REQUIRE(o.ok());
  CHECK(o->color == Color::kRed);
}

TEST_CASE("a bad choice names the key and the choices", "[common][config]") {
  auto o = Load({{"color", "blue"}});
  REQUIRE_FALSE(o.ok());
  const std::string m(o.status().message());
  CHECK(m.find("color") != std::string::npos);
  CHECK(m.find("red, green") != std::string::npos);
}

TEST_CASE("a malformed or out-of-range value names the key and the range",
          "[common][config]") {
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{
           {"port", "abc"}, {"port", "70000"}, {"waitMs", "2ms"}}) {
    auto o = Load({{key, value}});
    INFO(key << "=" << value);
    REQUIRE_FALSE(o.ok());
    const std::string m(o.status().message());
    CHECK(m.find(key) != std::string::npos);
    CHECK((m.find("[0, 65535]") != std::string::npos ||
           m.find("[0, 1000]") != std::string::npos));
  }
}

TEST_CASE("the template and the reference list every key with its default",
          "[common][config]") {
  const std::string conf = ConfigTemplate(Table().schema(), "header\n\nmore");
  CHECK(conf.rfind("# header\n#\n# more\n", 0) == 0);
  CHECK(conf.find("\n# waitMs: wait\n#   type integer; unit ms; default 2; "
                  "range 0..1000\n#waitMs=2\n") != std::string::npos);
  const std::string md = ConfigReference(Table().schema(), "T", "intro");
  CHECK(md.find("| `color` | string | red\\|green | `green` |  | color |") !=
        std::string::npos);
  CHECK(md.find("| `buffer` | size (B KiB MiB GiB TiB) | bytes | `512KiB` |") !=
        std::string::npos);
}

}  // namespace
}  // namespace bk
