#include "tools/bkbench/echo_ceiling.h"

#include <unistd.h>

#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bookie/echo/echo_service.h"
#include "common/measure.h"
#include "metadata/metadata_store.h"

namespace bk::bkbench {

absl::StatusOr<EchoCeiling> MeasureEchoCeiling(WriteLoadOptions load,
                                               absl::Duration duration,
                                               AllocCounters counters,
                                               client::ClientOptions options) {
  static std::atomic<int> runs{0};
  const std::string uri =
      absl::StrCat("mem://bkbench-echo-", getpid(), "-", runs++);
  auto store = metadata::Open(uri);
  if (!store.ok()) return store.status();
  std::vector<std::unique_ptr<bookie::EchoServer>> servers;
  for (int i = 0; i < load.ensemble; ++i) {
    auto s = bookie::StartEchoServer();
    if (!s.ok()) return s.status();
    proto::BookieServiceInfo info;
    info.set_bookie_id(absl::StrCat("echo-", i));
    info.set_grpc_endpoint(absl::StrCat("127.0.0.1:", (*s)->port));
    info.set_network_location(absl::StrCat("/echo/rack-", i));
    if (absl::Status st = (*store)->RegisterBookie(info); !st.ok()) return st;
    servers.push_back(std::move(*s));
  }
  EchoCeiling c;
  c.bookies = load.ensemble;
  {
    client::ClientOptions co = std::move(options);
    co.metadata_service_uri = uri;
    co.tls = client::TlsClientOptions();
    co.zk_digest_file.clear();
    auto client = client::Client::Create(co);
    if (!client.ok()) return client.status();
    load.rate = 0;
    load.progress = false;
    // A short warm-up (threads, connections), then the measured run.
    for (int pass = 0; pass < 2; ++pass) {
      load.duration = pass == 0 ? absl::Milliseconds(500) : duration;
      auto w = WriteLoad::Create(client->get(), load);
      if (!w.ok()) return w.status();
      const double cpu0 = measure::CpuSeconds();
      const uint64_t all0 = counters.all ? counters.all() : 0;
      const uint64_t large0 = counters.large ? counters.large() : 0;
      WriteResult r = (*w)->Run();
      c.cpu_seconds = measure::CpuSeconds() - cpu0;
      c.allocations = counters.all ? counters.all() - all0 : 0;
      c.large_allocations = counters.large ? counters.large() - large0 : 0;
      c.entries = r.acked;
      c.seconds = r.seconds;
      if (r.failed > 0) {
        return absl::InternalError(
            absl::StrCat("echo ceiling: adds failed: ", r.first_error));
      }
      c.entries_per_second = r.entries_per_second();
      c.p50_ms = r.latency.PercentileUs(0.5) / 1000.0;
      c.p99_ms = r.latency.PercentileUs(0.99) / 1000.0;
    }
  }
  for (int i = 0; i < load.ensemble; ++i) {
    (*store)->UnregisterBookie(absl::StrCat("echo-", i)).IgnoreError();
  }
  return c;
}

}  // namespace bk::bkbench
