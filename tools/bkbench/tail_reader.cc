#include "tools/bkbench/tail_reader.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tools/bkbench/write_load.h"

namespace bk::bkbench {
namespace {
constexpr int64_t kMaxRetries = 100;
// Longest wait for one entry before the loop looks at the writer again.
constexpr absl::Duration kTailWait = absl::Milliseconds(200);
}  // namespace

TailReader::TailReader(client::Client* client, ReaderSpec spec,
                       int64_t ledger_id, std::string password,
                       absl::Time run_start,
                       std::function<int64_t()> writer_lac,
                       std::function<CacheCounters()> cache_totals)
    : client_(client),
      spec_(std::move(spec)),
      ledger_id_(ledger_id),
      password_(std::move(password)),
      run_start_(run_start),
      writer_lac_(std::move(writer_lac)),
      cache_totals_(std::move(cache_totals)) {
  absl::MutexLock l(&mu_);
  result_.name = spec_.name;
  result_.ledger_index = spec_.ledger;
  result_.ledger_id = ledger_id_;
}

TailReader::~TailReader() {
  stop_.store(true);
  {
    absl::MutexLock l(&mu_);
    if (final_last_ == -2) final_last_ = -1;
  }
  if (thread_.joinable()) thread_.join();
  if (scrape_.joinable()) scrape_.join();
}

void TailReader::Start() {
  thread_ = std::thread([this] { Run(); });
}

void TailReader::RecordRetry(const absl::Status& s) {
  absl::MutexLock l(&mu_);
  if (result_.retries++ == 0) {
    result_.first_retry_error = std::string(s.message());
  }
}

void TailReader::RecordError(const absl::Status& s) {
  absl::MutexLock l(&mu_);
  if (result_.errors++ == 0) result_.first_error = std::string(s.message());
}

std::pair<int64_t, double> TailReader::TakeSecond() {
  absl::MutexLock l(&mu_);
  std::pair<int64_t, double> r = {second_.count(),
                                  second_.PercentileUs(0.99) / 1000.0};
  second_ = LatencyHistogram();
  return r;
}

bool TailReader::Record(const client::LedgerEntry& e) {
  const absl::Time now = absl::Now();
  const int64_t expect = next_.load();
  if (e.entry_id != expect) {
    RecordError(
        absl::DataLossError(absl::StrCat("ledger ", ledger_id_, ": read entry ",
                                         e.entry_id, " expecting ", expect)));
    stop_.store(true);
    return false;
  }
  const int64_t age_us =
      (absl::ToUnixNanos(now) - AddedAtNanos(e.payload)) / 1000;
  absl::MutexLock l(&mu_);
  if (result_.entries_read++ == 0) {
    result_.first_entry_ms = absl::ToDoubleMilliseconds(now - joined_at_);
  }
  if (e.entry_id + 1 == result_.backlog_at_join) {
    if (cache_totals_ && !scrape_.joinable()) {
      scrape_ = std::thread([this, before = cache_at_join_] {
        const CacheCounters after = cache_totals_();
        absl::MutexLock l(&mu_);
        result_.backlog_cache = CacheDelta(before, after);
      });
    }
    result_.backlog_s = absl::ToDoubleSeconds(now - joined_at_);
    result_.backlog_rate =
        result_.backlog_s > 0
            ? static_cast<double>(result_.backlog_at_join) / result_.backlog_s
            : 0;
  }
  if (caught_up_at_ == absl::InfiniteFuture() &&
      static_cast<double>(age_us) < spec_.caught_up_age_ms * 1000) {
    caught_up_at_ = now;
    result_.catch_up_s = absl::ToDoubleSeconds(now - joined_at_);
    result_.catch_up_rate =
        result_.catch_up_s > 0
            ? static_cast<double>(result_.entries_read) / result_.catch_up_s
            : 0;
  }
  if (caught_up_at_ != absl::InfiniteFuture()) {
    result_.tail_latency.Record(age_us);
    second_.Record(age_us);
  }
  next_.store(e.entry_id + 1);
  return true;
}

void TailReader::Run() {
  const absl::Time join_at = run_start_ + absl::Seconds(spec_.join_s);
  {
    absl::MutexLock l(&mu_);
    auto finished = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return final_last_ != -2;
    };
    mu_.AwaitWithDeadline(absl::Condition(&finished), join_at);
  }
  const int64_t backlog = writer_lac_() + 1;
  if (cache_totals_ && backlog > 0) cache_at_join_ = cache_totals_();
  const absl::Time open_at = absl::Now();
  auto opened = client_->OpenLedger(ledger_id_, password_, /*recover=*/false);
  {
    absl::MutexLock l(&mu_);
    joined_at_ = absl::Now();
    result_.open_ms = absl::ToDoubleMilliseconds(joined_at_ - open_at);
    result_.join_s = absl::ToDoubleSeconds(joined_at_ - run_start_);
    result_.backlog_at_join = backlog;
  }
  joined_.store(true);
  if (!opened.ok()) {
    RecordError(opened.status());
    absl::MutexLock l(&mu_);
    done_ = true;
    return;
  }
  std::unique_ptr<client::LedgerReader> reader = std::move(*opened);
  // Behind the LAC the tail reads ranges; caught up, the bookies push each
  // entry as it is confirmed (tailStreamEnabled) or it long-polls.
  std::unique_ptr<client::TailIterator> tail = reader->Tail(next_.load());
  auto finished = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return final_last_ != -2;
  };
  while (!stop_.load()) {
    int64_t final_last, retries;
    {
      absl::MutexLock l(&mu_);
      final_last = final_last_;
      retries = result_.retries;
    }
    if (retries >= kMaxRetries) {
      RecordError(absl::UnavailableError("too many failed reads"));
      break;
    }
    const int64_t next = next_.load();
    if (final_last >= -1 && next > final_last) break;
    auto got = tail->Next(kTailWait);
    if (got.ok()) {
      if (!Record(*got)) break;
      continue;
    }
    if (absl::IsDeadlineExceeded(got.status())) continue;
    if (!absl::IsOutOfRange(got.status())) {
      RecordRetry(got.status());
      continue;
    }
    // Closed at entry next - 1: the writer's last, once it says which.
    {
      absl::MutexLock l(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&finished), kTailWait);
      final_last = final_last_;
    }
    if (final_last == -2) continue;
    if (next <= final_last) {
      RecordError(absl::OutOfRangeError(
          absl::StrCat("ledger ", ledger_id_, " closed at ", next - 1,
                       ", expected ", final_last)));
    }
    break;
  }
  absl::MutexLock l(&mu_);
  done_ = true;
}

ReaderResult TailReader::Finish(int64_t last_entry, absl::Duration timeout) {
  {
    absl::MutexLock l(&mu_);
    final_last_ = last_entry;
    auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return done_; };
    mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
  }
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (scrape_.joinable()) scrape_.join();
  absl::MutexLock l(&mu_);
  if (next_.load() <= last_entry && result_.errors == 0) {
    result_.errors = 1;
    result_.first_error =
        absl::StrCat("stopped at entry ", next_.load(), " of ", last_entry + 1);
  }
  return result_;
}

}  // namespace bk::bkbench
