// A ledger's metadata as JSON, one shape for every tool that prints it
// (`bkctl ledger metadata`, the bookie's GET /api/v1/ledger/metadata).

#ifndef BK_METADATA_LEDGER_JSON_H_
#define BK_METADATA_LEDGER_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>

#include "metadata/metadata_store.h"
#include "proto/metadata.pb.h"

namespace bk::metadata {

// {"ledger_id", "version", "ensemble_size", "write_quorum_size",
//  "ack_quorum_size", "state" (OPEN, IN_RECOVERY, CLOSED), "last_entry_id",
//  "length", "digest_type", "ctime_ms", "segments": [{"first_entry_id",
//  "bookies"}], "custom_metadata": {}}.
nlohmann::json LedgerMetadataJson(LedgerId id,
                                  const Versioned<proto::LedgerMetadata>& v);

}  // namespace bk::metadata

#endif  // BK_METADATA_LEDGER_JSON_H_
