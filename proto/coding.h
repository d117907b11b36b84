// Fixed-width big-endian integer encoding for on-disk and on-wire formats.
// Big-endian so that byte-wise order of encoded keys equals numeric order
// (RocksDB index keys depend on this).

#ifndef BK_PROTO_CODING_H_
#define BK_PROTO_CODING_H_

#include <cstdint>
#include <cstring>

namespace bk::coding {

inline void PutFixed32BE(char* dst, uint32_t v) {
  v = __builtin_bswap32(v);
  std::memcpy(dst, &v, 4);
}
inline void PutFixed64BE(char* dst, uint64_t v) {
  v = __builtin_bswap64(v);
  std::memcpy(dst, &v, 8);
}
inline uint32_t GetFixed32BE(const char* src) {
  uint32_t v;
  std::memcpy(&v, src, 4);
  return __builtin_bswap32(v);
}
inline uint64_t GetFixed64BE(const char* src) {
  uint64_t v;
  std::memcpy(&v, src, 8);
  return __builtin_bswap64(v);
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "coding.h assumes a little-endian host");

}  // namespace bk::coding

#endif  // BK_PROTO_CODING_H_
