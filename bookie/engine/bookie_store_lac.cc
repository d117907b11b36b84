// BookieStoreImpl: the last add confirmed. The best known LAC lives in the
// ledger's slot (the highest LAC carried by an entry stored, or the
// explicit LAC); long polls wait there for it to move.

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bookie/engine/bookie_store_impl.h"
#include "bookie/engine/lac_codec.h"

namespace bk::bookie {

using journal_format::RecordType;

absl::Status BookieStoreImpl::LoadLacLocked(LedgerSlot* slot) {
  if (slot->lac_loaded) return absl::OkStatus();
  int64_t lac = -1;
  auto last = storage_->GetLastAddConfirmed(slot->ledger_id);
  if (last.ok()) {
    lac = *last;
  } else if (!absl::IsNotFound(last.status())) {
    return last.status();
  }
  if (slot->state.has_explicit_lac) {
    auto v = DecodeLac(slot->state.explicit_lac);
    if (!v.ok()) return v.status();
    lac = std::max(lac, *v);
  }
  slot->lac = lac;
  slot->lac_loaded = true;
  return absl::OkStatus();
}

absl::StatusOr<int64_t> BookieStoreImpl::LastAddConfirmed(uint64_t ledger_id) {
  if (!storage_->LedgerExists(ledger_id)) return NoLedger(ledger_id);
  std::shared_ptr<LedgerSlot> slot = storage_->FindLedger(ledger_id);
  if (slot == nullptr) return NoLedger(ledger_id);
  absl::MutexLock l(&slot->mu);
  if (absl::Status s = LoadLacLocked(slot.get()); !s.ok()) return s;
  return slot->lac;
}

void BookieStoreImpl::RaiseLac(uint64_t ledger_id, int64_t lac) {
  std::shared_ptr<LedgerSlot> slot = storage_->FindLedger(ledger_id);
  if (slot == nullptr) return;
  std::vector<LacWaiter> ready;
  {
    absl::MutexLock l(&slot->mu);
    // Not loaded: whoever loads it reads this entry from the storage.
    if (!slot->lac_loaded || lac <= slot->lac) return;
    slot->lac = lac;
    auto& w = slot->lac_waiters;
    for (size_t i = 0; i < w.size();) {
      if (w[i].previous_lac < lac) {
        ready.push_back(std::move(w[i]));
        w[i] = std::move(w.back());
        w.pop_back();
      } else {
        ++i;
      }
    }
  }
  for (auto& r : ready) {
    timer_.Cancel(r.timer_id);
    r.done(lac);
  }
}

uint64_t BookieStoreImpl::WaitForLacUpdate(
    uint64_t ledger_id, int64_t previous_lac, absl::Duration timeout,
    std::function<void(absl::StatusOr<int64_t>)> done) {
  auto answer = [&done](absl::StatusOr<int64_t> v) -> uint64_t {
    done(std::move(v));
    return 0;
  };
  if (!storage_->LedgerExists(ledger_id)) return answer(NoLedger(ledger_id));
  std::shared_ptr<LedgerSlot> slot = storage_->FindLedger(ledger_id);
  if (slot == nullptr) return answer(NoLedger(ledger_id));
  int64_t now_lac;
  {
    absl::MutexLock l(&slot->mu);
    // Deleted since the check: its polls were answered already.
    if (slot->state.deleted) return answer(NoLedger(ledger_id));
    if (absl::Status s = LoadLacLocked(slot.get()); !s.ok()) {
      return answer(s);
    }
    now_lac = slot->lac;
    if (now_lac <= previous_lac && !closing_ &&
        timeout > absl::ZeroDuration()) {
      LacWaiter w;
      w.id = next_waiter_id_.fetch_add(1);
      w.previous_lac = previous_lac;
      w.done = std::move(done);
      std::weak_ptr<LedgerSlot> weak = slot;
      const uint64_t id = w.id;
      // Scheduled under the ledger's lock: the timeout cannot run before
      // the waiter is in the list (it takes the same lock).
      w.timer_id = timer_.Schedule(absl::Now() + timeout, [weak, id] {
        auto r = weak.lock();
        if (r == nullptr) return;
        std::function<void(absl::StatusOr<int64_t>)> fn;
        int64_t lac;
        {
          absl::MutexLock l(&r->mu);
          auto& ws = r->lac_waiters;
          for (size_t i = 0; i < ws.size(); ++i) {
            if (ws[i].id == id) {
              fn = std::move(ws[i].done);
              ws[i] = std::move(ws.back());
              ws.pop_back();
              break;
            }
          }
          lac = r->lac;
        }
        if (fn) fn(lac);  // the LAC did not move: answer with the current
      });
      slot->lac_waiters.push_back(std::move(w));
      return id;
    }
  }
  return answer(now_lac);
}

void BookieStoreImpl::CancelLacWait(uint64_t ledger_id, uint64_t wait_id) {
  std::shared_ptr<LedgerSlot> slot = storage_->FindLedger(ledger_id);
  if (slot == nullptr) return;
  LacWaiter waiter;
  {
    absl::MutexLock l(&slot->mu);
    auto& ws = slot->lac_waiters;
    auto it = std::find_if(ws.begin(), ws.end(), [wait_id](const LacWaiter& w) {
      return w.id == wait_id;
    });
    if (it == ws.end()) return;  // answered already
    waiter = std::move(*it);
    *it = std::move(ws.back());
    ws.pop_back();
  }
  // If the timeout is running it finds no waiter and answers nothing.
  timer_.Cancel(waiter.timer_id);
  waiter.done(absl::CancelledError("long poll cancelled by the client"));
}

void BookieStoreImpl::WriteLac(uint64_t ledger_id, int64_t lac,
                               const std::string& master_key,
                               StatusCallback done) {
  if (absl::Status s = CheckWritable(); !s.ok()) return done(s);
  auto slot = SlotFor(ledger_id, master_key);
  if (!slot.ok()) return done(slot.status());
  auto encoded = std::make_shared<const std::string>(EncodeLac(lac));
  absl::Status s;
  {
    LedgerSlot* sl = slot->get();
    absl::MutexLock l(&sl->mu);
    s = CheckKeyLocked(sl, master_key);
    int64_t current = -1;
    if (s.ok() && sl->state.has_explicit_lac) {
      auto v = DecodeLac(sl->state.explicit_lac);
      s = v.status();
      if (v.ok()) current = *v;
    }
    if (s.ok() && lac > current) {
      // Recorded before it is journaled (the checkpoint contract).
      sl->state.has_explicit_lac = true;
      sl->state.explicit_lac = *encoded;
      storage_->LedgerStateChanged(*sl);
    }
  }
  if (!s.ok()) return done(s);
  s = journal_->Add(RecordType::kExplicitLac, ledger_id, lac,
                    JournalPayload::Of(encoded),
                    [this, ledger_id, lac, done](absl::Status st) {
                      if (st.ok()) RaiseLac(ledger_id, lac);
                      done(st);
                    });
  if (!s.ok()) done(s);
}

absl::StatusOr<int64_t> BookieStoreImpl::ExplicitLac(uint64_t ledger_id) {
  if (!storage_->LedgerExists(ledger_id)) return NoLedger(ledger_id);
  std::shared_ptr<LedgerSlot> slot = storage_->FindLedger(ledger_id);
  if (slot == nullptr) return NoLedger(ledger_id);
  absl::MutexLock l(&slot->mu);
  if (!slot->state.has_explicit_lac) return -1;
  return DecodeLac(slot->state.explicit_lac);
}

void BookieStoreImpl::ForgetLedger(uint64_t ledger_id) {
  std::shared_ptr<LedgerSlot> slot = storage_->FindLedger(ledger_id);
  if (slot == nullptr) return;
  // A long poll on a deleted ledger would otherwise wait for its timeout.
  std::vector<LacWaiter> waiters;
  {
    absl::MutexLock l(&slot->mu);
    waiters.swap(slot->lac_waiters);
  }
  for (auto& w : waiters) {
    timer_.Cancel(w.timer_id);
    w.done(NoLedger(ledger_id));
  }
}

void BookieStoreImpl::AnswerAllLongPolls() {
  for (const std::shared_ptr<LedgerSlot>& slot : storage_->AllLedgers()) {
    std::vector<LacWaiter> waiters;
    int64_t lac;
    {
      absl::MutexLock l(&slot->mu);
      waiters.swap(slot->lac_waiters);
      lac = slot->lac;
    }
    for (auto& w : waiters) {
      timer_.Cancel(w.timer_id);
      w.done(lac);
    }
  }
}

}  // namespace bk::bookie
