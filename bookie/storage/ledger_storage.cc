#include "bookie/storage/ledger_storage.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/thread_name.h"
#include "proto/crc32c.h"
#include "proto/entry_format.h"

namespace bk::bookie {
namespace {

// The device of the filesystem holding `path`, or its nearest existing
// parent (a journal directory need not exist yet); none when unreadable.
std::optional<uint64_t> DeviceOf(Env* env, std::string path) {
  for (int depth = 0; depth < 256; ++depth) {
    auto st = env->GetFsStats(path.empty() ? "." : path);
    if (st.ok()) return st->device;
    if (path.empty() || path == "/") break;
    const size_t slash = path.find_last_of('/');
    path = slash == std::string::npos ? ""
           : slash == 0               ? "/"
                                      : path.substr(0, slash);
  }
  return std::nullopt;
}

// Whether `dir` is on a filesystem of its own, apart from every journal's
// (flush_entry_log_bytes says why that matters). Unknown counts as shared.
bool ApartFromJournals(Env* env, const std::string& dir,
                       const std::vector<std::string>& journal_dirs) {
  const std::optional<uint64_t> mine = DeviceOf(env, dir);
  if (!mine.has_value()) return false;
  for (const std::string& j : journal_dirs) {
    const std::optional<uint64_t> theirs = DeviceOf(env, j);
    if (!theirs.has_value() || *theirs == *mine) return false;
  }
  return true;
}

}  // namespace

StorageStats& StorageStats::operator+=(const StorageStats& o) {
  added_entries += o.added_entries;
  added_bytes += o.added_bytes;
  throttled_adds += o.throttled_adds;
  rejected_adds += o.rejected_adds;
  write_cache_bytes += o.write_cache_bytes;
  write_cache_entries += o.write_cache_entries;
  read_cache_bytes += o.read_cache_bytes;
  write_cache_hits += o.write_cache_hits;
  read_cache_hits += o.read_cache_hits;
  read_cache_misses += o.read_cache_misses;
  read_ahead_entries += o.read_ahead_entries;
  corrupt_reads += o.corrupt_reads;
  flushes += o.flushes;
  flushed_entries += o.flushed_entries;
  flushed_bytes += o.flushed_bytes;
  entry_log_bytes += o.entry_log_bytes;
  deleted_ledgers += o.deleted_ledgers;
  purged_ledgers += o.purged_ledgers;
  ledger_tombstones += o.ledger_tombstones;
  compacted_logs += o.compacted_logs;
  removed_logs += o.removed_logs;
  compaction_moved_entries += o.compaction_moved_entries;
  compaction_moved_bytes += o.compaction_moved_bytes;
  compaction_reclaimed_bytes += o.compaction_reclaimed_bytes;
  index_writes += o.index_writes;
  index_synced_writes += o.index_synced_writes;
  index_location_records += o.index_location_records;
  index_overlap_reads += o.index_overlap_reads;
  return *this;
}

LedgerStorage::LedgerStorage(Env* env, const LedgerStorageOptions& options)
    : env_(env), options_(options) {}

absl::StatusOr<std::unique_ptr<LedgerStorage>> LedgerStorage::Open(
    Env* env, const LedgerStorageOptions& options) {
  if (options.ledger_dirs.empty()) {
    return absl::InvalidArgumentError("ledger storage: no ledger_dirs");
  }
  std::unique_ptr<LedgerStorage> st(new LedgerStorage(env, options));
  const uint64_t n = options.ledger_dirs.size();
  for (const std::string& dir : options.ledger_dirs) {
    LedgerDir::Options o;
    o.dir = dir;
    o.write_cache_bytes = options.write_cache_bytes / n;
    o.read_cache_bytes = options.read_cache_bytes / n;
    o.read_ahead_batch_size = options.read_ahead_batch_size;
    o.entry_log_size_limit = options.entry_log_size_limit;
    o.flush_entry_log_bytes = options.flush_entry_log_bytes;
    o.write_behind = options.shares_journal_disk
                         ? !options.shares_journal_disk(dir)
                         : ApartFromJournals(env, dir, options.journal_dirs);
    o.remove_from_page_cache = options.entry_log_remove_from_page_cache;
    o.page_cache_keep_bytes = options.entry_log_page_cache_keep_bytes;
    o.direct_io = options.entry_log_direct_io;
    o.max_throttle_time = options.max_throttle_time;
    o.compaction_rate_bytes_per_second =
        options.compaction_rate_bytes_per_second;
    o.shards = options.cache_shards;
    o.deleted_ledger_retention = options.deleted_ledger_retention;
    LedgerStorage* self = st.get();
    auto d = LedgerDir::Open(env, o, &st->progress_,
                             [self] { self->RequestFlush(); });
    if (!d.ok()) return d.status();
    st->dirs_.push_back(std::move(*d));
  }
  st->dir_full_ = std::make_unique<std::atomic<bool>[]>(st->dirs_.size());
  for (size_t i = 0; i < st->dirs_.size(); ++i) st->dir_full_[i] = false;
  if (options.background_flush) {
    st->flusher_ = std::thread([self = st.get()] {
      SetThreadName("bk-flush");
      self->FlushLoop();
    });
  }
  st->gc_ = std::thread([self = st.get()] {
    SetThreadName("bk-gc");
    self->GcLoop();
  });
  return st;
}

LedgerStorage::~LedgerStorage() { StopThreads(); }

void LedgerStorage::StopThreads() {
  {
    absl::MutexLock l(&mu_);
    stopping_ = true;
  }
  if (flusher_.joinable()) flusher_.join();
  if (gc_.joinable()) gc_.join();
}

LedgerDir* LedgerStorage::KnownDirOf(uint64_t ledger_id) const {
  const size_t n = dirs_.size();
  const size_t home = ledger_id % n;
  for (size_t i = 0; i < n; ++i) {
    LedgerDir* d = dirs_[(home + i) % n].get();
    if (d->states().Find(ledger_id) != nullptr) return d;
  }
  return nullptr;
}

LedgerDir& LedgerStorage::DirOf(uint64_t ledger_id) const {
  if (dirs_.size() == 1) return *dirs_[0];
  LedgerDir* known = KnownDirOf(ledger_id);
  return known != nullptr ? *known : *dirs_[ledger_id % dirs_.size()];
}

absl::StatusOr<std::shared_ptr<LedgerSlot>> LedgerStorage::FindOrPlace(
    uint64_t ledger_id, bool* created) {
  if (dirs_.size() == 1) {
    return dirs_[0]->states().FindOrCreate(ledger_id, created);
  }
  if (LedgerDir* known = KnownDirOf(ledger_id)) {
    return known->states().FindOrCreate(ledger_id, created);
  }
  // A new ledger: its home directory (id % dirs) unless that is full, then
  // the next one that is not (the home one when all are). Made known there
  // under placement_mu_, so that a concurrent first add of the same ledger
  // finds it rather than choosing again.
  absl::MutexLock l(&placement_mu_);
  if (LedgerDir* known = KnownDirOf(ledger_id)) {
    return known->states().FindOrCreate(ledger_id, created);
  }
  const size_t n = dirs_.size();
  const size_t home = ledger_id % n;
  size_t chosen = home;
  for (size_t i = 0; i < n; ++i) {
    const size_t d = (home + i) % n;
    if (!dir_full_[d].load(std::memory_order_acquire)) {
      chosen = d;
      break;
    }
  }
  return dirs_[chosen]->states().FindOrCreate(ledger_id, created);
}

LedgerDir& LedgerStorage::DirForWrite(uint64_t ledger_id) {
  // Unknown: placed (and made known) first; a deleted ledger stays where
  // it is known, and its AddEntry refuses.
  FindOrPlace(ledger_id, nullptr).IgnoreError();
  return DirOf(ledger_id);
}

void LedgerStorage::SetDirFull(size_t dir_index, bool full) {
  if (dir_index < dirs_.size()) {
    dir_full_[dir_index].store(full, std::memory_order_release);
  }
}

void LedgerStorage::RequestFlush() {
  absl::MutexLock l(&mu_);
  flush_requested_ = true;
}

void LedgerStorage::FlushLoop() {
  while (true) {
    {
      absl::MutexLock l(&mu_);
      auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return flush_requested_ || stopping_;
      };
      mu_.AwaitWithTimeout(absl::Condition(&wake), options_.flush_interval);
      if (stopping_) return;
      flush_requested_ = false;
    }
    // A failure is sticky in the directory that had it; adds report it.
    Flush().IgnoreError();
  }
}

void LedgerStorage::GcLoop() {
  // Compaction intervals run on the Env's clock, so a test can let hours
  // pass at once (test/support/clock_env.h); the wait between passes,
  // gc_wait_time, is a real one (0: wait for RequestGc only).
  const absl::Duration wait = options_.gc_wait_time > absl::ZeroDuration()
                                  ? options_.gc_wait_time
                                  : absl::InfiniteDuration();
  int64_t last_minor = env_->NowMonotonicNanos(), last_major = last_minor;
  while (true) {
    DeletedLedgerFilterFactory make_filter;
    bool forced, force_major, force_minor;
    double threshold = 0;  // only dead logs
    bool major = false, minor = false;
    int64_t now;
    {
      absl::MutexLock l(&mu_);
      auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || gc_requested_;
      };
      mu_.AwaitWithTimeout(absl::Condition(&wake), wait);
      if (stopping_) return;
      forced = gc_requested_;
      force_major = gc_force_major_;
      force_minor = gc_force_minor_;
      gc_requested_ = gc_force_major_ = gc_force_minor_ = false;
      make_filter = make_filter_;
      now = env_->NowMonotonicNanos();
      if (force_major || absl::Nanoseconds(now - last_major) >=
                             options_.major_compaction_interval) {
        major = true;
      } else if (force_minor || absl::Nanoseconds(now - last_minor) >=
                                    options_.minor_compaction_interval) {
        minor = true;
      }
      gc_status_.running = true;
      gc_status_.major_compacting = major;
      gc_status_.minor_compacting = minor;
    }
    if (major) {
      threshold = options_.major_compaction_threshold;
      last_major = last_minor = now;
    } else if (minor) {
      threshold = options_.minor_compaction_threshold;
      last_minor = now;
    }
    // Outside mu_: a filter may read the metadata store.
    LedgerDeletedFn deleted = make_filter ? make_filter() : nullptr;
    RunGc(deleted, threshold).IgnoreError();  // retried next round
    absl::MutexLock l(&mu_);
    const int64_t done_ms = absl::ToUnixMillis(absl::Now());
    gc_status_.running = gc_status_.major_compacting =
        gc_status_.minor_compacting = false;
    ++gc_status_.passes;
    if (forced) ++gc_status_.forced_passes;
    if (major) {
      ++gc_status_.major_compactions;
      gc_status_.last_major_compaction_ms = done_ms;
    } else if (minor) {
      ++gc_status_.minor_compactions;
      gc_status_.last_minor_compaction_ms = done_ms;
    }
    // A request made during this pass asks for another one.
    gc_status_.force_requested = gc_requested_;
  }
}

void LedgerStorage::RequestGc(bool force_major, bool force_minor) {
  absl::MutexLock l(&mu_);
  gc_requested_ = true;
  gc_force_major_ |= force_major;
  gc_force_minor_ |= force_minor;
  gc_status_.force_requested = true;
}

GcStatus LedgerStorage::GetGcStatus() const {
  absl::MutexLock l(&mu_);
  return gc_status_;
}

absl::Status LedgerStorage::AddEntry(uint64_t ledger_id, int64_t entry_id,
                                     EntryBuffer entry) {
  if (entry == nullptr) return absl::InvalidArgumentError("null entry");
  const uint32_t crc = crc32c::Value(entry->data(), entry->size());
  return DirForWrite(ledger_id).AddEntry(ledger_id, entry_id, entry, crc);
}

absl::Status LedgerStorage::AddEntry(uint64_t ledger_id, int64_t entry_id,
                                     EntryBuffer entry, uint32_t entry_crc) {
  if (entry == nullptr) return absl::InvalidArgumentError("null entry");
  return DirForWrite(ledger_id).AddEntry(ledger_id, entry_id, entry, entry_crc);
}

absl::StatusOr<EntryBuffer> LedgerStorage::GetEntry(uint64_t ledger_id,
                                                    int64_t entry_id) {
  return DirOf(ledger_id).GetEntry(ledger_id, entry_id);
}

absl::StatusOr<int64_t> LedgerStorage::GetLastEntryId(uint64_t ledger_id) {
  return DirOf(ledger_id).GetLastEntryId(ledger_id);
}

absl::StatusOr<int64_t> LedgerStorage::GetLastAddConfirmed(uint64_t ledger_id) {
  auto last = GetEntry(ledger_id, kLastEntry);
  if (!last.ok()) return last.status();
  auto header = entry::ParseHeader(**last);
  if (!header.ok()) return header.status();
  return header->last_add_confirmed;
}

absl::StatusOr<std::vector<int64_t>> LedgerStorage::GetListOfEntriesOfLedger(
    uint64_t ledger_id, int64_t first_entry_id, size_t max_entries) {
  return DirOf(ledger_id).ListEntries(ledger_id, first_entry_id, max_entries);
}

bool LedgerStorage::LedgerExists(uint64_t ledger_id) {
  return DirOf(ledger_id).states().Exists(ledger_id);
}

std::shared_ptr<LedgerSlot> LedgerStorage::FindLedger(uint64_t ledger_id) {
  return DirOf(ledger_id).states().Find(ledger_id);
}

absl::StatusOr<std::shared_ptr<LedgerSlot>> LedgerStorage::FindOrCreateLedger(
    uint64_t ledger_id, bool* created) {
  return FindOrPlace(ledger_id, created);
}

void LedgerStorage::LedgerStateChanged(const LedgerSlot& slot) {
  DirOf(slot.ledger_id).states().Changed(slot);
}

std::vector<std::shared_ptr<LedgerSlot>> LedgerStorage::AllLedgers() {
  std::vector<std::shared_ptr<LedgerSlot>> out;
  for (auto& d : dirs_) {
    std::vector<std::shared_ptr<LedgerSlot>> some = d->states().All();
    out.insert(out.end(), some.begin(), some.end());
  }
  return out;
}

absl::Status LedgerStorage::DeleteLedger(uint64_t ledger_id) {
  return DirOf(ledger_id).DeleteLedger(ledger_id);
}

void LedgerStorage::SetCheckpointHooks(CheckpointHooks hooks) {
  // No flush runs meanwhile: the ones before had no journal checkpoint, so
  // they must not let a tombstone go.
  absl::MutexLock f(&flush_mu_);
  absl::MutexLock l(&mu_);
  hooks_ = std::move(hooks);
  hooks_set_ = true;
  progress_.ResetCheckpointed();
}

absl::Status LedgerStorage::Flush() {
  absl::MutexLock f(&flush_mu_);
  CheckpointHooks hooks;
  bool hooks_set;
  {
    absl::MutexLock l(&mu_);
    hooks = hooks_;
    hooks_set = hooks_set_;
  }
  // Before the mark and before any swap (flush_progress.h).
  const uint64_t gen = progress_.Begin();
  const uint64_t mark = hooks.take_mark ? hooks.take_mark() : 0;
  absl::Status first;
  const int64_t start = env_->NowMonotonicNanos();
  for (auto& d : dirs_) {
    absl::Status s = d->Flush();
    if (first.ok()) first = s;
  }
  flush_busy_nanos_.fetch_add(
      static_cast<uint64_t>(env_->NowMonotonicNanos() - start),
      std::memory_order_relaxed);
  if (!first.ok()) return first;
  absl::Status checkpoint;
  if (hooks.flushed) checkpoint = hooks.flushed(mark);
  // Without a journal there is nothing to replay: the flush is enough.
  // With one, only a real mark that became the checkpoint counts.
  const bool checkpointed =
      hooks_set ? (mark != 0 && hooks.flushed && checkpoint.ok()) : true;
  if (checkpointed) progress_.Checkpointed(gen);
  return first;
}

absl::Status LedgerStorage::Close() {
  absl::Status s = Flush();
  StopThreads();
  return s;
}

absl::Status LedgerStorage::writable() const {
  for (const auto& d : dirs_) {
    if (absl::Status s = d->writable(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<GcResult> LedgerStorage::RunGc(const LedgerDeletedFn& deleted,
                                              double threshold) {
  LedgerRemovedFn removed;
  {
    absl::MutexLock l(&mu_);
    removed = removed_fn_;
  }
  GcResult total;
  absl::Status first;
  for (auto& d : dirs_) {
    auto r = d->CollectGarbage(deleted, threshold, removed);
    if (r.ok()) {
      total += *r;
    } else if (first.ok()) {
      first = r.status();
    }
  }
  if (!first.ok()) return first;
  return total;
}

void LedgerStorage::SetDeletedLedgerFilter(
    DeletedLedgerFilterFactory make_filter) {
  absl::MutexLock l(&mu_);
  make_filter_ = std::move(make_filter);
}

void LedgerStorage::SetLedgerRemovedListener(LedgerRemovedFn removed) {
  absl::MutexLock l(&mu_);
  removed_fn_ = std::move(removed);
}

StorageStats LedgerStorage::GetStats() const {
  StorageStats total;
  for (const auto& d : dirs_) total += d->stats();
  total.flush_busy_nanos = flush_busy_nanos_.load(std::memory_order_relaxed);
  return total;
}

}  // namespace bk::bookie
