// Payloads of the fault suite's writers: each names its ledger and entry and
// carries its own CRC-32C, so a reader can tell a lost entry from a corrupt
// or misplaced one.

#ifndef BK_TEST_FAULT_FAULT_PAYLOAD_H_
#define BK_TEST_FAULT_FAULT_PAYLOAD_H_

#include <cstdint>
#include <string>

#include "proto/crc32c.h"

namespace bk::fault {

inline std::string FaultPayload(int64_t ledger, int64_t e) {
  std::string p =
      "ledger " + std::to_string(ledger) + " entry " + std::to_string(e) + " ";
  p.resize(256, static_cast<char>('a' + e % 26));
  const uint32_t crc = crc32c::Value(p.data(), p.size());
  p.append(reinterpret_cast<const char*>(&crc), sizeof(crc));
  return p;
}

}  // namespace bk::fault

#endif  // BK_TEST_FAULT_FAULT_PAYLOAD_H_
