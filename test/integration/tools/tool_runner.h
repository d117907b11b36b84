// Running the tools' executables from integration tests: one command with
// its exit code, stdout and stderr, and a local cluster (ZooKeeper and three
// bookie processes) on free ports. Used by every test of bkctl and bkbench
// against live bookies.

#ifndef BK_TEST_INTEGRATION_TOOLS_TOOL_RUNNER_H_
#define BK_TEST_INTEGRATION_TOOLS_TOOL_RUNNER_H_

#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/localcluster/local_cluster.h"

namespace bk::testing {

struct ToolResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs `program args` through the shell; stderr goes to a file in
// `scratch`.
inline ToolResult RunTool(const std::string& program, const std::string& args,
                          const std::string& scratch) {
  static std::atomic<int> n{0};
  const std::string err_path = absl::StrCat(scratch, "/err-", n++);
  FILE* pipe =
      popen(absl::StrCat(program, " ", args, " 2>", err_path).c_str(), "r");
  ToolResult r;
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof(buf), pipe)) > 0) r.out.append(buf, k);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = ReadWholeFile(err_path);
  return r;
}

inline size_t CountLines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// `bookies` bookies on three racks under `dir` (the first
// `started_bookies` running, < 0: all), on free ports
// (LocalCluster::StartOnFreePorts: three tries, as a picked port may be
// taken before the cluster binds it).
// `extra_config`: more key=value lines for every bookie. Null when it
// cannot start.
inline std::unique_ptr<localcluster::LocalCluster> StartToolCluster(
    const std::string& dir, const std::string& bookie_binary,
    std::vector<std::string> extra_config = {}, int bookies = 3,
    int started_bookies = -1) {
  localcluster::LocalClusterOptions o;
  o.bookies = bookies;
  o.started_bookies = started_bookies;
  o.racks = 3;
  o.extra_bookie_config = std::move(extra_config);
  o.dir = dir + "/cluster";
  o.bookie_binary = bookie_binary;
  o.zookeeper_port = 0;  // a free one too
  auto c = localcluster::LocalCluster::StartOnFreePorts(std::move(o));
  if (c.ok()) return std::move(*c);
  UNSCOPED_INFO("cluster start failed: " << c.status().message());
  return nullptr;
}

}  // namespace bk::testing

#endif  // BK_TEST_INTEGRATION_TOOLS_TOOL_RUNNER_H_
