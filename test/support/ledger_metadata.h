// TestLedgerMetadata: a ledger's metadata for tests that put ledgers in a
// metadata store and only care about where their segments are.

#ifndef BK_TEST_SUPPORT_LEDGER_METADATA_H_
#define BK_TEST_SUPPORT_LEDGER_METADATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/metadata.pb.h"

namespace bk::testing {

struct TestLedger {
  // Each segment's bookies; the ensemble size is the first one's. Segment k
  // starts at entry k x entries_per_segment.
  std::vector<std::vector<std::string>> segments;
  int write_quorum = 2;
  int ack_quorum = 2;
  proto::LedgerState state = proto::OPEN;
  std::optional<int64_t> last_entry_id;  // left unset when absent
  std::string password_hash;             // left unset when empty
  int64_t entries_per_segment = 10;
};

inline proto::LedgerMetadata TestLedgerMetadata(const TestLedger& t) {
  proto::LedgerMetadata md;
  md.set_ensemble_size(
      t.segments.empty() ? 0 : static_cast<int>(t.segments[0].size()));
  md.set_write_quorum_size(t.write_quorum);
  md.set_ack_quorum_size(t.ack_quorum);
  md.set_state(t.state);
  if (t.last_entry_id.has_value()) md.set_last_entry_id(*t.last_entry_id);
  if (!t.password_hash.empty()) md.set_password_hash(t.password_hash);
  int64_t first = 0;
  for (const std::vector<std::string>& bookies : t.segments) {
    proto::Segment* seg = md.add_segments();
    seg->set_first_entry_id(first);
    first += t.entries_per_segment;
    for (const std::string& b : bookies) seg->add_bookies(b);
  }
  return md;
}

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_LEDGER_METADATA_H_
