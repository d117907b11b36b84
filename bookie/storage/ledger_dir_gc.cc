// LedgerDir's garbage collection: deleting ledgers, purging their
// tombstones, removing dead entry logs and compacting sparse ones.
//
// A ledger counts as live only while its state row exists and is not
// deleted: the bytes of a deleted or purged ledger are dead.
//
// Compaction of a log: scan it up to its committed end; copy every record
// that the index still points at (and whose ledger is live) to the current
// log; sync; then, in one synced batch, point the index at the copies (only
// where it still points at the old record), update the metadata of the logs
// involved and drop the old log's metadata; only then remove the old file.
// A crash at any step leaves either the old or the new location indexed,
// both synced.

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/ledger_dir.h"

namespace bk::bookie {
namespace {

struct Move {
  uint64_t ledger_id;
  int64_t entry_id;
  EntryLocation from;
  EntryLocation to;
  uint64_t record_bytes;
};

constexpr uint64_t kCompactionChunkBytes = 1 << 20;

}  // namespace

GcResult& GcResult::operator+=(const GcResult& o) {
  deleted_ledgers += o.deleted_ledgers;
  purged_ledgers += o.purged_ledgers;
  compacted_logs += o.compacted_logs;
  removed_logs += o.removed_logs;
  moved_entries += o.moved_entries;
  moved_bytes += o.moved_bytes;
  reclaimed_bytes += o.reclaimed_bytes;
  return *this;
}

absl::StatusOr<GcResult> LedgerDir::CollectGarbage(
    const LedgerDeletedFn& deleted, double threshold,
    const LedgerRemovedFn& removed) {
  absl::MutexLock g(&gc_mu_);
  GcResult result;
  if (deleted) {
    // Ascending, so that a filter can walk the metadata store's sorted
    // ledger list beside ours instead of holding all of it.
    std::vector<uint64_t> live = states_->LiveLedgers();
    std::sort(live.begin(), live.end());
    for (uint64_t id : live) {
      if (!deleted(id)) continue;
      if (absl::Status s = DeleteLedger(id); !s.ok()) return s;
      ++result.deleted_ledgers;
      if (removed) removed(id);
    }
  }
  auto purged = PurgeTombstones(removed);
  if (!purged.ok()) return purged.status();
  result.purged_ledgers = *purged;
  struct Candidate {
    uint64_t log_id, end_offset, total, live;
  };
  std::vector<Candidate> candidates;
  {
    absl::MutexLock w(&write_mu_);
    const uint64_t current = logger_->current_log_id();
    for (const auto& [id, meta] : log_meta_) {
      if (id == current) continue;
      uint64_t live = 0;
      for (const auto& [ledger, bytes] : meta.ledger_bytes) {
        if (states_->Exists(ledger)) live += bytes;
      }
      candidates.push_back({id, meta.end_offset, meta.total_bytes, live});
    }
  }
  for (const Candidate& c : candidates) {
    if (c.live == 0) {
      if (absl::Status s = RemoveLog(c.log_id); !s.ok()) return s;
      ++result.removed_logs;
      result.reclaimed_bytes += c.total;
      continue;
    }
    const double usage = static_cast<double>(c.live) / c.total;
    if (usage >= threshold) continue;
    auto r = CompactLog(c.log_id, c.end_offset);
    if (!r.ok()) return r.status();
    result += *r;
    result.reclaimed_bytes += c.total - r->moved_bytes;
  }
  counters_.reclaimed_bytes.fetch_add(result.reclaimed_bytes);
  return result;
}

absl::StatusOr<uint64_t> LedgerDir::PurgeTombstones(
    const LedgerRemovedFn& removed) {
  const std::vector<uint64_t> ready = tombstones_.Ready(
      progress_->checkpointed(), env_->NowMonotonicNanos(),
      absl::ToInt64Nanoseconds(options_.deleted_ledger_retention));
  uint64_t purged = 0;
  size_t done = 0;
  absl::Status first;
  for (uint64_t id : ready) {
    auto r = states_->Purge(id);
    if (!r.ok()) {
      first = r.status();  // this one and the rest stay queued
      break;
    }
    ++done;
    if (!*r) continue;
    ++purged;
    if (removed) removed(id);
  }
  tombstones_.Pop(done);
  counters_.purged_ledgers.fetch_add(purged);
  if (!first.ok()) return first;
  return purged;
}

absl::Status LedgerDir::RemoveLog(uint64_t log_id) {
  {
    absl::MutexLock w(&write_mu_);
    if (absl::Status s = writable(); !s.ok()) return s;
    auto batch = index_->NewBatch();
    batch->DeleteLogMetadata(log_id);
    if (absl::Status s = index_->Commit(batch.get(), /*sync=*/true); !s.ok()) {
      return Break(s);
    }
    log_meta_.erase(log_id);
  }
  counters_.removed_logs.fetch_add(1);
  // The metadata is gone, so a crash before this leaves an orphan log that
  // the next Open removes.
  return logger_->Remove(log_id);
}

void LedgerDir::ThrottleIfNeeded(uint64_t* bytes_copied, int64_t start_nanos) {
  const uint64_t rate = options_.compaction_rate_bytes_per_second;
  if (rate == 0) return;
  const double due_seconds = static_cast<double>(*bytes_copied) / rate;
  const double spent_seconds =
      static_cast<double>(env_->NowMonotonicNanos() - start_nanos) / 1e9;
  if (due_seconds > spent_seconds) {
    absl::SleepFor(absl::Seconds(due_seconds - spent_seconds));
  }
}

absl::StatusOr<GcResult> LedgerDir::CompactLog(uint64_t log_id,
                                               uint64_t end_offset) {
  GcResult result;
  auto reader = logger_->Reader(log_id);
  if (!reader.ok()) return reader.status();
  EntryLogScanner scanner(**reader, entrylog::kFileHeaderSize, end_offset);
  std::vector<Move> moves;
  std::vector<EntryBuffer> chunk;
  std::vector<EntryLogItem> items;
  std::vector<EntryLocation> from;
  uint64_t chunk_bytes = 0, copied = 0;
  const int64_t start = env_->NowMonotonicNanos();

  auto append_chunk = [&]() -> absl::Status {
    if (items.empty()) return absl::OkStatus();
    std::vector<EntryLocation> to(items.size());
    absl::MutexLock w(&write_mu_);
    if (absl::Status s = writable(); !s.ok()) return s;
    absl::Status s = logger_->Append(items, absl::MakeSpan(to));
    if (!s.ok()) return Break(s);
    for (size_t i = 0; i < items.size(); ++i) {
      const uint64_t rec = entrylog::kRecordHeaderSize + items[i].data.size();
      // Counted now (the bytes are on disk); attributed to the ledger at
      // commit, when they become live.
      log_meta_[to[i].log_id].total_bytes += rec;
      moves.push_back(
          {items[i].ledger_id, items[i].entry_id, from[i], to[i], rec});
    }
    items.clear();
    chunk.clear();
    from.clear();
    chunk_bytes = 0;
    return absl::OkStatus();
  };

  // A lookup sees the index as it was when made. That is safe here: no
  // index write points into this log any more (it is not the current
  // one), so a record it calls stale is stale; the commit below checks
  // the live ones again. It is made anew after each chunk, so it does not
  // pin old index files across the throttle's sleeps.
  std::unique_ptr<LocationLookup> lookup = index_->NewLookup();
  ScannedRecord rec;
  while (true) {
    auto more = scanner.Next(&rec);
    if (!more.ok()) return more.status();  // corrupt: keep the log
    if (!*more) break;
    if (!states_->Exists(rec.ledger_id)) continue;
    auto loc = lookup->Get(rec.ledger_id, rec.entry_id);
    if (absl::IsNotFound(loc.status())) continue;
    if (!loc.ok()) return loc.status();
    if (!(*loc == EntryLocation{log_id, rec.offset})) continue;  // stale copy
    chunk.push_back(MakeEntryBuffer(std::string(rec.data)));
    items.push_back({rec.ledger_id, rec.entry_id, *chunk.back()});
    from.push_back(*loc);
    chunk_bytes += rec.size();
    copied += rec.size();
    if (chunk_bytes >= kCompactionChunkBytes) {
      lookup.reset();
      if (absl::Status s = append_chunk(); !s.ok()) return s;
      ThrottleIfNeeded(&copied, start);
      lookup = index_->NewLookup();
    }
  }
  if (scanner.torn_tail()) {
    return absl::DataLossError(absl::StrCat("entry log ", log_id,
                                            " ends before its committed end ",
                                            end_offset, "; not compacted"));
  }
  if (absl::Status s = append_chunk(); !s.ok()) return s;

  {
    absl::MutexLock w(&write_mu_);
    if (absl::Status s = logger_->Sync(); !s.ok()) return Break(s);
    auto batch = index_->NewBatch();
    std::set<uint64_t> touched;
    // The log holds each ledger's entries in runs of ascending ids, one
    // run per flush; the index takes one call per ledger, ids ascending.
    std::stable_sort(
        moves.begin(), moves.end(), [](const Move& a, const Move& b) {
          return a.ledger_id != b.ledger_id ? a.ledger_id < b.ledger_id
                                            : a.entry_id < b.entry_id;
        });
    std::vector<LocatedEntry> located;  // of one ledger
    lookup = index_->NewLookup();       // under the lock: the index as is
    for (size_t i = 0; i < moves.size(); ++i) {
      const Move& m = moves[i];
      if (i > 0 && moves[i - 1].ledger_id != m.ledger_id && !located.empty()) {
        // A read error: nothing was committed, the old log stays.
        absl::Status s =
            index_->PutLocations(batch.get(), moves[i - 1].ledger_id, located);
        if (!s.ok()) return s;
        located.clear();
      }
      if (!states_->Exists(m.ledger_id)) continue;
      auto cur = lookup->Get(m.ledger_id, m.entry_id);
      if (!cur.ok() || !(*cur == m.from)) continue;  // changed meanwhile
      located.push_back({static_cast<uint64_t>(m.entry_id), m.to});
      EntryLogMetadata& meta = log_meta_[m.to.log_id];
      meta.ledger_bytes[m.ledger_id] += m.record_bytes;
      meta.end_offset = std::max(meta.end_offset, m.to.offset + m.record_bytes);
      touched.insert(m.to.log_id);
      ++result.moved_entries;
      result.moved_bytes += m.record_bytes;
    }
    if (!located.empty()) {
      absl::Status s =
          index_->PutLocations(batch.get(), moves.back().ledger_id, located);
      if (!s.ok()) return s;
    }
    for (uint64_t id : touched) {
      batch->PutLogMetadata(id, logmeta::Encode(log_meta_[id]));
    }
    batch->DeleteLogMetadata(log_id);
    if (absl::Status s = index_->Commit(batch.get(), /*sync=*/true); !s.ok()) {
      return Break(s);
    }
    log_meta_.erase(log_id);
  }
  if (absl::Status s = logger_->Remove(log_id); !s.ok()) return s;
  result.compacted_logs = 1;
  result.removed_logs = 1;
  counters_.compacted_logs.fetch_add(1);
  counters_.removed_logs.fetch_add(1);
  counters_.moved_entries.fetch_add(result.moved_entries);
  counters_.moved_bytes.fetch_add(result.moved_bytes);
  return result;
}

}  // namespace bk::bookie
