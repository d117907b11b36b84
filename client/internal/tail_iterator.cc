#include "client/internal/tail_iterator.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/internal/errors.h"

namespace bk::client::internal {

TailIteratorImpl::TailIteratorImpl(std::shared_ptr<ReadHandle> handle,
                                   int64_t first)
    : handle_(std::move(handle)),
      state_(std::make_shared<State>()),
      window_bytes_(handle_->ctx()->options().read_window_bytes),
      owed_wait_(handle_->ctx()->options().speculative_read_timeout >
                         absl::ZeroDuration()
                     ? handle_->ctx()->options().speculative_read_timeout
                     : handle_->ctx()->options().read_entry_timeout),
      streams_enabled_(handle_->ctx()->options().tail_stream_enabled),
      next_(first) {
  absl::MutexLock l(&state_->mu);
  state_->next = first;
}

TailIteratorImpl::~TailIteratorImpl() { StopStreams(/*backoff=*/false); }

LedgerEntry TailIteratorImpl::Deliver(ReadResult r) {
  next_ = r.entry_id + 1;
  LedgerEntry e;
  e.entry_id = r.entry_id;
  e.payload = std::move(r.payload);
  return e;
}

std::optional<LedgerEntry> TailIteratorImpl::TakePushed() {
  ReadResult r;
  int64_t lac;
  {
    absl::MutexLock l(&state_->mu);
    auto it = state_->pushed.find(next_);
    if (it == state_->pushed.end()) return std::nullopt;
    r = std::move(it->second);
    state_->pushed_bytes -= static_cast<int64_t>(r.payload.size());
    state_->pushed.erase(it);
    state_->next = next_ + 1;
    lac = state_->lac;
  }
  handle_->LearnLac(lac);
  ++entries_pushed_;
  return Deliver(std::move(r));
}

bool TailIteratorImpl::StartStreams() {
  uint64_t gen;
  {
    absl::MutexLock l(&state_->mu);
    gen = ++state_->generation;
    state_->ended = false;
    state_->overflow = false;
    state_->delivered = false;
    state_->next = next_;
    state_->pushed.clear();
    state_->pushed_bytes = 0;
    state_->lac = -1;
    state_->last_message = absl::Now();
  }
  const int64_t cap = window_bytes_;
  std::weak_ptr<State> weak = state_;
  auto streams = handle_->TailAsync(
      next_,
      [weak, gen, cap](int, std::vector<ReadResult> batch, int64_t lac) {
        auto s = weak.lock();
        if (s == nullptr) return;
        absl::MutexLock l(&s->mu);
        if (s->generation != gen || s->overflow) return;
        s->last_message = absl::Now();
        s->lac = std::max(s->lac, lac);
        for (ReadResult& r : batch) {
          if (r.entry_id < s->next) continue;
          s->pushed_bytes += static_cast<int64_t>(r.payload.size());
          const int64_t id = r.entry_id;
          s->pushed.emplace(id, std::move(r));
        }
        s->delivered = true;
        // The reader is behind: ranges catch up faster than pushes wait.
        if (s->pushed_bytes > cap) s->overflow = true;
      },
      [weak, gen](int) {
        auto s = weak.lock();
        if (s == nullptr) return;
        absl::MutexLock l(&s->mu);
        if (s->generation == gen) s->ended = true;
      });
  if (!streams.has_value()) {
    absl::MutexLock l(&state_->mu);
    ++state_->generation;
    return false;
  }
  ++generations_;
  cancellers_ = std::move(streams->cancellers);
  streaming_ = true;
  owed_entry_ = -1;
  return true;
}

void TailIteratorImpl::StopStreams(bool backoff) {
  bool delivered = false;
  {
    absl::MutexLock l(&state_->mu);
    ++state_->generation;  // late callbacks of the old one are dropped
    delivered = state_->delivered;
    state_->pushed.clear();
    state_->pushed_bytes = 0;
  }
  for (auto& c : cancellers_) c->Cancel();
  cancellers_.clear();
  if (!streaming_) return;
  streaming_ = false;
  if (!backoff) {
    streams_after_ = absl::InfinitePast();
    return;
  }
  backoff_ =
      delivered ? kMinStreamBackoff : std::min(backoff_ * 2, kMaxStreamBackoff);
  streams_after_ = absl::Now() + backoff_;
}

TailIteratorImpl::Wait TailIteratorImpl::WaitForStreams(absl::Time deadline) {
  const int64_t want = next_;
  while (true) {
    const absl::Time now = absl::Now();
    int64_t stream_lac;
    absl::Time last_message;
    {
      absl::MutexLock l(&state_->mu);
      if (state_->pushed.count(want) > 0) return Wait::kEntry;
      if (state_->overflow) return Wait::kBehind;
      if (state_->ended) return Wait::kStalled;
      stream_lac = state_->lac;
      last_message = state_->last_message;
    }
    // A closed ledger's last entries are confirmed by its metadata, which
    // no bookie pushes on: they are read.
    if (handle_->state() == LedgerState::kClosed) return Wait::kClosed;
    absl::Time stall_at;
    const bool owed = std::max(handle_->LastAddConfirmed(), stream_lac) >= want;
    if (owed) {
      // Confirmed: the stream that owes it gets owed_wait_ to bring it.
      if (owed_entry_ != want) {
        owed_entry_ = want;
        owed_since_ = now;
      }
      stall_at = owed_since_ + owed_wait_;
      if (now >= stall_at) return Wait::kStalled;
    } else {
      stall_at = last_message + kQuiet;
      if (now >= stall_at) {
        // Silence: maybe the bookie of the next entry hangs. Learning the
        // LAC (ReadLac) makes the entry owed if it is confirmed.
        (void)handle_->ReadLac();
        absl::MutexLock l(&state_->mu);
        state_->last_message = absl::Now();
        continue;
      }
    }
    if (now >= deadline) return Wait::kDeadline;
    absl::MutexLock l(&state_->mu);
    // Owed, a LAC past it is no news: only the entry or the stream's end
    // wakes the wait (else it would spin until the entry comes).
    auto ready = [this, want,
                  owed]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(state_->mu) {
      return state_->pushed.count(want) > 0 || state_->ended ||
             state_->overflow || (!owed && state_->lac >= want);
    };
    // In slices, to see the metadata's close, which does not signal here.
    state_->mu.AwaitWithDeadline(
        absl::Condition(&ready),
        std::min({deadline, stall_at, now + kCloseCheck}));
  }
}

absl::StatusOr<LedgerEntry> TailIteratorImpl::Next(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  auto timed_out = [this] {
    return Annotate(absl::DeadlineExceededError(absl::StrCat(
                        "entry ", next_, " not confirmed within the timeout")),
                    handle_->ledger_id());
  };
  while (true) {
    if (range_ != nullptr) {
      LedgerEntry e;
      if (range_->Next(&e)) {
        next_ = e.entry_id + 1;
        return e;
      }
      absl::Status s = range_->status();
      range_.reset();
      if (!s.ok()) return s;
      continue;
    }
    if (auto e = TakePushed()) return *std::move(e);
    if (streaming_) {
      switch (WaitForStreams(deadline)) {
        case Wait::kEntry:
          continue;
        case Wait::kDeadline:
          return timed_out();
        case Wait::kBehind:
        case Wait::kClosed:
          StopStreams(/*backoff=*/false);
          continue;
        case Wait::kStalled:
          StopStreams(/*backoff=*/true);
          continue;
      }
    }
    const int64_t lac = handle_->LastAddConfirmed();
    if (next_ <= lac) {
      range_ = handle_->Read(next_, std::min(lac, next_ + kRangeEntries - 1));
      continue;
    }
    if (handle_->state() == LedgerState::kClosed) {
      return Annotate(absl::OutOfRangeError(
                          absl::StrCat("the ledger is closed at entry ", lac)),
                      handle_->ledger_id());
    }
    const absl::Time now = absl::Now();
    if (streams_enabled_ && now >= streams_after_ && StartStreams()) continue;
    if (now >= deadline) return timed_out();
    auto w = handle_->WaitForLac(next_ - 1, deadline - now);
    if (!w.ok()) return w.status();
    if (*w < next_ && absl::Now() < deadline &&
        absl::Now() - now < absl::Milliseconds(10)) {
      // Every bookie answered at once without a LAC: do not spin on them.
      absl::SleepFor(std::min(absl::Milliseconds(50), deadline - absl::Now()));
    }
  }
}

}  // namespace bk::client::internal
