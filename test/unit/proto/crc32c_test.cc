#include "proto/crc32c.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>

namespace bk::crc32c::internal {
uint32_t ExtendPortableForTest(uint32_t crc, const void* data, size_t n);
}

namespace bk::crc32c {
namespace {

TEST_CASE("crc32c matches the published test vectors", "[proto][crc32c]") {
  // RFC 3720 (iSCSI) appendix B.4 and the "123456789" check value.
  std::string zeros(32, '\0');
  CHECK(Value(zeros.data(), zeros.size()) == 0x8a9136aau);
  std::string ones(32, '\xff');
  CHECK(Value(ones.data(), ones.size()) == 0x62a8ab43u);
  std::string inc(32, '\0');
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<char>(i);
  CHECK(Value(inc.data(), inc.size()) == 0x46dd794eu);
  std::string dec(32, '\0');
  for (int i = 0; i < 32; ++i) dec[i] = static_cast<char>(31 - i);
  CHECK(Value(dec.data(), dec.size()) == 0x113fdb5cu);
  CHECK(Value("123456789", 9) == 0xe3069283u);
  CHECK(Value("", 0) == 0u);
}

TEST_CASE("crc32c extended in pieces equals crc32c of the whole",
          "[proto][crc32c]") {
  const std::string s = "hello world, this is a longer string for crc32c";
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    uint32_t a = Value(s.data(), cut);
    CHECK(Extend(a, s.data() + cut, s.size() - cut) ==
          Value(s.data(), s.size()));
  }
}

TEST_CASE("hardware and portable crc32c agree on random buffers",
          "[proto][crc32c]") {
  const uint32_t seed = 20261129;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (int round = 0; round < 200; ++round) {
    std::string buf(rng() % 5000, '\0');
    for (char& c : buf) c = static_cast<char>(rng());
    size_t off = buf.empty() ? 0 : rng() % buf.size();
    CHECK(
        Value(buf.data() + off, buf.size() - off) ==
        internal::ExtendPortableForTest(0, buf.data() + off, buf.size() - off));
  }
}

TEST_CASE("mask and unmask are inverse and change the value",
          "[proto][crc32c]") {
  uint32_t c = Value("foo", 3);
  CHECK(Mask(c) != c);
  CHECK(Unmask(Mask(c)) == c);
  CHECK(Unmask(Mask(0)) == 0u);
}

}  // namespace
}  // namespace bk::crc32c
