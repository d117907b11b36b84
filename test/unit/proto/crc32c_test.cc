#include "proto/crc32c.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>

namespace bk::crc32c::internal {
uint32_t ExtendPortableForTest(uint32_t crc, const void* data, size_t n);
uint32_t CombinePortableForTest(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
}  // namespace bk::crc32c::internal

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

TEST_CASE("crc32c agrees with the portable one at every length to 2 KiB",
          "[proto][crc32c]") {
  // Every length crosses the three-stream stripes (3 x 64, 3 x 256 bytes)
  // and their tails, from a non-zero starting crc and an odd address.
  const uint32_t seed = 20261130;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::string buf(2049 + 1, '\0');
  for (char& c : buf) c = static_cast<char>(rng());
  for (size_t n = 0; n <= 2049; ++n) {
    INFO("length " << n);
    const uint32_t start = static_cast<uint32_t>(rng());
    REQUIRE(Extend(start, buf.data() + 1, n) ==
            internal::ExtendPortableForTest(start, buf.data() + 1, n));
  }
}

TEST_CASE(
    "crc32c combined from the parts' crcs equals a straight crc over the "
    "concatenation",
    "[proto][crc32c]") {
  const uint32_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (int round = 0; round < 500; ++round) {
    // Mostly small, sometimes large parts; empty ones too.
    const size_t la =
        round % 7 == 0 ? 0 : rng() % (round % 5 == 0 ? 70000 : 64);
    const size_t lb =
        round % 11 == 0 ? 0 : rng() % (round % 3 == 0 ? 70000 : 3000);
    std::string buf(la + lb, '\0');
    for (char& c : buf) c = static_cast<char>(rng());
    const uint32_t a = Value(buf.data(), la);
    const uint32_t b = Value(buf.data() + la, lb);
    const uint32_t whole = Value(buf.data(), buf.size());
    INFO("la " << la << " lb " << lb);
    CHECK(Combine(a, b, lb) == whole);
    CHECK(internal::CombinePortableForTest(a, b, lb) == whole);
  }
  // Lengths with high bits set (no data needed: crc of zeros is known).
  std::string zeros(1 << 20, '\0');
  const uint32_t head = Value("header", 6);
  const uint32_t z = Value(zeros.data(), zeros.size());
  CHECK(Combine(head, z, zeros.size()) ==
        Extend(head, zeros.data(), zeros.size()));
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
