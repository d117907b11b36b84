// The ReadEntries stream: a range of one ledger's entries, for catch-up
// readers.

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bookie/service/bookie_service.h"
#include "bookie/service/raw_stream.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

// What the deadline's timer callback may touch: the call's context until
// the reactor is done. The callback runs on the timer's thread and may
// outlive the reactor, so it holds this, not the reactor.
struct RangeDeadline {
  absl::Mutex mu;
  grpc::CallbackServerContext* ctx ABSL_GUARDED_BY(mu);
};

// Entries per message and bytes per message, at most, whatever a request
// asks: a message is built whole before it is written.
constexpr uint32_t kMaxEntriesPerMessage = 256;
constexpr size_t kMaxMessageBytes = 1 << 20;

// Streams entries first..last of a ledger (every stride-th), up to the
// request's max_entries_per_message per message (one by default),
// stopping at the first entry the bookie does not hold, at the byte
// budget, or when the client goes away. Holds one ordinary read permit for
// its whole life, which the server bounds: at range_read_timeout the call is
// cancelled (the write in flight fails, the stream finishes, OnDone releases).
// Registered raw (bookie_service.h): each message is serialized here.
class RangeReadReactor final
    : public SerializingWriteReactor<proto::ReadEntryResponse> {
 public:
  RangeReadReactor(BookieServiceImpl* service, grpc::CallbackServerContext* ctx,
                   const proto::ReadEntriesRequest& req, bool permitted)
      : service_(service),
        ledger_(req.ledger_id()),
        next_(req.first_entry_id()),
        last_(req.last_entry_id()),
        stride_(req.stride() > 1 ? req.stride() : 1),
        per_message_(std::clamp<uint32_t>(req.max_entries_per_message(), 1,
                                          kMaxEntriesPerMessage)),
        budget_(req.max_bytes() > 0
                    ? std::min<size_t>(req.max_bytes(),
                                       service->options().max_range_read_bytes)
                    : service->options().max_range_read_bytes),
        permitted_(permitted),
        deadline_(std::make_shared<RangeDeadline>()) {
    {
      absl::MutexLock l(&deadline_->mu);
      deadline_->ctx = ctx;
    }
    timer_id_ = service_->timer().Schedule(
        absl::Now() + service_->options().range_read_timeout, [d = deadline_] {
          // gRPC runs the reactions a cancel causes on its own threads,
          // never inside TryCancel, so holding mu here cannot deadlock
          // against OnDone.
          absl::MutexLock l(&d->mu);
          if (d->ctx != nullptr) d->ctx->TryCancel();
        });
    if (!permitted_) {
      if (auto* p = service_->probe()) p->Rejected(proto::BK_ETOOMANYREQUESTS);
      msg_.set_status(proto::BK_ETOOMANYREQUESTS);
      msg_.set_ledger_id(ledger_);
      msg_.set_entry_id(next_);
      done_ = true;
      WriteMessage(msg_);
      return;
    }
    if (next_ < 0 || last_ < next_) {
      msg_.set_status(proto::BK_EBADREQ);
      msg_.set_ledger_id(ledger_);
      done_ = true;
      WriteMessage(msg_);
      return;
    }
    service_->RunRangeRead([this] { Next(); });
  }

  void OnWriteDone(bool ok) override {
    if (!ok || done_) {
      Finish(grpc::Status::OK);
      return;
    }
    service_->RunRangeRead([this] { Next(); });
  }

  void OnDone() override {
    service_->timer().Cancel(timer_id_);
    {
      absl::MutexLock l(&deadline_->mu);
      deadline_->ctx = nullptr;
    }
    if (permitted_) service_->read_permits().Release();
    delete this;
  }

 private:
  void Next() {
    if (next_ > last_ || sent_ >= budget_) {
      Finish(grpc::Status::OK);
      return;
    }
    msg_.Clear();
    msg_.set_ledger_id(ledger_);
    msg_.set_entry_id(next_);
    auto entry = service_->store()->ReadEntry(ledger_, next_);
    if (!entry.ok()) {
      // The first entry missing ends the range; say why in the last message.
      msg_.set_status(ToWire(entry.status()));
      done_ = true;
    } else {
      msg_.set_status(proto::BK_EOK);
      msg_.set_body((*entry)->data(), (*entry)->size());
      sent_ += (*entry)->size();
      next_ += stride_;
      // The following entries ride along, all EOK; one the bookie cannot
      // read is left for the next message, which says why the range ends.
      size_t bytes = (*entry)->size();
      while (static_cast<uint32_t>(msg_.more_bodies_size()) + 1 <
                 per_message_ &&
             next_ <= last_ && sent_ < budget_ && bytes < kMaxMessageBytes) {
        auto more = service_->store()->ReadEntry(ledger_, next_);
        if (!more.ok()) break;
        msg_.add_more_bodies((*more)->data(), (*more)->size());
        bytes += (*more)->size();
        sent_ += (*more)->size();
        next_ += stride_;
      }
    }
    WriteMessage(msg_);
  }

  BookieServiceImpl* const service_;
  const uint64_t ledger_;
  int64_t next_;
  const int64_t last_;
  const int64_t stride_;        // 1, or the request's stride
  const uint32_t per_message_;  // entries per message, at most
  const size_t budget_;
  const bool permitted_;
  const std::shared_ptr<RangeDeadline> deadline_;
  uint64_t timer_id_ = 0;
  size_t sent_ = 0;
  bool done_ = false;
  proto::ReadEntryResponse msg_;
};

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* BookieServiceImpl::ReadEntries(
    grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request) {
  proto::ReadEntriesRequest req;
  grpc::Status parsed = ParseRawRequest(*request, "ReadEntriesRequest", &req);
  if (!parsed.ok()) {
    if (auto* p = probe()) p->Rejected(proto::BK_EBADREQ);
    return new FinishedStream(std::move(parsed));
  }
  return new RangeReadReactor(this, ctx, req, read_permits_.TryAcquire());
}

}  // namespace bk::bookie
