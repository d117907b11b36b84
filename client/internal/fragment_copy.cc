#include "client/internal/fragment_copy.h"

#include <algorithm>
#include <deque>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/errors.h"
#include "client/internal/quorum.h"

namespace bk::client::internal {
namespace {

// One run: the entries of one write quorum, first, first + E, ...
struct Run {
  int64_t next;
  std::vector<std::string> sources;  // the quorum's readable replicas
  size_t turn = 0;
};

}  // namespace

std::vector<ChunkPlan> PlanChunks(const FragmentCopy& c) {
  const int e = static_cast<int>(c.ensemble.size());
  const int batch = std::max(1, c.batch_size);
  std::vector<ChunkPlan> plans;
  if (e == 0 || c.last_entry < c.first_entry) return plans;
  std::vector<Run> runs;
  for (int r = 0; r < e; ++r) {
    const auto ws = WriteSet(r, e, c.write_quorum);
    if (std::find(ws.begin(), ws.end(), c.slot) == ws.end()) continue;
    const int64_t offset = ((r - c.first_entry % e) % e + e) % e;
    Run run{c.first_entry + offset, {}, 0};
    if (run.next > c.last_entry) continue;
    for (int s : ws) {
      if (s != c.slot && !c.ensemble[s].empty()) {
        run.sources.push_back(c.ensemble[s]);
      }
    }
    // No other replica (WQ 1): the bookie itself, if it may be read.
    if (run.sources.empty() && !c.ensemble[c.slot].empty()) {
      run.sources.push_back(c.ensemble[c.slot]);
    }
    runs.push_back(std::move(run));
  }
  // The runs' chunks interleaved, so the copy moves through the fragment
  // in entry order and reads from every surviving replica at once.
  bool more = true;
  while (more) {
    more = false;
    for (Run& run : runs) {
      if (run.next > c.last_entry) continue;
      ChunkPlan p;
      p.first = run.next;
      p.stride = e;
      p.count = static_cast<int>(
          std::min<int64_t>(batch, (c.last_entry - run.next) / e + 1));
      if (!run.sources.empty()) {
        p.source = run.sources[run.turn++ % run.sources.size()];
      }
      run.next += p.stride * p.count;
      plans.push_back(std::move(p));
      more = true;
    }
  }
  return plans;
}

absl::StatusOr<CopyStats> CopyFragment(ClientContext* ctx,
                                       const FragmentCopy& c) {
  auto to = ctx->pool()->Get(c.to);
  if (to == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("no endpoint known for bookie ", c.to));
  }
  auto target = std::make_shared<ChunkTarget>();
  target->ledger_id = c.ledger_id;
  target->digest = c.digest;
  target->ensemble = c.ensemble;
  target->write_quorum = c.write_quorum;
  target->master_key = c.master_key;
  target->to = std::move(to);
  std::shared_ptr<const ChunkTarget> shared_target = std::move(target);

  // Shared with the chunks' callbacks, which may outlive this call when it
  // gives up waiting.
  struct Progress {
    absl::Mutex mu;
    int in_flight ABSL_GUARDED_BY(mu) = 0;
    int64_t finished ABSL_GUARDED_BY(mu) = 0;  // chunks answered
    int64_t unthrottled_bytes ABSL_GUARDED_BY(mu) = 0;
    CopyStats stats ABSL_GUARDED_BY(mu);
    absl::Status error ABSL_GUARDED_BY(mu);
  };
  auto progress = std::make_shared<Progress>();
  const int window = std::max(1, c.chunks_in_flight);
  // A chunk answers within a read and an add timeout of its last start;
  // waiting longer than that without any chunk finishing is a stall.
  const absl::Duration stall =
      ctx->options().read_entry_timeout + ctx->options().add_entry_timeout;

  // Waits until `ready` holds or no chunk finished for `stall`.
  auto await = [&](auto ready) -> bool {
    absl::MutexLock l(&progress->mu);
    while (!ready()) {
      const int64_t seen = progress->finished;
      auto moved = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(progress->mu) {
        return ready() || progress->finished != seen;
      };
      if (!progress->mu.AwaitWithTimeout(absl::Condition(&moved), stall)) {
        return false;
      }
    }
    return true;
  };

  // Chunks are started in plan order.
  std::vector<ChunkPlan> planned = PlanChunks(c);
  std::deque<ChunkPlan> todo(planned.begin(), planned.end());
  // Bytes copied but not yet given to the throttle: a chunk is charged its
  // estimate before it starts, the difference once it is done.
  int64_t owed = 0;
  bool stalled = false;
  while (!todo.empty()) {
    const bool room = await([&]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
      return progress->in_flight < window || !progress->error.ok();
    });
    if (!room) {
      stalled = true;
      break;
    }
    int64_t entry_bytes = 0;  // average so far; 0: none copied yet
    {
      absl::MutexLock l(&progress->mu);
      if (!progress->error.ok()) break;
      owed += progress->unthrottled_bytes;
      progress->unthrottled_bytes = 0;
      if (progress->stats.entries > 0) {
        entry_bytes = progress->stats.bytes / progress->stats.entries;
      }
    }
    const ChunkPlan plan = todo.front();
    todo.pop_front();
    const int64_t estimate = entry_bytes * plan.count;
    owed += estimate;
    if (c.throttle && owed > 0) {
      c.throttle(owed);
      owed = 0;
    }
    {
      absl::MutexLock l(&progress->mu);
      ++progress->in_flight;
    }
    StartChunk(ctx, shared_target, plan, [progress, estimate](ChunkOutcome o) {
      absl::MutexLock l(&progress->mu);
      --progress->in_flight;
      ++progress->finished;
      progress->stats.entries += o.entries;
      progress->stats.bytes += o.bytes;
      progress->unthrottled_bytes += o.bytes - estimate;
      if (!o.status.ok() && progress->error.ok()) {
        progress->error = o.status;
      }
    });
  }
  const bool drained = await([&]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return progress->in_flight == 0;
  });
  {
    absl::MutexLock l(&progress->mu);
    if (!progress->error.ok()) return progress->error;
    owed += progress->unthrottled_bytes;
    progress->unthrottled_bytes = 0;
  }
  // The last chunks count too, so the rate holds over many fragments.
  if (c.throttle && owed > 0) c.throttle(owed);
  absl::MutexLock l(&progress->mu);
  if (!drained || stalled || !todo.empty()) {
    return Annotate(absl::DeadlineExceededError(absl::StrCat(
                        "re-replication to bookie ", c.to, " stalled for ",
                        absl::FormatDuration(stall))),
                    static_cast<int64_t>(c.ledger_id));
  }
  return progress->stats;
}

}  // namespace bk::client::internal
