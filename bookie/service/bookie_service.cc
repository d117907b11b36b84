#include "bookie/service/bookie_service.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "proto/entry_format.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// Streams entries first..last of a ledger, one message per entry, stopping
// at the first entry the bookie does not hold, at the byte budget, or when
// the client goes away. Holds one read permit for its whole life.
class RangeReadReactor final
    : public grpc::ServerWriteReactor<proto::ReadEntryResponse> {
 public:
  RangeReadReactor(BookieServiceImpl* service,
                   const proto::ReadEntriesRequest& req, bool permitted)
      : service_(service),
        ledger_(req.ledger_id()),
        next_(req.first_entry_id()),
        last_(req.last_entry_id()),
        budget_(req.max_bytes() > 0
                    ? std::min<size_t>(req.max_bytes(),
                                       service->options().max_range_read_bytes)
                    : service->options().max_range_read_bytes),
        permitted_(permitted) {
    if (!permitted_) {
      if (auto* p = service_->probe()) p->Rejected(proto::BK_ETOOMANYREQUESTS);
      msg_.set_status(proto::BK_ETOOMANYREQUESTS);
      msg_.set_ledger_id(ledger_);
      msg_.set_entry_id(next_);
      done_ = true;
      StartWrite(&msg_);
      return;
    }
    if (next_ < 0 || last_ < next_) {
      msg_.set_status(proto::BK_EBADREQ);
      msg_.set_ledger_id(ledger_);
      done_ = true;
      StartWrite(&msg_);
      return;
    }
    Next();
  }

  void OnWriteDone(bool ok) override {
    if (!ok || done_) {
      Finish(grpc::Status::OK);
      return;
    }
    Next();
  }

  void OnDone() override {
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
      msg_.set_body(**entry);
      sent_ += (*entry)->size();
      ++next_;
    }
    StartWrite(&msg_);
  }

  BookieServiceImpl* const service_;
  const uint64_t ledger_;
  int64_t next_;
  const int64_t last_;
  const size_t budget_;
  const bool permitted_;
  size_t sent_ = 0;
  bool done_ = false;
  proto::ReadEntryResponse msg_;
};

}  // namespace

BookieServiceImpl::BookieServiceImpl(BookieStore* store, ServiceOptions options,
                                     InfoProvider info, ServiceProbe* probe)
    : store_(store),
      options_(options),
      info_(std::move(info)),
      probe_(probe),
      add_latency_(options.latency_window_seconds),
      add_permits_(options.max_pending_adds),
      read_permits_(options.max_pending_reads) {}

void BookieServiceImpl::FillRead(uint64_t ledger_id, int64_t entry_id,
                                 proto::ReadEntryResponse* resp) {
  resp->set_ledger_id(ledger_id);
  resp->set_entry_id(entry_id);
  auto entry = store_->ReadEntry(ledger_id, entry_id);
  if (!entry.ok()) {
    resp->set_status(ToWire(entry.status()));
  } else {
    resp->set_status(proto::BK_EOK);
    resp->set_body(**entry);
    if (entry_id < 0) {
      // "Last entry": say which entry it was.
      auto h = entry::ParseHeader(**entry);
      if (h.ok()) resp->set_entry_id(h->entry_id);
    }
  }
  auto lac = store_->LastAddConfirmed(ledger_id);
  resp->set_max_lac(lac.ok() ? *lac : -1);
}

grpc::ServerUnaryReactor* BookieServiceImpl::ReadEntry(
    grpc::CallbackServerContext* ctx, const proto::ReadEntryRequest* req,
    proto::ReadEntryResponse* resp) {
  auto* reactor = ctx->DefaultReactor();
  if (!read_permits_.TryAcquire()) {
    if (probe_) probe_->Rejected(proto::BK_ETOOMANYREQUESTS);
    resp->set_status(proto::BK_ETOOMANYREQUESTS);
    resp->set_ledger_id(req->ledger_id());
    resp->set_entry_id(req->entry_id());
    resp->set_max_lac(-1);  // unknown: 0 would claim entry 0 is confirmed
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  const auto start = std::chrono::steady_clock::now();
  auto finish = [this, reactor, resp, start] {
    if (probe_) probe_->ReadDone(SecondsSince(start), resp->status());
    read_permits_.Release();
    reactor->Finish(grpc::Status::OK);
  };
  const uint64_t ledger = req->ledger_id();
  const int64_t entry = req->entry_id();
  if (req->flags() & proto::FENCE_LEDGER) {
    // Recovery: the fence is durable before anything is answered.
    store_->Fence(ledger, req->master_key(),
                  [this, ledger, entry, resp, finish](absl::Status s) {
                    if (!s.ok()) {
                      resp->set_ledger_id(ledger);
                      resp->set_entry_id(entry);
                      resp->set_status(ToWire(s));
                      resp->set_max_lac(-1);
                    } else {
                      FillRead(ledger, entry, resp);
                      // A fenced ledger with no entries here is a valid
                      // answer for recovery: ENOENTRY with max_lac -1.
                    }
                    finish();
                  });
    return reactor;
  }
  if (req->long_poll()) {
    absl::Duration timeout =
        std::min(absl::Milliseconds(req->timeout_ms()), options_.max_long_poll);
    store_->WaitForLacUpdate(
        ledger, req->previous_lac(), timeout,
        [this, ledger, entry, resp, finish](absl::StatusOr<int64_t> lac) {
          if (!lac.ok()) {
            resp->set_ledger_id(ledger);
            resp->set_status(ToWire(lac.status()));
            resp->set_max_lac(-1);
          } else {
            // Serve the entry asked for, or the one at the new LAC.
            FillRead(ledger, entry >= 0 ? entry : *lac, resp);
            resp->set_max_lac(*lac);
            if (*lac < 0) resp->set_status(proto::BK_ENOENTRY);
          }
          finish();
        });
    return reactor;
  }
  FillRead(ledger, entry, resp);
  finish();
  return reactor;
}

grpc::ServerWriteReactor<proto::ReadEntryResponse>*
BookieServiceImpl::ReadEntries(grpc::CallbackServerContext* /*ctx*/,
                               const proto::ReadEntriesRequest* req) {
  return new RangeReadReactor(this, *req, read_permits_.TryAcquire());
}

grpc::ServerUnaryReactor* BookieServiceImpl::ReadLac(
    grpc::CallbackServerContext* ctx, const proto::ReadLacRequest* req,
    proto::ReadLacResponse* resp) {
  auto* reactor = ctx->DefaultReactor();
  resp->set_ledger_id(req->ledger_id());
  auto explicit_lac = store_->ExplicitLac(req->ledger_id());
  if (!explicit_lac.ok()) {
    resp->set_status(ToWire(explicit_lac.status()));
  } else {
    resp->set_status(proto::BK_EOK);
    resp->set_lac(*explicit_lac);
    auto last = store_->ReadEntry(req->ledger_id(), -1);
    if (last.ok()) resp->set_last_entry(**last);
  }
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* BookieServiceImpl::WriteLac(
    grpc::CallbackServerContext* ctx, const proto::WriteLacRequest* req,
    proto::WriteLacResponse* resp) {
  auto* reactor = ctx->DefaultReactor();
  store_->WriteLac(req->ledger_id(), req->lac(), req->master_key(),
                   [reactor, resp](absl::Status s) {
                     resp->set_status(ToWire(s));
                     reactor->Finish(grpc::Status::OK);
                   });
  return reactor;
}

grpc::ServerUnaryReactor* BookieServiceImpl::ForceLedger(
    grpc::CallbackServerContext* ctx, const proto::ForceLedgerRequest* req,
    proto::ForceLedgerResponse* resp) {
  auto* reactor = ctx->DefaultReactor();
  resp->set_ledger_id(req->ledger_id());
  store_->ForceLedger(req->ledger_id(), req->master_key(),
                      [reactor, resp](absl::Status s) {
                        resp->set_status(ToWire(s));
                        reactor->Finish(grpc::Status::OK);
                      });
  return reactor;
}

grpc::ServerUnaryReactor* BookieServiceImpl::GetListOfEntriesOfLedger(
    grpc::CallbackServerContext* ctx, const proto::GetListOfEntriesRequest* req,
    proto::GetListOfEntriesResponse* resp) {
  auto* reactor = ctx->DefaultReactor();
  auto ids = store_->ListEntries(req->ledger_id());
  if (!ids.ok()) {
    resp->set_status(ToWire(ids.status()));
  } else {
    resp->set_status(proto::BK_EOK);
    resp->mutable_entry_ids()->Add(ids->begin(), ids->end());
  }
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* BookieServiceImpl::GetBookieInfo(
    grpc::CallbackServerContext* ctx, const proto::GetBookieInfoRequest* req,
    proto::GetBookieInfoResponse* resp) {
  auto* reactor = ctx->DefaultReactor();
  *resp = info_(req->requested());
  resp->set_status(proto::BK_EOK);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace bk::bookie
