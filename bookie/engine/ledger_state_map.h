// LedgerStateMap: the per-ledger rules the add path checks (master key,
// fenced, best known LAC) and the long-poll waiters, in a sharded map so no
// lock is shared by all adds.
//
// A ledger's state is loaded from the ledger storage on first touch and kept
// in memory; the storage stays the durable copy. Each LedgerRules has its
// own mutex; a shard's mutex only guards the shard's map and is never held
// while a ledger's mutex is.

#ifndef BK_BOOKIE_ENGINE_LEDGER_STATE_MAP_H_
#define BK_BOOKIE_ENGINE_LEDGER_STATE_MAP_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace bk::bookie {

class LedgerStorage;

// A long poll waiting for the LAC to pass `previous_lac`.
struct LacWaiter {
  uint64_t id = 0;
  int64_t previous_lac = -1;
  uint64_t timer_id = 0;
  std::function<void(absl::StatusOr<int64_t>)> done;
};

struct LedgerRules {
  absl::Mutex mu;
  std::string master_key ABSL_GUARDED_BY(mu);  // empty: none set yet
  bool fenced ABSL_GUARDED_BY(mu) = false;
  // Highest LAC carried by any entry stored, or the explicit LAC; -1 none.
  int64_t lac ABSL_GUARDED_BY(mu) = -1;
  int64_t explicit_lac ABSL_GUARDED_BY(mu) = -1;
  std::vector<LacWaiter> waiters ABSL_GUARDED_BY(mu);
};

class LedgerStateMap {
 public:
  // `storage` must outlive the map.
  explicit LedgerStateMap(LedgerStorage* storage) : storage_(storage) {}

  // The ledger's rules, loaded from storage on first touch. Errors are the
  // storage's (a ledger deleted on this bookie is NotFound).
  absl::StatusOr<std::shared_ptr<LedgerRules>> Get(uint64_t ledger_id);

  // The rules if already in memory, else null (no storage access).
  std::shared_ptr<LedgerRules> Find(uint64_t ledger_id);

  // Forgets a ledger (after deletion) and returns its rules, or null if it
  // had none in memory. A caller that got the rules before keeps using them
  // (the storage then refuses its adds); a later Get loads them afresh.
  std::shared_ptr<LedgerRules> Take(uint64_t ledger_id);

  // How many ledgers have rules in memory.
  size_t size();

  // Every ledger's rules in memory (for shutdown, to answer waiters).
  std::vector<std::shared_ptr<LedgerRules>> All();

 private:
  static constexpr int kShards = 64;
  struct Shard {
    absl::Mutex mu;
    absl::flat_hash_map<uint64_t, std::shared_ptr<LedgerRules>> map
        ABSL_GUARDED_BY(mu);
  };
  Shard& ShardOf(uint64_t ledger_id) {
    return shards_[(ledger_id * 0x9E3779B97F4A7C15ull) >> 58];
  }
  absl::Status Load(uint64_t ledger_id, LedgerRules* rules);

  LedgerStorage* const storage_;
  std::array<Shard, kShards> shards_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_ENGINE_LEDGER_STATE_MAP_H_
