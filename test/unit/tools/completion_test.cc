// bkctl completion bash: the generated script, run by a real bash, completes
// command words, group commands, each command's flags and file names.

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "catch2/catch.hpp"
#include "test/support/temp_dir.h"
#include "tools/bkctl/command.h"

namespace bk::bkctl {
namespace {

std::string Output(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  return out;
}

class Completion {
 public:
  Completion() {
    script_ = dir_.Sub("bkctl.bash");
    Output(absl::StrCat(BKCTL_PATH, " completion bash > ", script_));
  }

  // What bash offers for the line `words` (the last word is the one being
  // completed), one per element.
  std::set<std::string> Complete(const std::vector<std::string>& words) const {
    std::vector<std::string> quoted;
    for (const std::string& w : words) quoted.push_back("'" + w + "'");
    const std::string program = absl::StrCat(
        "source ", script_, "; COMP_WORDS=(", absl::StrJoin(quoted, " "),
        "); COMP_CWORD=", words.size() - 1,
        "; _bkctl; printf '%s\\n' \"${COMPREPLY[@]}\"");
    std::ofstream(dir_.Sub("run.sh")) << program << "\n";
    std::set<std::string> offered;
    for (absl::string_view line :
         absl::StrSplit(Output(absl::StrCat("cd ", dir_.path(), " && bash ",
                                            dir_.Sub("run.sh"))),
                        '\n', absl::SkipEmpty())) {
      offered.emplace(line);
    }
    return offered;
  }

  const bk::testing::TempDir& dir() const { return dir_; }

 private:
  bk::testing::TempDir dir_;
  std::string script_;
};

TEST_CASE("the completion script completes commands, groups and files",
          "[tools]") {
  Completion c;
  CHECK(c.Complete({"bkctl", "led"}) == std::set<std::string>{"ledger"});
  CHECK(c.Complete({"bkctl", "ledger", "r"}) == std::set<std::string>{"read"});
  CHECK(c.Complete({"bkctl", "ledger", "read", "--pay"}) ==
        std::set<std::string>{"--payload"});
  // Global flags before the command, with their values, are skipped.
  CHECK(c.Complete({"bkctl", "--metadata-uri", "zk://h:2181/l", "cluster",
                    "i"}) == std::set<std::string>{"info"});
  CHECK(c.Complete({"bkctl", "--meta"}) ==
        std::set<std::string>{"--metadata-uri"});
  // A path flag's value completes as a file name.
  std::ofstream(c.dir().Sub("bookie.conf")) << "\n";
  CHECK(c.Complete({"bkctl", "readjournal", "--conf", "book"}) ==
        std::set<std::string>{"bookie.conf"});
}

TEST_CASE("every command's usage flags are offered for it", "[tools]") {
  Completion c;
  static const std::regex kFlag("--([a-z][a-z0-9-]*)");
  for (const Command& cmd : AllCommands()) {
    std::vector<std::string> line = {"bkctl"};
    if (!cmd.group.empty()) line.push_back(cmd.group);
    line.push_back(cmd.name);
    line.push_back("--");
    const std::set<std::string> offered = c.Complete(line);
    INFO(absl::StrJoin(line, " "));
    for (std::sregex_iterator it(cmd.usage.begin(), cmd.usage.end(), kFlag),
         end;
         it != end; ++it) {
      CHECK(offered.contains("--" + (*it)[1].str()));
    }
    CHECK(offered.contains("--client-conf"));
  }
}

}  // namespace
}  // namespace bk::bkctl
