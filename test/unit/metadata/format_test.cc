// URIs, the path layout and the record format.

#include "catch2/catch.hpp"
#include "metadata/layout.h"
#include "metadata/metadata_store.h"
#include "metadata/record_format.h"
#include "metadata/uri.h"

namespace bk::metadata {
namespace {

TEST_CASE("a zk URI gives its hosts and root", "[metadata]") {
  auto u = ParseStoreUri("zk://h1:2181,10.0.0.2:2182/bk/cluster-1/");
  REQUIRE(u.ok());
  CHECK(u->scheme == "zk");
  CHECK(u->hosts == std::vector<std::string>{"h1:2181", "10.0.0.2:2182"});
  CHECK(u->root == "/bk/cluster-1");
}

TEST_CASE("malformed URIs are kInvalidArgument naming the URI", "[metadata]") {
  for (const char* bad :
       {"etcd://h:1/x", "h:2181/x", "zk://h:2181", "zk://h:2181/", "zk://h/x",
        "zk://h:0/x", "zk://h:2181/a//b", "mem://a/b"}) {
    INFO(bad);
    auto u = ParseStoreUri(bad);
    CHECK(absl::IsInvalidArgument(u.status()));
    CHECK(u.status().message().find(bad) != absl::string_view::npos);
  }
}

TEST_CASE("opening an unknown scheme fails with an error naming the URI",
          "[metadata]") {
  auto s = Open("redis://localhost:6379/bk");
  CHECK(absl::IsInvalidArgument(s.status()));
  CHECK(s.status().message().find("redis://localhost:6379/bk") !=
        absl::string_view::npos);
  CHECK(s.status().message().find("unknown scheme") != absl::string_view::npos);
}

TEST_CASE("ledger paths split the zero-padded id 3/4/4/4/4 and parse back",
          "[metadata]") {
  Layout layout("/bk");
  CHECK(layout.Ledger(1) == "/bk/ledgers/000/0000/0000/0000/L0001");
  CHECK(layout.Ledger(1234567890123LL) ==
        "/bk/ledgers/000/0001/2345/6789/L0123");
  const LedgerId max = std::numeric_limits<int64_t>::max();
  for (LedgerId id : {LedgerId{0}, LedgerId{9999}, LedgerId{10000}, max}) {
    auto parts = LedgerPathParts(id);
    const std::string leaf = parts.back();
    parts.pop_back();
    CHECK(ParseLedgerId(parts, leaf) == id);
  }
  CHECK(!ParseLedgerId({"000", "0000", "0000", "0000"}, "X0001").has_value());
  CHECK(!ParseLedgerId({"00", "0000", "0000", "0000"}, "L0001").has_value());
}

TEST_CASE("records round-trip and stray bytes are kDataLoss", "[metadata]") {
  proto::LedgerMetadata md;
  md.set_ensemble_size(1);
  md.set_write_quorum_size(1);
  md.set_ack_quorum_size(1);
  md.add_segments()->add_bookies("b:1");
  auto bytes = EncodeLedger(md);
  REQUIRE(bytes.ok());
  CHECK(bytes->substr(0, 4) == "BKL1");
  CHECK(DecodeLedger(*bytes, "x").ok());
  CHECK(absl::IsDataLoss(DecodeLedger(bytes->substr(4), "x").status()));
  proto::Cookie cookie;
  cookie.set_bookie_id("b1");
  auto cbytes = EncodeCookie(cookie);
  REQUIRE(cbytes.ok());
  // A cookie is not ledger metadata.
  CHECK(absl::IsDataLoss(DecodeLedger(*cbytes, "x").status()));
  CHECK(absl::IsInvalidArgument(ValidateBookieId("readonly")));
  CHECK(absl::IsInvalidArgument(ValidateBookieId("a/b")));
}

}  // namespace
}  // namespace bk::metadata
