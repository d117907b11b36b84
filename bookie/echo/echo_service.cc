#include "bookie/echo/echo_service.h"

#include <grpcpp/grpcpp.h>

#include "absl/synchronization/mutex.h"

namespace bk::bookie {
namespace {

// One add stream: answers are accumulated while a write is in flight and
// sent as one message when it completes.
class EchoReactor final
    : public grpc::ServerBidiReactor<proto::AddRequest, proto::AddResponse> {
 public:
  explicit EchoReactor(BatchSink* sink) : sink_(sink) { StartRead(&request_); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      {
        absl::MutexLock l(&mu_);
        reads_done_ = true;
      }
      MaybeFinish();
      return;
    }
    const proto::StatusCode code =
        sink_ == nullptr || sink_->Take(request_).ok() ? proto::BK_EOK
                                                       : proto::BK_EIO;
    bool start;
    {
      absl::MutexLock l(&mu_);
      for (const auto& e : request_.entries()) {
        auto* r = outgoing_.add_results();
        r->set_ledger_id(e.ledger_id());
        r->set_entry_id(e.entry_id());
        r->set_status(code);
      }
      start = TakeLocked();
    }
    if (start) StartWrite(&writing_);
    request_.Clear();
    StartRead(&request_);
  }

  void OnWriteDone(bool ok) override {
    bool start;
    {
      absl::MutexLock l(&mu_);
      write_in_flight_ = false;
      if (!ok) failed_ = true;
      start = TakeLocked();
    }
    if (start) StartWrite(&writing_);
    MaybeFinish();
  }

  void OnDone() override { delete this; }

 private:
  bool TakeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (write_in_flight_ || failed_ || outgoing_.results_size() == 0) {
      return false;
    }
    writing_.Clear();
    writing_.Swap(&outgoing_);
    write_in_flight_ = true;
    return true;
  }

  void MaybeFinish() {
    {
      absl::MutexLock l(&mu_);
      if (finished_ || !reads_done_ || write_in_flight_) return;
      if (!failed_ && outgoing_.results_size() > 0) return;
      finished_ = true;
    }
    Finish(grpc::Status::OK);
  }

  BatchSink* const sink_;  // may be null
  // Owned by the read side (one read in flight at a time).
  proto::AddRequest request_;
  // Owned by the write in flight.
  proto::AddResponse writing_;

  absl::Mutex mu_;
  proto::AddResponse outgoing_ ABSL_GUARDED_BY(mu_);
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;
  bool write_in_flight_ ABSL_GUARDED_BY(mu_) = false;
  bool failed_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

grpc::ServerBidiReactor<proto::AddRequest, proto::AddResponse>*
EchoService::AddEntries(grpc::CallbackServerContext*) {
  return new EchoReactor(sink_);
}

grpc::ServerUnaryReactor* EchoService::GetBookieInfo(
    grpc::CallbackServerContext* context, const proto::GetBookieInfoRequest*,
    proto::GetBookieInfoResponse* response) {
  response->set_status(proto::BK_EOK);
  response->set_total_disk_capacity(-1);
  response->set_free_disk_space(-1);
  response->set_journal_io_util(0);
  response->set_ledger_io_util(-1);
  response->set_cpu_used_rate(-1);
  response->set_write_bytes_per_second(0);
  response->set_journal_device_write_bytes_per_second(-1);
  auto* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

EchoServer::~EchoServer() {
  if (server) server->Shutdown();
}

absl::StatusOr<std::unique_ptr<EchoServer>> StartEchoServer(BatchSink* sink) {
  auto e = std::make_unique<EchoServer>();
  e->service = std::make_unique<EchoService>(sink);
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &e->port);
  builder.SetMaxReceiveMessageSize(64 << 20);
  builder.SetMaxSendMessageSize(64 << 20);
  builder.RegisterService(e->service.get());
  e->server = builder.BuildAndStart();
  if (e->server == nullptr || e->port == 0) {
    return absl::UnavailableError("echo server: cannot bind 127.0.0.1:0");
  }
  return e;
}

}  // namespace bk::bookie
