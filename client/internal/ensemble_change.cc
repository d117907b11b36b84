// Ensemble change of a WriteHandle (see write_handle.h): replacements from
// the placement policy, the new segment written by compare-and-set, and the
// re-send of unconfirmed entries to the replacements.

#include <algorithm>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/internal/placement_probe.h"
#include "client/internal/quorum.h"
#include "client/internal/write_handle.h"
#include "common/logging.h"
#include "placement/types.h"

namespace bk::client::internal {
namespace {

constexpr int kMaxCasAttempts = 16;
// A writer left without a bookie for some slot retries its replacement
// this often.
constexpr absl::Duration kDegradedRetry = absl::Seconds(1);

}  // namespace

void WriteHandle::RunEnsembleChange() {
  while (true) {
    std::map<int, std::string> failed;
    {
      absl::MutexLock l(&mu_);
      if (state_ == State::kFailed || state_ == State::kClosed) {
        changing_ = false;
        return;
      }
      if (ctx_->closing()) {
        FailLocked(absl::CancelledError("client closing"), &outbox_);
        changing_ = false;
      } else if (failed_.empty()) {
        changing_ = false;
        CompleteLocked(&outbox_);
      } else {
        failed = failed_;
      }
    }
    if (failed.empty()) {
      DrainCompletions();
      return;
    }
    Sends sends;
    std::vector<std::string> next;
    absl::Status s = ChangeEnsemble(failed, &next);
    {
      absl::MutexLock l(&mu_);
      if (s.ok()) {
        for (const auto& [slot, old] : failed) {
          auto it = failed_.find(slot);
          if (it != failed_.end() && it->second == old) failed_.erase(it);
          dead_[slot] = false;
          // What the old bookie never answered stays in its segment, for
          // autorecovery; the replacement owes nothing of it.
          unanswered_[slot].clear();
        }
        std::vector<int> replaced;
        for (int i = 0; i < ensemble_size_; ++i) {
          if (ensemble_[i] != next[i]) replaced.push_back(i);
        }
        bk::log::Get("client")->info(
            "ledger={} ensemble changed at entry {}: [{}] -> [{}]", ledger_id_,
            lac_ + 1, absl::StrJoin(ensemble_, ","), absl::StrJoin(next, ","));
        ensemble_ = next;
        const absl::Time now = ctx_->Now();
        for (Pending& p : pending_) {
          for (int slot : replaced) {
            const uint64_t bit = uint64_t{1} << slot;
            const auto ws = WriteSet(p.entry_id, ensemble_size_, write_quorum_);
            if (std::find(ws.begin(), ws.end(), slot) == ws.end()) continue;
            p.acked &= ~bit;  // the replacement needs its own copy
            p.sent = now;
            // The replacement's lag, if it is the last one, runs from now.
            p.lagging_since =
                watch_lag_ && std::popcount(p.acked) == write_quorum_ - 1
                    ? now
                    : absl::InfiniteFuture();
            sends.push_back({slot, ensemble_[slot], p.entry_id, p.body});
          }
        }
        ctx_->probe()->EnsembleChanged();
      } else if (placement::IsNotEnoughBookies(s)) {
        for (const auto& [slot, old] : failed) {
          failed_.erase(slot);
          dead_[slot] = true;
          unanswered_[slot].clear();
        }
        std::vector<bool> live(ensemble_size_);
        for (int i = 0; i < ensemble_size_; ++i) live[i] = !dead_[i];
        if (!AckQuorumReachable(live, write_quorum_, ack_quorum_)) {
          FailLocked(absl::UnavailableError(absl::StrCat(
                         "no bookie can replace a failed one and the ack "
                         "quorum is broken: ",
                         s.message())),
                     &outbox_);
        } else {
          bk::log::Get("client")->warn(
              "ledger={} no replacement bookie ({}); going on without the "
              "failed ones, ack quorum still reachable",
              ledger_id_, std::string(s.message()));
          next_retry_ = ctx_->Now() + kDegradedRetry;
        }
      } else {
        FailLocked(s, &outbox_);
      }
    }
    DrainCompletions();
    Transmit(sends);
  }
}

placement::LedgerHints WriteHandle::HintsLocked(absl::Time now) const {
  placement::LedgerHints hints;
  for (const auto& [key, value] : metadata_.custom_metadata()) {
    hints.custom_metadata[key] = value;
  }
  hints.expected_write_bytes_per_second = expected_write_bytes_per_second_;
  // After a few seconds of writing, the ledger's own rate says more than the
  // creator's guess (and there is one even when the creator gave none).
  constexpr absl::Duration kMeasureAfter = absl::Seconds(5);
  const absl::Duration age = now - created_;
  if (age >= kMeasureAfter) {
    hints.expected_write_bytes_per_second =
        static_cast<double>(assigned_length_) / absl::ToDoubleSeconds(age);
  }
  return hints;
}

absl::Status WriteHandle::ChangeEnsemble(
    const std::map<int, std::string>& failed,
    std::vector<std::string>* new_ensemble) {
  proto::LedgerMetadata md;
  metadata::Version version;
  std::vector<std::string> ensemble;
  int64_t first;
  std::vector<std::string> excluded;
  placement::LedgerHints hints;
  {
    absl::MutexLock l(&mu_);
    hints = HintsLocked(absl::Now());
    md = metadata_;
    version = version_;
    ensemble = ensemble_;
    first = lac_ + 1;
    for (int i = 0; i < ensemble_size_; ++i) {
      if (dead_[i]) excluded.push_back(ensemble_[i]);
    }
  }
  for (const auto& [slot, bookie] : failed) excluded.push_back(bookie);
  std::vector<std::string> next = ensemble;
  std::map<std::string, proto::PlacementNote> notes;
  // The policy counts each replacement it draws (the old bookie leaves,
  // the new one joins); unless the new segment is written, that is taken
  // back, or the estimates would keep a move that never happened.
  std::vector<std::pair<std::string, std::string>> drawn;  // (left, joined)
  absl::Cleanup take_back = [&] {
    for (auto it = drawn.rbegin(); it != drawn.rend(); ++it) {
      ctx_->cluster()->OnReplacedElsewhere(
          it->second, it->first, ensemble_size_, write_quorum_, hints);
    }
  };
  for (const auto& [slot, bookie] : failed) {
    // Probed first when the policy probes (placement_probe.h): on the
    // worker thread, like the metadata write below, at most
    // placement_probe_timeout.
    auto r = ProbeAndReplace(ctx_, next, slot, write_quorum_, ack_quorum_,
                             excluded, hints);
    if (!r.ok()) return r.status();
    drawn.emplace_back(next[slot], r->ensemble[slot]);
    next = r->ensemble;
    for (auto& [id, note] : r->notes) notes[id] = note;
  }
  for (int attempt = 0; attempt < kMaxCasAttempts; ++attempt) {
    proto::LedgerMetadata updated = md;
    auto* segments = updated.mutable_segments();
    proto::Segment* last = segments->Mutable(segments->size() - 1);
    if (last->first_entry_id() == first) {
      last->clear_bookies();
      for (const auto& b : next) last->add_bookies(b);
    } else {
      proto::Segment* seg = updated.add_segments();
      seg->set_first_entry_id(first);
      for (const auto& b : next) seg->add_bookies(b);
    }
    for (const auto& [id, note] : notes) {
      (*updated.mutable_placement_notes())[id] = note;
    }
    auto v = ctx_->store()->CompareAndSetLedger(ledger_id_, updated, version);
    if (v.ok()) {
      std::move(take_back).Cancel();
      {
        absl::MutexLock l(&mu_);
        metadata_ = std::move(updated);
        version_ = *v;
      }
      *new_ensemble = next;
      // Other clients' placement learns that the replaced bookies stopped
      // taking this ledger's adds and their replacements started.
      if (ctx_->feed() != nullptr) {
        for (const auto& [slot, bookie] : failed) {
          ctx_->feed()->AnnounceReplaced(ledger_id_, next, bookie, next[slot],
                                         write_quorum_,
                                         hints.expected_write_bytes_per_second);
        }
      }
      return absl::OkStatus();
    }
    if (!absl::IsAborted(v.status())) return v.status();
    // Someone else wrote the metadata: re-read; go on only if the ledger is
    // still open with the ensemble we know (then merge our change on top).
    auto reread = ctx_->store()->ReadLedger(ledger_id_);
    if (!reread.ok()) return reread.status();
    const proto::LedgerMetadata& stored = reread->value;
    if (stored.state() != proto::OPEN) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the ledger is ", LedgerStateName(stored.state()),
          " in the metadata store: another client recovered or closed it"));
    }
    if (Bookies(stored.segments(stored.segments_size() - 1)) != ensemble) {
      return absl::FailedPreconditionError(
          "the ledger's ensemble was changed by another client");
    }
    md = stored;
    version = reread->version;
  }
  return absl::AbortedError("metadata kept changing during ensemble change");
}

}  // namespace bk::client::internal
