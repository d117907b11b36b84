// Fuzz target: the cluster JSON reader of bkctl (tools/bkctl/cluster_file.h).
// Invariant: no crash, no uncaught exception, whatever the JSON.

#include "test/fuzz/fuzz_util.h"
#include "tools/bkctl/cluster_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bk::bkctl::ParseClusterFile(
      absl::string_view(reinterpret_cast<const char*>(data), size))
      .status()
      .IgnoreError();
  return 0;
}
