#include "metadata/ledger_json.h"

#include <string>
#include <vector>

namespace bk::metadata {

using nlohmann::json;

json LedgerMetadataJson(LedgerId id,
                        const Versioned<proto::LedgerMetadata>& v) {
  const auto& m = v.value;
  const std::string state = proto::LedgerState_Name(m.state());
  json segs = json::array();
  for (const auto& s : m.segments()) {
    segs.push_back({{"first_entry_id", s.first_entry_id()},
                    {"bookies", std::vector<std::string>(s.bookies().begin(),
                                                         s.bookies().end())}});
  }
  json custom = json::object();
  for (const auto& [k, val] : m.custom_metadata()) custom[k] = val;
  return json{
      {"ledger_id", id},
      {"version", v.version},
      {"ensemble_size", m.ensemble_size()},
      {"write_quorum_size", m.write_quorum_size()},
      {"ack_quorum_size", m.ack_quorum_size()},
      {"state", state.empty() ? "UNKNOWN" : state},
      {"last_entry_id", m.last_entry_id()},
      {"length", m.length()},
      {"digest_type", m.digest_type() == proto::CRC32C ? "CRC32C" : "DUMMY"},
      {"ctime_ms", m.ctime_ms()},
      {"segments", segs},
      {"custom_metadata", custom}};
}

}  // namespace bk::metadata
