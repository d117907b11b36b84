#include "proto/enum_names.h"

namespace bk::proto {

const char* UtilSourceName(UtilSource s) {
  switch (s) {
    case BLOCK_DEVICE:
      return "block_device";
    case OWN_BUSY_TIME:
      return "own_busy_time";
    default:
      return "unknown";
  }
}

}  // namespace bk::proto
