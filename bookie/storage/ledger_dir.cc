#include "bookie/storage/ledger_dir.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"

namespace bk::bookie {

LedgerDir::LedgerDir(Env* env, const Options& options,
                     const FlushProgress* progress,
                     std::function<void()> request_flush)
    : env_(env),
      options_(options),
      progress_(progress),
      request_flush_(std::move(request_flush)) {}

LedgerDir::~LedgerDir() = default;

absl::StatusOr<std::unique_ptr<LedgerDir>> LedgerDir::Open(
    Env* env, const Options& options, const FlushProgress* progress,
    std::function<void()> request_flush) {
  if (absl::Status s = env->CreateDirRecursive(options.dir); !s.ok()) return s;
  std::unique_ptr<LedgerDir> d(
      new LedgerDir(env, options, progress, std::move(request_flush)));
  auto index = LedgerIndex::Open(absl::StrCat(options.dir, "/index"));
  if (!index.ok()) return index.status();
  d->index_ = std::move(*index);
  d->states_ =
      std::make_unique<LedgerStateTable>(d->index_.get(), options.shards);
  if (absl::Status s = d->states_->Load(); !s.ok()) return s;
  // Tombstones from before the restart: the retention starts again, and the
  // first checkpointed flush of this process is past their journal records.
  for (uint64_t id : d->states_->DeletedLedgers()) {
    d->tombstones_.Add(
        id, [progress] { return progress->started(); },
        [env] { return env->NowMonotonicNanos(); });
  }

  absl::MutexLock w(&d->write_mu_);
  uint64_t max_meta_id = 0;
  // The callback runs inside ForEachLogMetadata, under write_mu_.
  absl::Status s = d->index_->ForEachLogMetadata(
      [&](uint64_t id, absl::string_view bytes)
          ABSL_EXCLUSIVE_LOCKS_REQUIRED(d->write_mu_) -> absl::Status {
            auto meta = logmeta::Decode(bytes);
            if (!meta.ok()) {
              return absl::DataLossError(absl::StrCat("entry log ", id, ": ",
                                                      meta.status().message()));
            }
            d->log_meta_[id] = std::move(*meta);
            max_meta_id = std::max(max_meta_id, id);
            return absl::OkStatus();
          });
  if (!s.ok()) return s;
  auto logger =
      EntryLogger::Open(env, options.dir, options.entry_log_size_limit,
                        max_meta_id + 1, options.remove_from_page_cache,
                        options.page_cache_keep_bytes, options.direct_io);
  if (!logger.ok()) return logger.status();
  d->logger_ = std::move(*logger);
  auto ids = d->logger_->ListLogs();
  if (!ids.ok()) return ids.status();
  const std::set<uint64_t> on_disk(ids->begin(), ids->end());
  for (const auto& [id, meta] : d->log_meta_) {
    if (!on_disk.contains(id)) {
      return absl::DataLossError(absl::StrCat(
          "ledger dir ", options.dir, ": the index refers to entry log ",
          entrylog::LogFileName(id),
          " which is missing; its entries are lost. Restore the file or "
          "re-replicate the ledgers of this bookie and reformat the dir."));
    }
  }
  // A log without metadata was never referred to by a committed batch.
  for (uint64_t id : on_disk) {
    if (!d->log_meta_.contains(id)) {
      if (absl::Status r = d->logger_->Remove(id); !r.ok()) return r;
    }
  }
  d->write_cache_ =
      std::make_unique<WriteCache>(options.write_cache_bytes, options.shards);
  d->read_cache_ = std::make_unique<ReadCache>(options.read_cache_bytes);
  return d;
}

absl::Status LedgerDir::Break(const absl::Status& cause) {
  absl::MutexLock l(&broken_mu_);
  if (broken_.ok()) {
    broken_ = absl::Status(
        cause.code(),
        absl::StrCat("ledger dir ", options_.dir,
                     " is not writable after an I/O error (restart to "
                     "recover from the journal): ",
                     cause.message()));
    is_broken_.store(true);
  }
  {
    absl::MutexLock t(&throttle_mu_);  // wake throttled adds
    ++swap_gen_;
  }
  return broken_;
}

absl::Status LedgerDir::writable() const {
  if (!is_broken_.load()) return absl::OkStatus();
  absl::MutexLock l(&broken_mu_);
  return broken_;
}

absl::Status LedgerDir::AddEntry(uint64_t ledger_id, int64_t entry_id,
                                 const EntryBuffer& data, uint32_t data_crc) {
  if (absl::Status s = writable(); !s.ok()) return s;
  if (entry_id < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad entry id ", entry_id, " for ledger ", ledger_id));
  }
  // An unknown ledger becomes known (replay, or a storage without the
  // request layer); a deleted one refuses the add.
  if (absl::Status s = states_->FindOrCreate(ledger_id).status(); !s.ok()) {
    return s;
  }
  uint64_t gen;
  {
    absl::MutexLock t(&throttle_mu_);
    gen = swap_gen_;
  }
  if (!write_cache_->Put(ledger_id, entry_id, data, data_crc)) {
    counters_.throttled_adds.fetch_add(1);
    // The deadline is on the Env's clock; the wait for a swap is real.
    const int64_t deadline =
        env_->NowMonotonicNanos() +
        absl::ToInt64Nanoseconds(options_.max_throttle_time);
    while (true) {
      request_flush_();
      {
        absl::MutexLock t(&throttle_mu_);
        auto moved = [this, gen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(throttle_mu_) {
          return swap_gen_ != gen;
        };
        throttle_mu_.AwaitWithTimeout(
            absl::Condition(&moved),
            absl::Nanoseconds(deadline - env_->NowMonotonicNanos()));
        gen = swap_gen_;
      }
      if (absl::Status s = writable(); !s.ok()) return s;
      if (write_cache_->Put(ledger_id, entry_id, data, data_crc)) break;
      if (env_->NowMonotonicNanos() >= deadline) {
        counters_.rejected_adds.fetch_add(1);
        return absl::ResourceExhaustedError(
            absl::StrCat("write cache of ", options_.dir, " full for ",
                         absl::FormatDuration(options_.max_throttle_time),
                         " (flush not keeping up)"));
      }
    }
  }
  counters_.added_entries.fetch_add(1);
  counters_.added_bytes.fetch_add(data->size());
  // Ask for the flush before the active half is full, once per half: an
  // idle flusher then swaps while the half still has room, and no add
  // waits for it. Waiting only for a full half put one add per flush (and
  // every add behind it on its stream) behind the flusher's wake-up and
  // swap, which set the tail of add latency at half of a local cluster's
  // peak rate (bench/results/bkbench_write.md, 2026-12-04).
  if (write_cache_->active_bytes() >= write_cache_->half_capacity() /
                                          kEarlyFlushDenominator *
                                          kEarlyFlushNumerator &&
      early_flush_gen_.exchange(gen) != gen) {
    request_flush_();
  }
  return absl::OkStatus();
}

absl::Status LedgerDir::Flush() {
  absl::MutexLock f(&flush_mu_);
  if (absl::Status s = writable(); !s.ok()) return s;
  write_cache_->Swap();
  {
    absl::MutexLock t(&throttle_mu_);
    ++swap_gen_;
  }
  write_cache_->SnapshotFlushing(&flush_items_);
  {
    absl::MutexLock w(&write_mu_);
    std::vector<EntryLogItem>& items = flush_log_items_;
    items.clear();
    uint64_t bytes = 0;
    // The items come in runs of one ledger (sorted by ledger, then entry).
    for (size_t i = 0; i < flush_items_.size();) {
      const uint64_t ledger = flush_items_[i].ledger_id;
      size_t end = i + 1;
      while (end < flush_items_.size() &&
             flush_items_[end].ledger_id == ledger) {
        ++end;
      }
      // Deleted meanwhile, or deleted and purged (a stray entry whose add
      // raced with the deletion): never indexed.
      if (states_->Exists(ledger)) {
        for (; i < end; ++i) {
          const WriteCache::Item& it = flush_items_[i];
          items.push_back({ledger, it.entry_id, it.data, true, it.data_crc});
          bytes += it.data.size();
        }
      }
      i = end;
    }
    std::vector<EntryLocation>& locations = flush_locations_;
    locations.resize(items.size());
    // The log must be durable before any index record points into it: the
    // sync after the last step is that one. Each step before it is synced
    // (on a journal's disk: the journals then have the disk between steps)
    // or written behind (EntryLogWriter::WriteBehind: the disk writes it
    // while the next one is copied); see flush_entry_log_bytes.
    absl::Status s;
    for (size_t i = 0; i < items.size() && s.ok();) {
      size_t n = 0;
      uint64_t chunk = 0;
      while (i + n < items.size() &&
             (n == 0 || options_.flush_entry_log_bytes == 0 ||
              chunk < options_.flush_entry_log_bytes)) {
        chunk += items[i + n].data.size();
        ++n;
      }
      s = logger_->Append(absl::MakeConstSpan(items).subspan(i, n),
                          absl::MakeSpan(locations).subspan(i, n));
      i += n;
      if (s.ok()) {
        s = i < items.size() && options_.write_behind ? logger_->WriteBehind()
                                                      : logger_->Sync();
      }
    }
    if (!s.ok()) return Break(s);
    auto batch = index_->NewBatch();
    std::set<uint64_t> touched;
    std::vector<LocatedEntry> located;  // of one ledger (items are sorted)
    // A ledger's records in one log: added to that log's metadata at once.
    uint64_t run_bytes = 0, run_end = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      const uint64_t rec = entrylog::kRecordHeaderSize + items[i].data.size();
      located.push_back(
          {static_cast<uint64_t>(items[i].entry_id), locations[i]});
      run_bytes += rec;
      run_end = std::max(run_end, locations[i].offset + rec);
      const bool ledger_ends =
          i + 1 == items.size() || items[i + 1].ledger_id != items[i].ledger_id;
      if (ledger_ends) {
        s = IndexFlushed(batch.get(), items[i].ledger_id, located);
        if (!s.ok()) return Break(s);
        located.clear();
      }
      if (ledger_ends || locations[i + 1].log_id != locations[i].log_id) {
        const uint64_t log_id = locations[i].log_id;
        log_meta_[log_id].Add(items[i].ledger_id, run_bytes, run_end);
        touched.insert(log_id);
        run_bytes = run_end = 0;
      }
    }
    for (uint64_t id : touched) {
      batch->PutLogMetadata(id, logmeta::Encode(log_meta_[id]));
    }
    // Ledger states changed since the last flush (fences, master keys,
    // explicit LACs, new ledgers), recorded before the owner's checkpoint
    // mark was taken: the journal may drop their records once this batch
    // is synced.
    states_->TakeChanged(batch.get());
    if (batch->count() > 0) {
      s = index_->Commit(batch.get(), /*sync=*/true);
      if (!s.ok()) return Break(s);
    }
    counters_.flushed_entries.fetch_add(items.size());
    counters_.flushed_bytes.fetch_add(bytes);
  }
  write_cache_->ClearFlushing();
  flush_items_.clear();
  flush_log_items_.clear();  // they viewed the half just cleared
  counters_.flushes.fetch_add(1);
  return absl::OkStatus();
}

absl::Status LedgerDir::IndexFlushed(IndexBatch* batch, uint64_t ledger_id,
                                     absl::Span<const LocatedEntry> entries) {
  auto it = indexed_last_.find(ledger_id);
  if (it == indexed_last_.end()) {
    auto last = index_->GetLastEntryId(ledger_id);
    if (!last.ok()) return last.status();
    if (indexed_last_.size() >= kMaxIndexedLast) indexed_last_.clear();
    it = indexed_last_.emplace(ledger_id, *last).first;
  }
  const int64_t first = static_cast<int64_t>(entries.front().entry);
  const int64_t last = static_cast<int64_t>(entries.back().entry);
  // Raised before the commit: if it fails, the directory is broken; a
  // mark above the index only costs a read.
  const bool may_overlap = first <= it->second;
  it->second = std::max(it->second, last);
  return index_->PutLocations(batch, ledger_id, entries, may_overlap);
}

absl::Status LedgerDir::DeleteLedger(uint64_t ledger_id) {
  std::shared_ptr<LedgerSlot> slot = states_->Find(ledger_id);
  if (slot == nullptr) return absl::OkStatus();
  // The ledger's lock before the write lock (ledger_slot.h): an add that
  // holds it while throttled waits for a flush, which needs neither.
  absl::MutexLock l(&slot->mu);
  if (slot->state.deleted) return absl::OkStatus();
  absl::MutexLock w(&write_mu_);
  // Locations first: a failure in between leaves a live ledger without
  // entries, never a deleted one that the index still points into.
  indexed_last_.erase(ledger_id);
  if (absl::Status s = index_->DeleteLocations(ledger_id); !s.ok()) return s;
  if (absl::Status s = states_->MarkDeleted(slot.get()); !s.ok()) return s;
  read_cache_->DropLedger(ledger_id);
  tombstones_.Add(
      ledger_id, [this] { return progress_->started(); },
      [this] { return env_->NowMonotonicNanos(); });
  counters_.deleted_ledgers.fetch_add(1);
  return absl::OkStatus();
}

uint64_t LedgerDir::write_cache_active_bytes() const {
  return write_cache_->active_bytes();
}

uint64_t LedgerDir::write_cache_half_bytes() const {
  return write_cache_->half_capacity();
}

StorageStats LedgerDir::stats() const {
  StorageStats s;
  const Counters& c = counters_;
  s.added_entries = c.added_entries.load();
  s.added_bytes = c.added_bytes.load();
  s.throttled_adds = c.throttled_adds.load();
  s.rejected_adds = c.rejected_adds.load();
  s.write_cache_bytes =
      write_cache_->active_bytes() + write_cache_->flushing_bytes();
  s.write_cache_entries = write_cache_->entry_count();
  s.read_cache_bytes = read_cache_->bytes();
  s.write_cache_hits = c.write_cache_hits.load();
  s.read_cache_hits = c.read_cache_hits.load();
  s.read_cache_misses = c.read_cache_misses.load();
  s.read_ahead_entries = c.read_ahead_entries.load();
  s.corrupt_reads = c.corrupt_reads.load();
  s.flushes = c.flushes.load();
  s.flushed_entries = c.flushed_entries.load();
  s.flushed_bytes = c.flushed_bytes.load();
  s.entry_log_bytes = logger_->total_bytes();
  s.deleted_ledgers = c.deleted_ledgers.load();
  s.purged_ledgers = c.purged_ledgers.load();
  s.ledger_tombstones = tombstones_.size();
  s.compacted_logs = c.compacted_logs.load();
  s.removed_logs = c.removed_logs.load();
  s.compaction_moved_entries = c.moved_entries.load();
  s.compaction_moved_bytes = c.moved_bytes.load();
  s.compaction_reclaimed_bytes = c.reclaimed_bytes.load();
  s.index_writes = index_->writes();
  s.index_synced_writes = index_->synced_writes();
  s.index_location_records = index_->location_records();
  s.index_overlap_reads = index_->overlap_reads();
  return s;
}

}  // namespace bk::bookie
