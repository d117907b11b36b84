#include "tools/bkctl/flags.h"

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
