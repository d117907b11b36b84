// A real Prometheus server scrapes a real bookie's /metrics.

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/integration/bookie/bookie_it_util.h"
#include "test/support/http_get.h"

namespace bk::it {
namespace {

using bk::testing::HttpGet;

// The Prometheus binary; BK_PROMETHEUS overrides.
std::string PrometheusBinary() {
  const char* p = std::getenv("BK_PROMETHEUS");
  return p != nullptr && *p != '\0' ? p : "/usr/bin/prometheus";
}

TEST_CASE("a real Prometheus scrapes the bookie and returns the add counter",
          "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-prom", FreshZkUri("prom")));
  auto stub = Connect(b->grpc_target());
  constexpr int kAdds = 25;
  proto::AddRequest batch;
  for (int e = 0; e < kAdds; ++e) *batch.add_entries() = MakeAdd(9, e);
  auto out = AddBatches(stub.get(), {batch});
  REQUIRE(out.size() == kAdds);

  auto port = bk::testing::PickFreePort();
  REQUIRE(port.ok());
  std::ofstream(dir.Sub("prometheus.yml")) << "global:\n"
                                              "  scrape_interval: 1s\n"
                                              "  evaluation_interval: 1s\n"
                                              "scrape_configs:\n"
                                              "  - job_name: bookie\n"
                                              "    static_configs:\n"
                                              "      - targets: ['127.0.0.1:"
                                           << b->http_port() << "']\n";
  auto pid = bk::testing::SpawnProcess(
      PrometheusBinary(),
      {"--config.file=" + dir.Sub("prometheus.yml"),
       "--storage.tsdb.path=" + dir.Sub("tsdb"),
       "--web.listen-address=127.0.0.1:" + std::to_string(*port)},
      dir.Sub("prometheus.log"));
  REQUIRE(pid.ok());
  struct Stop {
    pid_t pid;
    ~Stop() { bk::testing::StopProcess(pid); }
  } stop{*pid};

  // The first scrape shows after target discovery (about 5 s): poll.
  const std::string query =
      "/api/v1/query?query=sum(bookie_add_requests_total)";
  std::string body;
  const bool seen = PollUntil(
      [&] {
        auto r = HttpGet(*port, query, false);
        body = r.body;
        // {"status":"success","data":{"resultType":"vector","result":[
        //   {"metric":{},"value":[<time>,"25"]}]}}
        return r.status == 200 &&
               absl::StrContains(body, absl::StrCat("\"", kAdds, "\"]"));
      },
      absl::Seconds(30), absl::Milliseconds(250));
  INFO("last answer: " << body);
  CHECK(seen);

  // Labels, not names, carry the bookie id.
  auto labels =
      HttpGet(*port, "/api/v1/query?query=bookie_add_requests_total", false);
  INFO("labels: " << labels.body);
  CHECK(absl::StrContains(labels.body, "bk-prom"));
  auto up = HttpGet(*port, "/api/v1/query?query=up", false);
  INFO("up: " << up.body);
  CHECK(absl::StrContains(up.body, "\"1\"]"));

  // The standard process metrics a Java bookie exports: the bookie's CPU
  // time is a counter that has run, and its file descriptors are under the
  // limit.
  for (const char* q : {"count(process_cpu_seconds_total%20%3E%200)",
                        "count(process_open_fds%20%3C%20process_max_fds)",
                        "count(process_resident_memory_bytes%20%3E%200)",
                        "count(process_start_time_seconds%20%3E%200)"}) {
    auto r = HttpGet(*port, absl::StrCat("/api/v1/query?query=", q), false);
    INFO(q << ": " << r.body);
    CHECK(absl::StrContains(r.body, "\"1\"]"));
  }
}

}  // namespace
}  // namespace bk::it
