#include "client/internal/read_op.h"

#include <future>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/errors.h"
#include "client/internal/quorum.h"
#include "proto/status_codes.h"

namespace bk::client::internal {
namespace {

class ReadOp : public std::enable_shared_from_this<ReadOp> {
 public:
  ReadOp(ClientContext* ctx, ReadOpOptions o, ReadDone done)
      : ctx_(ctx), o_(std::move(o)), done_(std::move(done)) {
    const int e = static_cast<int>(o_.ensemble.size());
    order_ = ctx_->cluster()->ReadOrder(
        o_.ensemble, WriteSet(o_.entry_id, e, o_.write_quorum));
    started_ = ctx_->Now();
  }

  void Start() {
    SendNext();
    ArmSpeculation();
  }

 private:
  void ArmSpeculation() {
    const absl::Duration spec = ctx_->options().speculative_read_timeout;
    if (o_.max_missing >= 0 || spec <= absl::ZeroDuration()) return;
    std::weak_ptr<ReadOp> weak = weak_from_this();
    ctx_->timer()->PostAfter(spec, [weak] {
      auto self = weak.lock();
      if (self == nullptr || self->ctx_->closing()) return;
      bool send = false;
      std::string slow;
      {
        absl::MutexLock l(&self->mu_);
        send = !self->finished_ && self->next_ < self->order_.size();
        if (send && self->next_ > 0) {
          slow = self->o_.ensemble[self->order_[self->next_ - 1]];
        }
      }
      if (!send) return;
      self->ctx_->probe()->SpeculativeRead();
      if (!slow.empty()) self->ctx_->cluster()->MarkSlow(slow);
      self->SendNext();
      self->ArmSpeculation();
    });
  }

  void SendNext() {
    size_t index;
    {
      absl::MutexLock l(&mu_);
      if (finished_ || next_ >= order_.size()) return;
      index = next_++;
      ++outstanding_;
    }
    const std::string& bookie = o_.ensemble[order_[index]];
    auto client = ctx_->pool()->Get(bookie);
    if (client == nullptr) {
      OnAnswer(bookie, absl::UnavailableError("no endpoint known"));
      return;
    }
    proto::ReadEntryRequest req;
    req.set_ledger_id(o_.ledger_id);
    req.set_entry_id(o_.entry_id);
    // Recovery reads go to the bookie's priority pool, with fencing.
    if (o_.max_missing >= 0) req.set_flags(proto::HIGH_PRIORITY);
    ctx_->cluster()->OnReadStarted(bookie);
    auto self = shared_from_this();
    client->ReadEntry(
        req, ctx_->options().read_entry_timeout,
        [self, bookie](absl::StatusOr<proto::ReadEntryResponse> r) mutable {
          self->ctx_->cluster()->OnReadFinished(bookie);
          self->OnAnswer(bookie, std::move(r));
        });
  }

  void OnAnswer(const std::string& bookie,
                absl::StatusOr<proto::ReadEntryResponse> r) {
    absl::StatusOr<ReadResult> result = absl::UnknownError("unset");
    bool missing = false;
    if (!r.ok()) {
      result = r.status();
    } else if (r->status() != proto::BK_EOK) {
      result = ToAbsl(r->status(), "read");
      missing = absl::IsNotFound(result.status());
    } else {
      auto decoded =
          entry::Decode(r->body(), o_.digest, o_.ledger_id, o_.entry_id);
      if (!decoded.ok()) {
        result = decoded.status();
      } else {
        ReadResult rr;
        rr.entry_id = o_.entry_id;
        rr.header = decoded->header;
        rr.payload = std::string(decoded->payload);
        rr.body = std::move(*r->mutable_body());
        result = std::move(rr);
      }
    }
    if (!r.ok() && absl::IsUnavailable(r.status())) {
      // The connection failed, not the bookie's answer: counted once for
      // all the calls it failed (BookieClient's on_unreachable).
      ctx_->cluster()->OnEntryFailed(bookie, o_.entry_id);
    } else if (!result.ok() && !missing) {
      ctx_->cluster()->OnBookieError(bookie, o_.entry_id, ctx_->Now());
    }
    bool finish = false, next = false;
    absl::StatusOr<ReadResult> outcome = absl::UnknownError("unset");
    {
      absl::MutexLock l(&mu_);
      --outstanding_;
      if (finished_) return;
      if (result.ok()) {
        finished_ = finish = true;
        outcome = std::move(result);
      } else {
        if (missing) {
          ++missing_;
        } else if (absl::IsDataLoss(result.status())) {
          ++damaged_;
        }
        errors_.push_back(
            absl::StrCat(bookie, ": ", result.status().ToString()));
        last_error_ = result.status();
        const bool enough_missing =
            o_.max_missing >= 0 && missing_ > o_.max_missing;
        if (enough_missing || (next_ >= order_.size() && outstanding_ == 0)) {
          finished_ = finish = true;
          absl::StatusCode code = last_error_.code();
          if (enough_missing || missing_ == static_cast<int>(order_.size())) {
            code = absl::StatusCode::kNotFound;
          } else if (damaged_ > 0) {
            code = absl::StatusCode::kDataLoss;
          }
          outcome = Annotate(
              absl::Status(code,
                           absl::StrCat("no replica served the entry (",
                                        absl::StrJoin(errors_, "; "), ")")),
              static_cast<int64_t>(o_.ledger_id), o_.entry_id);
        } else {
          next = true;
        }
      }
    }
    if (next) SendNext();
    if (finish) {
      if (outcome.ok()) ctx_->probe()->EntryRead(ctx_->Now() - started_);
      done_(std::move(outcome));
    }
  }

  ClientContext* const ctx_;
  const ReadOpOptions o_;
  ReadDone done_;  // called once, by whoever sets finished_
  std::vector<int> order_;
  absl::Time started_;

  absl::Mutex mu_;
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  int outstanding_ ABSL_GUARDED_BY(mu_) = 0;
  int missing_ ABSL_GUARDED_BY(mu_) = 0;
  int damaged_ ABSL_GUARDED_BY(mu_) = 0;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::string> errors_ ABSL_GUARDED_BY(mu_);
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void StartRead(ClientContext* ctx, ReadOpOptions options, ReadDone done) {
  auto op = std::make_shared<ReadOp>(ctx, std::move(options), std::move(done));
  op->Start();
}

absl::StatusOr<ReadResult> ReadBlocking(ClientContext* ctx,
                                        ReadOpOptions options) {
  auto promise = std::make_shared<std::promise<absl::StatusOr<ReadResult>>>();
  auto future = promise->get_future();
  StartRead(ctx, std::move(options), [promise](absl::StatusOr<ReadResult> r) {
    promise->set_value(std::move(r));
  });
  return future.get();
}

}  // namespace bk::client::internal
