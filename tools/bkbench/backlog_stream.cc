#include "tools/bkbench/backlog_stream.h"

#include <utility>

#include "absl/time/clock.h"
#include "tools/bkbench/read_ceiling.h"

namespace bk::bkbench {

BacklogStream::BacklogStream(client::ClientOptions client, ReaderSpec spec,
                             int64_t ledger_id, absl::Time run_start,
                             std::function<int64_t()> writer_lac)
    : client_(std::move(client)),
      spec_(std::move(spec)),
      ledger_id_(ledger_id),
      run_start_(run_start),
      writer_lac_(std::move(writer_lac)) {
  absl::MutexLock l(&mu_);
  result_.name = spec_.name;
  result_.ledger_index = spec_.ledger;
  result_.ledger_id = ledger_id_;
}

BacklogStream::~BacklogStream() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void BacklogStream::Start() {
  thread_ = std::thread([this] { Run(); });
}

void BacklogStream::Run() {
  const absl::Time join_at = run_start_ + absl::Seconds(spec_.join_s);
  {
    absl::MutexLock l(&mu_);
    auto stopped = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
    if (mu_.AwaitWithDeadline(absl::Condition(&stopped), join_at)) return;
  }
  const int64_t backlog = writer_lac_() + 1;
  const absl::Time joined_at = absl::Now();
  absl::StatusOr<ReadCeiling> c =
      backlog > 0 ? MeasureReadCeiling(client_, ledger_id_, backlog)
                  : absl::StatusOr<ReadCeiling>(ReadCeiling{});
  absl::MutexLock l(&mu_);
  result_.join_s = absl::ToDoubleSeconds(joined_at - run_start_);
  result_.backlog_at_join = backlog;
  if (!c.ok()) {
    result_.errors = 1;
    result_.first_error = std::string(c.status().message());
  } else if (backlog > 0) {
    result_.entries_read = c->entries;
    result_.backlog_s = c->seconds;
    result_.backlog_rate = c->entries_per_s;
    if (c->entries > 0) result_.first_entry_ms = 0;
  }
}

ReaderResult BacklogStream::Finish() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;  // a stream not started by now never starts
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock l(&mu_);
  if (result_.join_s < 0 && result_.errors == 0) {
    result_.errors = 1;
    result_.first_error = "the writers stopped before its join time";
  }
  return result_;
}

}  // namespace bk::bkbench
