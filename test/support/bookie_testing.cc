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
    t->Value("testingFullDirPath", BK_FIELD(full_dir_path), "-", {},
             "TESTING AID: directories whose path contains this report a "
             "full filesystem (no free bytes) to the disk checker; empty = "
             "off");
    return t;
  }();
  return *table;
}

namespace {

// Reports the filesystem of matching directories as full.
class FullDirEnv : public FaultInjectionEnv {
 public:
  FullDirEnv(Env* target, std::string full_dir_path)
      : FaultInjectionEnv(target), full_(std::move(full_dir_path)) {}
  absl::StatusOr<FsStats> GetFsStats(const std::string& path) override {
    auto stats = FaultInjectionEnv::GetFsStats(path);
    if (stats.ok() && !full_.empty() && path.find(full_) != std::string::npos) {
      stats->free_bytes = 0;
    }
    return stats;
  }

 private:
  const std::string full_;
};

}  // namespace

std::unique_ptr<FaultInjectionEnv> MakeTestingEnv(const TestingEnvOptions& o) {
  if (o.sync_delay <= absl::ZeroDuration() && o.fail_sync_nth <= 0 &&
      o.full_dir_path.empty()) {
    return nullptr;
  }
  auto env = std::make_unique<FullDirEnv>(Env::Default(), o.full_dir_path);
  if (!o.full_dir_path.empty()) {
    log::Get("bookie")->warn(
        "testingFullDirPath={}: directories matching it report a full disk "
        "on purpose",
        o.full_dir_path);
  }
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
