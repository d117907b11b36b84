#include "bookie/storage/ledger_state.h"

#include "absl/status/status.h"
#include "proto/coding.h"

namespace bk::bookie::ledgerstate {

std::string Encode(const LedgerState& state) {
  uint8_t flags = 0;
  if (state.fenced) flags |= kFenced;
  if (state.deleted) flags |= kDeleted;
  if (state.has_master_key) flags |= kHasMasterKey;
  if (state.has_explicit_lac) flags |= kHasExplicitLac;
  std::string out(kFlagsSize + kKeyLenSize + state.master_key.size() +
                      kLacLenSize + state.explicit_lac.size(),
                  '\0');
  char* p = out.data();
  *p++ = static_cast<char>(flags);
  const uint16_t klen = static_cast<uint16_t>(state.master_key.size());
  p[0] = static_cast<char>(klen >> 8);
  p[1] = static_cast<char>(klen & 0xff);
  p += kKeyLenSize;
  p = std::copy(state.master_key.begin(), state.master_key.end(), p);
  coding::PutFixed32BE(p, static_cast<uint32_t>(state.explicit_lac.size()));
  p += kLacLenSize;
  std::copy(state.explicit_lac.begin(), state.explicit_lac.end(), p);
  return out;
}

absl::StatusOr<LedgerState> Decode(absl::string_view bytes) {
  auto bad = [](const char* what) {
    return absl::DataLossError(std::string("ledger state record: ") + what);
  };
  if (bytes.size() < kFlagsSize + kKeyLenSize + kLacLenSize) {
    return bad("too short");
  }
  const uint8_t flags = static_cast<uint8_t>(bytes[0]);
  if ((flags & ~kKnownFlags) != 0) return bad("unknown flags");
  size_t pos = kFlagsSize;
  const size_t klen = (static_cast<uint8_t>(bytes[pos]) << 8) |
                      static_cast<uint8_t>(bytes[pos + 1]);
  pos += kKeyLenSize;
  if (bytes.size() < pos + klen + kLacLenSize) return bad("bad key length");
  LedgerState s;
  s.fenced = flags & kFenced;
  s.deleted = flags & kDeleted;
  s.has_master_key = flags & kHasMasterKey;
  s.has_explicit_lac = flags & kHasExplicitLac;
  s.master_key.assign(bytes.data() + pos, klen);
  pos += klen;
  const uint32_t llen = coding::GetFixed32BE(bytes.data() + pos);
  pos += kLacLenSize;
  if (bytes.size() != pos + llen) return bad("bad LAC length");
  s.explicit_lac.assign(bytes.data() + pos, llen);
  return s;
}

}  // namespace bk::bookie::ledgerstate
