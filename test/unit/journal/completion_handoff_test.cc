// The journal's hand-offs that save thread wake-ups (completion_thread.h,
// journal_queue.h): the sync thread runs a small group's callbacks itself
// when the completion thread is idle, never out of order; and a nudge from
// the sync stage wakes the journal thread only when it holds a group.

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "bookie/journal/completion_thread.h"
#include "bookie/journal/journal_queue.h"

namespace bk::bookie {
namespace {

// Callbacks record the order they ran in and on which thread.
struct Log {
  absl::Mutex mu;
  std::vector<int> order ABSL_GUARDED_BY(mu);
  std::vector<std::thread::id> threads ABSL_GUARDED_BY(mu);

  void Record(int tag) {
    absl::MutexLock l(&mu);
    order.push_back(tag);
    threads.push_back(std::this_thread::get_id());
  }
  bool AwaitCount(size_t n) {
    absl::MutexLock l(&mu);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return order.size() >= n;
    };
    return mu.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(30));
  }
};

std::vector<JournalItem> Items(Log* log, int first_tag, size_t n) {
  std::vector<JournalItem> items(n);
  for (size_t i = 0; i < n; ++i) {
    const int tag = first_tag + static_cast<int>(i);
    // Catch2's assertions are for the test's thread: a failed status is
    // recorded as a negative tag instead.
    items[i].done = [log, tag](absl::Status s) {
      log->Record(s.ok() ? tag : -1);
    };
  }
  return items;
}

TEST_CASE("a small group completes on the submitting thread when idle",
          "[journal]") {
  Log log;  // before the thread, which is joined first
  CompletionThread c;
  c.Start();
  CHECK(c.SubmitOrRun(Items(&log, 0, 3), absl::OkStatus()));
  {
    // Ran before SubmitOrRun returned, here.
    absl::MutexLock l(&log.mu);
    REQUIRE(log.order == std::vector<int>{0, 1, 2});
    for (auto id : log.threads) CHECK(id == std::this_thread::get_id());
  }
  c.Stop();
}

TEST_CASE("a group larger than the inline limit goes to the completion thread",
          "[journal]") {
  Log log;  // before the thread, which is joined first
  CompletionThread c;
  c.Start();
  const size_t n = CompletionThread::kMaxInlineItems + 1;
  CHECK_FALSE(c.SubmitOrRun(Items(&log, 0, n), absl::OkStatus()));
  REQUIRE(log.AwaitCount(n));
  absl::MutexLock l(&log.mu);
  for (size_t i = 0; i < n; ++i) {
    CHECK(log.order[i] == static_cast<int>(i));
    CHECK(log.threads[i] != std::this_thread::get_id());
  }
}

TEST_CASE("a group waits behind one the completion thread is running",
          "[journal]") {
  // Declared before the thread: it is joined before they go.
  Log log;
  absl::Notification started, release;
  CompletionThread c;
  c.Start();
  std::vector<JournalItem> first(1);
  first[0].done = [&](absl::Status) {
    started.Notify();
    release.WaitForNotification();
    log.Record(0);
  };
  c.Submit(std::move(first), absl::OkStatus());
  REQUIRE(started.WaitForNotificationWithTimeout(absl::Seconds(30)));
  // The completion thread is busy: the small group must queue, not run.
  CHECK_FALSE(c.SubmitOrRun(Items(&log, 1, 2), absl::OkStatus()));
  release.Notify();
  REQUIRE(log.AwaitCount(3));
  absl::MutexLock l(&log.mu);
  CHECK(log.order == std::vector<int>{0, 1, 2});
}

TEST_CASE("the completion thread does not overtake a group running inline",
          "[journal]") {
  // Declared before the thread: the callbacks' Notify and Record may still
  // be unlocking when the test's waits return, so the thread is joined
  // before these go.
  Log log;
  absl::Notification later_ran;
  bool overtaken = true;
  CompletionThread c;
  c.Start();
  std::vector<JournalItem> inline_group(1);
  inline_group[0].done = [&](absl::Status) {
    // Submitted while this group runs inline: it must wait for it.
    std::vector<JournalItem> later(1);
    later[0].done = [&](absl::Status) {
      log.Record(1);
      later_ran.Notify();
    };
    c.Submit(std::move(later), absl::OkStatus());
    overtaken = later_ran.WaitForNotificationWithTimeout(absl::Seconds(0.2));
    log.Record(0);
  };
  REQUIRE(c.SubmitOrRun(std::move(inline_group), absl::OkStatus()));
  CHECK_FALSE(overtaken);
  REQUIRE(log.AwaitCount(2));
  absl::MutexLock l(&log.mu);
  CHECK(log.order == std::vector<int>{0, 1});
}

TEST_CASE("a nudge ends the journal thread's wait only when it holds a group",
          "[journal]") {
  JournalQueue q;
  std::vector<JournalItem> out;
  SECTION("holding a group: a nudge before the wait ends it at once") {
    q.Nudge();
    CHECK_FALSE(q.TakeAll(&out, absl::Seconds(30), /*wake_on_nudge=*/true));
    CHECK(out.empty());
  }
  SECTION("no group: the wait goes on to the next add") {
    bool closed = true;
    std::thread waiter([&] {
      closed = q.TakeAll(&out, absl::InfiniteDuration(),
                         /*wake_on_nudge=*/false);
    });
    q.Nudge();
    JournalItem item;
    item.enqueue_nanos = 7;
    REQUIRE(q.Push(std::move(item)));
    waiter.join();
    CHECK_FALSE(closed);
    // A wait that a nudge had ended would have returned empty.
    REQUIRE(out.size() == 1);
    CHECK(out[0].enqueue_nanos == 7);
  }
  SECTION("no group: a nudge does not end a timed wait early") {
    q.Nudge();
    const absl::Time start = absl::Now();
    CHECK_FALSE(
        q.TakeAll(&out, absl::Milliseconds(50), /*wake_on_nudge=*/false));
    CHECK(out.empty());
    // A lower bound only: the wait lasts at least its timeout.
    CHECK(absl::Now() - start >= absl::Milliseconds(50));
  }
}

}  // namespace
}  // namespace bk::bookie
