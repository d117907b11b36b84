// bookie_testing: the bookie program with the testing keys of
// bookie_testing.h, for tests and benchmarks. Same command line, exit codes
// and behaviour as `bookie` (bookie/daemon/bookie_main.h) otherwise.

#include "bookie/daemon/bookie_main.h"
#include "test/support/bookie_testing.h"

int main(int argc, char** argv) {
  using bk::testing::TestingKeyTable;
  bk::bookie::BookieMainHooks hooks;
  hooks.program = "bookie_testing";
  hooks.extra_keys = &TestingKeyTable().schema();
  hooks.make_env = [](const bk::Config& c) -> absl::StatusOr<bk::Env*> {
    bk::testing::TestingEnvOptions o;
    if (absl::Status s = TestingKeyTable().Apply(c, &o); !s.ok()) return s;
    // Lives until the process ends: the daemon uses it to the last sync.
    return bk::testing::MakeTestingEnv(o).release();
  };
  return bk::bookie::RunBookie(argc, argv, hooks);
}
