#include "common/logging.h"

#include <spdlog/sinks/stdout_sinks.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace bk::log {
namespace {

spdlog::level::level_enum ToSpd(Level l) {
  switch (l) {
    case Level::kDebug:
      return spdlog::level::debug;
    case Level::kInfo:
      return spdlog::level::info;
    case Level::kWarn:
      return spdlog::level::warn;
    case Level::kError:
      return spdlog::level::err;
    case Level::kOff:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

struct State {
  absl::Mutex mu;
  std::string pattern ABSL_GUARDED_BY(mu) =
      "%Y-%m-%dT%H:%M:%S.%e%z %l node=- component=%n %v";
  spdlog::level::level_enum level ABSL_GUARDED_BY(mu) = spdlog::level::info;
};

State& GetState() {
  static State* s = new State();  // never destroyed: loggers outlive main
  return *s;
}

}  // namespace

absl::StatusOr<Level> ParseLevel(const std::string& text) {
  if (text == "debug") return Level::kDebug;
  if (text == "info") return Level::kInfo;
  if (text == "warn") return Level::kWarn;
  if (text == "error") return Level::kError;
  if (text == "off") return Level::kOff;
  return absl::InvalidArgumentError(absl::StrCat(
      "log level '", text, "' is not one of debug, info, warn, error, off"));
}

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
    case Level::kOff:
      return "off";
  }
  return "?";
}

void Init(Level level, const std::string& node_id) {
  State& s = GetState();
  absl::MutexLock l(&s.mu);
  s.pattern = absl::StrCat("%Y-%m-%dT%H:%M:%S.%e%z %l node=",
                           node_id.empty() ? "-" : node_id, " component=%n %v");
  s.level = ToSpd(level);
  // Copies: the callback runs under s.mu, but inside spdlog, where the
  // thread-safety analysis cannot follow the lock.
  const std::string pattern = s.pattern;
  const spdlog::level::level_enum spd_level = s.level;
  spdlog::apply_all([&](const Logger& lg) {
    lg->set_pattern(pattern);
    lg->set_level(spd_level);
  });
}

Logger Get(const std::string& component) {
  State& s = GetState();
  absl::MutexLock l(&s.mu);
  if (Logger existing = spdlog::get(component)) return existing;
  auto lg = std::make_shared<spdlog::logger>(
      component, std::make_shared<spdlog::sinks::stderr_sink_mt>());
  lg->set_pattern(s.pattern);
  lg->set_level(s.level);
  lg->flush_on(spdlog::level::warn);
  spdlog::register_logger(lg);
  return lg;
}

}  // namespace bk::log
