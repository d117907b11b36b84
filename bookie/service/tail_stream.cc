// The TailEntries stream: a tailing reader's entries, pushed as the
// ledger's LAC reaches them, instead of one long poll per entry.

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "bookie/service/bookie_service.h"
#include "bookie/service/raw_stream.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

constexpr uint32_t kMaxEntriesPerMessage = 256;

constexpr size_t kMaxMessageBytes = 1 << 20;

// Lifecycle: created by the handler, which calls Start. One step at a time
// runs the stream: Step sends what the LAC allows (the write's OnWriteDone
// steps again) or parks in the store's waiter list of the ledger (its
// answer steps again). Only OnCancel runs beside a step: it takes a parked
// wait out of the list, whose answer (Cancelled) finishes; a write in
// flight fails instead and OnWriteDone finishes. A wait answered before
// Park has recorded it (inline, or at once on a store thread) is answered
// by Park itself, so the stream never ends while Park still uses it. Holds one
// long-poll permit from construction to OnDone when `permitted`. Registered raw
// (raw_stream.h): each message is serialized here.
class TailReactor final
    : public SerializingWriteReactor<proto::ReadEntryResponse> {
 public:
  TailReactor(BookieServiceImpl* service, const proto::TailEntriesRequest& req,
              bool permitted)
      : service_(service),
        ledger_(req.ledger_id()),
        next_(req.first_entry_id()),
        stride_(req.stride() > 1 ? req.stride() : 1),
        per_message_(std::clamp<uint32_t>(req.max_entries_per_message(), 1,
                                          kMaxEntriesPerMessage)),
        idle_(req.idle_timeout_ms() > 0
                  ? std::min(absl::Milliseconds(req.idle_timeout_ms()),
                             service->options().max_long_poll)
                  : service->options().max_long_poll),
        permitted_(permitted) {}

  // REQUIRES: called once, from the handler.
  void Start() {
    if (!permitted_) {
      if (auto* p = service_->probe()) p->Rejected(proto::BK_ETOOMANYREQUESTS);
      EndWith(proto::BK_ETOOMANYREQUESTS);
      return;
    }
    if (next_ < 0) {
      EndWith(proto::BK_EBADREQ);
      return;
    }
    Step();
  }

  void OnWriteDone(bool ok) override {
    if (!ok || done_) {
      Finish(grpc::Status::OK);
      return;
    }
    Step();
  }

  void OnCancel() override {
    uint64_t id;
    {
      absl::MutexLock l(&mu_);
      cancelled_ = true;
      id = wait_id_;
    }
    if (id != 0) service_->store()->CancelLacWait(ledger_, id);
  }

  void OnDone() override {
    if (permitted_) service_->long_poll_permits().Release();
    delete this;
  }

 private:
  // A last message saying why the stream ends.
  void EndWith(proto::StatusCode code) {
    msg_.Clear();
    msg_.set_status(code);
    msg_.set_ledger_id(ledger_);
    msg_.set_entry_id(next_);
    msg_.set_max_lac(-1);
    done_ = true;
    WriteMessage(msg_);
  }

  void Step() {
    auto lac = service_->store()->LastAddConfirmed(ledger_);
    if (!lac.ok()) {
      EndWith(ToWire(lac.status()));
      return;
    }
    if (next_ > *lac) {
      Park(next_ - 1);
      return;
    }
    auto entry = service_->store()->ReadEntry(ledger_, next_);
    if (!entry.ok()) {
      // Confirmed and not here (its add failed on this bookie, or the
      // writer moved on to another ensemble): the reader asks elsewhere.
      EndWith(ToWire(entry.status()));
      return;
    }
    msg_.Clear();
    msg_.set_status(proto::BK_EOK);
    msg_.set_ledger_id(ledger_);
    msg_.set_entry_id(next_);
    msg_.set_max_lac(*lac);
    msg_.set_body((*entry)->data(), (*entry)->size());
    size_t bytes = (*entry)->size();
    next_ += stride_;
    // Confirmed entries that ride along; one the bookie cannot read is left
    // for the next message, which ends the stream saying why.
    while (static_cast<uint32_t>(msg_.more_bodies_size()) + 1 < per_message_ &&
           next_ <= *lac && bytes < kMaxMessageBytes) {
      auto more = service_->store()->ReadEntry(ledger_, next_);
      if (!more.ok()) break;
      msg_.add_more_bodies((*more)->data(), (*more)->size());
      bytes += (*more)->size();
      next_ += stride_;
    }
    WriteMessage(msg_);
  }

  void Park(int64_t previous) {
    BookieStore* const store = service_->store();
    const uint64_t ledger = ledger_;
    {
      absl::MutexLock l(&mu_);
      if (cancelled_) {
        Finish(grpc::Status::CANCELLED);
        return;
      }
      parking_ = true;
    }
    const uint64_t id = store->WaitForLacUpdate(
        ledger, previous, idle_, [this, previous](absl::StatusOr<int64_t> lac) {
          OnLac(std::move(lac), previous);
        });
    // An answer that came while parking (inline, or on a store thread) was
    // left to this thread: until it answers, nothing else can end the
    // stream under it.
    std::optional<absl::StatusOr<int64_t>> early;
    bool cancel = false;
    {
      absl::MutexLock l(&mu_);
      parking_ = false;
      if (early_.has_value()) {
        early.swap(early_);
      } else {
        wait_id_ = id;
        cancel = cancelled_;
      }
    }
    if (early.has_value()) {
      Answer(*early, previous);
      return;
    }
    // From here the wait's answer may end the stream at any moment: no
    // member is touched.
    if (cancel) store->CancelLacWait(ledger, id);
  }

  // The store's answer to a parked wait.
  void OnLac(absl::StatusOr<int64_t> lac, int64_t previous) {
    {
      absl::MutexLock l(&mu_);
      wait_id_ = 0;
      if (parking_) {
        early_ = std::move(lac);
        return;
      }
    }
    Answer(lac, previous);
  }

  void Answer(const absl::StatusOr<int64_t>& lac, int64_t previous) {
    if (absl::IsCancelled(lac.status())) {
      Finish(grpc::Status::CANCELLED);
    } else if (!lac.ok()) {
      EndWith(ToWire(lac.status()));
    } else if (*lac <= previous) {
      Finish(grpc::Status::OK);  // idle: the reader opens another if it wants
    } else {
      Step();
    }
  }

  BookieServiceImpl* const service_;
  const uint64_t ledger_;
  int64_t next_;  // the next entry to send; touched by the step only
  const int64_t stride_;
  const uint32_t per_message_;
  const absl::Duration idle_;
  const bool permitted_;
  bool done_ = false;  // the message in flight is the last
  proto::ReadEntryResponse msg_;

  absl::Mutex mu_;
  uint64_t wait_id_ ABSL_GUARDED_BY(mu_) = 0;  // 0: not parked
  // Park is between asking the store to wait and recording the wait.
  bool parking_ ABSL_GUARDED_BY(mu_) = false;
  // The wait's answer when it came while parking_.
  std::optional<absl::StatusOr<int64_t>> early_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* BookieServiceImpl::TailEntries(
    grpc::CallbackServerContext* /*ctx*/, const grpc::ByteBuffer* request) {
  if (!options_.tail_entries) {
    // What gRPC answers for a method the service does not have.
    return new FinishedStream(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                           "TailEntries is off on this bookie "
                                           "(tailEntriesEnabled=false)"));
  }
  proto::TailEntriesRequest req;
  grpc::Status parsed = ParseRawRequest(*request, "TailEntriesRequest", &req);
  if (!parsed.ok()) {
    if (auto* p = probe()) p->Rejected(proto::BK_EBADREQ);
    return new FinishedStream(std::move(parsed));
  }
  auto* reactor = new TailReactor(this, req, long_poll_permits_.TryAcquire());
  reactor->Start();
  return reactor;
}

}  // namespace bk::bookie
