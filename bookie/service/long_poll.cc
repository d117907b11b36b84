// Long-poll reads: ReadEntry with long_poll set, answered once the ledger's
// LAC passes previous_lac or at the timeout.

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "bookie/service/bookie_service.h"
#include "bookie/service/raw_unary.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// Lifecycle: created in the handler, which calls Start; parked in the
// store's waiter list of the ledger until the LAC moves, the timeout
// passes, the ledger goes, the store shuts down, or the client cancels
// (OnCancel takes the waiter out of the list at once). The store calls
// Answer exactly once; Answer finishes the call. Holds one long-poll
// permit, never a read permit, from construction to OnDone.
class LongPollReactor final
    : public RawUnaryCall<proto::ReadEntryRequest, proto::ReadEntryResponse> {
 public:
  // `out`: the call's raw answer buffer (raw_unary.h).
  LongPollReactor(BookieServiceImpl* service,
                  const proto::ReadEntryRequest& req, grpc::ByteBuffer* out)
      : RawUnaryCall(out),
        service_(service),
        ledger_(req.ledger_id()),
        entry_(req.entry_id()),
        start_(std::chrono::steady_clock::now()) {}

  // REQUIRES: called once, from the handler (so OnDone cannot run before
  // it returns).
  void Start(int64_t previous_lac, absl::Duration timeout) {
    const uint64_t id = service_->store()->WaitForLacUpdate(
        ledger_, previous_lac, timeout,
        [this](absl::StatusOr<int64_t> lac) { Answer(lac); });
    bool cancel;
    {
      absl::MutexLock l(&mu_);
      wait_id_ = id;
      cancel = cancelled_;
    }
    if (cancel && id != 0) service_->store()->CancelLacWait(ledger_, id);
  }

  void OnCancel() override {
    uint64_t id;
    {
      absl::MutexLock l(&mu_);
      cancelled_ = true;
      id = wait_id_;
    }
    // Answers with Cancelled if still parked; else the answer is on its way.
    if (id != 0) service_->store()->CancelLacWait(ledger_, id);
  }

  void OnDone() override {
    service_->long_poll_permits().Release();
    delete this;
  }

 private:
  void Answer(const absl::StatusOr<int64_t>& lac) {
    if (absl::IsCancelled(lac.status())) {
      Finish(grpc::Status::CANCELLED);
      return;
    }
    if (!lac.ok()) {
      response.set_ledger_id(ledger_);
      response.set_status(ToWire(lac.status()));
      response.set_max_lac(-1);
    } else {
      // Serve the entry asked for, or the one at the new LAC.
      service_->FillRead(ledger_, entry_ >= 0 ? entry_ : *lac, &response);
      response.set_max_lac(*lac);
      if (*lac < 0) response.set_status(proto::BK_ENOENTRY);
    }
    if (auto* p = service_->probe()) {
      p->ReadDone(SecondsSince(start_), response.status());
    }
    Reply();
  }

  BookieServiceImpl* const service_;
  const uint64_t ledger_;
  const int64_t entry_;
  const std::chrono::steady_clock::time_point start_;

  absl::Mutex mu_;
  uint64_t wait_id_ ABSL_GUARDED_BY(mu_) = 0;  // 0: not parked (yet)
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

grpc::ServerUnaryReactor* BookieServiceImpl::LongPoll(
    const proto::ReadEntryRequest& req, grpc::ByteBuffer* response) {
  if (!long_poll_permits_.TryAcquire()) {
    auto* call =
        new RawUnaryCall<proto::ReadEntryRequest, proto::ReadEntryResponse>(
            response);
    FillRefusedRead(req, proto::BK_ETOOMANYREQUESTS, &call->response);
    call->Reply();
    return call;
  }
  auto* reactor = new LongPollReactor(this, req, response);
  reactor->Start(
      req.previous_lac(),
      std::min(absl::Milliseconds(req.timeout_ms()), options_.max_long_poll));
  return reactor;
}

}  // namespace bk::bookie
