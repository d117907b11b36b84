#include "bookie/journal/journal_format.h"

#include <catch2/catch.hpp>

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
  CHECK(jf::RecordCrcMatches(hv, "payload"));
  CHECK_FALSE(jf::RecordCrcMatches(hv, "paylaod"));
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
