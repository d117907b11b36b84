#include "test/support/bookie_testing.h"

#include <cerrno>

#include "common/logging.h"

namespace bk::testing {

const ConfigTable<TestingEnvOptions>& TestingKeyTable() {
  static const auto* table = [] {
    auto* t = new ConfigTable<TestingEnvOptions>();
    t->Millis("testingSyncDelayMs", BK_FIELD(sync_delay), {0, 60000},
              "TESTING AID: slow every journal and entry-log sync by this "
              "many ms (fault Env), to make a slow bookie on purpose; 0 = off");
    t->Value("testingFailSyncNth", BK_FIELD(fail_sync_nth), "syncs",
             {0, 100000},
             "TESTING AID: the Nth sync (counted from start) of a file whose "
             "path contains testingFailSyncPath fails with EIO (fault Env), "
             "to test a failing disk; 0 = off");
    t->Value("testingFailSyncPath", BK_FIELD(fail_sync_path), "-", {},
             "TESTING AID: which files testingFailSyncNth counts: a path "
             "substring (.jnl: journal files, .log: entry logs)");
    return t;
  }();
  return *table;
}

std::unique_ptr<FaultInjectionEnv> MakeTestingEnv(const TestingEnvOptions& o) {
  if (o.sync_delay <= absl::ZeroDuration() && o.fail_sync_nth <= 0) {
    return nullptr;
  }
  auto env = std::make_unique<FaultInjectionEnv>(Env::Default());
  log::Logger log = log::Get("bookie");
  if (o.sync_delay > absl::ZeroDuration()) {
    env->SetSyncDelay(o.sync_delay);
    log->warn("testingSyncDelayMs={}: every sync is slowed on purpose",
              absl::ToInt64Milliseconds(o.sync_delay));
  }
  if (o.fail_sync_nth > 0) {
    env->FailNth(FaultInjectionEnv::Op::kSync, o.fail_sync_nth, EIO,
                 o.fail_sync_path);
    log->warn(
        "testingFailSyncNth={}: sync number {} of a file matching '{}' will "
        "fail with EIO on purpose",
        o.fail_sync_nth, o.fail_sync_nth, o.fail_sync_path);
  }
  return env;
}

}  // namespace bk::testing
