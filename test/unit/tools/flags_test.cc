#include "tools/bkctl/flags.h"

#include <cstdlib>
#include <fstream>

#include "catch2/catch.hpp"
#include "test/support/temp_dir.h"

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
        "missing required flag --metadata-uri (or set BK_metadataServiceUri, "
        "or metadataServiceUri in the client config file of BK_CLIENT_CONF)");
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

TEST_CASE(
    "the client config file of BK_CLIENT_CONF gives the URI and TLS files "
    "the command lacks",
    "[tools]") {
  bk::testing::TempDir dir;
  const std::string conf = dir.Sub("client.conf");
  std::ofstream(conf) << "# set once by the operator\n"
                         "metadataServiceUri=zk://file:2181/ledgers\n"
                         "tlsTrustStore=/etc/bk/ca.pem\n"
                         "addEntryTimeoutSec=30\n";
  const std::vector<FlagSpec> specs = {{"metadata-uri", true, "store"},
                                       {"tls-ca-file", false, "ca"},
                                       {"tls-cert-file", false, "cert"}};
  unsetenv("BK_metadataServiceUri");
  setenv("BK_CLIENT_CONF", conf.c_str(), 1);
  auto from_file = ParseFlags({}, specs);
  REQUIRE(from_file.ok());
  CHECK(from_file->Get("metadata-uri") == "zk://file:2181/ledgers");
  CHECK(from_file->Get("tls-ca-file") == "/etc/bk/ca.pem");
  CHECK_FALSE(from_file->Has("tls-cert-file"));  // the file does not set it
  // The environment's URI and the command's flags win over the file.
  setenv("BK_metadataServiceUri", "zk://env:2181/ledgers", 1);
  auto env = ParseFlags({"--tls-ca-file", "/flag.pem"}, specs);
  REQUIRE(env.ok());
  CHECK(env->Get("metadata-uri") == "zk://env:2181/ledgers");
  CHECK(env->Get("tls-ca-file") == "/flag.pem");
  unsetenv("BK_metadataServiceUri");

  // A bad file is refused naming the file and the key, but only by
  // commands that would read it.
  std::ofstream(conf) << "metadataServiceUri=zk://file:2181/ledgers\n"
                         "noSuchClientKey=1\n";
  auto bad = ParseFlags({}, specs);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(bad.status().message()).find(conf) != std::string::npos);
  CHECK(std::string(bad.status().message()).find("noSuchClientKey") !=
        std::string::npos);
  CHECK(ParseFlags({"--size", "1"}, kSpecs).ok());
  setenv("BK_CLIENT_CONF", dir.Sub("missing.conf").c_str(), 1);
  auto missing = ParseFlags({}, specs);
  REQUIRE_FALSE(missing.ok());
  CHECK(std::string(missing.status().message()).find("does not exist") !=
        std::string::npos);
  unsetenv("BK_CLIENT_CONF");
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
