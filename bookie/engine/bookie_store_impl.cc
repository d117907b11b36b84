#include "bookie/engine/bookie_store_impl.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bookie/engine/lac_codec.h"
#include "proto/crc32c.h"
#include "proto/entry_format.h"
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

}  // namespace

absl::StatusOr<std::unique_ptr<BookieStoreImpl>> BookieStoreImpl::Open(
    Env* env, const StoreOptions& options, StartupReport* report) {
  auto storage = LedgerStorage::Open(env, options.storage);
  if (!storage.ok()) return storage.status();
  auto journal = std::make_unique<Journal>(env, options.journal);
  std::unique_ptr<BookieStoreImpl> store(
      new BookieStoreImpl(env, std::move(*storage), std::move(journal)));
  BookieStoreImpl* self = store.get();
  self->storage_->SetCheckpointHooks(
      {[self] { return self->TakeMark(); },
       [self](uint64_t mark) { return self->Flushed(mark); }});
  // GC deletes and purges ledgers on its own: drop their rules so the map
  // holds only ledgers the storage still knows.
  self->storage_->SetLedgerRemovedListener(
      [self](uint64_t ledger_id) { self->ForgetLedger(ledger_id); });

  uint64_t replayed_entries = 0;
  LedgerStorage* st = self->storage_.get();
  auto replay =
      self->journal_->Replay([&](const JournalRecordView& r) -> absl::Status {
        absl::Status s;
        switch (r.type) {
          case RecordType::kEntry:
            s = st->AddEntry(r.ledger_id, r.entry_id,
                             MakeEntryBuffer(std::string(r.payload)));
            ++replayed_entries;
            break;
          case RecordType::kFence:
            s = st->SetFenced(r.ledger_id).status();
            break;
          case RecordType::kMasterKey:
            s = st->SetMasterKey(r.ledger_id, r.payload);
            break;
          case RecordType::kExplicitLac:
            s = st->SetExplicitLac(r.ledger_id, r.payload);
            break;
          default:  // kForce: a barrier, nothing to restore
            break;
        }
        // A ledger deleted after the record was journaled stays deleted.
        if (absl::IsNotFound(s)) return absl::OkStatus();
        return s;
      });
  if (!replay.ok()) {
    return absl::Status(
        replay.status().code(),
        absl::StrCat("journal replay refused: ", replay.status().message()));
  }
  absl::Status s = self->journal_->Start();
  if (!s.ok()) return s;
  self->journal_started_ = true;
  // Make the replayed records durable in entry logs and move the
  // checkpoint past them.
  s = self->storage_->Flush();
  if (!s.ok()) return s;
  if (report != nullptr) {
    report->journal = *replay;
    report->replayed_entries = replayed_entries;
  }
  return store;
}

BookieStoreImpl::BookieStoreImpl(Env* env,
                                 std::unique_ptr<LedgerStorage> storage,
                                 std::unique_ptr<Journal> journal)
    : env_(env),
      storage_(std::move(storage)),
      journal_(std::move(journal)),
      rules_(storage_.get()) {}

BookieStoreImpl::~BookieStoreImpl() {
  closing_ = true;
  journal_->Stop();
  journal_started_ = false;
  // Storage destructs without flushing: the journal replays the rest. It
  // goes first, so that its flusher and GC threads (whose hooks call back
  // into this store) stop while the rest of the store is still alive.
  storage_.reset();
}

absl::Status BookieStoreImpl::Close() {
  closing_ = true;
  // Answer every long poll: nothing will raise their LAC any more.
  for (const auto& rules : rules_.All()) {
    std::vector<LacWaiter> waiters;
    int64_t lac;
    {
      absl::MutexLock l(&rules->mu);
      waiters.swap(rules->waiters);
      lac = rules->lac;
    }
    for (auto& w : waiters) {
      timer_.Cancel(w.timer_id);
      w.done(lac);
    }
  }
  // Entries accepted so far are in the write cache: a flush now covers
  // them and moves the checkpoint; then the journal completes what it holds.
  absl::Status s = storage_->Flush();
  journal_->Stop();
  journal_started_ = false;
  absl::Status c = storage_->Close();
  if (s.ok()) s = c;
  if (s.ok()) s = journal_->status();
  return s;
}

absl::Status BookieStoreImpl::NoLedger(uint64_t ledger_id) {
  return ToAbsl(proto::BK_ENOLEDGER,
                absl::StrCat("ledger ", ledger_id, " is not on this bookie"));
}

absl::Status BookieStoreImpl::CheckWritable() const {
  if (closing_) {
    return absl::UnavailableError("bookie is shutting down");
  }
  if (absl::Status s = journal_->status(); !s.ok()) {
    return absl::InternalError(
        absl::StrCat("journal failed, bookie unwritable: ", s.message()));
  }
  if (absl::Status s = storage_->writable(); !s.ok()) {
    return absl::InternalError(absl::StrCat(
        "ledger storage failed, bookie unwritable: ", s.message()));
  }
  if (read_only_) {
    absl::MutexLock l(&mu_);
    return ToAbsl(proto::BK_EREADONLY,
                  absl::StrCat("bookie is read-only: ", read_only_reason_));
  }
  return absl::OkStatus();
}

absl::Status BookieStoreImpl::CheckKeyLocked(uint64_t ledger_id,
                                             LedgerRules* rules,
                                             const std::string& key) {
  if (rules->master_key.empty()) {
    if (key.empty()) {
      return ToAbsl(proto::BK_EBADREQ,
                    absl::StrCat("empty master key for ledger ", ledger_id));
    }
    absl::Status s = storage_->SetMasterKey(ledger_id, key);
    if (!s.ok()) return s;
    rules->master_key = key;
    return absl::OkStatus();
  }
  if (!ConstantTimeEquals(rules->master_key, key)) {
    // Never log or echo the key itself.
    return ToAbsl(proto::BK_EUA,
                  absl::StrCat("master key mismatch on ledger ", ledger_id));
  }
  return absl::OkStatus();
}

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

absl::Status BookieStoreImpl::Admit(const AddArgs& args,
                                    const EntryBuffer& body, int64_t* lac,
                                    uint32_t* crc) {
  auto header = entry::ParseHeader(*body);
  if (!header.ok()) {
    return ToAbsl(proto::BK_EBADREQ, header.status().message());
  }
  if (header->ledger_id != args.ledger_id ||
      header->entry_id != args.entry_id) {
    return ToAbsl(
        proto::BK_EBADREQ,
        absl::StrCat("request names ledger ", args.ledger_id, " entry ",
                     args.entry_id, " but the entry's header says ledger ",
                     header->ledger_id, " entry ", header->entry_id));
  }
  auto rules = rules_.Get(args.ledger_id);
  if (!rules.ok()) {
    return absl::IsNotFound(rules.status()) ? NoLedger(args.ledger_id)
                                            : rules.status();
  }
  // The one pass over the bytes on the add path: the journal and entry-log
  // record CRCs are combined from it (crc32c::Combine), the same bytes on
  // disk as a pass of their own. Outside the ledger's mutex.
  *crc = crc32c::Value(body->data(), body->size());
  *lac = header->last_add_confirmed;
  absl::Status s;
  {
    // Held across the write-cache insert so that a fence (which takes the
    // same mutex) happens either before this check or after the entry is
    // visible to the fencing read.
    absl::MutexLock l(&(*rules)->mu);
    s = CheckKeyLocked(args.ledger_id, rules->get(), args.master_key);
    if (s.ok() && (*rules)->fenced && !args.recovery) {
      s = ToAbsl(proto::BK_EFENCED,
                 absl::StrCat("ledger ", args.ledger_id, " is fenced"));
    }
    if (s.ok()) {
      s = storage_->AddEntry(args.ledger_id, args.entry_id, body, *crc);
    }
  }
  // The storage (key or entry) refuses a deleted ledger with NotFound.
  if (absl::IsNotFound(s)) return NoLedger(args.ledger_id);
  return s;
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
    int64_t lac = -1;
    uint32_t crc = 0;
    absl::Status s =
        writable.ok() ? Admit(a.args, a.body, &lac, &crc) : writable;
    if (!s.ok()) {
      refused.push_back(AddOutcome{ledger, a.args.entry_id, std::move(s)});
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
    b->lacs.push_back(lac);
    JournalRecord& r = records[g].emplace_back();
    r.type = RecordType::kEntry;
    r.ledger_id = ledger;
    r.entry_id = a.args.entry_id;
    r.payload = JournalPayload::Of(std::move(a.body));
    r.has_payload_crc = true;
    r.payload_crc = crc;
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

absl::StatusOr<EntryBuffer> BookieStoreImpl::ReadEntry(uint64_t ledger_id,
                                                       int64_t entry_id) {
  auto e = storage_->GetEntry(ledger_id, entry_id);
  if (e.ok() || !absl::IsNotFound(e.status())) return e;
  if (!storage_->LedgerExists(ledger_id)) return NoLedger(ledger_id);
  return ToAbsl(proto::BK_ENOENTRY,
                absl::StrCat("ledger ", ledger_id, " has no entry ", entry_id,
                             " on this bookie"));
}

void BookieStoreImpl::Fence(uint64_t ledger_id, const std::string& master_key,
                            StatusCallback done) {
  auto rules = rules_.Get(ledger_id);
  if (!rules.ok()) {
    return done(absl::IsNotFound(rules.status()) ? NoLedger(ledger_id)
                                                 : rules.status());
  }
  absl::Status s;
  {
    absl::MutexLock l(&(*rules)->mu);
    s = CheckKeyLocked(ledger_id, rules->get(), master_key);
    if (s.ok() && !(*rules)->fenced) {
      // Durable when SetFenced returns; only then is the flag visible to
      // adds, so no writer hears EFENCED before the fence is on disk.
      s = storage_->SetFenced(ledger_id).status();
      if (s.ok()) (*rules)->fenced = true;
    }
  }
  done(s);
}

absl::StatusOr<int64_t> BookieStoreImpl::LastAddConfirmed(uint64_t ledger_id) {
  if (!storage_->LedgerExists(ledger_id)) return NoLedger(ledger_id);
  auto rules = rules_.Get(ledger_id);
  if (!rules.ok()) return rules.status();
  absl::MutexLock l(&(*rules)->mu);
  return (*rules)->lac;
}

void BookieStoreImpl::RaiseLac(uint64_t ledger_id, int64_t lac) {
  std::shared_ptr<LedgerRules> rules = rules_.Find(ledger_id);
  if (rules == nullptr) return;
  std::vector<LacWaiter> ready;
  {
    absl::MutexLock l(&rules->mu);
    if (lac <= rules->lac) return;
    rules->lac = lac;
    auto& w = rules->waiters;
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

void BookieStoreImpl::WaitForLacUpdate(
    uint64_t ledger_id, int64_t previous_lac, absl::Duration timeout,
    std::function<void(absl::StatusOr<int64_t>)> done) {
  if (!storage_->LedgerExists(ledger_id)) return done(NoLedger(ledger_id));
  auto rules = rules_.Get(ledger_id);
  if (!rules.ok()) return done(rules.status());
  int64_t now_lac;
  {
    absl::MutexLock l(&(*rules)->mu);
    now_lac = (*rules)->lac;
    if (now_lac <= previous_lac && !closing_ &&
        timeout > absl::ZeroDuration()) {
      LacWaiter w;
      w.id = next_waiter_id_.fetch_add(1);
      w.previous_lac = previous_lac;
      w.done = std::move(done);
      std::weak_ptr<LedgerRules> weak = *rules;
      const uint64_t id = w.id;
      // Scheduled under the ledger's mutex: the timeout cannot run before
      // the waiter is in the list (it takes the same mutex).
      w.timer_id = timer_.Schedule(absl::Now() + timeout, [weak, id] {
        auto r = weak.lock();
        if (r == nullptr) return;
        std::function<void(absl::StatusOr<int64_t>)> fn;
        int64_t lac;
        {
          absl::MutexLock l(&r->mu);
          auto& ws = r->waiters;
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
      (*rules)->waiters.push_back(std::move(w));
      return;
    }
  }
  done(now_lac);
}

void BookieStoreImpl::WriteLac(uint64_t ledger_id, int64_t lac,
                               const std::string& master_key,
                               StatusCallback done) {
  if (absl::Status s = CheckWritable(); !s.ok()) return done(s);
  auto rules = rules_.Get(ledger_id);
  if (!rules.ok()) return done(rules.status());
  auto encoded = std::make_shared<const std::string>(EncodeLac(lac));
  absl::Status s;
  {
    absl::MutexLock l(&(*rules)->mu);
    s = CheckKeyLocked(ledger_id, rules->get(), master_key);
    if (s.ok() && lac > (*rules)->explicit_lac) {
      s = storage_->SetExplicitLac(ledger_id, *encoded);
      if (s.ok()) (*rules)->explicit_lac = lac;
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
  auto rules = rules_.Get(ledger_id);
  if (!rules.ok()) return rules.status();
  absl::MutexLock l(&(*rules)->mu);
  return (*rules)->explicit_lac;
}

void BookieStoreImpl::ForceLedger(uint64_t ledger_id,
                                  const std::string& master_key,
                                  StatusCallback done) {
  if (!storage_->LedgerExists(ledger_id)) return done(NoLedger(ledger_id));
  auto rules = rules_.Get(ledger_id);
  if (!rules.ok()) return done(rules.status());
  absl::Status s;
  {
    absl::MutexLock l(&(*rules)->mu);
    s = CheckKeyLocked(ledger_id, rules->get(), master_key);
  }
  if (!s.ok()) return done(s);
  // Same journal as every add of this ledger, FIFO: its sync covers them.
  s = journal_->Add(RecordType::kForce, ledger_id, -1, JournalPayload{},
                    [done](absl::Status st) { done(st); });
  if (!s.ok()) done(s);
}

absl::StatusOr<std::vector<int64_t>> BookieStoreImpl::ListEntries(
    uint64_t ledger_id) {
  if (!storage_->LedgerExists(ledger_id)) return NoLedger(ledger_id);
  return storage_->GetListOfEntriesOfLedger(ledger_id);
}

absl::Status BookieStoreImpl::DeleteLedger(uint64_t ledger_id) {
  absl::Status s = storage_->DeleteLedger(ledger_id);
  ForgetLedger(ledger_id);
  return s;
}

void BookieStoreImpl::ForgetLedger(uint64_t ledger_id) {
  std::shared_ptr<LedgerRules> rules = rules_.Take(ledger_id);
  if (rules == nullptr) return;
  // A long poll on a deleted ledger would otherwise wait for its timeout
  // (or, once the rules are freed, never be answered).
  std::vector<LacWaiter> waiters;
  {
    absl::MutexLock l(&rules->mu);
    waiters.swap(rules->waiters);
  }
  for (auto& w : waiters) {
    timer_.Cancel(w.timer_id);
    w.done(NoLedger(ledger_id));
  }
}

StoreStats BookieStoreImpl::Stats() {
  StoreStats st;
  st.adds_in_flight = adds_in_flight_.load(std::memory_order_relaxed);
  st.journal_queue_depth = static_cast<int64_t>(journal_->Stats().queue_depth);
  absl::Status w = CheckWritable();
  st.writable = w.ok();
  if (!w.ok()) st.unwritable_reason = std::string(w.message());
  return st;
}

void BookieStoreImpl::SetReadOnly(bool read_only, const std::string& reason) {
  absl::MutexLock l(&mu_);
  read_only_reason_ = read_only ? reason : "";
  read_only_ = read_only;
}

uint64_t BookieStoreImpl::TakeMark() {
  if (!journal_started_) return 0;  // during replay: nothing to checkpoint
  JournalMark mark = journal_->CurrentMark();
  absl::MutexLock l(&mu_);
  const uint64_t id = next_mark_++;
  marks_[id] = std::move(mark);
  return id;
}

absl::Status BookieStoreImpl::Flushed(uint64_t mark) {
  if (mark == 0) {
    return absl::FailedPreconditionError("no journal mark (during replay)");
  }
  JournalMark m;
  {
    absl::MutexLock l(&mu_);
    auto it = marks_.find(mark);
    if (it == marks_.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("journal mark ", mark, " already passed"));
    }
    m = std::move(it->second);
    marks_.erase(marks_.begin(), std::next(it));
  }
  // A failed checkpoint loses nothing (the journal keeps its files and
  // replays more); the journal records the error itself. The storage keeps
  // the tombstones the checkpoint would have let go.
  return journal_->Checkpoint(m);
}

}  // namespace bk::bookie
