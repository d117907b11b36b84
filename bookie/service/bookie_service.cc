#include "bookie/service/bookie_service.h"

#include <grpcpp/grpcpp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "bookie/service/raw_unary.h"
#include "common/logging.h"
#include "common/thread_name.h"
#include "proto/entry_format.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

using ReadCall =
    RawUnaryCall<proto::ReadEntryRequest, proto::ReadEntryResponse>;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

BookieServiceImpl::BookieServiceImpl(BookieStore* store, ServiceOptions options,
                                     InfoProvider info, ServiceProbe* probe)
    : store_(store),
      options_(options),
      info_(std::move(info)),
      probe_(probe),
      add_latency_(options.latency_window_seconds),
      add_permits_(options.max_pending_adds),
      read_permits_(options.max_pending_reads),
      priority_read_permits_(options.max_pending_reads),
      long_poll_permits_(options.max_pending_reads) {
  if (options_.range_read_nice > 0) {
    range_reads_ = std::make_unique<Executor>();
    range_reads_->Post([nice = options_.range_read_nice] {
      SetThreadName("bk-rangeread");
      // Linux: a thread's niceness is its own (setpriority on its tid).
      if (setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)),
                      nice) != 0) {
        bk::log::Get("bookie")->warn(
            "rangeReadNice={}: setpriority failed ({}); range reads run at "
            "normal priority",
            nice, errno);
      }
    });
  }
}

void BookieServiceImpl::RunRangeRead(absl::AnyInvocable<void()> step) {
  if (range_reads_ == nullptr) {
    step();
  } else {
    range_reads_->Post(std::move(step));
  }
}

void BookieServiceImpl::FillRead(uint64_t ledger_id, int64_t entry_id,
                                 proto::ReadEntryResponse* resp) {
  resp->set_ledger_id(ledger_id);
  resp->set_entry_id(entry_id);
  auto entry = store_->ReadEntry(ledger_id, entry_id);
  if (!entry.ok()) {
    resp->set_status(ToWire(entry.status()));
  } else {
    resp->set_status(proto::BK_EOK);
    resp->set_body((*entry)->data(), (*entry)->size());
    if (entry_id < 0) {
      // "Last entry": say which entry it was.
      auto h = entry::ParseHeader(**entry);
      if (h.ok()) resp->set_entry_id(h->entry_id);
    }
  }
  auto lac = store_->LastAddConfirmed(ledger_id);
  resp->set_max_lac(lac.ok() ? *lac : -1);
}

void BookieServiceImpl::FillRefusedRead(const proto::ReadEntryRequest& req,
                                        proto::StatusCode code,
                                        proto::ReadEntryResponse* resp) {
  if (probe_) probe_->Rejected(code);
  resp->set_status(code);
  resp->set_ledger_id(req.ledger_id());
  resp->set_entry_id(req.entry_id());
  resp->set_max_lac(-1);
}

grpc::ServerUnaryReactor* BookieServiceImpl::ReadEntry(
    grpc::CallbackServerContext* /*ctx*/, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  proto::ReadEntryRequest req;
  if (grpc::Status s = ParseRawRequest(*request, "ReadEntryRequest", &req);
      !s.ok()) {
    return new FinishedUnary(std::move(s));
  }
  // Fencing and recovery reads never wait behind ordinary reads.
  const bool priority =
      (req.flags() & (proto::FENCE_LEDGER | proto::HIGH_PRIORITY)) != 0;
  if (req.entry_id() >= -1 && req.long_poll() && !priority) {
    return LongPoll(req, response);
  }
  auto* call = new ReadCall(response);
  call->request = std::move(req);
  const proto::ReadEntryRequest& r = call->request;
  proto::ReadEntryResponse* resp = &call->response;
  if (r.entry_id() < -1) {
    // -1 alone means "the last entry"; anything below is malformed.
    FillRefusedRead(r, proto::BK_EBADREQ, resp);
    call->Reply();
    return call;
  }
  Permits* permits = priority ? &priority_read_permits_ : &read_permits_;
  if (!permits->TryAcquire()) {
    FillRefusedRead(r, proto::BK_ETOOMANYREQUESTS, resp);
    call->Reply();
    return call;
  }
  const auto start = std::chrono::steady_clock::now();
  auto finish = [this, call, start, permits] {
    if (probe_) probe_->ReadDone(SecondsSince(start), call->response.status());
    permits->Release();
    call->Reply();
  };
  const uint64_t ledger = r.ledger_id();
  const int64_t entry = r.entry_id();
  if (r.flags() & proto::FENCE_LEDGER) {
    // Recovery: the fence is durable before anything is answered.
    store_->Fence(ledger, r.master_key(),
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
    return call;
  }
  FillRead(ledger, entry, resp);
  finish();
  return call;
}

grpc::ServerUnaryReactor* BookieServiceImpl::ReadLac(
    grpc::CallbackServerContext* /*ctx*/, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  auto* call =
      new RawUnaryCall<proto::ReadLacRequest, proto::ReadLacResponse>(response);
  if (!call->Parse(*request, "ReadLacRequest")) return call;
  const uint64_t ledger = call->request.ledger_id();
  proto::ReadLacResponse* resp = &call->response;
  resp->set_ledger_id(ledger);
  auto explicit_lac = store_->ExplicitLac(ledger);
  if (!explicit_lac.ok()) {
    resp->set_status(ToWire(explicit_lac.status()));
  } else {
    resp->set_status(proto::BK_EOK);
    resp->set_lac(*explicit_lac);
    auto last = store_->ReadEntry(ledger, -1);
    if (last.ok()) resp->set_last_entry((*last)->data(), (*last)->size());
  }
  call->Reply();
  return call;
}

grpc::ServerUnaryReactor* BookieServiceImpl::WriteLac(
    grpc::CallbackServerContext* /*ctx*/, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  auto* call =
      new RawUnaryCall<proto::WriteLacRequest, proto::WriteLacResponse>(
          response);
  if (!call->Parse(*request, "WriteLacRequest")) return call;
  const proto::WriteLacRequest& r = call->request;
  store_->WriteLac(r.ledger_id(), r.lac(), r.master_key(),
                   [call](absl::Status s) {
                     call->response.set_status(ToWire(s));
                     call->Reply();
                   });
  return call;
}

grpc::ServerUnaryReactor* BookieServiceImpl::ForceLedger(
    grpc::CallbackServerContext* /*ctx*/, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  auto* call =
      new RawUnaryCall<proto::ForceLedgerRequest, proto::ForceLedgerResponse>(
          response);
  if (!call->Parse(*request, "ForceLedgerRequest")) return call;
  const proto::ForceLedgerRequest& r = call->request;
  call->response.set_ledger_id(r.ledger_id());
  store_->ForceLedger(r.ledger_id(), r.master_key(), [call](absl::Status s) {
    call->response.set_status(ToWire(s));
    call->Reply();
  });
  return call;
}

grpc::ServerUnaryReactor* BookieServiceImpl::GetListOfEntriesOfLedger(
    grpc::CallbackServerContext* /*ctx*/, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  auto* call = new RawUnaryCall<proto::GetListOfEntriesRequest,
                                proto::GetListOfEntriesResponse>(response);
  if (!call->Parse(*request, "GetListOfEntriesRequest")) return call;
  const proto::GetListOfEntriesRequest& r = call->request;
  proto::GetListOfEntriesResponse* resp = &call->response;
  // One page, never the whole ledger: one more id than the page tells
  // whether another page follows.
  const size_t page = r.max_entries() == 0
                          ? kListEntriesPage
                          : std::min<size_t>(r.max_entries(), kListEntriesPage);
  auto ids = store_->ListEntries(
      r.ledger_id(), std::max<int64_t>(r.first_entry_id(), 0), page + 1);
  resp->set_next_entry_id(-1);
  if (!ids.ok()) {
    resp->set_status(ToWire(ids.status()));
  } else {
    resp->set_status(proto::BK_EOK);
    if (ids->size() > page) {
      resp->set_next_entry_id((*ids)[page]);
      ids->resize(page);
    }
    resp->mutable_entry_ids()->Add(ids->begin(), ids->end());
  }
  call->Reply();
  return call;
}

grpc::ServerUnaryReactor* BookieServiceImpl::GetBookieInfo(
    grpc::CallbackServerContext* /*ctx*/, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  auto* call = new RawUnaryCall<proto::GetBookieInfoRequest,
                                proto::GetBookieInfoResponse>(response);
  if (!call->Parse(*request, "GetBookieInfoRequest")) return call;
  call->response = info_(call->request.requested());
  call->response.set_status(proto::BK_EOK);
  call->Reply();
  return call;
}

}  // namespace bk::bookie
