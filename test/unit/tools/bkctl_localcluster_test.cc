// bkctl localcluster's flags: bad input is refused before anything starts.

#include <string>

#include "catch2/catch.hpp"
#include "test/unit/tools/run_bkctl.h"

namespace {

using bk::test::ReadAll;
using bk::test::Result;
using bk::test::RunBkctl;

TEST_CASE(
    "bkctl localcluster refuses a --bookie-config item that is not "
    "key=value",
    "[unit][tools][bkctl]") {
  const std::string err = "bkctl_localcluster_test.err";
  for (const std::string bad : {"journalMaxGroupWaitMSec", "=1",
                                "journalMaxGroupWaitMSec=1,flushInterval"}) {
    INFO(bad);
    // --dir a path that must never be created: nothing may start.
    Result r = RunBkctl(
        "localcluster --no-workload --dir /nonexistent/bkctl-lc "
        "--bookie-config " +
            bad,
        err);
    CHECK(r.exit_code == 2);
    CHECK(ReadAll(err).find("--bookie-config") != std::string::npos);
    CHECK(ReadAll(err).find("is not key=value") != std::string::npos);
  }
  std::remove(err.c_str());
}

}  // namespace
