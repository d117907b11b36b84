#include "bookie/service/bookie_service.h"

#include <grpcpp/grpcpp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "common/logging.h"
#include "common/thread_name.h"
#include "proto/entry_format.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

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

grpc::ServerUnaryReactor* BookieServiceImpl::ReadEntry(
    grpc::CallbackServerContext* ctx, const proto::ReadEntryRequest* req,
    proto::ReadEntryResponse* resp) {
  if (req->entry_id() < -1) {
    // -1 alone means "the last entry"; anything below is malformed.
    auto* reactor = ctx->DefaultReactor();
    if (probe_) probe_->Rejected(proto::BK_EBADREQ);
    resp->set_status(proto::BK_EBADREQ);
    resp->set_ledger_id(req->ledger_id());
    resp->set_entry_id(req->entry_id());
    resp->set_max_lac(-1);
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  // Fencing and recovery reads never wait behind ordinary reads.
  const bool priority =
      (req->flags() & (proto::FENCE_LEDGER | proto::HIGH_PRIORITY)) != 0;
  if (req->long_poll() && !priority) return LongPoll(ctx, req, resp);
  Permits* permits = priority ? &priority_read_permits_ : &read_permits_;
  auto* reactor = ctx->DefaultReactor();
  if (!permits->TryAcquire()) {
    if (probe_) probe_->Rejected(proto::BK_ETOOMANYREQUESTS);
    resp->set_status(proto::BK_ETOOMANYREQUESTS);
    resp->set_ledger_id(req->ledger_id());
    resp->set_entry_id(req->entry_id());
    resp->set_max_lac(-1);  // unknown: 0 would claim entry 0 is confirmed
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  const auto start = std::chrono::steady_clock::now();
  auto finish = [this, reactor, resp, start, permits] {
    if (probe_) probe_->ReadDone(SecondsSince(start), resp->status());
    permits->Release();
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
  FillRead(ledger, entry, resp);
  finish();
  return reactor;
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
    if (last.ok()) resp->set_last_entry((*last)->data(), (*last)->size());
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
  // One page, never the whole ledger: one more id than the page tells
  // whether another page follows.
  const size_t page =
      req->max_entries() == 0
          ? kListEntriesPage
          : std::min<size_t>(req->max_entries(), kListEntriesPage);
  auto ids = store_->ListEntries(
      req->ledger_id(), std::max<int64_t>(req->first_entry_id(), 0), page + 1);
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
