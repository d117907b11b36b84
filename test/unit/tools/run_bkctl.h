// Runs the built bkctl binary (BKCTL_PATH) for the tools' unit tests.

#ifndef BK_TEST_UNIT_TOOLS_RUN_BKCTL_H_
#define BK_TEST_UNIT_TOOLS_RUN_BKCTL_H_

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"

namespace bk::test {

struct Result {
  int exit_code = -1;
  std::string out;
};

// Runs `bkctl <args>`, stdout captured, stderr to `err_path`.
inline Result RunBkctl(const std::string& args, const std::string& err_path) {
  const std::string command =
      absl::StrCat(BKCTL_PATH, " ", args, " 2>", err_path);
  Result result;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) result.out.append(buf, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace bk::test

#endif  // BK_TEST_UNIT_TOOLS_RUN_BKCTL_H_
