#include "proto/entry_format.h"

#include <catch2/catch.hpp>

#include "proto/coding.h"

namespace bk::entry {
namespace {

EntryHeader Header(int64_t entry, int64_t lac) {
  EntryHeader h;
  h.ledger_id = 0x0102030405060708ull;
  h.entry_id = entry;
  h.last_add_confirmed = lac;
  h.ledger_length = 1000;
  return h;
}

TEST_CASE("a packaged entry decodes to the same header and payload",
          "[proto][entry]") {
  for (auto type : {DigestType::kCrc32c, DigestType::kDummy}) {
    std::string body = Package(Header(7, 6), "payload bytes", type);
    CHECK(body.size() == kHeaderSize + 13 + DigestSize(type));
    auto d = Decode(body, type, 0x0102030405060708ull, 7);
    REQUIRE(d.ok());
    CHECK(d->header.entry_id == 7);
    CHECK(d->header.last_add_confirmed == 6);
    CHECK(d->header.ledger_length == 1000);
    CHECK(d->payload == "payload bytes");
  }
}

TEST_CASE("the header is big-endian at its documented offsets",
          "[proto][entry]") {
  std::string body = Package(Header(5, -1), "", DigestType::kDummy);
  CHECK(static_cast<unsigned char>(body[kLedgerIdOffset]) == 0x01);
  CHECK(static_cast<unsigned char>(body[kLedgerIdOffset + 7]) == 0x08);
  CHECK(coding::GetFixed64BE(body.data() + kEntryIdOffset) == 5u);
  CHECK(static_cast<int64_t>(coding::GetFixed64BE(body.data() + kLacOffset)) ==
        -1);
}

TEST_CASE("an empty payload round trips", "[proto][entry]") {
  std::string body = Package(Header(0, -1), "", DigestType::kCrc32c);
  auto d = Decode(body, DigestType::kCrc32c, Header(0, -1).ledger_id, 0);
  REQUIRE(d.ok());
  CHECK(d->payload.empty());
}

TEST_CASE("decode rejects a body shorter than header and digest",
          "[proto][entry]") {
  std::string body = Package(Header(1, 0), "x", DigestType::kCrc32c);
  for (size_t n = 0; n < kHeaderSize + kCrc32cDigestSize; ++n) {
    auto d = Decode(absl::string_view(body.data(), n), DigestType::kCrc32c,
                    Header(1, 0).ledger_id, 1);
    CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("decode reports any flipped bit as data loss", "[proto][entry]") {
  const std::string good = Package(Header(3, 2), "abcdef", DigestType::kCrc32c);
  for (size_t byte = 0; byte < good.size(); ++byte) {
    std::string bad = good;
    bad[byte] ^= 0x10;
    auto d = Decode(bad, DigestType::kCrc32c, Header(3, 2).ledger_id, 3);
    INFO("byte " << byte);
    // A flip in the header may also make the header invalid; it is never OK.
    REQUIRE_FALSE(d.ok());
    if (byte >= kHeaderSize) {
      CHECK(d.status().code() == absl::StatusCode::kDataLoss);
    }
  }
}

TEST_CASE("decode refuses an entry of another ledger or entry id",
          "[proto][entry]") {
  std::string body = Package(Header(3, 2), "abc", DigestType::kCrc32c);
  CHECK(Decode(body, DigestType::kCrc32c, 99, 3).status().code() ==
        absl::StatusCode::kFailedPrecondition);
  CHECK(Decode(body, DigestType::kCrc32c, Header(3, 2).ledger_id, 4)
            .status()
            .code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Decode(body, DigestType::kCrc32c, Header(3, 2).ledger_id, -1).ok());
}

TEST_CASE(
    "parse header rejects negative entry ids and a LAC not below the "
    "entry",
    "[proto][entry]") {
  CHECK_FALSE(
      ParseHeader(Package(Header(-2, -3), "", DigestType::kDummy)).ok());
  CHECK_FALSE(ParseHeader(Package(Header(4, 4), "", DigestType::kDummy)).ok());
  CHECK_FALSE(ParseHeader(Package(Header(4, -2), "", DigestType::kDummy)).ok());
  CHECK(ParseHeader(Package(Header(4, 3), "", DigestType::kDummy)).ok());
  CHECK(ParseHeader(Package(Header(0, -1), "", DigestType::kDummy)).ok());
}

TEST_CASE("decode rejects a payload above the size limit", "[proto][entry]") {
  std::string payload(kMaxPayloadSize + 1, 'z');
  std::string body = Package(Header(1, 0), payload, DigestType::kDummy);
  CHECK(Decode(body, DigestType::kDummy, Header(1, 0).ledger_id, 1)
            .status()
            .code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bk::entry
