// LedgerState: what the bookie knows about a ledger apart from its entries,
// and its encoding as the value of the index's "ledgers" column family
// (key: ledger id, u64 big-endian). This header owns that format.
//
//  0       1        3                 3+k      7+k          7+k+n
//  +-------+--------+-----------------+--------+------------+
//  | flags | keylen |   master key    | laclen | explicit   |
//  |  u8   | u16 BE |   keylen bytes  | u32 BE | LAC bytes  |
//  +-------+--------+-----------------+--------+------------+
//  flags: bit 0 fenced, bit 1 deleted, bit 2 master key set,
//         bit 3 explicit LAC set; other bits must be zero.
//
// The explicit LAC is kept opaque (the packaged LAC the client sent), as
// BookKeeper does.

#ifndef BK_BOOKIE_STORAGE_LEDGER_STATE_H_
#define BK_BOOKIE_STORAGE_LEDGER_STATE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bk::bookie {

struct LedgerState {
  bool fenced = false;
  bool deleted = false;
  bool has_master_key = false;
  bool has_explicit_lac = false;
  std::string master_key;
  std::string explicit_lac;
};

namespace ledgerstate {

inline constexpr uint8_t kFenced = 1 << 0;
inline constexpr uint8_t kDeleted = 1 << 1;
inline constexpr uint8_t kHasMasterKey = 1 << 2;
inline constexpr uint8_t kHasExplicitLac = 1 << 3;
inline constexpr uint8_t kKnownFlags = 0x0f;
inline constexpr size_t kFlagsSize = 1;
inline constexpr size_t kKeyLenSize = 2;
inline constexpr size_t kLacLenSize = 4;
inline constexpr size_t kMaxMasterKeySize = 0xffff;
static_assert(kMaxMasterKeySize < (size_t{1} << (8 * kKeyLenSize)));

std::string Encode(const LedgerState& state);
// DataLoss when the bytes are not a valid encoding.
absl::StatusOr<LedgerState> Decode(absl::string_view bytes);

}  // namespace ledgerstate
}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_LEDGER_STATE_H_
