#include "tools/bkctl/flags.h"

#include <cstdlib>

#include "catch2/catch.hpp"

namespace bk::bkctl {
namespace {

const std::vector<FlagSpec> kSpecs = {{"size", true, "a size"},
                                      {"ids", false, "some ids"}};

TEST_CASE("flags take --key value and --key=value", "[tools]") {
  absl::StatusOr<ParsedFlags> f =
      ParseFlags({"--size", "3", "--ids=a,b"}, kSpecs);
  REQUIRE(f.ok());
  CHECK(*f->GetInt("size", 1, 10) == 3);
  CHECK(*f->GetList("ids") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("flag errors name the flag", "[tools]") {
  auto message = [](std::vector<std::string> args) {
    absl::StatusOr<ParsedFlags> f = ParseFlags(args, kSpecs);
    REQUIRE_FALSE(f.ok());
    CHECK(f.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(f.status().message());
  };
  CHECK(message({"--size", "3", "--colour", "red"}) == "unknown flag --colour");
  CHECK(message({"--size", "3", "--size", "4"}) ==
        "--size given more than once");
  CHECK(message({"--size"}) == "--size needs a value");
  CHECK(message({"--ids", "a"}) == "missing required flag --size");
  CHECK(message({"--size", "3", "extra"}) == "unexpected argument \"extra\"");
}

TEST_CASE("a missing --metadata-uri comes from BK_metadataServiceUri",
          "[tools]") {
  const std::vector<FlagSpec> specs = {{"metadata-uri", true, "store"}};
  unsetenv("BK_metadataServiceUri");
  auto missing = ParseFlags({}, specs);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message() ==
        "missing required flag --metadata-uri (or set BK_metadataServiceUri)");
  setenv("BK_metadataServiceUri", "zk://env:2181/ledgers", 1);
  auto from_env = ParseFlags({}, specs);
  REQUIRE(from_env.ok());
  CHECK(from_env->Get("metadata-uri") == "zk://env:2181/ledgers");
  // The flag wins over the environment.
  auto given = ParseFlags({"--metadata-uri", "mem://flag"}, specs);
  REQUIRE(given.ok());
  CHECK(given->Get("metadata-uri") == "mem://flag");
  // A command without the flag is not handed one.
  auto other = ParseFlags({"--size", "1"}, kSpecs);
  REQUIRE(other.ok());
  CHECK_FALSE(other->Has("metadata-uri"));
  unsetenv("BK_metadataServiceUri");
}

TEST_CASE("integer and list flags are checked", "[tools]") {
  absl::StatusOr<ParsedFlags> f =
      ParseFlags({"--size", "30x", "--ids", "a,,b"}, kSpecs);
  REQUIRE(f.ok());
  CHECK_FALSE(f->GetInt("size", 1, 10).ok());
  CHECK_FALSE(f->GetList("ids").ok());
  f = ParseFlags({"--size", "11"}, kSpecs);
  REQUIRE(f.ok());
  CHECK_FALSE(f->GetInt("size", 1, 10).ok());
  CHECK(f->GetList("ids")->empty());
}

}  // namespace
}  // namespace bk::bkctl
