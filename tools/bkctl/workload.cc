// Workload: see workload.h.

#include "tools/bkctl/workload.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace bk::bkctl {
namespace {

constexpr char kPassword[] = "bkctl-localcluster";
constexpr absl::Duration kTick = absl::Milliseconds(10);

}  // namespace

absl::StatusOr<std::unique_ptr<Workload>> Workload::Start(WorkloadOptions o) {
  std::unique_ptr<Workload> w(new Workload(o));
  client::ClientOptions co;
  co.metadata_service_uri = o.metadata_uri;
  co.placement.weighting = o.weighting;
  co.get_bookie_info_interval = absl::Seconds(1);
  auto c = client::Client::Create(co);
  if (!c.ok()) return c.status();
  w->client_ = std::move(*c);
  metadata::OpenOptions mo;
  mo.connect_timeout = absl::Seconds(5);
  auto store = metadata::Open(o.metadata_uri, mo);
  if (!store.ok()) return store.status();
  w->store_ = std::move(*store);
  w->payload_.assign(static_cast<size_t>(o.entry_size), 'x');
  for (int i = 0; i < o.ledgers; ++i) {
    auto slot = w->NewSlot();
    if (!slot.ok()) return slot.status();
    w->slots_.push_back(std::move(*slot));
  }
  w->pacer_ = std::thread([p = w.get()] { p->Pace(); });
  return w;
}

Workload::~Workload() {
  Stop();
  client_.reset();
}

absl::StatusOr<Workload::Slot> Workload::NewSlot() {
  // Each ledger writes an equal share of the paced rate: its rate hint.
  const double hint =
      options_.rate * options_.entry_size / std::max(options_.ledgers, 1);
  auto w = client_->CreateLedger({.ensemble_size = options_.ensemble_size,
                                  .write_quorum = options_.write_quorum,
                                  .ack_quorum = options_.ack_quorum,
                                  .password = kPassword,
                                  .expected_write_bytes_per_second = hint});
  if (!w.ok()) return w.status();
  return Slot{std::shared_ptr<client::LedgerWriter>(std::move(*w)), absl::Now(),
              std::make_shared<std::atomic<bool>>(false)};
}

// Replaces slot i with a new ledger, then closes the old one (outside the
// lock: Close waits for its pending adds).
void Workload::Roll(size_t i) {
  auto fresh = NewSlot();
  if (!fresh.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    last_error_ = absl::StrCat("create ledger: ", fresh.status().message());
    return;
  }
  Slot old;
  {
    std::lock_guard<std::mutex> l(slots_mu_);
    old = std::exchange(slots_[i], std::move(*fresh));
  }
  absl::Status s = old.writer->Close();
  std::lock_guard<std::mutex> l(mu_);
  ++rolled_;
  if (!s.ok() && !old.broken->load()) {
    last_error_ = absl::StrCat("close: ", s.message());
  }
}

void Workload::Issue(Slot& slot) {
  outstanding_.fetch_add(1);
  const absl::Time start = absl::Now();
  slot.writer->Append(
      payload_, [this, start, broken = slot.broken](absl::StatusOr<int64_t> r) {
        const int64_t us = absl::ToInt64Microseconds(absl::Now() - start);
        {
          std::lock_guard<std::mutex> l(mu_);
          if (r.ok()) {
            ++acked_;
            if (latencies_us_.size() < 1000000) latencies_us_.push_back(us);
          } else {
            ++failed_;
            last_error_ = std::string(r.status().message());
            broken->store(true);
          }
        }
        outstanding_.fetch_sub(1);
      });
}

void Workload::Pace() {
  const absl::Duration roll_gap = options_.roll_every / options_.ledgers;
  absl::Time next_roll = absl::Now() + roll_gap;
  size_t roll_next = 0, rr = 0;
  double owed = 0;
  absl::Time last = absl::Now();
  while (!stop_.load()) {
    absl::SleepFor(kTick);
    const absl::Time now = absl::Now();
    // A stall (a roll waiting on Close) is not caught up by more than half
    // a second's worth of adds in one burst.
    owed = std::min(owed + options_.rate * absl::ToDoubleSeconds(now - last),
                    options_.rate / 2 + 1);
    last = now;
    const int64_t n = static_cast<int64_t>(owed);
    owed -= static_cast<double>(n);
    {
      std::lock_guard<std::mutex> l(slots_mu_);
      for (int64_t k = 0; k < n; ++k) {
        if (outstanding_.load() >= options_.max_outstanding) {
          std::lock_guard<std::mutex> m(mu_);
          skipped_ += n - k;
          break;
        }
        Slot& s = slots_[rr++ % slots_.size()];
        if (s.broken->load()) continue;
        Issue(s);
      }
    }
    // A broken ledger is replaced at once; the others in turn.
    for (size_t i = 0; i < slots_.size() && !stop_.load(); ++i) {
      bool broken;
      {
        std::lock_guard<std::mutex> l(slots_mu_);
        broken = slots_[i].broken->load();
      }
      if (broken) Roll(i);
    }
    if (now >= next_roll && !stop_.load()) {
      Roll(roll_next++ % slots_.size());
      next_roll = now + roll_gap;
    }
  }
}

WorkloadSecond Workload::TakeSecond() {
  WorkloadSecond w;
  std::vector<int64_t> lat;
  {
    std::lock_guard<std::mutex> l(mu_);
    const absl::Time now = absl::Now();
    w.seconds = absl::ToDoubleSeconds(now - last_take_);
    last_take_ = now;
    lat.swap(latencies_us_);
    w.acked = std::exchange(acked_, 0);
    w.failed = std::exchange(failed_, 0);
    w.skipped = std::exchange(skipped_, 0);
    w.rolled = std::exchange(rolled_, 0);
    w.last_error = std::exchange(last_error_, "");
  }
  w.outstanding = outstanding_.load();
  if (!lat.empty()) {
    std::sort(lat.begin(), lat.end());
    auto at = [&](double q) {
      size_t i = static_cast<size_t>(q * static_cast<double>(lat.size() - 1));
      return static_cast<double>(lat[i]) / 1000.0;
    };
    w.p50_ms = at(0.50);
    w.p99_ms = at(0.99);
    w.max_ms = static_cast<double>(lat.back()) / 1000.0;
  }
  std::vector<int64_t> ids;
  {
    std::lock_guard<std::mutex> l(slots_mu_);
    if (store_ == nullptr) return w;  // stopped
    for (const Slot& s : slots_) ids.push_back(s.writer->ledger_id());
  }
  for (int64_t id : ids) {
    auto md = store_->ReadLedger(id);
    if (!md.ok() || md->value.segments_size() == 0) continue;
    const auto& seg = md->value.segments(md->value.segments_size() - 1);
    for (const std::string& b : seg.bookies()) ++w.spread[b];
  }
  return w;
}

void Workload::Stop() {
  if (stop_.exchange(true)) return;
  if (pacer_.joinable()) pacer_.join();
  std::vector<Slot> slots;
  {
    std::lock_guard<std::mutex> l(slots_mu_);
    slots.swap(slots_);
  }
  for (Slot& s : slots) s.writer->Close().IgnoreError();
  slots.clear();
  store_.reset();
}

}  // namespace bk::bkctl
