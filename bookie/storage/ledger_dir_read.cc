// LedgerDir's read path: write cache, read cache, then index + entry log
// with read-ahead into the read cache.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/ledger_dir.h"

namespace bk::bookie {
namespace {

// The first pread of a read-ahead: enough for a batch of small entries.
constexpr size_t kReadAheadChunkBytes = 128 << 10;

absl::Status NoEntry(uint64_t ledger_id, int64_t entry_id) {
  return absl::NotFoundError(
      absl::StrCat("no entry ", ledger_id, ":", entry_id));
}

}  // namespace

absl::StatusOr<int64_t> LedgerDir::GetLastEntryId(uint64_t ledger_id) {
  if (states_->IsDeleted(ledger_id)) {
    return absl::NotFoundError(absl::StrCat("ledger ", ledger_id, " deleted"));
  }
  const int64_t cached = write_cache_->LastEntry(ledger_id);
  auto indexed = index_->GetLastEntryId(ledger_id);
  if (!indexed.ok()) return indexed.status();
  return std::max(cached, *indexed);
}

absl::StatusOr<std::vector<int64_t>> LedgerDir::ListEntries(
    uint64_t ledger_id, int64_t first_entry_id, size_t max_entries) {
  if (states_->IsDeleted(ledger_id)) {
    return absl::NotFoundError(absl::StrCat("ledger ", ledger_id, " deleted"));
  }
  std::vector<int64_t> ids;
  // The write cache's ids (bounded by its size) and the index's first
  // max_entries: the first max_entries of their union are the answer.
  write_cache_->ListEntries(ledger_id, &ids);
  ids.erase(std::remove_if(
                ids.begin(), ids.end(),
                [first_entry_id](int64_t id) { return id < first_entry_id; }),
            ids.end());
  if (absl::Status s =
          index_->ListEntries(ledger_id, first_entry_id, max_entries, &ids);
      !s.ok()) {
    return s;
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > max_entries) ids.resize(max_entries);
  return ids;
}

absl::StatusOr<EntryBuffer> LedgerDir::GetEntry(uint64_t ledger_id,
                                                int64_t entry_id) {
  // Unknown (never seen, or purged) or deleted: nothing to serve, not even
  // a stray cached entry of a purged ledger.
  if (!states_->Exists(ledger_id)) return NoEntry(ledger_id, entry_id);
  if (entry_id < 0) {
    auto last = GetLastEntryId(ledger_id);
    if (!last.ok()) return last.status();
    if (*last < 0) return NoEntry(ledger_id, entry_id);
    entry_id = *last;
  }
  if (EntryBuffer b = write_cache_->Get(ledger_id, entry_id)) {
    counters_.write_cache_hits.fetch_add(1);
    return b;
  }
  if (EntryBuffer b = read_cache_->Get(ledger_id, entry_id)) {
    counters_.read_cache_hits.fetch_add(1);
    return b;
  }
  counters_.read_cache_misses.fetch_add(1);
  auto b = ReadFromLog(ledger_id, entry_id);
  if (b.status().code() == absl::StatusCode::kDataLoss) {
    counters_.corrupt_reads.fetch_add(1);
  }
  return b;
}

absl::StatusOr<EntryBuffer> LedgerDir::ReadFromLog(uint64_t ledger_id,
                                                   int64_t entry_id) {
  // Two attempts: compaction may move the entry and remove its old log
  // between our index lookup and our open of that log.
  for (int attempt = 0;; ++attempt) {
    auto loc = index_->GetLocation(ledger_id, entry_id);
    if (!loc.ok()) {
      // The flush may have cleared the cache after we looked there.
      if (EntryBuffer b = read_cache_->Get(ledger_id, entry_id)) return b;
      return loc.status();
    }
    auto reader = logger_->Reader(loc->log_id);
    if (reader.status().code() == absl::StatusCode::kNotFound && attempt == 0) {
      continue;
    }
    if (!reader.ok()) return reader.status();
    if (options_.read_ahead_batch_size <= 1) {
      auto b = (*reader)->Read(loc->offset, ledger_id, entry_id);
      if (!b.ok()) return b;
      return read_cache_->Put(ledger_id, entry_id, **b);
    }
    return ReadAhead(**reader, loc->offset, ledger_id, entry_id);
  }
}

absl::StatusOr<EntryBuffer> LedgerDir::ReadAhead(const EntryLogReader& reader,
                                                 uint64_t offset,
                                                 uint64_t ledger_id,
                                                 int64_t entry_id) {
  EntryLogScanner scanner(reader, offset, UINT64_MAX, kReadAheadChunkBytes);
  ScannedRecord rec;
  auto more = scanner.Next(&rec);
  if (!more.ok()) return more.status();
  if (!*more || rec.offset != offset || rec.ledger_id != ledger_id ||
      rec.entry_id != entry_id) {
    return absl::DataLossError(
        absl::StrCat("entry log ", reader.file().path(), " offset ", offset,
                     ": does not hold entry ", ledger_id, ":", entry_id));
  }
  EntryBuffer wanted = read_cache_->Put(ledger_id, entry_id, rec.data);
  // Records of a flush are sorted by (ledger, entry): this bookie's next
  // entries of the ledger usually follow. They need not be consecutive: a
  // ledger striped over more bookies than its write quorum (E > WQ) leaves
  // every bookie only some of its entries, so a gap in the ids is the
  // entries other bookies hold, and reading goes on past it. Stop at the
  // first record of another ledger, one that does not come after the last
  // (another flush's), or one that fails its checks (it is simply not read
  // ahead).
  const uint64_t budget = read_cache_->capacity() / 4;
  uint64_t bytes = 0;
  int64_t last = entry_id;
  for (int n = 1; n < options_.read_ahead_batch_size && bytes < budget; ++n) {
    more = scanner.Next(&rec);
    if (!more.ok() || !*more || rec.ledger_id != ledger_id ||
        rec.entry_id <= last) {
      break;
    }
    last = rec.entry_id;
    bool inserted = false;
    read_cache_->Put(ledger_id, last, rec.data, &inserted);
    if (inserted) counters_.read_ahead_entries.fetch_add(1);
    bytes += rec.data.size();
  }
  return wanted;
}

}  // namespace bk::bookie
