// CRC32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78), the
// digest of entries on the wire and of records in the journal and entry logs.
//
// Uses the SSE4.2 crc32 instruction when the CPU has it (checked once at
// start-up) and a slicing-by-8 table otherwise; both give identical results.

#ifndef BK_PROTO_CRC32C_H_
#define BK_PROTO_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace bk::crc32c {

// Returns the CRC32C of data[0..n) continuing from `crc`, where `crc` is the
// value returned for the preceding bytes (0 for none).
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// The CRC32C of the concatenation A || B, from crc_a = Value(A),
// crc_b = Value(B) and len_b = |B|, without reading the bytes again
// (CRC32C is linear: crc(A || B) = crc(A) * x^(8 len_b) mod P + crc(B)).
// Costs O(popcount(len_b)) carry-less multiplies (PCLMUL when the CPU has
// it), so a record CRC over a small header and a large payload whose own
// CRC is known takes a few nanoseconds instead of a pass over the payload.
uint32_t Combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

// True when the hardware path is in use (for benchmark reports).
bool HardwareAccelerated();

// Masked form for CRCs stored next to the data they cover, so that a CRC of
// a string that itself holds CRCs is not degenerate (as leveldb does).
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace bk::crc32c

#endif  // BK_PROTO_CRC32C_H_
