// Names of the wire enums as the JSON surfaces print them (the admin HTTP
// API's bookie info, bkctl bookieinfo): lower_snake_case, stable across
// releases, "unknown" for a value this build does not know.
#ifndef BK_PROTO_ENUM_NAMES_H_
#define BK_PROTO_ENUM_NAMES_H_

#include "proto/bookie.pb.h"

namespace bk::proto {

// "block_device", "own_busy_time" or "unknown".
const char* UtilSourceName(UtilSource s);

}  // namespace bk::proto

#endif  // BK_PROTO_ENUM_NAMES_H_
