#include "client/internal/write_handle.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/internal/errors.h"
#include "client/internal/quorum.h"
#include "common/logging.h"
#include "placement/types.h"

namespace bk::client::internal {
namespace {

// Entries looked at per tick for timeouts: the oldest are at the front.
constexpr int kTimeoutScan = 256;

}  // namespace

WriteHandle::WriteHandle(ClientContext* ctx, int64_t ledger_id,
                         metadata::Versioned<proto::LedgerMetadata> metadata,
                         std::string master_key,
                         double expected_write_bytes_per_second)
    : ctx_(ctx),
      ledger_id_(ledger_id),
      master_key_(std::move(master_key)),
      digest_(static_cast<entry::DigestType>(metadata.value.digest_type())),
      ensemble_size_(metadata.value.ensemble_size()),
      write_quorum_(metadata.value.write_quorum_size()),
      ack_quorum_(metadata.value.ack_quorum_size()),
      expected_write_bytes_per_second_(expected_write_bytes_per_second),
      watch_lag_(write_quorum_ >= 2 && ack_quorum_ == write_quorum_ &&
                 ctx->options().add_entry_lag_timeout > absl::ZeroDuration()),
      created_(absl::Now()),
      metadata_(std::move(metadata.value)),
      version_(metadata.version) {
  ensemble_ = Bookies(metadata_.segments(metadata_.segments_size() - 1));
  dead_.assign(ensemble_size_, false);
  unanswered_.resize(ensemble_size_);
}

WriteHandle::~WriteHandle() = default;

void WriteHandle::Start() {
  std::weak_ptr<WriteHandle> weak = weak_from_this();
  watch_ = ctx_->store()->WatchLedger(
      ledger_id_,
      [weak](absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>> md) {
        if (auto self = weak.lock()) self->OnMetadataChange(std::move(md));
      });
}

int64_t WriteHandle::LastAddConfirmed() const {
  absl::MutexLock l(&mu_);
  return lac_;
}

int64_t WriteHandle::Length() const {
  absl::MutexLock l(&mu_);
  return length_;
}

bool WriteHandle::RoomLocked(int64_t bytes) const {
  // One add larger than the whole bound is let through alone.
  return pending_bytes_ == 0 ||
         pending_bytes_ + bytes <= ctx_->options().max_pending_adds_bytes;
}

void WriteHandle::Append(absl::string_view payload, AddCallback done) {
  AppendWith(
      payload.size(),
      [&](const entry::EntryHeader& h) {
        mu_.AssertHeld();
        return EntryBytes::Package(h, payload, digest_, &slab_, pending_bytes_);
      },
      std::move(done));
}

void WriteHandle::Append(std::string&& payload, AddCallback done) {
  const size_t size = payload.size();
  AppendWith(
      size,
      [&](const entry::EntryHeader& h) {
        mu_.AssertHeld();
        return EntryBytes::Package(h, std::move(payload), digest_, &slab_,
                                   pending_bytes_);
      },
      std::move(done));
}

template <typename Packager>
void WriteHandle::AppendWith(size_t payload_size, Packager&& package,
                             AddCallback done) {
  Sends sends;
  {
    absl::MutexLock l(&mu_);
    const int64_t bytes = static_cast<int64_t>(
        payload_size + entry::kHeaderSize + entry::DigestSize(digest_));
    if (state_ == State::kOpen && !RoomLocked(bytes)) {
      if (!ctx_->completions()->InExecutorThread()) {
        auto room = [this, bytes]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return state_ != State::kOpen || RoomLocked(bytes);
        };
        mu_.AwaitWithTimeout(absl::Condition(&room),
                             ctx_->options().pending_adds_wait);
      }
    }
    absl::Status refused;
    if (state_ == State::kFailed) {
      refused = failure_;
    } else if (state_ != State::kOpen) {
      refused = absl::FailedPreconditionError("the writer is closed");
    } else if (payload_size > entry::kMaxPayloadSize) {
      refused = absl::InvalidArgumentError(
          absl::StrCat("payload of ", payload_size, " bytes is over the ",
                       entry::kMaxPayloadSize, "-byte limit"));
    } else if (!RoomLocked(bytes)) {
      refused = absl::ResourceExhaustedError(
          absl::StrCat("pending adds hold ", pending_bytes_,
                       " bytes, maxPendingAddsBytes is ",
                       ctx_->options().max_pending_adds_bytes,
                       "; the bookies are not keeping up"));
    }
    if (!refused.ok()) {
      // failure_ names the ledger already.
      outbox_.push_back({std::move(done), state_ == State::kFailed
                                              ? refused
                                              : Annotate(refused, ledger_id_)});
    } else {
      Pending p;
      p.entry_id = next_entry_++;
      assigned_length_ += static_cast<int64_t>(payload_size);
      entry::EntryHeader h;
      h.ledger_id = static_cast<uint64_t>(ledger_id_);
      h.entry_id = p.entry_id;
      h.last_add_confirmed = lac_;  // piggybacked LAC
      h.ledger_length = static_cast<uint64_t>(assigned_length_);
      p.body = package(h);
      p.payload_bytes = static_cast<int64_t>(payload_size);
      p.bytes = bytes;
      p.appended = p.sent = ctx_->Now();
      p.done = std::move(done);
      pending_bytes_ += bytes;
      ctx_->probe()->PendingAdds(1, bytes);
      SendLocked(p, &sends);
      pending_.push_back(std::move(p));
    }
  }
  DrainCompletions();
  Transmit(sends);
}

void WriteHandle::SendLocked(const Pending& p, Sends* out) {
  for (int i = 0; i < write_quorum_; ++i) {
    const int slot = WriteSetSlot(p.entry_id, i, ensemble_size_);
    if (dead_[slot]) continue;
    if (changing_ && failed_.count(slot)) continue;  // sent after the change
    out->push_back({slot, ensemble_[slot], p.entry_id, p.body});
  }
}

void WriteHandle::Transmit(const Sends& sends) {
  const std::weak_ptr<AddSink> sink = weak_from_this();
  for (const Send& s : sends) {
    const absl::Time sent = ctx_->Now();
    auto client = ctx_->pool()->Get(s.bookie);
    if (client == nullptr) {
      const AddAnswer a{s.entry_id, s.slot, sent,
                        absl::UnavailableError("no endpoint known for the "
                                               "bookie")};
      OnAddAnswers(s.bookie, absl::MakeConstSpan(&a, 1));
      continue;
    }
    client->Add(static_cast<uint64_t>(ledger_id_), s.entry_id, master_key_,
                proto::ADD_NONE, s.body, sink, s.slot, sent);
  }
}

void WriteHandle::OnAddAnswers(const std::string& bookie,
                               absl::Span<const AddAnswer> answers) {
  const absl::Time now = ctx_->Now();
  // The bookie's health first, without our lock: latencies of the answered
  // adds, errors other than fencing (which says nothing of the bookie).
  // Adds a broken stream failed are not errors one by one: the connection
  // counted its failure once (BookieClient's on_unreachable).
  absl::InlinedVector<absl::Duration, 64> latencies;
  int64_t lost_up_to = -1;
  for (const AddAnswer& a : answers) {
    if (a.status.ok()) {
      latencies.push_back(now - a.sent);
    } else if (a.stream_ended) {
      lost_up_to = std::max(lost_up_to, a.entry_id);
    } else if (!absl::IsFailedPrecondition(a.status)) {
      ctx_->cluster()->OnBookieError(bookie, a.entry_id, now);
    }
  }
  if (!latencies.empty()) ctx_->cluster()->OnAddsAnswered(bookie, latencies);
  if (lost_up_to >= 0) ctx_->cluster()->OnEntryFailed(bookie, lost_up_to);
  {
    absl::MutexLock l(&mu_);
    bool acked = false;
    for (const AddAnswer& a : answers) {
      if (state_ == State::kFailed || state_ == State::kClosed) break;
      const int slot = a.tag;
      if (a.status.ok()) {
        if (ensemble_[slot] != bookie) continue;
        if (pending_.empty() || a.entry_id < pending_.front().entry_id) {
          // Confirmed already (AQ < WQ): this bookie caught up to here. A
          // bookie answers one ledger's adds in order.
          auto& u = unanswered_[slot];
          while (!u.empty() && u.front().first <= a.entry_id) u.pop_front();
          continue;
        }
        if (a.entry_id > pending_.back().entry_id) continue;
        Pending& p = pending_[a.entry_id - pending_.front().entry_id];
        p.acked |= uint64_t{1} << slot;
        if (watch_lag_ && std::popcount(p.acked) == write_quorum_ - 1 &&
            p.lagging_since == absl::InfiniteFuture()) {
          p.lagging_since = now;
        }
        acked = true;
      } else if (absl::IsFailedPrecondition(a.status)) {
        FailLocked(absl::FailedPreconditionError(absl::StrCat(
                       "fenced: another client is recovering the ledger (",
                       a.status.message(), ")")),
                   &outbox_);
      } else if (ensemble_[slot] == bookie && !dead_[slot] &&
                 !failed_.count(slot)) {
        bk::log::Get("client")->warn(
            "ledger={} entry={} bookie={} add failed: {}", ledger_id_,
            a.entry_id, bookie, a.status.ToString());
        SlotFailedLocked(slot, bookie);
      }
    }
    if (acked && state_ != State::kFailed && state_ != State::kClosed) {
      CompleteLocked(&outbox_);
    }
  }
  DrainCompletions();
}

void WriteHandle::CompleteLocked(std::vector<Completion>* out) {
  if (changing_) return;  // the LAC must not move under an ensemble change
  const absl::Time now = ctx_->Now();
  while (!pending_.empty()) {
    Pending& p = pending_.front();
    if (std::popcount(p.acked) < ack_quorum_) break;
    if (ack_quorum_ < write_quorum_ && std::popcount(p.acked) < write_quorum_) {
      for (int i = 0; i < write_quorum_; ++i) {
        const int slot = WriteSetSlot(p.entry_id, i, ensemble_size_);
        if ((p.acked >> slot) & 1 || dead_[slot] || failed_.count(slot)) {
          continue;
        }
        auto& u = unanswered_[slot];
        if (u.size() < kMaxUnanswered) u.emplace_back(p.entry_id, p.sent);
      }
    }
    lac_ = p.entry_id;
    length_ += p.payload_bytes;
    pending_bytes_ -= p.bytes;
    ctx_->probe()->PendingAdds(-1, -p.bytes);
    ctx_->probe()->AddConfirmed(now - p.appended);
    out->push_back({std::move(p.done), p.entry_id});
    pending_.pop_front();
  }
  // An idle writer holds no slab (entry_slab.h).
  if (pending_.empty()) slab_.Release();
}

void WriteHandle::FailLocked(const absl::Status& status,
                             std::vector<Completion>* out) {
  if (state_ != State::kFailed) {
    bk::log::Get("client")->warn("ledger={} writer stopped: {}", ledger_id_,
                                 status.ToString());
  }
  state_ = State::kFailed;
  failure_ = Annotate(status, ledger_id_);
  for (Pending& p : pending_) {
    ctx_->probe()->PendingAdds(-1, -p.bytes);
    out->push_back(
        {std::move(p.done), Annotate(status, ledger_id_, p.entry_id)});
  }
  pending_.clear();
  pending_bytes_ = 0;
  slab_.Release();
  for (auto& u : unanswered_) u.clear();
}

void WriteHandle::SlotFailedLocked(int slot, const std::string& bookie) {
  if (failed_.count(slot)) return;
  failed_[slot] = bookie;
  if (changing_) return;
  changing_ = true;
  std::weak_ptr<WriteHandle> weak = weak_from_this();
  ctx_->worker()->Post([weak] {
    if (auto self = weak.lock()) self->RunEnsembleChange();
  });
}

// Hands decided completions to the completion executor in the order they
// were decided (under mu_, in entry order). Only one thread posts at a time
// (draining_): two threads that each decided a batch could otherwise post
// them in the wrong order. Posting happens without mu_, because after
// shutdown the executor runs a task inline, and a callback may Append.
void WriteHandle::DrainCompletions() {
  std::vector<Completion> batch;
  bool stopped = false;
  std::vector<std::string> ensemble;
  placement::LedgerHints hints;
  {
    absl::MutexLock l(&mu_);
    stopped = state_ == State::kFailed && TakeStopLocked(&ensemble, &hints);
    if (!draining_ && !outbox_.empty()) {
      draining_ = true;
      batch.swap(outbox_);
    }
  }
  // Before the failed adds' callbacks: a caller that rolls to a new ledger
  // from one places it without the old one's slots.
  if (stopped) ReportStopped(ensemble, hints);
  if (batch.empty()) return;
  while (true) {
    ctx_->completions()->Post([c = std::move(batch)]() mutable {
      for (Completion& x : c) {
        if (x.done) x.done(std::move(x.result));
      }
    });
    absl::MutexLock l(&mu_);
    batch.clear();  // moved from
    if (outbox_.empty()) {
      draining_ = false;
      return;
    }
    batch.swap(outbox_);
  }
}

void WriteHandle::OnMetadataChange(
    absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>> md) {
  {
    absl::MutexLock l(&mu_);
    if (state_ != State::kOpen) return;  // closing it ourselves, or done
    if (!md.ok()) {
      if (absl::IsNotFound(md.status())) {
        FailLocked(absl::FailedPreconditionError(
                       "the ledger was deleted from the metadata store"),
                   &outbox_);
      }
    } else if (md->value.state() != proto::OPEN) {
      FailLocked(absl::FailedPreconditionError(absl::StrCat(
                     "the ledger is ", LedgerStateName(md->value.state()),
                     " in the metadata store: another client is recovering "
                     "or closed it")),
                 &outbox_);
    }
  }
  DrainCompletions();
}

void WriteHandle::CheckTimeouts(absl::Time now) {
  absl::MutexLock l(&mu_);
  if (state_ != State::kOpen && state_ != State::kClosing) return;
  if (!changing_ && now >= next_retry_) {
    for (int i = 0; i < ensemble_size_; ++i) {
      if (dead_[i]) {
        // Retry the replacement of a slot left without a bookie.
        dead_[i] = false;
        SlotFailedLocked(i, ensemble_[i]);
      }
    }
  }
  const absl::Duration timeout = ctx_->options().add_entry_timeout;
  const absl::Duration lag = ctx_->options().add_entry_lag_timeout;
  int scanned = 0;
  for (const Pending& p : pending_) {
    if (++scanned > kTimeoutScan) break;
    const bool timed_out = now - p.sent >= timeout;
    const bool lagging = watch_lag_ && now - p.lagging_since >= lag;
    if (!timed_out && !lagging) continue;
    for (int slot : WriteSet(p.entry_id, ensemble_size_, write_quorum_)) {
      if ((p.acked >> slot) & 1 || dead_[slot] || failed_.count(slot)) continue;
      if (timed_out) {
        bk::log::Get("client")->warn(
            "ledger={} entry={} bookie={} add timed out after {}", ledger_id_,
            p.entry_id, ensemble_[slot], absl::FormatDuration(timeout));
      } else {
        // The write set's one silent member (lagging_since is set only
        // then): a gray failure, replaced before the add timeout.
        bk::log::Get("client")->warn(
            "ledger={} entry={} bookie={} lags: the rest of the write quorum "
            "answered {} ago",
            ledger_id_, p.entry_id, ensemble_[slot],
            absl::FormatDuration(now - p.lagging_since));
        ctx_->probe()->LaggingBookie();
      }
      ctx_->cluster()->OnBookieError(ensemble_[slot], p.entry_id, now);
      SlotFailedLocked(slot, ensemble_[slot]);
    }
  }
  // Confirmed entries a bookie never answered (AQ < WQ).
  for (int slot = 0; slot < ensemble_size_; ++slot) {
    const auto& u = unanswered_[slot];
    if (u.empty() || dead_[slot] || failed_.count(slot)) continue;
    if (now - u.front().second < timeout) continue;
    bk::log::Get("client")->warn(
        "ledger={} entry={} bookie={} add timed out after {}; the entry was "
        "confirmed by the ack quorum and lacks this replica until "
        "autorecovery copies it",
        ledger_id_, u.front().first, ensemble_[slot],
        absl::FormatDuration(timeout));
    ctx_->cluster()->OnBookieError(ensemble_[slot], u.front().first, now);
    SlotFailedLocked(slot, ensemble_[slot]);
  }
}

}  // namespace bk::client::internal
