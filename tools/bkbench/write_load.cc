#include "tools/bkbench/write_load.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <thread>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace bk::bkbench {
namespace {

// The shortest sleep of a paced writer that is ahead of its rate.
constexpr absl::Duration kMinPacingSleep = absl::Microseconds(500);

}  // namespace

int64_t AddedAtNanos(absl::string_view payload) {
  if (payload.size() < sizeof(int64_t)) return 0;
  int64_t ns;
  std::memcpy(&ns, payload.data(), sizeof(ns));
  return ns;
}

client::CreateLedgerOptions WriteLoad::LedgerOptions(
    const WriteLoadOptions& options, int i) {
  // Each ledger's share of a paced rate is its expected write rate, the hint
  // a broker would give; an unpaced run gives none.
  const double shares = options.hot_ledger_x + options.ledgers - 1;
  const double share = (i == 0 ? options.hot_ledger_x : 1) / shares;
  return {
      .ensemble_size = options.ensemble,
      .write_quorum = options.write_quorum,
      .ack_quorum = options.ack_quorum,
      .password = options.password,
      .expected_write_bytes_per_second =
          options.rate > 0
              ? options.rate * static_cast<double>(options.entry_size) * share
              : -1};
}

absl::StatusOr<std::unique_ptr<WriteLoad>> WriteLoad::Create(
    client::Client* client, const WriteLoadOptions& options) {
  if (options.entry_size < static_cast<int64_t>(sizeof(int64_t))) {
    return absl::InvalidArgumentError("entry size must be >= 8 bytes");
  }
  std::vector<std::unique_ptr<client::LedgerWriter>> writers;
  if (options.hot_ledger_x < 1) {
    return absl::InvalidArgumentError("hot_ledger_x must be >= 1");
  }
  for (int i = 0; i < options.ledgers; ++i) {
    auto lw = client->CreateLedger(LedgerOptions(options, i));
    if (!lw.ok()) return lw.status();
    writers.push_back(std::move(*lw));
  }
  return std::unique_ptr<WriteLoad>(new WriteLoad(options, std::move(writers)));
}

WriteLoad::WriteLoad(const WriteLoadOptions& options,
                     std::vector<std::unique_ptr<client::LedgerWriter>> writers)
    : options_(options), writers_(std::move(writers)) {
  for (const auto& w : writers_) ids_.push_back(w->ledger_id());
}

WriteLoad::~WriteLoad() = default;

size_t WriteLoad::LedgerOfAdd(int64_t n) const {
  const int64_t x = options_.hot_ledger_x;
  const int64_t pos = n % (x + static_cast<int64_t>(writers_.size()) - 1);
  return pos < x ? 0 : static_cast<size_t>(pos - x + 1);
}

void WriteLoad::OnAdded(absl::Time started, const absl::StatusOr<int64_t>& r) {
  const int64_t us = absl::ToInt64Microseconds(absl::Now() - started);
  absl::MutexLock l(&mu_);
  --in_flight_;
  if (r.ok()) {
    ++acked_;
    total_.Record(us);
    second_.Record(us);
  } else if (failed_++ == 0) {
    first_error_ = std::string(r.status().message());
  }
}

void WriteLoad::Tick(int second, absl::Time start) {
  absl::MutexLock l(&mu_);
  WriteSecond p;
  p.t_s = absl::ToDoubleSeconds(absl::Now() - start);
  p.acked = acked_ - last_acked_;
  p.errors = failed_ - last_failed_;
  p.p50_ms = second_.PercentileUs(0.5) / 1000.0;
  p.p99_ms = second_.PercentileUs(0.99) / 1000.0;
  series_.push_back(p);
  if (options_.progress) {
    std::cerr << absl::StrFormat(
        "[%3ds] %7d entries/s  p50 %6.2f ms  p99 %7.2f ms  in flight %d  "
        "errors %d\n",
        second, p.acked, p.p50_ms, p.p99_ms, in_flight_, failed_);
  }
  last_acked_ = acked_;
  last_failed_ = failed_;
  second_ = LatencyHistogram();
}

WriteResult WriteLoad::Run() {
  const int64_t window =
      options_.max_in_flight_per_ledger * static_cast<int64_t>(writers_.size());
  const absl::Time start = absl::Now();
  const absl::Time end = start + options_.duration;
  std::atomic<bool> ticking{true};
  std::thread ticker([&] {
    absl::Time next = start + absl::Seconds(1);
    for (int s = 1; ticking.load(); ++s) {
      while (ticking.load() && absl::Now() < next) {
        absl::SleepFor(std::min(absl::Milliseconds(50), next - absl::Now()));
      }
      if (!ticking.load()) break;
      Tick(s, start);
      next += absl::Seconds(1);
    }
  });

  std::string payload(static_cast<size_t>(options_.entry_size), 'b');
  int64_t issued = 0;
  while (!stop_.load() && absl::Now() < end) {
    if (options_.rate > 0) {
      const double due =
          options_.rate * absl::ToDoubleSeconds(absl::Now() - start);
      if (static_cast<double>(issued) >= due) {
        // Ahead of the rate: sleep until the next add is due, and at least
        // kMinPacingSleep, issuing what fell due meanwhile at once. Sleeping
        // 200 us at a time woke this thread five times per add at 1,000
        // adds/s (about 9 % of a core taken from the bookies sharing the
        // machine); now it wakes at most once per add, and at most 2,000
        // times a second.
        const absl::Time next =
            start +
            absl::Seconds(static_cast<double>(issued + 1) / options_.rate);
        absl::SleepFor(std::max(kMinPacingSleep, next - absl::Now()));
        continue;
      }
    }
    {
      absl::MutexLock l(&mu_);
      auto room = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return in_flight_ < window;
      };
      if (!mu_.AwaitWithTimeout(absl::Condition(&room),
                                absl::Milliseconds(100))) {
        continue;
      }
      ++in_flight_;
    }
    const absl::Time t0 = absl::Now();
    const int64_t ns = absl::ToUnixNanos(t0);
    std::memcpy(payload.data(), &ns, sizeof(ns));
    writers_[LedgerOfAdd(issued++)]->Append(
        payload, [this, t0](absl::StatusOr<int64_t> r) { OnAdded(t0, r); });
  }
  {
    absl::MutexLock l(&mu_);
    auto drained = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return in_flight_ == 0;
    };
    mu_.AwaitWithTimeout(absl::Condition(&drained), absl::Seconds(60));
  }
  WriteResult r;
  if (options_.close_ledgers) {
    for (auto& w : writers_) {
      absl::Status s = w->Close();
      if (!s.ok() && r.first_error.empty()) {
        r.first_error = std::string(s.message());
      }
    }
  }
  r.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  ticking.store(false);
  ticker.join();
  absl::MutexLock l(&mu_);
  r.acked = acked_;
  r.failed = failed_;
  if (!first_error_.empty()) r.first_error = first_error_;
  r.latency = total_;
  r.series = series_;
  r.ledger_ids = ids_;
  for (const auto& w : writers_) r.last_entry.push_back(w->LastAddConfirmed());
  return r;
}

}  // namespace bk::bkbench
