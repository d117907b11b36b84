#include "bookie/storage/ledger_index.h"

#include <limits>

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

void IndexBatch::PutLocation(uint64_t ledger_id, int64_t entry_id,
                             EntryLocation loc) {
  LocationKey key(ledger_id, static_cast<uint64_t>(entry_id));
  char value[indexformat::kLocationValueSize];
  coding::PutFixed64BE(value, loc.log_id);
  coding::PutFixed64BE(value + 8, loc.offset);
  batch_
      ->Put(static_cast<ColumnFamilyHandle*>(locations_cf_), key.slice(),
            rocksdb::Slice(value, sizeof(value)))
      .PermitUncheckedError();
}

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

absl::StatusOr<EntryLocation> LedgerIndex::GetLocation(uint64_t ledger_id,
                                                       int64_t entry_id) const {
  LocationKey key(ledger_id, static_cast<uint64_t>(entry_id));
  rocksdb::PinnableSlice value;
  rocksdb::Status s = rep_->db->Get(rocksdb::ReadOptions(), rep_->locations(),
                                    key.slice(), &value);
  if (s.IsNotFound()) {
    return absl::NotFoundError(
        absl::StrCat("no entry ", ledger_id, ":", entry_id));
  }
  if (!s.ok()) return FromRocks(s, "get location");
  if (value.size() != indexformat::kLocationValueSize) {
    return absl::DataLossError(absl::StrCat("index location of ", ledger_id,
                                            ":", entry_id, " has bad size"));
  }
  return EntryLocation{coding::GetFixed64BE(value.data()),
                       coding::GetFixed64BE(value.data() + 8)};
}

absl::StatusOr<int64_t> LedgerIndex::GetLastEntryId(uint64_t ledger_id) const {
  LocationKey last(ledger_id, std::numeric_limits<int64_t>::max());
  std::unique_ptr<rocksdb::Iterator> it(
      rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->locations()));
  it->SeekForPrev(last.slice());
  if (!it->status().ok()) return FromRocks(it->status(), "seek");
  if (!it->Valid() || it->key().size() != indexformat::kLocationKeySize ||
      coding::GetFixed64BE(it->key().data()) != ledger_id) {
    return -1;
  }
  return static_cast<int64_t>(coding::GetFixed64BE(it->key().data() + 8));
}

absl::Status LedgerIndex::ListEntries(uint64_t ledger_id,
                                      int64_t first_entry_id,
                                      size_t max_entries,
                                      std::vector<int64_t>* out) const {
  LocationKey first(ledger_id, std::max<int64_t>(first_entry_id, 0));
  LocationKey limit(ledger_id + 1, 0);
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper = limit.slice();
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      rep_->db->NewIterator(ro, rep_->locations()));
  size_t listed = 0;
  for (it->Seek(first.slice()); it->Valid() && listed < max_entries;
       it->Next(), ++listed) {
    out->push_back(
        static_cast<int64_t>(coding::GetFixed64BE(it->key().data() + 8)));
  }
  return FromRocks(it->status(), "list entries");
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

absl::Status LedgerIndex::ForEachLogMetadata(
    const std::function<absl::Status(uint64_t, absl::string_view)>& fn) const {
  return ForEach(rep_->db.get(), rep_->logs(), fn);
}

}  // namespace bk::bookie
