// One logging facility for every binary: spdlog underneath, one line per
// event on stderr in key=value form:
//
//   2026-11-29T20:41:07.123+0000 info node=bookie-1 component=journal msg...
//
// Call log::Init once at start-up (before other threads log); take a
// component logger with log::Get("journal") and keep it (lookups lock).
// Never log a secret: master keys, passwords and TLS key material are
// referred to by name or fingerprint only.

#ifndef BK_COMMON_LOGGING_H_
#define BK_COMMON_LOGGING_H_

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace bk::log {

using Logger = std::shared_ptr<spdlog::logger>;

enum class Level { kDebug, kInfo, kWarn, kError, kOff };

// "debug", "info", "warn", "error", "off"; anything else is an error.
absl::StatusOr<Level> ParseLevel(const std::string& text);
// The inverse of ParseLevel.
const char* LevelName(Level level);

// Sets the level and the node id (bookie id, or "client") stamped on every
// line, for loggers made before and after the call.
void Init(Level level, const std::string& node_id);

// The logger of one component, made on first use.
Logger Get(const std::string& component);

}  // namespace bk::log

#endif  // BK_COMMON_LOGGING_H_
