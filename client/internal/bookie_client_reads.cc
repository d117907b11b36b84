// BookieClient's reads (bookie_client.h): the unary calls and the
// ReadEntries and TailEntries streams.

#include <grpcpp/grpcpp.h>

#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/internal/bookie_client.h"
#include "client/internal/bookie_client_shared.h"
#include "proto/bookie.grpc.pb.h"
#include "proto/status_codes.h"

namespace bk::client::internal {

// One ReadEntries or TailEntries call. Deletes itself in OnDone, as a
// unary call's state does, with the same bookkeeping (live_calls_,
// unary_finishing_), so that Shutdown cancels it and waits for it.
template <typename Request>
class BookieClient::StreamCall final
    : public grpc::ClientReadReactor<proto::ReadEntryResponse> {
 public:
  StreamCall(BookieClient* owner, const Request& request,
             absl::AnyInvocable<void(proto::ReadEntryResponse&&)> on_entry,
             absl::AnyInvocable<void(absl::Status)> done,
             std::shared_ptr<StreamCanceller> canceller)
      : owner_(owner),
        request_(request),
        on_entry_(std::move(on_entry)),
        done_(std::move(done)),
        canceller_(std::move(canceller)) {
    if (canceller_ != nullptr) {
      absl::MutexLock l(&canceller_->mu_);
      canceller_->ctx_ = &ctx_;
    }
  }

  grpc::ClientContext* context() { return &ctx_; }

  void Start() {
    if constexpr (std::is_same_v<Request, proto::TailEntriesRequest>) {
      owner_->shared_->stub->async()->TailEntries(&ctx_, &request_, this);
    } else {
      owner_->shared_->stub->async()->ReadEntries(&ctx_, &request_, this);
    }
    StartRead(&response_);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // OnDone follows
    owner_->Reachable();
    on_entry_(std::move(response_));
    response_.Clear();
    StartRead(&response_);
  }

  void OnDone(const grpc::Status& status) override {
    BookieClient* const owner = owner_;
    absl::AnyInvocable<void(absl::Status)> done = std::move(done_);
    if (canceller_ != nullptr) {
      absl::MutexLock l(&canceller_->mu_);
      canceller_->ctx_ = nullptr;
    }
    // Still among live_calls_: Shutdown waits for the report.
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
      owner->Unreachable();
    }
    {
      absl::MutexLock l(&owner->mu_);
      owner->live_calls_.erase(&ctx_);
      ++owner->unary_finishing_;
    }
    const absl::Status result = FromGrpc(status);
    // The context holds a reference to the channel: dropped here, while
    // the owner still holds its own (see AddStream::OnDone).
    delete this;
    done(result);
    done = nullptr;
    absl::MutexLock l(&owner->mu_);
    --owner->unary_finishing_;
  }

 private:
  BookieClient* const owner_;
  grpc::ClientContext ctx_;
  const Request request_;
  proto::ReadEntryResponse response_;  // touched by the read callback only
  absl::AnyInvocable<void(proto::ReadEntryResponse&&)> on_entry_;
  absl::AnyInvocable<void(absl::Status)> done_;
  const std::shared_ptr<StreamCanceller> canceller_;  // may be null
};

void BookieClient::StreamCanceller::Cancel() {
  // gRPC runs the reactions a cancel causes on its threads, never inside
  // TryCancel, so OnDone (which takes mu_) cannot deadlock against this.
  absl::MutexLock l(&mu_);
  if (ctx_ != nullptr) ctx_->TryCancel();
}

void BookieClient::ReadEntries(
    const proto::ReadEntriesRequest& request, absl::Duration timeout,
    absl::AnyInvocable<void(proto::ReadEntryResponse&&)> on_entry,
    absl::AnyInvocable<void(absl::Status)> done) {
  StreamCall<proto::ReadEntriesRequest>* call = nullptr;
  {
    absl::MutexLock l(&mu_);
    if (!closing_) {
      call = new StreamCall<proto::ReadEntriesRequest>(
          this, request, std::move(on_entry), std::move(done), nullptr);
      call->context()->set_deadline(DeadlineIn(timeout));
      live_calls_.insert(call->context());
    }
  }
  if (call == nullptr) {
    done(absl::CancelledError(absl::StrCat("bookie ", id_, ": closing")));
    return;
  }
  call->Start();
}

std::shared_ptr<BookieClient::StreamCanceller> BookieClient::TailEntries(
    const proto::TailEntriesRequest& request,
    absl::AnyInvocable<void(proto::ReadEntryResponse&&)> on_entry,
    absl::AnyInvocable<void(absl::Status)> done) {
  auto canceller = std::make_shared<StreamCanceller>();
  StreamCall<proto::TailEntriesRequest>* call = nullptr;
  {
    absl::MutexLock l(&mu_);
    if (!closing_) {
      call = new StreamCall<proto::TailEntriesRequest>(
          this, request, std::move(on_entry), std::move(done), canceller);
      live_calls_.insert(call->context());
    }
  }
  if (call == nullptr) {
    done(absl::CancelledError(absl::StrCat("bookie ", id_, ": closing")));
    return canceller;
  }
  call->Start();
  return canceller;
}

template <typename Req, typename Resp, typename Method>
void BookieClient::Unary(const Req& request, absl::Duration timeout,
                         Method method, Done<Resp> done) {
  // Owned by the call: deleted by its callback. gRPC's std::function must
  // be copyable, so the callback captures only plain pointers: nothing it
  // holds is destroyed by gRPC after the callback returns.
  struct Call {
    grpc::ClientContext ctx;
    Req request;
    Resp response;
    Done<Resp> done;
  };
  auto* call = new Call;
  call->request = request;
  call->ctx.set_deadline(DeadlineIn(timeout));
  call->done = std::move(done);
  bool closing;
  {
    absl::MutexLock l(&mu_);
    closing = closing_;
    if (!closing) live_calls_.insert(&call->ctx);
  }
  if (closing) {
    Done<Resp> d = std::move(call->done);
    delete call;
    d(absl::CancelledError(absl::StrCat("bookie ", id_, ": closing")));
    return;
  }
  method(shared_->stub.get(), &call->ctx, &call->request, &call->response,
         [this, call](grpc::Status s) {
           absl::StatusOr<Resp> result =
               s.ok() ? absl::StatusOr<Resp>(std::move(call->response))
                      : absl::StatusOr<Resp>(FromGrpc(s));
           Done<Resp> d = std::move(call->done);
           if (s.ok()) {
             Reachable();
           } else if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
             Unreachable();
           }
           {
             // From here on Shutdown neither cancels the call nor returns.
             absl::MutexLock l(&mu_);
             live_calls_.erase(&call->ctx);
             ++unary_finishing_;
           }
           // The ClientContext holds a reference to the channel: dropped
           // here, while this object still holds its own (see
           // AddStream::OnDone for why that matters).
           delete call;
           d(std::move(result));
           d = nullptr;  // what `done` holds goes before Shutdown returns
           absl::MutexLock l(&mu_);
           --unary_finishing_;
         });
}

void BookieClient::ReadEntry(const proto::ReadEntryRequest& request,
                             absl::Duration timeout,
                             Done<proto::ReadEntryResponse> done) {
  Unary<proto::ReadEntryRequest, proto::ReadEntryResponse>(
      request, timeout,
      [](proto::Bookie::Stub* stub, grpc::ClientContext* ctx, auto* req,
         auto* resp, std::function<void(grpc::Status)> cb) {
        stub->async()->ReadEntry(ctx, req, resp, std::move(cb));
      },
      std::move(done));
}

void BookieClient::ReadLac(uint64_t ledger_id, absl::Duration timeout,
                           Done<proto::ReadLacResponse> done) {
  proto::ReadLacRequest request;
  request.set_ledger_id(ledger_id);
  Unary<proto::ReadLacRequest, proto::ReadLacResponse>(
      request, timeout,
      [](proto::Bookie::Stub* stub, grpc::ClientContext* ctx, auto* req,
         auto* resp, std::function<void(grpc::Status)> cb) {
        stub->async()->ReadLac(ctx, req, resp, std::move(cb));
      },
      std::move(done));
}

void BookieClient::GetBookieInfo(uint64_t requested, absl::Duration timeout,
                                 Done<proto::GetBookieInfoResponse> done) {
  proto::GetBookieInfoRequest request;
  request.set_requested(requested);
  Unary<proto::GetBookieInfoRequest, proto::GetBookieInfoResponse>(
      request, timeout,
      [](proto::Bookie::Stub* stub, grpc::ClientContext* ctx, auto* req,
         auto* resp, std::function<void(grpc::Status)> cb) {
        stub->async()->GetBookieInfo(ctx, req, resp, std::move(cb));
      },
      std::move(done));
}

void BookieClient::ListEntries(const proto::GetListOfEntriesRequest& request,
                               absl::Duration timeout,
                               Done<proto::GetListOfEntriesResponse> done) {
  Unary<proto::GetListOfEntriesRequest, proto::GetListOfEntriesResponse>(
      request, timeout,
      [](proto::Bookie::Stub* stub, grpc::ClientContext* ctx, auto* req,
         auto* resp, std::function<void(grpc::Status)> cb) {
        stub->async()->GetListOfEntriesOfLedger(ctx, req, resp, std::move(cb));
      },
      std::move(done));
}

}  // namespace bk::client::internal
