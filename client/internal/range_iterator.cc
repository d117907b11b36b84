#include "client/internal/range_iterator.h"

#include <algorithm>
#include <deque>

#include "absl/container/btree_map.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/read_handle.h"

namespace bk::client::internal {

// The results of one iterator's reads, keyed by entry id. Shared with the
// reads in flight, and handed to the next iterator with a read-ahead.
struct RangeReadState {
  absl::Mutex mu;
  absl::btree_map<int64_t, absl::StatusOr<ReadResult>> results
      ABSL_GUARDED_BY(mu);
};

namespace {

using State = RangeReadState;

// Entries first..last, up to a window of reads in flight ahead of the
// reader: readWindow entries, at most readWindowBytes of them at the mean
// entry size seen so far. A Read() that starts where the previous one
// ended (a reader going through the ledger in batches) also reads ahead
// past its last entry, up to the LAC and within the window, and leaves
// those reads to the next Read() (ReadHandle::LeaveReadAhead), so a
// batch's end does not drain the pipeline.
class RangeIterator final : public EntryIterator {
 public:
  RangeIterator(std::shared_ptr<ReadHandle> handle, int64_t first, int64_t last,
                int max_window, int64_t window_bytes, absl::Status initial)
      : handle_(std::move(handle)),
        next_issue_(first),
        next_return_(first),
        last_(last),
        max_window_(std::max(1, max_window)),
        window_bytes_(std::max<int64_t>(1, window_bytes)),
        status_(std::move(initial)) {
    // Before any entry: a closed ledger's mean entry size, else that of
    // the entries earlier Read()s returned (or of the last entry ReadLac
    // brought back), else a small window until entries show their size.
    const int64_t length = handle_->Length();
    const int64_t entries = handle_->LastAddConfirmed() + 1;
    const int64_t seen = handle_->MeanEntryBytesRead();
    window_ = length > 0 && entries > 0
                  ? WindowFor(std::max<int64_t>(1, length / entries))
              : seen > 0 ? WindowFor(seen)
                         : std::min(max_window_, kFirstWindow);
    if (!status_.ok()) return;
    ReadHandle::ReadStart start = handle_->BeginRead(first, last);
    read_ahead_ = start.sequential && streamable_;
    if (start.read_ahead.has_value()) {
      state_ = std::move(start.read_ahead->state);
      next_issue_ = start.read_ahead->next_issue;
      adopted_end_ = next_issue_ - 1;
    } else if (std::optional<ReadResult> p = handle_->TakePiggybacked(first)) {
      // A tailing reader's next entry came back with its long poll.
      absl::MutexLock l(&state_->mu);
      state_->results.emplace(first, std::move(*p));
      next_issue_ = first + 1;
    }
  }

  ~RangeIterator() override {
    handle_->NoteEntriesRead(seen_bytes_, seen_entries_);
    // Reads in flight hold `state_`, not this object. Reads issued past
    // `last_` go to the next Read() when this one was read to its end.
    if (status_.ok() && next_return_ == last_ + 1 && next_issue_ > last_ + 1) {
      handle_->LeaveReadAhead({std::move(state_), last_ + 1, next_issue_});
    }
  }

  bool Next(LedgerEntry* entry) override {
    if (!status_.ok() || next_return_ > last_) return false;
    Issue();
    absl::StatusOr<ReadResult> r = Take(next_return_);
    if (!r.ok() && next_return_ <= adopted_end_) {
      // Read ahead for an earlier Read(): a failure then (a bookie down a
      // moment ago) is not this read's answer; read the entry again.
      ReadOne(handle_, state_, next_return_);
      r = Take(next_return_);
    }
    if (!r.ok()) {
      status_ = r.status();
      return false;
    }
    entry->entry_id = r->entry_id;
    entry->payload = std::move(r->payload);
    ++next_return_;
    seen_bytes_ += static_cast<int64_t>(entry->payload.size());
    ++seen_entries_;
    window_ = WindowFor(std::max<int64_t>(1, seen_bytes_ / seen_entries_));
    return true;
  }

  absl::Status status() const override { return status_; }

 private:
  // Waits for entry `id`'s result and takes it. Under the same lock it
  // also takes the results that follow it without a gap, up to last_ (those
  // past last_ may go to the next Read()), so that a reader keeping up
  // with a stream locks and wakes once per message rather than per entry.
  absl::StatusOr<ReadResult> Take(int64_t id) {
    if (!taken_.empty() && taken_first_ == id) {
      absl::StatusOr<ReadResult> r = std::move(taken_.front());
      taken_.pop_front();
      ++taken_first_;
      return r;
    }
    // Else a retried read of the entry before taken_ (which is kept), or
    // nothing taken yet.
    absl::MutexLock l(&state_->mu);
    auto ready = [this, id]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(state_->mu) {
      return state_->results.contains(id);
    };
    state_->mu.Await(absl::Condition(&ready));
    auto it = state_->results.find(id);
    absl::StatusOr<ReadResult> r = std::move(it->second);
    it = state_->results.erase(it);
    if (!taken_.empty()) return r;
    taken_first_ = id + 1;
    int64_t next = id + 1;
    auto end = it;
    while (end != state_->results.end() && end->first == next &&
           next <= last_) {
      taken_.push_back(std::move(end->second));
      ++end;
      ++next;
    }
    state_->results.erase(it, end);
    return r;
  }

  void Issue() {
    while (next_issue_ <= last_ && next_issue_ < next_return_ + window_) {
      switch (IssueRange(last_)) {
        case Issued::kRange:
          continue;
        case Issued::kWait:
          return;  // reads in flight; the next range waits for room
        case Issued::kNotStreamable:
          ReadOne(handle_, state_, next_issue_++);
          continue;
      }
    }
    if (!read_ahead_ || next_issue_ <= last_) return;
    // Past `last_`: only confirmed entries, only streamed.
    if (next_issue_ > ahead_bound_) {
      ahead_bound_ = handle_->LastAddConfirmed();
    }
    while (next_issue_ <= ahead_bound_ &&
           next_issue_ < next_return_ + window_) {
      const Issued issued = IssueRange(ahead_bound_);
      if (issued == Issued::kWait) return;
      if (issued == Issued::kNotStreamable) {
        read_ahead_ = false;
        return;
      }
    }
  }

  static void ReadOne(const std::shared_ptr<ReadHandle>& handle,
                      const std::shared_ptr<State>& state, int64_t id) {
    handle->ReadAsync(id, [state, id](absl::StatusOr<ReadResult> r) {
      absl::MutexLock l(&state->mu);
      state->results.emplace(id, std::move(r));
    });
  }

  static constexpr int kFirstWindow = 64;

  int WindowFor(int64_t mean_entry_bytes) const {
    return static_cast<int>(
        std::clamp<int64_t>(window_bytes_ / mean_entry_bytes, 1, max_window_));
  }

  enum class Issued { kRange, kWait, kNotStreamable };

  // Issues next_issue_..(at most `end_bound`) as one streamed range when
  // at least half the window is free (so chunks stay large) or nothing is
  // in flight. kWait: less than half is free and reads are in flight, so
  // the range waits for them rather than the window filling up with
  // single reads; kNotStreamable: the caller reads one entry.
  Issued IssueRange(int64_t end_bound) {
    if (!streamable_) return Issued::kNotStreamable;
    const int64_t room = next_return_ + window_ - next_issue_;
    const int64_t chunk = std::min(room, end_bound - next_issue_ + 1);
    const bool in_flight = next_issue_ > next_return_;
    if (room < std::max(2, window_ / 2) && in_flight &&
        chunk < end_bound - next_issue_ + 1) {
      return Issued::kWait;
    }
    if (chunk < 2) return Issued::kNotStreamable;
    const int64_t first = next_issue_, end = first + chunk - 1;
    auto state = state_;
    std::weak_ptr<ReadHandle> weak = handle_;
    const bool started = handle_->ReadRangeAsync(
        first, end,
        [state](std::vector<ReadResult> batch) {
          absl::MutexLock l(&state->mu);
          for (ReadResult& r : batch) {
            const int64_t id = r.entry_id;
            state->results.emplace(id, std::move(r));
          }
        },
        [state, weak, end](int64_t next, int64_t stride) {
          // What a stream did not deliver, entry by entry.
          auto handle = weak.lock();
          for (int64_t id = next; id <= end; id += stride) {
            if (handle != nullptr) {
              ReadOne(handle, state, id);
            } else {
              absl::MutexLock l(&state->mu);
              state->results.emplace(
                  id, absl::CancelledError("the reader was closed"));
            }
          }
        });
    if (!started) {
      // Not streamable now (the range crosses into another segment, or
      // the bookie has no endpoint): one entry is read alone, then a
      // range is tried again from the next.
      return Issued::kNotStreamable;
    }
    next_issue_ = end + 1;
    return Issued::kRange;
  }

  std::shared_ptr<ReadHandle> handle_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
  // Results taken from state_ ahead of Next(): entries taken_first_, ...
  std::deque<absl::StatusOr<ReadResult>> taken_;
  int64_t taken_first_ = -1;
  int64_t next_issue_;
  int64_t next_return_;
  const int64_t last_;
  const int max_window_;
  const int64_t window_bytes_;
  int window_;  // max_window_ or fewer, by the entry size (WindowFor)
  int64_t seen_bytes_ = 0;
  int64_t seen_entries_ = 0;
  absl::Status status_;
  // This Read() continues the previous one: it reads ahead past last_.
  bool read_ahead_ = false;
  int64_t ahead_bound_ = -1;  // the LAC the read-ahead goes up to
  // Entries up to here were issued by an earlier Read() (adopted).
  int64_t adopted_end_ = -1;
  // batchReadEnabled: ranges may be streamed.
  const bool streamable_ = handle_->RangeStreamable();
};

}  // namespace

std::unique_ptr<EntryIterator> NewRangeIterator(
    std::shared_ptr<ReadHandle> handle, int64_t first, int64_t last,
    int max_window, int64_t window_bytes, absl::Status initial) {
  return std::make_unique<RangeIterator>(std::move(handle), first, last,
                                         max_window, window_bytes,
                                         std::move(initial));
}

}  // namespace bk::client::internal
