#include "bookie/journal/journal_format.h"

#include <catch2/catch.hpp>
#include <random>

#include "proto/crc32c.h"

namespace bk::bookie {
namespace jf = journal_format;

TEST_CASE("journal file names round-trip and reject other names", "[journal]") {
  uint64_t id = 0;
  REQUIRE(jf::ParseFileName(jf::FileName(0x1234abcd), &id));
  CHECK(id == 0x1234abcd);
  CHECK_FALSE(jf::ParseFileName("lastMark", &id));
  CHECK_FALSE(jf::ParseFileName("0000000000000001.jnl.tmp", &id));
  CHECK_FALSE(jf::ParseFileName("000000000000000G.jnl", &id));
}

TEST_CASE("a record header carries its fields and a checksum over the payload",
          "[journal]") {
  jf::RecordHeader h;
  jf::EncodeRecordHeader(jf::RecordType::kEntry, 7, 42, "payload", &h);
  absl::string_view hv(h.data(), h.size());
  const jf::DecodedRecordHeader d = jf::DecodeRecordHeader(hv);
  CHECK(d.type == 1);
  CHECK(d.length == 7);
  CHECK(d.ledger_id == 7);
  CHECK(d.entry_id == 42);
  CHECK_FALSE(d.all_zero);
  CHECK(jf::RecordCrcMatches(hv, "payload", 0));
  CHECK_FALSE(jf::RecordCrcMatches(hv, "paylaod", 0));
}

TEST_CASE("a salted record matches only the salt of its own file and format 3",
          "[journal]") {
  CHECK(jf::RecordSalt(1, 5) == 0);
  CHECK(jf::RecordSalt(2, 5) == 0);
  // Distinct and non-zero for every id a journal could be recycled across.
  for (uint64_t id = 0; id < 100000; ++id) {
    REQUIRE(jf::RecordSalt(3, id) != 0);
    REQUIRE(jf::RecordSalt(3, id) != jf::RecordSalt(3, id + 1));
  }
  jf::RecordHeader h;
  jf::EncodeRecordHeader(jf::RecordType::kEntry, 7, 42, "payload", &h);
  jf::SaltRecordHeader(jf::RecordSalt(3, 10), h.data());
  absl::string_view hv(h.data(), h.size());
  CHECK(jf::RecordCrcMatches(hv, "payload", jf::RecordSalt(3, 10)));
  CHECK_FALSE(jf::RecordCrcMatches(hv, "payload", jf::RecordSalt(3, 11)));
  CHECK_FALSE(jf::RecordCrcMatches(hv, "payload", 0));
  // The other fields are not touched.
  CHECK(jf::DecodeRecordHeader(hv).ledger_id == 7);
}

TEST_CASE(
    "a record header from the payload's own crc is byte-identical to one "
    "computed over the payload",
    "[journal]") {
  const uint32_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (int round = 0; round < 100; ++round) {
    std::string payload(rng() % 20000, '\0');
    for (char& c : payload) c = static_cast<char>(rng());
    const uint64_t ledger = rng();
    const int64_t entry = static_cast<int64_t>(rng() % 1000000);
    jf::RecordHeader straight, combined;
    jf::EncodeRecordHeader(jf::RecordType::kEntry, ledger, entry, payload,
                           &straight);
    jf::EncodeRecordHeaderWithPayloadCrc(
        jf::RecordType::kEntry, ledger, entry, payload.size(),
        crc32c::Value(payload.data(), payload.size()), &combined);
    CHECK(straight == combined);
    CHECK(jf::RecordCrcMatches(
        absl::string_view(combined.data(), combined.size()), payload, 0));
  }
}

TEST_CASE("a file header and a checkpoint mark detect damage", "[journal]") {
  jf::FileHeader h = jf::EncodeFileHeader(9);
  jf::DecodedFileHeader d =
      jf::DecodeFileHeader(absl::string_view(h.data(), h.size()));
  CHECK(d.magic_ok);
  CHECK(d.crc_ok);
  CHECK(d.file_id == 9);
  h[17] ^= 1;
  CHECK_FALSE(
      jf::DecodeFileHeader(absl::string_view(h.data(), h.size())).crc_ok);

  std::string mark = jf::EncodeMark(3, 4096);
  uint64_t f = 0, o = 0;
  REQUIRE(jf::DecodeMark(mark, &f, &o));
  CHECK(f == 3);
  CHECK(o == 4096);
  mark[10] ^= 1;
  CHECK_FALSE(jf::DecodeMark(mark, &f, &o));
}

}  // namespace bk::bookie
