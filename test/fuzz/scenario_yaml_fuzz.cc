// Fuzz target: the simulator's scenario YAML reader (tools/sim/
// scenario_yaml.h). Invariant: no crash, no uncaught exception.

#include "test/fuzz/fuzz_util.h"
#include "tools/sim/scenario_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // yaml-cpp recurses per nesting level; very deep inputs exhaust the stack
  // in the library itself, which no caller of ours can prevent.
  if (size > 64 * 1024) return 0;
  bk::sim::ParseScenarioYaml(
      absl::string_view(reinterpret_cast<const char*>(data), size))
      .status()
      .IgnoreError();
  return 0;
}
