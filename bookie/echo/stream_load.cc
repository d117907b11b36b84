#include "bookie/echo/stream_load.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "common/measure.h"
#include "proto/bookie.grpc.pb.h"
#include "proto/entry_format.h"

namespace bk::bookie {
namespace {

using Clock = std::chrono::steady_clock;

// One stream: a writer thread sends batches while fewer than `window`
// entries are unanswered; the calling thread reads answers.
void RunStream(proto::Bookie::Stub* stub, uint64_t ledger,
               const StreamLoadOptions& f, Clock::time_point stop_at,
               StreamLoadResult* out) {
  const std::string payload(f.entry_size, 'x');
  // Send times by entry id modulo a ring larger than the window (at most
  // `window` entries are unanswered).
  const size_t ring = 1 << 20;
  std::vector<Clock::time_point> sent_at(ring);
  absl::Mutex mu;
  int64_t sent = 0, answered = 0;
  bool stop = false;
  grpc::ClientContext ctx;
  auto stream = stub->AddEntries(&ctx);
  std::thread writer([&] {
    int64_t next = 0;
    proto::AddRequest req;
    for (int i = 0; i < f.batch; ++i) {
      auto* e = req.add_entries();
      e->set_ledger_id(ledger);
      e->set_master_key("bench-key");
    }
    while (Clock::now() < stop_at) {
      {
        absl::MutexLock l(&mu);
        auto room = [&] {
          return stop || sent - answered + f.batch <= f.window;
        };
        mu.Await(absl::Condition(&room));
        if (stop) break;
      }
      const auto now = Clock::now();
      for (int i = 0; i < f.batch; ++i, ++next) {
        auto* e = req.mutable_entries(i);
        e->set_entry_id(next);
        entry::EntryHeader h;
        h.ledger_id = ledger;
        h.entry_id = next;
        h.last_add_confirmed = next - 1;
        h.ledger_length = (next + 1) * f.entry_size;
        std::string* body = e->mutable_body();
        body->clear();
        entry::Package(h, payload, entry::DigestType::kCrc32c, body);
        sent_at[next % ring] = now;
      }
      {
        absl::MutexLock l(&mu);
        sent += f.batch;
      }
      if (!stream->Write(req)) break;
    }
    stream->WritesDone();
  });
  proto::AddResponse resp;
  out->latencies_us.reserve(out->latencies_us.size() + (1 << 20));
  while (stream->Read(&resp)) {
    const auto now = Clock::now();
    int64_t errors = 0;
    for (const auto& r : resp.results()) {
      if (r.status() != proto::BK_EOK) ++errors;
      out->latencies_us.push_back(std::chrono::duration<float, std::micro>(
                                      now - sent_at[r.entry_id() % ring])
                                      .count());
    }
    out->adds += resp.results_size() - errors;
    out->errors += errors;
    absl::MutexLock l(&mu);
    answered += resp.results_size();
  }
  {
    absl::MutexLock l(&mu);
    stop = true;
  }
  writer.join();
  stream->Finish().IgnoreError();
}

}  // namespace

double StreamLoadResult::PercentileUs(double q) {
  if (latencies_us.empty()) return 0;
  const size_t k = std::min(latencies_us.size() - 1,
                            static_cast<size_t>(q * latencies_us.size()));
  std::nth_element(latencies_us.begin(), latencies_us.begin() + k,
                   latencies_us.end());
  return latencies_us[k];
}

StreamLoadResult RunStreamLoad(const std::string& target,
                               const StreamLoadOptions& f) {
  StreamLoadOptions o = f;
  o.window = std::min<int64_t>(o.window, (1 << 20) - o.batch);
  std::vector<std::unique_ptr<proto::Bookie::Stub>> stubs;
  for (int s = 0; s < o.streams; ++s) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetMaxSendMessageSize(64 << 20);
    args.SetMaxReceiveMessageSize(64 << 20);
    stubs.push_back(proto::Bookie::NewStub(grpc::CreateCustomChannel(
        target, grpc::InsecureChannelCredentials(), args)));
  }
  std::vector<StreamLoadResult> per(o.streams);
  const double cpu0 = measure::CpuSeconds();
  const auto t0 = Clock::now();
  const auto stop_at =
      t0 + std::chrono::microseconds(static_cast<int64_t>(o.seconds * 1e6));
  std::vector<std::thread> threads;
  for (int s = 0; s < o.streams; ++s) {
    threads.emplace_back([&, s] {
      RunStream(stubs[s].get(), o.first_ledger + s, o, stop_at, &per[s]);
    });
  }
  for (auto& t : threads) t.join();
  StreamLoadResult r;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.cpu_seconds = measure::CpuSeconds() - cpu0;
  for (auto& p : per) {
    r.adds += p.adds;
    r.errors += p.errors;
    r.latencies_us.insert(r.latencies_us.end(), p.latencies_us.begin(),
                          p.latencies_us.end());
  }
  return r;
}

}  // namespace bk::bookie
