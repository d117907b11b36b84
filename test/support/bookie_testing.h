// The testing keys of `bookie_testing` (bookie_testing_main.cc): the bookie
// program on a FaultInjectionEnv (common/fault_env.h), for tests and
// benchmarks that need a bookie with a slow or failing disk in its own
// process. The production `bookie` does not have these keys and refuses
// them like any unknown key; `bookie_testing` accepts every bookie key plus
// these, and is never installed.
//
//   testingSyncDelayMs   every sync of a journal or entry-log file is slowed
//                        by this many ms (a slow disk); 0 = off
//   testingFailSyncNth   the Nth sync (counted from start) of a file whose
//                        path contains testingFailSyncPath fails with EIO
//                        (a failing disk); 0 = off
//   testingFailSyncPath  which files testingFailSyncNth counts
//   testingFullDirPath   a directory whose path contains this reports a
//                        full filesystem (no free bytes) to the disk
//                        checker (a full disk); empty = off
//
// With none set, `bookie_testing` runs on Env::Default(), as `bookie` does.

#ifndef BK_TEST_SUPPORT_BOOKIE_TESTING_H_
#define BK_TEST_SUPPORT_BOOKIE_TESTING_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "common/config_table.h"
#include "common/fault_env.h"

namespace bk::testing {

struct TestingEnvOptions {
  absl::Duration sync_delay = absl::ZeroDuration();  // testingSyncDelayMs
  int64_t fail_sync_nth = 0;                         // testingFailSyncNth
  std::string fail_sync_path = ".jnl";               // testingFailSyncPath
  std::string full_dir_path;                         // testingFullDirPath
};

// Built on first use, never destroyed.
const ConfigTable<TestingEnvOptions>& TestingKeyTable();

// A FaultInjectionEnv over Env::Default() with the faults `options` ask
// for, each announced by a warning in the bookie's log; null when they ask
// for none.
std::unique_ptr<FaultInjectionEnv> MakeTestingEnv(
    const TestingEnvOptions& options);

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_BOOKIE_TESTING_H_
