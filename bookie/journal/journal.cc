#include "bookie/journal/journal.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace bk::bookie {

Journal::Journal(Env* env, JournalOptions options)
    : env_(env), options_(std::move(options)) {}

Journal::~Journal() { Stop(); }

absl::StatusOr<JournalReplayReport> Journal::Replay(const JournalReplayFn& fn) {
  absl::MutexLock l(&mu_);
  if (replayed_) return absl::FailedPreconditionError("journal replayed twice");
  absl::Status s = options_.Validate();
  if (!s.ok()) return s;
  JournalReaderOptions reader_options;
  reader_options.skip_corrupt_records = options_.skip_corrupt_records;
  reader_options.cut_newest_tail_at = options_.cut_newest_tail_at;
  JournalReplayReport report;
  for (const std::string& dir : options_.dirs) {
    auto d = ReplayJournalDir(env_, dir, reader_options, fn);
    if (!d.ok()) return d.status();
    report.records += d->records;
    report.torn_bytes_cut += d->torn_bytes_cut;
    for (const JournalFileReport& f : d->files) {
      report.skipped_ranges += f.skipped.size();
    }
    report.dirs.push_back(*d);
  }
  replayed_dirs_ = report.dirs;
  replayed_ = true;
  return report;
}

absl::Status Journal::Start() {
  absl::MutexLock l(&mu_);
  if (!replayed_) {
    return absl::FailedPreconditionError("journal started before its replay");
  }
  if (!writers_.empty()) {
    return absl::FailedPreconditionError("journal started twice");
  }
  std::vector<std::unique_ptr<JournalWriter>> writers;
  for (const JournalDirReplay& d : replayed_dirs_) {
    auto w = std::make_unique<JournalWriter>(env_, d.dir, options_,
                                             d.next_file_id, d.checkpoint);
    absl::Status s = w->Start();
    if (!s.ok()) return s;  // the started ones stop in their destructors
    writers.push_back(std::move(w));
  }
  writers_ = std::move(writers);
  return absl::OkStatus();
}

absl::Status Journal::Add(journal_format::RecordType type, uint64_t ledger_id,
                          int64_t entry_id, JournalPayload payload,
                          JournalCallback done) {
  if (writers_.empty()) {
    return absl::FailedPreconditionError("journal not started");
  }
  return writers_[DirIndexFor(ledger_id)]->Add(
      type, ledger_id, entry_id, std::move(payload), std::move(done));
}

absl::Status Journal::AddBatch(std::vector<JournalRecord>* records) {
  if (writers_.empty()) {
    return absl::FailedPreconditionError("journal not started");
  }
  if (records->empty()) return absl::OkStatus();
  const size_t dir = DirIndexFor(records->front().ledger_id);
  for (const JournalRecord& r : *records) {
    if (DirIndexFor(r.ledger_id) != dir) {
      return absl::InvalidArgumentError(
          "journal batch spans more than one directory");
    }
  }
  return writers_[dir]->AddBatch(records);
}

JournalMark Journal::CurrentMark() const {
  JournalMark mark;
  mark.positions.reserve(writers_.size());
  for (const auto& w : writers_) mark.positions.push_back(w->WrittenPosition());
  return mark;
}

absl::Status Journal::Checkpoint(const JournalMark& mark) {
  if (mark.positions.size() != writers_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "journal mark has ", mark.positions.size(), " positions for ",
        writers_.size(), " running journal directories"));
  }
  absl::Status first;
  for (size_t i = 0; i < writers_.size(); ++i) {
    absl::Status s = writers_[i]->Checkpoint(mark.positions[i]);
    if (first.ok()) first = s;
  }
  return first;
}

void Journal::Stop() {
  for (const auto& w : writers_) w->Stop();
}

absl::Status Journal::status() const {
  for (const auto& w : writers_) {
    absl::Status s = w->status();
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

JournalStats Journal::Stats() const {
  JournalStats stats;
  for (const auto& w : writers_) w->AddStatsTo(&stats);
  return stats;
}

}  // namespace bk::bookie
