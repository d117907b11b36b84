#include "bookie/storage/ledger_index.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/coding.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/write_batch.h"

namespace bk::bookie {
namespace {

using rocksdb::ColumnFamilyHandle;

absl::Status FromRocks(const rocksdb::Status& s, absl::string_view what) {
  if (s.ok()) return absl::OkStatus();
  const std::string msg = absl::StrCat("index ", what, ": ", s.ToString());
  if (s.IsNotFound()) return absl::NotFoundError(msg);
  if (s.IsCorruption()) return absl::DataLossError(msg);
  if (s.IsNoSpace()) return absl::ResourceExhaustedError(msg);
  return absl::InternalError(msg);
}

struct LocationKey {
  char bytes[indexformat::kLocationKeySize];
  LocationKey(uint64_t ledger, uint64_t entry) {
    coding::PutFixed64BE(bytes, ledger);
    coding::PutFixed64BE(bytes + 8, entry);
  }
  rocksdb::Slice slice() const { return {bytes, sizeof(bytes)}; }
};

struct IdKey {
  char bytes[indexformat::kIdKeySize];
  explicit IdKey(uint64_t id) { coding::PutFixed64BE(bytes, id); }
  rocksdb::Slice slice() const { return {bytes, sizeof(bytes)}; }
};

}  // namespace

struct LedgerIndex::Rep {
  std::unique_ptr<rocksdb::DB> db;
  std::vector<ColumnFamilyHandle*> handles;  // default, ledgers, entrylogs
  ColumnFamilyHandle* locations() const { return handles[0]; }
  ColumnFamilyHandle* ledgers() const { return handles[1]; }
  ColumnFamilyHandle* logs() const { return handles[2]; }
  ~Rep() {
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    if (db) db->Close().PermitUncheckedError();
  }
};

IndexBatch::IndexBatch() : batch_(std::make_unique<rocksdb::WriteBatch>()) {}
IndexBatch::~IndexBatch() = default;

void IndexBatch::PutLedgerState(uint64_t ledger_id, absl::string_view enc) {
  batch_
      ->Put(static_cast<ColumnFamilyHandle*>(ledgers_cf_),
            IdKey(ledger_id).slice(), rocksdb::Slice(enc.data(), enc.size()))
      .PermitUncheckedError();
}

void IndexBatch::PutLogMetadata(uint64_t log_id, absl::string_view enc) {
  batch_
      ->Put(static_cast<ColumnFamilyHandle*>(logs_cf_), IdKey(log_id).slice(),
            rocksdb::Slice(enc.data(), enc.size()))
      .PermitUncheckedError();
}

void IndexBatch::DeleteLogMetadata(uint64_t log_id) {
  batch_
      ->Delete(static_cast<ColumnFamilyHandle*>(logs_cf_),
               IdKey(log_id).slice())
      .PermitUncheckedError();
}

size_t IndexBatch::count() const { return batch_->Count(); }

LedgerIndex::LedgerIndex(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
LedgerIndex::~LedgerIndex() = default;

absl::StatusOr<std::unique_ptr<LedgerIndex>> LedgerIndex::Open(
    const std::string& path) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  db_options.keep_log_file_num = 4;
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset();  // point lookups are few; ranges matter more
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
      {rocksdb::kDefaultColumnFamilyName, cf},
      {"ledgers", cf},
      {"entrylogs", cf}};
  auto rep = std::make_unique<Rep>();
  rocksdb::DB* db = nullptr;
  rocksdb::Status s =
      rocksdb::DB::Open(db_options, path, cfs, &rep->handles, &db);
  if (!s.ok()) return FromRocks(s, absl::StrCat("open ", path));
  rep->db.reset(db);
  return std::unique_ptr<LedgerIndex>(new LedgerIndex(std::move(rep)));
}

std::unique_ptr<IndexBatch> LedgerIndex::NewBatch() {
  auto b = std::make_unique<IndexBatch>();
  b->locations_cf_ = rep_->locations();
  b->ledgers_cf_ = rep_->ledgers();
  b->logs_cf_ = rep_->logs();
  return b;
}

void LedgerIndex::CountWrite(bool sync) {
  writes_.fetch_add(1, std::memory_order_relaxed);
  if (sync) synced_writes_.fetch_add(1, std::memory_order_relaxed);
}

absl::Status LedgerIndex::Commit(IndexBatch* batch, bool sync) {
  CountWrite(sync);
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  return FromRocks(rep_->db->Write(wo, batch->batch_.get()), "write batch");
}

namespace {

// The ledger and first entry of a locations key (DataLoss on a bad size).
absl::StatusOr<std::pair<uint64_t, uint64_t>> ParseLocationKey(
    const rocksdb::Slice& key) {
  if (key.size() != indexformat::kLocationKeySize) {
    return absl::DataLossError(
        absl::StrCat("index location key has bad size ", key.size()));
  }
  return std::make_pair(coding::GetFixed64BE(key.data()),
                        coding::GetFixed64BE(key.data() + 8));
}

absl::string_view View(const rocksdb::Slice& s) {
  return absl::string_view(s.data(), s.size());
}

// Positions `it` at the record of `ledger_id` that may cover `entry` (the
// last one at or before it), or else at the ledger's first record after
// it, or anywhere past the ledger.
void SeekCovering(rocksdb::Iterator* it, uint64_t ledger_id, uint64_t entry) {
  LocationKey key(ledger_id, entry);
  it->SeekForPrev(key.slice());
  if (it->Valid() && it->key().size() == indexformat::kLocationKeySize &&
      coding::GetFixed64BE(it->key().data()) == ledger_id) {
    return;
  }
  it->Seek(key.slice());
}

}  // namespace

absl::Status LedgerIndex::PutLocations(IndexBatch* batch, uint64_t ledger_id,
                                       absl::Span<const LocatedEntry> entries,
                                       bool may_overlap,
                                       size_t max_run_entries) {
  if (entries.empty()) return absl::OkStatus();
  const uint64_t lo = entries.front().entry;
  const uint64_t hi = entries.back().entry;
  // Records overlapping [lo, hi]: what they hold outside `entries` stays.
  std::vector<uint64_t> replaced;  // their keys
  std::vector<LocatedEntry> held;  // their entries, ascending
  if (may_overlap) {
    overlap_reads_.fetch_add(1, std::memory_order_relaxed);
    std::unique_ptr<rocksdb::Iterator> it(
        rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->locations()));
    for (SeekCovering(it.get(), ledger_id, lo); it->Valid(); it->Next()) {
      auto key = ParseLocationKey(it->key());
      if (!key.ok()) return key.status();
      if (key->first != ledger_id || key->second > hi) break;
      auto run = locrun::RunView::Parse(key->second, View(it->value()));
      if (!run.ok()) return run.status();
      if (run->last() < lo) continue;
      replaced.push_back(key->second);
      run->AppendAll(&held);
    }
    if (!it->status().ok()) return FromRocks(it->status(), "seek locations");
  }

  auto* cf = static_cast<ColumnFamilyHandle*>(batch->locations_cf_);
  auto put = [&](absl::Span<const LocatedEntry> all) {
    for (const auto& [b, e] : locrun::SplitRuns(all, max_run_entries)) {
      const std::string value = locrun::Encode(all.subspan(b, e - b));
      LocationKey key(ledger_id, all[b].entry);
      batch->batch_->Put(cf, key.slice(), value).PermitUncheckedError();
      location_records_.fetch_add(1, std::memory_order_relaxed);
    }
  };
  // Deletes first: a kept piece may start at a replaced record's key.
  for (uint64_t first : replaced) {
    LocationKey key(ledger_id, first);
    batch->batch_->Delete(cf, key.slice()).PermitUncheckedError();
  }
  if (!held.empty()) {
    std::vector<LocatedEntry> kept;
    size_t j = 0;
    for (const LocatedEntry& h : held) {
      while (j < entries.size() && entries[j].entry < h.entry) ++j;
      if (j < entries.size() && entries[j].entry == h.entry) continue;
      kept.push_back(h);
    }
    put(kept);
  }
  put(entries);
  return absl::OkStatus();
}

absl::StatusOr<EntryLocation> LedgerIndex::GetLocation(uint64_t ledger_id,
                                                       int64_t entry_id) const {
  return NewLookup()->Get(ledger_id, entry_id);
}

LocationLookup::LocationLookup(std::unique_ptr<rocksdb::Iterator> it)
    : it_(std::move(it)) {}
LocationLookup::~LocationLookup() = default;

absl::StatusOr<EntryLocation> LocationLookup::Get(uint64_t ledger_id,
                                                  int64_t entry_id) {
  const uint64_t entry = static_cast<uint64_t>(entry_id);
  if (!cached_ || ledger_ != ledger_id ||
      !locrun::RunView::Parse(first_, value_)->Covers(entry)) {
    cached_ = false;
    LocationKey key(ledger_id, entry);
    it_->SeekForPrev(key.slice());
    if (!it_->status().ok()) return FromRocks(it_->status(), "get location");
    if (it_->Valid()) {
      auto k = ParseLocationKey(it_->key());
      if (!k.ok()) return k.status();
      auto run = locrun::RunView::Parse(k->second, View(it_->value()));
      if (!run.ok()) return run.status();
      cached_ = true;
      ledger_ = k->first;
      first_ = k->second;
      value_.assign(it_->value().data(), it_->value().size());
    }
  }
  if (cached_ && ledger_ == ledger_id) {
    auto run = locrun::RunView::Parse(first_, value_);
    if (run->Covers(entry)) return run->At(entry);
  }
  return absl::NotFoundError(
      absl::StrCat("no entry ", ledger_id, ":", entry_id));
}

std::unique_ptr<LocationLookup> LedgerIndex::NewLookup() const {
  return std::unique_ptr<LocationLookup>(
      new LocationLookup(std::unique_ptr<rocksdb::Iterator>(
          rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->locations()))));
}

absl::StatusOr<int64_t> LedgerIndex::GetLastEntryId(uint64_t ledger_id) const {
  LocationKey last(ledger_id, std::numeric_limits<int64_t>::max());
  std::unique_ptr<rocksdb::Iterator> it(
      rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->locations()));
  it->SeekForPrev(last.slice());
  if (!it->status().ok()) return FromRocks(it->status(), "seek");
  if (!it->Valid()) return -1;
  auto k = ParseLocationKey(it->key());
  if (!k.ok()) return k.status();
  if (k->first != ledger_id) return -1;
  auto run = locrun::RunView::Parse(k->second, View(it->value()));
  if (!run.ok()) return run.status();
  // Records are disjoint, so the last one holds the highest entry (ids are
  // never negative: LedgerDir refuses them).
  return static_cast<int64_t>(run->last());
}

absl::Status LedgerIndex::ListEntries(uint64_t ledger_id,
                                      int64_t first_entry_id,
                                      size_t max_entries,
                                      std::vector<int64_t>* out) const {
  const uint64_t from =
      static_cast<uint64_t>(std::max<int64_t>(first_entry_id, 0));
  std::unique_ptr<rocksdb::Iterator> it(
      rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->locations()));
  size_t listed = 0;
  for (SeekCovering(it.get(), ledger_id, from);
       it->Valid() && listed < max_entries; it->Next()) {
    auto k = ParseLocationKey(it->key());
    if (!k.ok()) return k.status();
    if (k->first != ledger_id) break;
    auto run = locrun::RunView::Parse(k->second, View(it->value()));
    if (!run.ok()) return run.status();
    for (uint64_t e = std::max(run->first(), from);
         e <= run->last() && listed < max_entries; ++e, ++listed) {
      out->push_back(static_cast<int64_t>(e));
    }
  }
  return FromRocks(it->status(), "list entries");
}

absl::StatusOr<uint64_t> LedgerIndex::CountLocationRecords(
    uint64_t ledger_id) const {
  LocationKey first(ledger_id, 0);
  std::unique_ptr<rocksdb::Iterator> it(
      rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->locations()));
  uint64_t n = 0;
  for (it->Seek(first.slice()); it->Valid(); it->Next()) {
    auto k = ParseLocationKey(it->key());
    if (!k.ok()) return k.status();
    if (k->first != ledger_id) break;
    ++n;
  }
  if (!it->status().ok()) return FromRocks(it->status(), "count locations");
  return n;
}

absl::Status LedgerIndex::DeleteLocations(uint64_t ledger_id) {
  LocationKey first(ledger_id, 0);
  LocationKey limit(ledger_id + 1, 0);
  CountWrite(/*sync=*/true);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(rep_->db->DeleteRange(wo, rep_->locations(), first.slice(),
                                         limit.slice()),
                   "delete ledger locations");
}

absl::Status LedgerIndex::DeleteAllLocations() {
  // Every location key is 16 bytes; 17 bytes of 0xff sort after all.
  const std::string first(indexformat::kLocationKeySize, '\0');
  const std::string limit(indexformat::kLocationKeySize + 1, '\xff');
  CountWrite(/*sync=*/true);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(rep_->db->DeleteRange(wo, rep_->locations(), first, limit),
                   "delete all locations");
}

absl::Status LedgerIndex::PutLedgerState(uint64_t ledger_id,
                                         absl::string_view encoded, bool sync) {
  CountWrite(sync);
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  return FromRocks(
      rep_->db->Put(wo, rep_->ledgers(), IdKey(ledger_id).slice(),
                    rocksdb::Slice(encoded.data(), encoded.size())),
      "put ledger state");
}

absl::Status LedgerIndex::DeleteLedgerState(uint64_t ledger_id, bool sync) {
  CountWrite(sync);
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  return FromRocks(
      rep_->db->Delete(wo, rep_->ledgers(), IdKey(ledger_id).slice()),
      "delete ledger state");
}

namespace {
absl::Status ForEach(
    rocksdb::DB* db, ColumnFamilyHandle* cf,
    const std::function<absl::Status(uint64_t, absl::string_view)>& fn) {
  std::unique_ptr<rocksdb::Iterator> it(
      db->NewIterator(rocksdb::ReadOptions(), cf));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (it->key().size() != indexformat::kIdKeySize) {
      return absl::DataLossError("index: bad key size in " + cf->GetName());
    }
    absl::Status s =
        fn(coding::GetFixed64BE(it->key().data()),
           absl::string_view(it->value().data(), it->value().size()));
    if (!s.ok()) return s;
  }
  return FromRocks(it->status(), "scan");
}
}  // namespace

absl::Status LedgerIndex::ForEachLedgerState(
    const std::function<absl::Status(uint64_t, absl::string_view)>& fn) const {
  return ForEach(rep_->db.get(), rep_->ledgers(), fn);
}

absl::Status LedgerIndex::ForEachLocationRun(
    const std::function<absl::Status(uint64_t, uint64_t,
                                     const absl::StatusOr<locrun::RunView>&)>&
        fn) const {
  std::unique_ptr<rocksdb::Iterator> it(
      rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->locations()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    auto key = ParseLocationKey(it->key());
    if (!key.ok()) return key.status();
    absl::Status s = fn(key->first, key->second,
                        locrun::RunView::Parse(key->second, View(it->value())));
    if (!s.ok()) return s;
  }
  return FromRocks(it->status(), "scan locations");
}

absl::Status LedgerIndex::ForEachLogMetadata(
    const std::function<absl::Status(uint64_t, absl::string_view)>& fn) const {
  return ForEach(rep_->db.get(), rep_->logs(), fn);
}

}  // namespace bk::bookie
