#include "client/internal/fragment_copy.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/errors.h"
#include "client/internal/quorum.h"
#include "client/internal/read_op.h"

namespace bk::client::internal {
namespace {

bool HoldsSlot(int64_t entry, int e, int wq, int slot) {
  const auto ws = WriteSet(entry, e, wq);
  return std::find(ws.begin(), ws.end(), slot) != ws.end();
}

// One batch: every entry read (in parallel), then every one added to the
// new bookie (in parallel); waits for all.
absl::Status CopyBatch(ClientContext* ctx, const FragmentCopy& c,
                       const std::vector<int64_t>& entries, CopyStats* stats) {
  struct Shared {
    absl::Mutex mu;
    int read ABSL_GUARDED_BY(mu) = 0;
    std::vector<std::string> bodies ABSL_GUARDED_BY(mu);
    absl::Status error ABSL_GUARDED_BY(mu);
  };
  auto shared = std::make_shared<Shared>();
  const int n = static_cast<int>(entries.size());
  {
    absl::MutexLock l(&shared->mu);
    shared->bodies.resize(n);
  }
  for (int i = 0; i < n; ++i) {
    ReadOpOptions o;
    o.ledger_id = c.ledger_id;
    o.entry_id = entries[i];
    o.digest = c.digest;
    o.ensemble = c.ensemble;
    o.write_quorum = c.write_quorum;
    StartRead(ctx, std::move(o), [shared, i](absl::StatusOr<ReadResult> r) {
      absl::MutexLock l(&shared->mu);
      ++shared->read;
      if (r.ok()) {
        shared->bodies[i] = std::move(r->body);
      } else if (shared->error.ok()) {
        shared->error = r.status();
      }
    });
  }
  std::vector<std::string> bodies;
  {
    absl::MutexLock l(&shared->mu);
    auto all = [&shared, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(shared->mu) {
      return shared->read == n;
    };
    shared->mu.Await(absl::Condition(&all));  // reads are bounded by timeouts
    if (!shared->error.ok()) return shared->error;
    bodies = std::move(shared->bodies);
  }
  int64_t bytes = 0;
  for (const auto& b : bodies) bytes += static_cast<int64_t>(b.size());
  if (c.throttle) c.throttle(bytes);

  auto target = ctx->pool()->Get(c.to);
  if (target == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("no endpoint known for bookie ", c.to));
  }
  struct Adds {
    absl::Mutex mu;
    int answered ABSL_GUARDED_BY(mu) = 0;
    absl::Status error ABSL_GUARDED_BY(mu);
  };
  auto adds = std::make_shared<Adds>();
  for (int i = 0; i < n; ++i) {
    target->Add(c.ledger_id, entries[i], c.master_key, proto::RECOVERY_ADD,
                bodies[i], [adds](absl::Status s) {
                  absl::MutexLock l(&adds->mu);
                  ++adds->answered;
                  if (!s.ok() && adds->error.ok()) adds->error = s;
                });
  }
  absl::MutexLock l(&adds->mu);
  auto all = [&adds, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(adds->mu) {
    return adds->answered == n;
  };
  if (!adds->mu.AwaitWithTimeout(absl::Condition(&all),
                                 ctx->options().add_entry_timeout)) {
    return absl::DeadlineExceededError(
        absl::StrCat("bookie ", c.to, " did not answer the copies in time"));
  }
  if (!adds->error.ok()) return adds->error;
  stats->entries += n;
  stats->bytes += bytes;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CopyStats> CopyFragment(ClientContext* ctx,
                                       const FragmentCopy& c) {
  CopyStats stats;
  const int e = static_cast<int>(c.ensemble.size());
  const int batch = std::max(1, c.batch_size);
  std::vector<int64_t> entries;
  for (int64_t id = c.first_entry; id <= c.last_entry; ++id) {
    if (!HoldsSlot(id, e, c.write_quorum, c.slot)) continue;
    entries.push_back(id);
    if (static_cast<int>(entries.size()) == batch || id == c.last_entry) {
      if (absl::Status s = CopyBatch(ctx, c, entries, &stats); !s.ok()) {
        return Annotate(s, static_cast<int64_t>(c.ledger_id), entries.front());
      }
      entries.clear();
    }
  }
  if (!entries.empty()) {
    if (absl::Status s = CopyBatch(ctx, c, entries, &stats); !s.ok()) {
      return Annotate(s, static_cast<int64_t>(c.ledger_id), entries.front());
    }
  }
  return stats;
}

}  // namespace bk::client::internal
