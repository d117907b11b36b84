// BookieStoreImpl: the rules of a ledger's state, master key and fence, and
// the requests that are only about them (Fence, ForceLedger).
//
// Both facts are journaled through group commit, like entries, before
// anyone is answered: the change is made in the ledger's slot and recorded
// for the storage's next flush, then its record is queued, all under the
// ledger's lock, so every later record of the ledger follows it in the
// journal (a journal directory is FIFO) and is synced no earlier.

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bookie/engine/bookie_store_impl.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

using journal_format::RecordType;

// Compares without an early exit, so timing says nothing about the key.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

// What a new ledger must be: an id a metadata store can hold (ledger ids
// are signed 64-bit there, as in BookKeeper, so GC can judge the ledger)
// and a valid first key.
absl::Status ValidNewKey(uint64_t ledger_id, absl::string_view key) {
  if (ledger_id > static_cast<uint64_t>(INT64_MAX)) {
    return ToAbsl(proto::BK_EBADREQ,
                  absl::StrCat("ledger id ", ledger_id,
                               " is above 2^63-1: no metadata store holds it"));
  }
  if (key.empty()) {
    return ToAbsl(proto::BK_EBADREQ,
                  absl::StrCat("empty master key for ledger ", ledger_id));
  }
  if (key.size() > ledgerstate::kMaxMasterKeySize) {
    return absl::InvalidArgumentError(
        absl::StrCat("master key too long for ledger ", ledger_id));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BookieStoreImpl::MatchKey(uint64_t ledger_id,
                                       absl::string_view stored,
                                       absl::string_view key) {
  if (ConstantTimeEquals(stored, key)) return absl::OkStatus();
  // Never log or echo the key itself.
  return ToAbsl(proto::BK_EUA,
                absl::StrCat("master key mismatch on ledger ", ledger_id));
}

absl::StatusOr<std::shared_ptr<LedgerSlot>> BookieStoreImpl::SlotFor(
    uint64_t ledger_id, const std::string& key) {
  if (std::shared_ptr<LedgerSlot> slot = storage_->FindLedger(ledger_id)) {
    return slot;
  }
  // Unknown here: only a request that can set the key makes the ledger.
  if (absl::Status s = ValidNewKey(ledger_id, key); !s.ok()) return s;
  bool created = false;
  auto slot = storage_->FindOrCreateLedger(ledger_id, &created);
  if (!slot.ok()) {
    return absl::IsNotFound(slot.status()) ? NoLedger(ledger_id)
                                           : slot.status();
  }
  if (created) {
    // New: no entries, so no LAC to load.
    absl::MutexLock l(&(*slot)->mu);
    (*slot)->lac_loaded = true;
  }
  return slot;
}

absl::Status BookieStoreImpl::CheckKeyLocked(LedgerSlot* slot,
                                             const std::string& key) {
  LedgerState& st = slot->state;
  const uint64_t ledger_id = slot->ledger_id;
  if (st.has_master_key) return MatchKey(ledger_id, st.master_key, key);
  if (absl::Status s = ValidNewKey(ledger_id, key); !s.ok()) return s;
  // A deleted ledger has no key any more; its tombstone refuses it.
  if (st.deleted) return NoLedger(ledger_id);
  st.has_master_key = true;
  st.master_key = key;
  storage_->LedgerStateChanged(*slot);
  absl::Status s = journal_->Add(
      RecordType::kMasterKey, ledger_id, -1,
      JournalPayload::Of(std::make_shared<const std::string>(key)),
      // Nothing waits for it: the records behind it are synced no earlier.
      [](absl::Status) {});
  if (!s.ok()) {
    return absl::InternalError(
        absl::StrCat("journal refused the master key of ledger ", ledger_id,
                     ": ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status BookieStoreImpl::JournalFenceLocked(
    const std::shared_ptr<LedgerSlot>& slot) {
  slot->state.fenced = true;
  slot->fence_pending = true;
  storage_->LedgerStateChanged(*slot);
  absl::Status s = journal_->Add(
      RecordType::kFence, slot->ledger_id, -1, JournalPayload{},
      [this, slot](absl::Status st) { FenceSynced(slot.get(), st); });
  if (s.ok()) return absl::OkStatus();
  // Not journaled: the fence did not happen.
  slot->state.fenced = false;
  slot->fence_pending = false;
  storage_->LedgerStateChanged(*slot);
  return absl::InternalError(
      absl::StrCat("journal refused the fence of ledger ", slot->ledger_id,
                   ": ", s.message()));
}

void BookieStoreImpl::FenceSynced(LedgerSlot* slot,
                                  const absl::Status& status) {
  std::vector<FenceWaiter> waiters;
  {
    absl::MutexLock l(&slot->mu);
    slot->fence_pending = false;
    if (!status.ok() && !slot->state.deleted) {
      // Never durable, and no writer heard of it: undone. (The journal is
      // broken for good, so no add gets this far again.)
      slot->state.fenced = false;
      storage_->LedgerStateChanged(*slot);
    }
    waiters.swap(slot->fence_waiters);
  }
  for (FenceWaiter& w : waiters) w(status);
}

void BookieStoreImpl::Fence(uint64_t ledger_id, const std::string& master_key,
                            StatusCallback done) {
  auto slot = SlotFor(ledger_id, master_key);
  if (!slot.ok()) return done(slot.status());
  absl::Status s;
  {
    absl::MutexLock l(&(*slot)->mu);
    s = CheckKeyLocked(slot->get(), master_key);
    if (s.ok() && !(*slot)->state.fenced) s = JournalFenceLocked(*slot);
    if (s.ok() && (*slot)->fence_pending) {
      // Answered by FenceSynced, once the record is synced.
      (*slot)->fence_waiters.push_back(std::move(done));
      return;
    }
  }
  done(s);
}

void BookieStoreImpl::ForceLedger(uint64_t ledger_id,
                                  const std::string& master_key,
                                  StatusCallback done) {
  if (!storage_->LedgerExists(ledger_id)) return done(NoLedger(ledger_id));
  std::shared_ptr<LedgerSlot> slot = storage_->FindLedger(ledger_id);
  if (slot == nullptr) return done(NoLedger(ledger_id));
  absl::Status s;
  {
    absl::MutexLock l(&slot->mu);
    s = CheckKeyLocked(slot.get(), master_key);
  }
  if (!s.ok()) return done(s);
  // Same journal as every add of this ledger, FIFO: its sync covers them.
  s = journal_->Add(RecordType::kForce, ledger_id, -1, JournalPayload{},
                    [done](absl::Status st) { done(st); });
  if (!s.ok()) done(s);
}

}  // namespace bk::bookie
