// The environment for a child server process (bookie, ZooKeeper) started by
// a test: the test's own environment without the test harness's knobs.
//
// The bookie reads BK_<key> environment variables as configuration and
// refuses an unknown key, so a knob meant for the test or the scripts
// (BK_FAULT_KILLS, BK_FAULT_SEED, BK_TEST_SEED, BK_JOBS, BK_FUZZ_SECONDS,
// ...) must not reach it. Any other BK_
// variable is passed on: a test may set one on purpose.

#ifndef BK_TEST_SUPPORT_CHILD_ENV_H_
#define BK_TEST_SUPPORT_CHILD_ENV_H_

#include <string>
#include <vector>

extern char** environ;

namespace bk::testing {

// Variables of the test harness, never bookie configuration keys.
inline bool IsTestKnob(const std::string& entry) {
  for (const char* p :
       {"BK_FAULT_", "BK_TEST_", "BK_FUZZ_", "BK_JAVA=", "BK_ZK_CLASSPATH=",
        "BK_PROMETHEUS=", "BK_JOBS=", "BK_CLUSTER_DIR="})
    if (entry.rfind(p, 0) == 0) return true;
  return false;
}

// A copy of the environment without the test harness's knobs. Build it
// before fork(): pass ChildEnvp(env) to execve in the child.
inline std::vector<std::string> ChildEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (!IsTestKnob(*e)) env.emplace_back(*e);
  return env;
}

// Null-terminated pointers into `env` (which must outlive the result).
inline std::vector<char*> ChildEnvp(std::vector<std::string>& env) {
  std::vector<char*> p;
  for (auto& e : env) p.push_back(e.data());
  p.push_back(nullptr);
  return p;
}

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_CHILD_ENV_H_
