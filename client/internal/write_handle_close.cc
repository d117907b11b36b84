// Closing and stopping of a WriteHandle (see write_handle.h): the close
// that seals the ledger's metadata at its last confirmed entry, the
// abandon of a destroyed writer, and the report, once, that the ledger's
// bookies take no more of its adds (to placement and the placement feed).

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/internal/errors.h"
#include "client/internal/quorum.h"
#include "client/internal/write_handle.h"
#include "common/logging.h"
#include "placement/types.h"

namespace bk::client::internal {
namespace {

constexpr int kMaxCasAttempts = 16;

}  // namespace

absl::Status WriteHandle::Close() {
  if (ctx_->completions()->InExecutorThread()) {
    return Annotate(absl::FailedPreconditionError(
                        "Close must not be called from the completion thread"),
                    ledger_id_);
  }
  {
    absl::MutexLock l(&mu_);
    if (state_ == State::kClosed) return absl::OkStatus();
    if (state_ == State::kFailed) return failure_;
    state_ = State::kClosing;
    auto drained = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return pending_.empty() || state_ == State::kFailed;
    };
    mu_.Await(absl::Condition(&drained));
    if (state_ == State::kFailed) return failure_;
  }
  // Every completion posted so far runs before Close returns.
  ctx_->completions()->Drain();
  proto::LedgerMetadata md;
  metadata::Version version;
  int64_t lac, length;
  {
    absl::MutexLock l(&mu_);
    md = metadata_;
    version = version_;
    lac = lac_;
    length = length_;
  }
  bool closed = false;
  for (int attempt = 0; attempt < kMaxCasAttempts && !closed; ++attempt) {
    md.set_state(proto::CLOSED);
    md.set_last_entry_id(lac);
    md.set_length(length);
    auto v = ctx_->store()->CompareAndSetLedger(ledger_id_, md, version);
    absl::Status s = v.status();
    if (v.ok()) {
      closed = true;
      break;
    }
    if (absl::IsAborted(s)) {
      auto reread = ctx_->store()->ReadLedger(ledger_id_);
      if (!reread.ok()) return Annotate(reread.status(), ledger_id_);
      if (reread->value.state() == proto::CLOSED &&
          reread->value.last_entry_id() == lac) {
        closed = true;  // closed by a recovering reader at the same entry
        break;
      }
      if (reread->value.state() != proto::OPEN) {
        absl::Status failure;
        {
          absl::MutexLock l(&mu_);
          state_ = State::kFailed;
          failure_ = Annotate(absl::FailedPreconditionError(absl::StrCat(
                                  "cannot close: the ledger is ",
                                  LedgerStateName(reread->value.state()),
                                  " in the metadata store")),
                              ledger_id_);
          failure = failure_;
        }
        DrainCompletions();  // reports the stop
        return failure;
      }
      md = reread->value;
      version = reread->version;
      continue;
    }
    return Annotate(s, ledger_id_);
  }
  if (!closed) {
    return Annotate(absl::AbortedError("metadata kept changing during close"),
                    ledger_id_);
  }
  watch_.reset();
  std::vector<std::string> ensemble;
  placement::LedgerHints hints;
  bool stopped;
  {
    absl::MutexLock l(&mu_);
    state_ = State::kClosed;
    stopped = TakeStopLocked(&ensemble, &hints);
  }
  // Its bookies stop taking this ledger's writes now; the broker's next
  // ledger (a roll) may take the room before a report shows it.
  if (stopped) ReportStopped(ensemble, hints);
  return absl::OkStatus();
}

bool WriteHandle::TakeStopLocked(std::vector<std::string>* ensemble,
                                 placement::LedgerHints* hints) {
  if (stop_reported_) return false;
  stop_reported_ = true;
  *ensemble = ensemble_;
  *hints = HintsLocked(absl::Now());
  return true;
}

void WriteHandle::ReportStopped(const std::vector<std::string>& ensemble,
                                const placement::LedgerHints& hints) {
  ctx_->cluster()->OnLedgerClosed(ensemble, write_quorum_, hints);
  if (ctx_->feed() != nullptr) {
    ctx_->feed()->AnnounceClosed(ledger_id_, ensemble, write_quorum_,
                                 hints.expected_write_bytes_per_second);
  }
}

void WriteHandle::Abandon() {
  watch_.reset();
  {
    absl::MutexLock l(&mu_);
    if (state_ == State::kOpen || state_ == State::kClosing) {
      if (pending_.empty()) {
        state_ = State::kFailed;  // nothing to fail: no warning
        failure_ = Annotate(absl::CancelledError("the writer was destroyed"),
                            ledger_id_);
      } else {
        FailLocked(absl::CancelledError("the writer was destroyed"), &outbox_);
      }
    }
  }
  DrainCompletions();
}

}  // namespace bk::client::internal
