// BookieStoreImpl: start-up and replay, shutdown, health, checkpoints, and
// the requests that only read or delete.

#include "bookie/engine/bookie_store_impl.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

using journal_format::RecordType;

}  // namespace

absl::StatusOr<std::unique_ptr<BookieStoreImpl>> BookieStoreImpl::Open(
    Env* env, const StoreOptions& options, StartupReport* report) {
  LedgerStorageOptions storage_options = options.storage;
  // Whether a ledger directory shares a filesystem with a journal decides
  // how its flushes write (flush_entry_log_bytes).
  storage_options.journal_dirs = options.journal.dirs;
  auto storage = LedgerStorage::Open(env, storage_options);
  if (!storage.ok()) return storage.status();
  auto journal = std::make_unique<Journal>(env, options.journal);
  std::unique_ptr<BookieStoreImpl> store(
      new BookieStoreImpl(env, std::move(*storage), std::move(journal)));
  BookieStoreImpl* self = store.get();
  self->storage_->SetCheckpointHooks(
      {[self] { return self->TakeMark(); },
       [self](uint64_t mark) { return self->Flushed(mark); }});
  // GC deletes and purges ledgers on its own: answer their long polls.
  self->storage_->SetLedgerRemovedListener(
      [self](uint64_t ledger_id) { self->ForgetLedger(ledger_id); });

  uint64_t replayed_entries = 0;
  auto replay = self->journal_->Replay([&](const JournalRecordView& r) {
    return self->ApplyReplayed(r, &replayed_entries);
  });
  if (!replay.ok()) {
    return absl::Status(
        replay.status().code(),
        absl::StrCat("journal replay refused: ", replay.status().message()));
  }
  absl::Status s = self->journal_->Start();
  if (!s.ok()) return s;
  self->journal_started_ = true;
  // Make the replayed records durable in entry logs and the index, and
  // move the checkpoint past them.
  s = self->storage_->Flush();
  if (!s.ok()) return s;
  if (report != nullptr) {
    report->journal = *replay;
    report->replayed_entries = replayed_entries;
  }
  return store;
}

absl::Status BookieStoreImpl::ApplyReplayed(const JournalRecordView& r,
                                            uint64_t* replayed_entries) {
  absl::Status s;
  switch (r.type) {
    case RecordType::kEntry:
      s = storage_->AddEntry(r.ledger_id, r.entry_id,
                             MakeEntryBuffer(std::string(r.payload)));
      ++*replayed_entries;
      break;
    case RecordType::kFence:
    case RecordType::kMasterKey:
    case RecordType::kExplicitLac: {
      auto slot = storage_->FindOrCreateLedger(r.ledger_id);
      if (!slot.ok()) {
        s = slot.status();
        break;
      }
      LedgerSlot* sl = slot->get();
      absl::MutexLock l(&sl->mu);
      LedgerState& st = sl->state;
      if (r.type == RecordType::kFence) {
        // Durable: it was read back from the journal, and this start's
        // flush writes it to the index before anyone is answered.
        st.fenced = true;
      } else if (r.type == RecordType::kExplicitLac) {
        st.has_explicit_lac = true;
        st.explicit_lac = std::string(r.payload);
      } else if (st.has_master_key) {
        s = MatchKey(r.ledger_id, st.master_key, r.payload);
        break;
      } else {
        st.has_master_key = true;
        st.master_key = std::string(r.payload);
      }
      storage_->LedgerStateChanged(*sl);
      break;
    }
    default:  // kForce: a barrier, nothing to restore
      break;
  }
  // A ledger deleted after the record was journaled stays deleted.
  if (absl::IsNotFound(s)) return absl::OkStatus();
  return s;
}

BookieStoreImpl::BookieStoreImpl(Env* env,
                                 std::unique_ptr<LedgerStorage> storage,
                                 std::unique_ptr<Journal> journal)
    : env_(env), storage_(std::move(storage)), journal_(std::move(journal)) {}

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
  // Nothing will raise a LAC any more.
  AnswerAllLongPolls();
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

absl::StatusOr<EntryBuffer> BookieStoreImpl::ReadEntry(uint64_t ledger_id,
                                                       int64_t entry_id) {
  auto e = storage_->GetEntry(ledger_id, entry_id);
  if (e.ok() || !absl::IsNotFound(e.status())) return e;
  if (!storage_->LedgerExists(ledger_id)) return NoLedger(ledger_id);
  return ToAbsl(proto::BK_ENOENTRY,
                absl::StrCat("ledger ", ledger_id, " has no entry ", entry_id,
                             " on this bookie"));
}

absl::StatusOr<std::vector<int64_t>> BookieStoreImpl::ListEntries(
    uint64_t ledger_id, int64_t first_entry_id, size_t max_entries) {
  if (!storage_->LedgerExists(ledger_id)) return NoLedger(ledger_id);
  return storage_->GetListOfEntriesOfLedger(ledger_id, first_entry_id,
                                            max_entries);
}

absl::Status BookieStoreImpl::DeleteLedger(uint64_t ledger_id) {
  absl::Status s = storage_->DeleteLedger(ledger_id);
  ForgetLedger(ledger_id);
  return s;
}

StoreStats BookieStoreImpl::Stats() {
  StoreStats st;
  st.adds_in_flight = adds_in_flight_.load(std::memory_order_relaxed);
  st.journal_queue_depth = static_cast<int64_t>(journal_->Stats().queue_depth);
  absl::Status w = CheckWritable();
  st.writable = w.ok();
  if (!w.ok()) st.unwritable_reason = std::string(w.message());
  {
    absl::MutexLock l(&mu_);
    st.checkpoint_failures = checkpoint_failures_;
    if (!checkpoint_error_.ok()) {
      st.checkpoint_error = std::string(checkpoint_error_.message());
    }
  }
  // Only a restart (replay) clears these.
  if (absl::Status s = journal_->status(); !s.ok()) {
    st.healthy = false;
    st.unhealthy_reason = absl::StrCat("journal failed: ", s.message());
  } else if (absl::Status s = storage_->writable(); !s.ok()) {
    st.healthy = false;
    st.unhealthy_reason = absl::StrCat("ledger storage failed: ", s.message());
  } else if (!st.checkpoint_error.empty()) {
    st.healthy = false;
    st.unhealthy_reason =
        absl::StrCat("journal checkpoint failed: ", st.checkpoint_error);
  }
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
  // replays more), but journal files pile up: the first failure is sticky
  // (a failed lastMark sync is never retried), logged once and counted;
  // Stats shows it (/ready, /health). The storage keeps the tombstones the
  // checkpoint would have let go.
  {
    absl::MutexLock l(&mu_);
    if (!checkpoint_error_.ok()) {
      ++checkpoint_failures_;
      return checkpoint_error_;
    }
  }
  absl::Status s = journal_->Checkpoint(m);
  if (s.ok()) return s;
  {
    absl::MutexLock l(&mu_);
    ++checkpoint_failures_;
    if (!checkpoint_error_.ok()) return checkpoint_error_;
    checkpoint_error_ = s;
  }
  log::Get("journal")->error(
      "journal checkpoint failed; no checkpoint is tried again until a "
      "restart, so journal files are kept: {}",
      s.ToString());
  return s;
}

}  // namespace bk::bookie
