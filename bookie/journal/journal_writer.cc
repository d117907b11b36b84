#include "bookie/journal/journal_writer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bookie/journal/journal_format.h"
#include "common/logging.h"
#include "common/thread_name.h"

namespace bk::bookie {

namespace jf = journal_format;

namespace {
// Spare item vectors kept for AddBatch: about as many as batches in
// flight, so that steady traffic allocates none.
constexpr size_t kMaxBatchSpares = 64;
}  // namespace

JournalWriter::JournalWriter(Env* env, std::string dir,
                             const JournalOptions& options,
                             uint64_t first_file_id, JournalPosition checkpoint)
    : env_(env),
      dir_(std::move(dir)),
      options_(options),
      first_file_id_(first_file_id),
      checkpoint_(checkpoint),
      files_(env_, dir_, options_, &counters_),
      completion_(env_, options_.observer),
      sync_(
          env_, &completion_, &counters_, options_.observer,
          [this](const absl::Status& s) {
            Fail(s);
            return status();
          },
          &queue_, options_.remove_from_page_cache && !options_.direct_io,
          options_.max_syncs_in_flight) {}

JournalWriter::~JournalWriter() { Stop(); }

absl::Status JournalWriter::Start() {
  absl::MutexLock l(&lifecycle_mu_);
  if (started_ || stopped_) {
    return absl::FailedPreconditionError("journal writer started twice");
  }
  absl::Status s = OpenNewFile(first_file_id_);
  if (!s.ok()) {
    Fail(s);
    return status();
  }
  started_ = true;
  completion_.Start();
  sync_.Start();
  thread_ = std::thread([this] {
    SetThreadName("bk-journal");
    Run();
  });
  accepting_.store(true, std::memory_order_release);
  return absl::OkStatus();
}

void JournalWriter::Stop() {
  absl::MutexLock l(&lifecycle_mu_);
  if (stopped_) return;
  stopped_ = true;
  accepting_.store(false, std::memory_order_release);
  queue_.Close();
  if (thread_.joinable()) thread_.join();
  sync_.Stop();
  completion_.Stop();
}

absl::Status JournalWriter::Add(jf::RecordType type, uint64_t ledger_id,
                                int64_t entry_id, JournalPayload payload,
                                JournalCallback done) {
  if (failed_.load(std::memory_order_acquire)) return status();
  if (!accepting_.load(std::memory_order_acquire)) {
    return absl::FailedPreconditionError(
        absl::StrCat("journal ", dir_, " is not running"));
  }
  if (!jf::ValidRecordType(static_cast<uint8_t>(type))) {
    return absl::InvalidArgumentError("bad journal record type");
  }
  if (payload.data.size() > jf::kMaxRecordPayloadSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "journal record of ", payload.data.size(),
        " bytes exceeds the limit of ", jf::kMaxRecordPayloadSize));
  }
  JournalItem item;
  // The CRC is computed here, on the producer's thread, so that many
  // producers checksum in parallel and the journal thread only writes.
  jf::EncodeRecordHeader(type, ledger_id, entry_id, payload.data, &item.header);
  item.payload = std::move(payload);
  item.done = std::move(done);
  item.enqueue_nanos = env_->NowMonotonicNanos();
  if (!queue_.Push(std::move(item))) {
    return absl::FailedPreconditionError(
        absl::StrCat("journal ", dir_, " is stopped"));
  }
  return absl::OkStatus();
}

absl::Status JournalWriter::CheckAccepting() const {
  if (failed_.load(std::memory_order_acquire)) return status();
  if (!accepting_.load(std::memory_order_acquire)) {
    return absl::FailedPreconditionError(
        absl::StrCat("journal ", dir_, " is not running"));
  }
  return absl::OkStatus();
}

absl::Status JournalWriter::CheckRecord(jf::RecordType type,
                                        size_t payload_size) {
  if (!jf::ValidRecordType(static_cast<uint8_t>(type))) {
    return absl::InvalidArgumentError("bad journal record type");
  }
  if (payload_size > jf::kMaxRecordPayloadSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "journal record of ", payload_size, " bytes exceeds the limit of ",
        jf::kMaxRecordPayloadSize));
  }
  return absl::OkStatus();
}

absl::Status JournalWriter::AddBatch(std::vector<JournalRecord>* records) {
  if (absl::Status s = CheckAccepting(); !s.ok()) return s;
  for (const JournalRecord& r : *records) {
    if (absl::Status s = CheckRecord(r.type, r.payload.data.size()); !s.ok()) {
      return s;
    }
  }
  std::vector<JournalItem> items;
  {
    absl::MutexLock l(&batch_mu_);
    if (!batch_spares_.empty()) {
      items = std::move(batch_spares_.back());
      batch_spares_.pop_back();
    }
  }
  items.resize(records->size());
  const int64_t now = env_->NowMonotonicNanos();
  for (size_t i = 0; i < records->size(); ++i) {
    JournalRecord& r = (*records)[i];
    JournalItem& item = items[i];
    // CRCs on the producer's thread, as in Add.
    if (r.has_payload_crc) {
      jf::EncodeRecordHeaderWithPayloadCrc(r.type, r.ledger_id, r.entry_id,
                                           r.payload.data.size(), r.payload_crc,
                                           &item.header);
    } else {
      jf::EncodeRecordHeader(r.type, r.ledger_id, r.entry_id, r.payload.data,
                             &item.header);
    }
    item.payload = std::move(r.payload);
    item.done = std::move(r.done);
    item.enqueue_nanos = now;
  }
  absl::Status s;
  if (!queue_.PushAll(&items)) {
    // Closed meanwhile: give everything back, as promised.
    for (size_t i = 0; i < records->size(); ++i) {
      (*records)[i].payload = std::move(items[i].payload);
      (*records)[i].done = std::move(items[i].done);
    }
    items.clear();
    s = absl::FailedPreconditionError(
        absl::StrCat("journal ", dir_, " is stopped"));
  }
  absl::MutexLock l(&batch_mu_);
  if (batch_spares_.size() < kMaxBatchSpares) {
    batch_spares_.push_back(std::move(items));
  }
  return s;
}

JournalPosition JournalWriter::WrittenPosition() const {
  absl::MutexLock l(&position_mu_);
  return written_;
}

absl::Status JournalWriter::status() const {
  absl::MutexLock l(&status_mu_);
  return status_;
}

void JournalWriter::Fail(const absl::Status& s) {
  absl::MutexLock l(&status_mu_);
  if (!status_.ok()) return;
  status_ = absl::Status(
      s.code(), absl::StrCat("journal ", dir_,
                             " stopped taking adds after an I/O error (not "
                             "retried; restart to replay): ",
                             s.message()));
  failed_.store(true, std::memory_order_release);
}

void JournalWriter::Run() {
  std::vector<JournalItem> group = completion_.GetSpare();
  std::vector<JournalItem> incoming = completion_.GetSpare();
  size_t next = 0;  // first item of `incoming` not yet in a group
  uint64_t group_bytes = 0;
  bool closed = false;
  const int64_t max_wait_nanos =
      absl::ToInt64Nanoseconds(options_.max_group_wait);
  const uint64_t max_bytes = options_.buffered_writes_threshold_bytes;
  const uint64_t max_entries = options_.buffered_entries_threshold;
  const bool adaptive = options_.adaptive_group_commit && options_.sync_data;
  auto full = [&] {
    return group_bytes >= max_bytes ||
           (max_entries > 0 && group.size() >= max_entries);
  };
  while (true) {
    if (next == incoming.size()) {
      incoming.clear();
      next = 0;
      absl::Duration timeout = absl::InfiniteDuration();
      if (closed) {
        timeout = absl::ZeroDuration();
      } else if (!group.empty()) {
        const int64_t age =
            env_->NowMonotonicNanos() - group.front().enqueue_nanos;
        timeout = absl::Nanoseconds(std::max<int64_t>(0, max_wait_nanos - age));
      }
      // The sync stage going idle matters only to a group being held.
      closed = queue_.TakeAll(&incoming, timeout, !group.empty()) || closed;
    }
    // Into the group up to the thresholds (BookKeeper's semantics: the
    // record that reaches a threshold ends the group). What is left over
    // starts the next group, so a group is never larger than a threshold by
    // more than one record, and the sync thread syncs a group while the
    // next one is written instead of the two alternating.
    size_t cut = next;
    uint64_t added = 0;
    while (
        cut < incoming.size() &&
        ((group.empty() && cut == next) ||  // at least one record
         (group_bytes + added < max_bytes &&
          (max_entries == 0 || group.size() + (cut - next) < max_entries)))) {
      added += incoming[cut].bytes();
      ++cut;
    }
    const bool consumed = cut == incoming.size();
    if (group.empty() && next == 0 && consumed) {
      group.swap(incoming);  // the common case: no item moves
    } else {
      for (size_t i = next; i < cut; ++i) {
        group.push_back(std::move(incoming[i]));
      }
    }
    if (consumed) {
      incoming.clear();
      next = 0;
    } else {
      next = cut;
    }
    group_bytes += added;
    if (group.empty()) {
      if (closed) break;
      continue;
    }
    const int64_t age = env_->NowMonotonicNanos() - group.front().enqueue_nanos;
    const bool queue_empty = next == 0 && queue_.depth() == 0;
    // Adaptive: nothing more to wait for and a sync could start at once.
    const bool lone = adaptive && queue_empty && sync_.Idle();
    const bool flush = closed || failed_.load(std::memory_order_acquire) ||
                       full() || age >= max_wait_nanos ||
                       (options_.flush_when_queue_empty && queue_empty) || lone;
    if (!flush) continue;
    CommitGroup(&group, group_bytes, lone);
    group = completion_.GetSpare();
    group_bytes = 0;
  }
  sync_.Drain();  // before the file is closed
  if (current_.file != nullptr) {
    if (file_unsynced_ && !failed_.load()) {
      absl::Status s = file()->Sync();
      if (!s.ok()) Fail(s);
      counters_.syncs.fetch_add(1, std::memory_order_relaxed);
    }
    if (!failed_.load()) {
      // Not needed for safety (replay cuts the newest file's stale tail);
      // saves the next start from reporting one.
      absl::Status s = files_.CutStaleTail(current_);
      if (!s.ok()) {
        log::Get("journal")->warn(
            "dir={} cutting the reused file's old tail "
            "at stop failed: {}",
            dir_, s.ToString());
      }
    }
    file()->Close().IgnoreError();  // synced above or already failed
  }
}

void JournalWriter::CommitGroup(std::vector<JournalItem>* group, uint64_t bytes,
                                bool sync_here) {
  absl::Status s = status();
  GroupWriteTiming timing;
  if (s.ok()) {
    s = WriteGroup(*group, bytes, &timing);
    if (!s.ok()) {
      Fail(s);
      s = status();
    }
  }
  if (options_.sync_data) {
    // A lone small group is synced on this thread (sync_thread.h SyncHere):
    // records that arrive meanwhile queue up for the next group, as they
    // would have waited for the next sync anyway.
    if (sync_here && s.ok() && sync_.SyncHere(file(), group, bytes, timing)) {
      return;
    }
    // Failed groups too, so that every group completes in order.
    sync_.Submit(file(), std::move(*group), bytes, timing, std::move(s));
    return;
  }
  if (!s.ok()) {
    counters_.adds_failed.fetch_add(group->size(), std::memory_order_relaxed);
  } else if (options_.observer != nullptr) {
    JournalGroupEvent e;
    e.records = group->size();
    e.bytes = bytes;
    e.write_nanos = timing.write_nanos;
    e.queue_nanos = timing.queue_nanos;
    options_.observer->OnGroup(e);
  }
  completion_.Submit(std::move(*group), std::move(s), timing.written_at);
}

absl::Status JournalWriter::Checkpoint(JournalPosition position) {
  if (position > WrittenPosition()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "journal checkpoint at file ", position.file_id, " offset ",
        position.offset, " is past what the journal ", dir_, " has written"));
  }
  absl::MutexLock l(&checkpoint_mu_);
  if (position <= checkpoint_) return absl::OkStatus();
  absl::Status s = WriteCheckpoint(env_, dir_, position);
  if (!s.ok()) return s;
  checkpoint_ = position;
  return files_.Retire(position.file_id);
}

void JournalWriter::AddStatsTo(JournalStats* stats) const {
  counters_.AddTo(stats);
  stats->queue_depth += queue_.depth();
}

void JournalCounters::AddTo(JournalStats* s) const {
  constexpr auto r = std::memory_order_relaxed;
  s->bytes_written += bytes_written.load(r);
  s->padding_bytes += padding_bytes.load(r);
  s->payload_bytes += payload_bytes.load(r);
  s->payload_bytes_copied += payload_bytes_copied.load(r);
  s->records_written += records_written.load(r);
  s->groups_written += groups_written.load(r);
  s->syncs += syncs.load(r);
  s->sync_nanos_total += sync_nanos_total.load(r);
  s->sync_nanos_max = std::max(s->sync_nanos_max, sync_nanos_max.load(r));
  s->write_nanos_total += write_nanos_total.load(r);
  s->busy_nanos_total += write_nanos_total.load(r) + sync_nanos_total.load(r);
  s->files_created += files_created.load(r);
  s->files_removed += files_removed.load(r);
  s->files_reused += files_reused.load(r);
  s->adds_failed += adds_failed.load(r);
}

}  // namespace bk::bookie
