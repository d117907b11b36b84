#include "monitor/load_report.h"

namespace bk::monitor {

const char* UtilSourceName(UtilSource source) {
  switch (source) {
    case UtilSource::kBlockDevice:
      return "block_device";
    case UtilSource::kOwnBusyTime:
      return "own_busy_time";
    case UtilSource::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace bk::monitor
