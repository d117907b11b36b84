// bookie/inspect/entry_view.h: packaged entries seen offline.

#include "bookie/inspect/entry_view.h"

#include <catch2/catch.hpp>
#include <string>

#include "proto/entry_format.h"

namespace bk::bookie::inspect {
namespace {

entry::EntryHeader Header() {
  entry::EntryHeader h;
  h.ledger_id = 7;
  h.entry_id = 3;
  h.last_add_confirmed = 2;
  h.ledger_length = 400;
  return h;
}

TEST_CASE("ViewEntry reads a CRC32C entry's header and payload, verified",
          "[unit][bookie]") {
  const std::string packaged =
      entry::Package(Header(), "hello", entry::DigestType::kCrc32c);
  const EntryView v = ViewEntry(packaged);
  REQUIRE(v.header_ok);
  CHECK(v.ledger_id == 7);
  CHECK(v.entry_id == 3);
  CHECK(v.last_add_confirmed == 2);
  CHECK(v.ledger_length == 400);
  CHECK(v.digest == "crc32c");
  CHECK(v.payload == "hello");
}

TEST_CASE("ViewEntry never calls a damaged or dummy-digest entry verified",
          "[unit][bookie]") {
  std::string damaged =
      entry::Package(Header(), "hello", entry::DigestType::kCrc32c);
  damaged[entry::kHeaderSize] ^= 1;  // the payload's first byte
  const EntryView d = ViewEntry(damaged);
  REQUIRE(d.header_ok);
  CHECK(d.digest == "unverified");
  // Shown as it is: the payload and the 4 bytes that failed as a digest.
  CHECK(d.payload.size() == 5 + entry::kCrc32cDigestSize);

  const std::string dummy =
      entry::Package(Header(), "hello", entry::DigestType::kDummy);
  const EntryView u = ViewEntry(dummy);
  REQUIRE(u.header_ok);
  CHECK(u.digest == "unverified");
  CHECK(u.payload == "hello");

  CHECK_FALSE(ViewEntry("short").header_ok);
}

TEST_CASE("FormatPayload shows hex or escaped text, cut at a limit",
          "[unit][bookie]") {
  const std::string bytes("ab\\\x01\xff", 5);
  CHECK(FormatPayload(bytes, "hex", 100) == "61625c01ff");
  CHECK(FormatPayload(bytes, "text", 100) == "ab\\x5c\\x01\\xff");
  CHECK(FormatPayload(bytes, "hex", 2) == "6162...");
  CHECK(FormatPayload("", "text", 10).empty());
}

}  // namespace
}  // namespace bk::bookie::inspect
