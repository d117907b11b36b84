// EIO on a real bookie's fsync (item 4), on the journal and on the entry
// log (testingFailSyncNth of bookie_testing, the bookie on a fault Env:
// test/support/bookie_testing.h): no add is acknowledged after it, the
// bookie says it is unwritable in /ready and /metrics within 1 s, and every
// acknowledged entry reads back after a restart.
//
// Prints its seed and writes its figures (figures.h).

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "test/fault/bookie_fault_util.h"
#include "test/fault/figures.h"
#include "test/integration/bookie/bookie_it_util.h"
#include "test/support/http_get.h"

namespace bk::it {
namespace {

using bk::testing::HttpGet;

// The value of the bookie_server_status gauge in /metrics is 0.
bool ServerStatusZero(int port) {
  const std::string m = "\n" + HttpGet(port, "/metrics").body;
  const size_t at = m.find("\nbookie_server_status{");
  if (at == std::string::npos) return false;
  const size_t eol = m.find('\n', at + 1);
  return m.substr(at, eol - at).back() == '0';
}

// ---------------------------------------------------------------- item 4

struct EioOutcome {
  int acked = 0;
  int acked_after_failure = 0;
  int refused_after_failure = 0;
  double unwritable_after_s = -1;  // from the first failed add
  std::string ready_body;
  bool status_zero = false;
  bool acked_intact_after_restart = true;
};

// Adds entries one at a time until one fails, then `after` more; watches
// /ready and /metrics for the failure.
EioOutcome RunEio(const std::string& name,
                  std::map<std::string, std::string> flags) {
  TempDir dir;
  BookieProcessOptions o =
      BookieOptions(dir, name, FreshZkUri(name), Flags(std::move(flags)));
  o.binary = TestingBookieBinary();  // testingFailSyncNth
  auto b = StartBookie(std::move(o));
  auto stub = Connect(b->grpc_target());
  constexpr uint64_t L = 9;
  EioOutcome out;
  std::vector<int64_t> acked;
  int64_t e = 0;
  absl::Time failed_at = absl::InfiniteFuture();
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  int after = 0;
  while (after < 30 && absl::Now() < deadline) {
    const proto::StatusCode s = AddOne(stub.get(), MakeAdd(L, e, "k", 200));
    if (s == proto::BK_EOK) {
      if (failed_at == absl::InfiniteFuture()) {
        acked.push_back(e);
        ++out.acked;
      } else {
        ++out.acked_after_failure;
      }
    } else {
      if (failed_at == absl::InfiniteFuture()) failed_at = absl::Now();
      ++out.refused_after_failure;
    }
    if (failed_at != absl::InfiniteFuture()) ++after;
    ++e;
  }
  REQUIRE(failed_at != absl::InfiniteFuture());
  const bool unwritable = PollUntil(
      [&] {
        auto r = HttpGet(b->http_port(), "/ready");
        if (!absl::StrContains(r.body, "read-only")) return false;
        out.ready_body = r.body;
        return true;
      },
      absl::Seconds(5), absl::Milliseconds(5));
  if (unwritable)
    out.unwritable_after_s = absl::ToDoubleSeconds(absl::Now() - failed_at);
  out.status_zero = ServerStatusZero(b->http_port());
  // Acknowledged entries survive: still served now, and after a restart
  // without the fault.
  for (int64_t a : acked)
    out.acked_intact_after_restart &= ReadsBackIntact(stub.get(), L, a, 200);
  b->Kill();
  BK_REQUIRE_OK(b->Restart({{"testingFailSyncNth", "0"}}));
  stub = Connect(b->grpc_target());
  for (int64_t a : acked)
    out.acked_intact_after_restart &= ReadsBackIntact(stub.get(), L, a, 200);
  return out;
}

void ReportEio(const std::string& which, const EioOutcome& o) {
  INFO(which << ": /ready said: " << o.ready_body);
  CHECK(o.acked > 0);
  CHECK(o.acked_after_failure == 0);
  CHECK(o.unwritable_after_s >= 0);
  CHECK(o.unwritable_after_s <= 1.0);
  CHECK(o.status_zero);
  CHECK(o.acked_intact_after_restart);
  fault::Figures fig("fsync_eio_" + which);
  const std::string item = "4 fsync EIO on " + which;
  fig.Add(item, "adds acknowledged after the failure",
          absl::StrCat(o.acked_after_failure, " (", o.acked, " before, ",
                       o.refused_after_failure, " refused after)"),
          "0", o.acked_after_failure == 0);
  fig.Add(item, "unwritable in /ready after the failure, s",
          o.unwritable_after_s < 0
              ? "never"
              : absl::StrFormat("%.3f", o.unwritable_after_s),
          "<= 1", o.unwritable_after_s >= 0 && o.unwritable_after_s <= 1.0);
  fig.Add(item, "bookie_server_status 0 and reason in /ready",
          o.status_zero ? "yes" : "no", "yes",
          o.status_zero && !o.ready_body.empty());
  fig.Add(item, "acknowledged entries intact after restart",
          o.acked_intact_after_restart ? "yes" : "no", "yes",
          o.acked_intact_after_restart);
}

TEST_CASE(
    "EIO on a journal fsync: no add acknowledged after it, unwritable "
    "within 1 s in /ready and metrics",
    "[fault][eio]") {
  Seed();
  EioOutcome o = RunEio("bk-eio-journal", {{"testingFailSyncNth", "25"},
                                           {"testingFailSyncPath", ".jnl"}});
  ReportEio("journal", o);
}

TEST_CASE(
    "EIO on an entry-log fsync: no add acknowledged after it, unwritable "
    "within 1 s in /ready and metrics",
    "[fault][eio]") {
  Seed();
  EioOutcome o = RunEio("bk-eio-entrylog", {{"testingFailSyncNth", "1"},
                                            {"testingFailSyncPath", ".log"},
                                            {"flushInterval", "300"}});
  ReportEio("entry log", o);
}

}  // namespace
}  // namespace bk::it
