// BookieStoreImpl: the add path. A batch's adds are checked and cached
// one by one under their ledger's lock, then handed to the journal in one
// push per journal directory; each share of the batch is answered in one
// call once its records are synced.

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bookie/engine/bookie_store_impl.h"
#include "proto/crc32c.h"
#include "proto/entry_format.h"
#include "proto/status_codes.h"

namespace bk::bookie {

using journal_format::RecordType;

void BookieStoreImpl::AddEntry(const AddArgs& args, EntryBuffer body,
                               StatusCallback done) {
  AddEntryRequest add{args, std::move(body)};
  AddEntries(absl::MakeSpan(&add, 1),
             [done = std::move(done)](absl::Span<const AddOutcome> out) {
               done(out[0].status);
             });
}

struct BookieStoreImpl::PendingBatch {
  BookieStoreImpl* store = nullptr;
  size_t dir = 0;
  std::vector<AddOutcome> outcomes;
  std::vector<int64_t> lacs;  // each add's entry LAC
  std::atomic<size_t> left{0};
  std::shared_ptr<AddBatchCallback> done;
};

void BookieStoreImpl::CompleteAdd(PendingBatch* batch, size_t i,
                                  absl::Status status) {
  batch->outcomes[i].status = std::move(status);
  if (batch->left.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // The last record of the share: every outcome is in.
  std::unique_ptr<PendingBatch> owned(batch);
  const auto& out = batch->outcomes;
  adds_in_flight_.fetch_sub(static_cast<int64_t>(out.size()),
                            std::memory_order_relaxed);
  // One LAC raise per run of the same ledger (a batch is usually one run).
  for (size_t k = 0; k < out.size();) {
    const uint64_t ledger = out[k].ledger_id;
    int64_t lac = -1;
    bool any = false;
    for (; k < out.size() && out[k].ledger_id == ledger; ++k) {
      if (out[k].status.ok()) {
        lac = std::max(lac, batch->lacs[k]);
        any = true;
      }
    }
    if (any) RaiseLac(ledger, lac);
  }
  (*batch->done)(out);
}

BookieStoreImpl::Verdict BookieStoreImpl::Admit(
    const AddArgs& args, const EntryBuffer& body,
    const std::shared_ptr<AddBatchCallback>& done) {
  Verdict v;
  auto header = entry::ParseHeader(*body);
  if (!header.ok()) {
    v.status = ToAbsl(proto::BK_EBADREQ, header.status().message());
    return v;
  }
  if (header->ledger_id != args.ledger_id ||
      header->entry_id != args.entry_id) {
    v.status = ToAbsl(
        proto::BK_EBADREQ,
        absl::StrCat("request names ledger ", args.ledger_id, " entry ",
                     args.entry_id, " but the entry's header says ledger ",
                     header->ledger_id, " entry ", header->entry_id));
    return v;
  }
  auto slot = SlotFor(args.ledger_id, args.master_key);
  if (!slot.ok()) {
    v.status = slot.status();
    return v;
  }
  // The one pass over the bytes on the add path: the journal and entry-log
  // record CRCs are combined from it (crc32c::Combine), the same bytes on
  // disk as a pass of their own. Outside the ledger's lock.
  v.crc = crc32c::Value(body->data(), body->size());
  v.lac = header->last_add_confirmed;
  absl::Status s;
  {
    // Held across the write-cache insert so that a fence (which takes the
    // same lock) happens either before this check or after the entry is
    // visible to the fencing read.
    LedgerSlot* sl = slot->get();
    absl::MutexLock l(&sl->mu);
    s = CheckKeyLocked(sl, args.master_key);
    if (s.ok() && sl->state.fenced && !args.recovery) {
      const uint64_t ledger = args.ledger_id;
      const int64_t entry = args.entry_id;
      if (sl->fence_pending) {
        // The fence is not durable yet: refuse once it is.
        sl->fence_waiters.push_back([done, ledger, entry](absl::Status st) {
          AddOutcome o{ledger, entry, std::move(st)};
          o.status = o.status.ok()
                         ? ToAbsl(proto::BK_EFENCED,
                                  absl::StrCat("ledger ", ledger, " is fenced"))
                         : absl::InternalError(
                               absl::StrCat("fence of ledger ", ledger,
                                            " failed: ", o.status.message()));
          (*done)(absl::MakeConstSpan(&o, 1));
        });
        v.awaits_fence = true;
        return v;
      }
      s = ToAbsl(proto::BK_EFENCED,
                 absl::StrCat("ledger ", ledger, " is fenced"));
    }
    if (s.ok()) {
      s = storage_->AddEntry(args.ledger_id, args.entry_id, body, v.crc);
    }
  }
  // The storage refuses a deleted ledger with NotFound.
  v.status = absl::IsNotFound(s) ? NoLedger(args.ledger_id) : s;
  return v;
}

void BookieStoreImpl::AddEntries(absl::Span<AddEntryRequest> adds,
                                 AddBatchCallback done) {
  auto shared = std::make_shared<AddBatchCallback>(std::move(done));
  std::vector<AddOutcome> refused;
  // Admitted adds by journal directory (usually a single share).
  std::vector<std::unique_ptr<PendingBatch>> shares;
  std::vector<std::vector<JournalRecord>> records;
  const absl::Status writable = CheckWritable();
  for (AddEntryRequest& a : adds) {
    const uint64_t ledger = a.args.ledger_id;
    Verdict v;
    if (writable.ok()) {
      v = Admit(a.args, a.body, shared);
    } else {
      v.status = writable;
    }
    if (v.awaits_fence) continue;
    if (!v.status.ok()) {
      refused.push_back(
          AddOutcome{ledger, a.args.entry_id, std::move(v.status)});
      continue;
    }
    const size_t dir = journal_->DirIndexFor(ledger);
    size_t g = 0;
    while (g < shares.size() && shares[g]->dir != dir) ++g;
    if (g == shares.size()) {
      shares.push_back(std::make_unique<PendingBatch>());
      shares[g]->store = this;
      shares[g]->dir = dir;
      shares[g]->done = shared;
      records.emplace_back().reserve(adds.size());
    }
    PendingBatch* b = shares[g].get();
    const size_t k = b->outcomes.size();
    b->outcomes.push_back(AddOutcome{ledger, a.args.entry_id, {}});
    b->lacs.push_back(v.lac);
    JournalRecord& r = records[g].emplace_back();
    r.type = RecordType::kEntry;
    r.ledger_id = ledger;
    r.entry_id = a.args.entry_id;
    r.payload.data = *a.body;
    r.payload.owner = std::move(a.body).TakeOwner();
    r.has_payload_crc = true;
    r.payload_crc = v.crc;
    // Two words: stored inline, no allocation per entry.
    r.done = [b, k](absl::Status st) {
      b->store->CompleteAdd(b, k, std::move(st));
    };
  }
  if (!refused.empty()) (*shared)(refused);
  for (size_t g = 0; g < shares.size(); ++g) {
    shares[g]->left.store(records[g].size(), std::memory_order_relaxed);
    adds_in_flight_.fetch_add(static_cast<int64_t>(records[g].size()),
                              std::memory_order_relaxed);
    // From here the records' callbacks own the share (the last one frees
    // it), possibly before AddBatch returns.
    shares[g].release();
    absl::Status s = journal_->AddBatch(&records[g]);
    if (!s.ok()) {
      for (JournalRecord& r : records[g]) {
        r.done(absl::InternalError(
            absl::StrCat("journal refused ledger ", r.ledger_id, " entry ",
                         r.entry_id, ": ", s.message())));
      }
    }
  }
}

}  // namespace bk::bookie
