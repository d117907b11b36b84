#include "client/internal/recovery_add.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/placement_probe.h"
#include "client/internal/quorum.h"
#include "common/logging.h"
#include "placement/types.h"

namespace bk::client::internal {
namespace {

// Rounds of "add, replace who refused" per entry: each round replaces at
// least one bookie, so a few suffice unless replacements keep failing.
constexpr int kMaxRounds = 4;

struct AddOutcome {
  std::vector<int> ok_slots;
  std::vector<int> failed_slots;
  std::string errors;
};

// RECOVERY_ADD of `body` to the bookies of `slots` of `ensemble`; waits for
// every answer (bounded by add_entry_timeout: a bookie that does not answer
// in time counts as failed).
AddOutcome AddToSlots(ClientContext* ctx, int64_t ledger_id, int64_t entry_id,
                      const std::vector<std::string>& ensemble,
                      const std::vector<int>& slots, const std::string& body,
                      const std::string& master_key) {
  struct Shared {
    absl::Mutex mu;
    int answered ABSL_GUARDED_BY(mu) = 0;
    std::vector<int> ok ABSL_GUARDED_BY(mu);
    std::string errors ABSL_GUARDED_BY(mu);
  };
  auto shared = std::make_shared<Shared>();
  for (int slot : slots) {
    const std::string& bookie = ensemble[slot];
    auto client = ctx->pool()->Get(bookie);
    if (client == nullptr) {
      absl::MutexLock l(&shared->mu);
      ++shared->answered;
      absl::StrAppend(&shared->errors, bookie, ": no endpoint; ");
      continue;
    }
    client->Add(
        static_cast<uint64_t>(ledger_id), entry_id, master_key,
        proto::RECOVERY_ADD, body, [shared, bookie, slot](absl::Status s) {
          absl::MutexLock l(&shared->mu);
          ++shared->answered;
          if (s.ok()) {
            shared->ok.push_back(slot);
          } else {
            absl::StrAppend(&shared->errors, bookie, ": ", s.ToString(), "; ");
          }
        });
  }
  // Adds answer or fail when their stream breaks; bound the wait anyway.
  absl::MutexLock l(&shared->mu);
  const int n = static_cast<int>(slots.size());
  auto all = [&shared, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(shared->mu) {
    return shared->answered == n;
  };
  shared->mu.AwaitWithTimeout(absl::Condition(&all),
                              ctx->options().add_entry_timeout);
  AddOutcome out;
  out.ok_slots = shared->ok;
  out.errors = shared->errors;
  for (int slot : slots) {
    if (std::find(out.ok_slots.begin(), out.ok_slots.end(), slot) ==
        out.ok_slots.end()) {
      out.failed_slots.push_back(slot);
    }
  }
  return out;
}

}  // namespace

absl::Status RecoveryEnsemble::Add(ClientContext* ctx, int64_t ledger_id,
                                   int64_t entry_id, const std::string& body,
                                   const std::string& master_key) {
  const int wq = md_.write_quorum_size();
  const int aq = md_.ack_quorum_size();
  std::vector<int> todo;  // slots of the write set still lacking the entry
  int held = 0;           // bookies of the write set holding it
  std::string errors;
  for (int round = 0; round < kMaxRounds; ++round) {
    const auto ensemble = Bookies(SegmentFor(md_, entry_id));
    if (round == 0) {
      todo = WriteSet(entry_id, static_cast<int>(ensemble.size()), wq);
    }
    AddOutcome r =
        AddToSlots(ctx, ledger_id, entry_id, ensemble, todo, body, master_key);
    held += static_cast<int>(r.ok_slots.size());
    absl::StrAppend(&errors, r.errors);
    if (r.failed_slots.empty()) return absl::OkStatus();
    absl::Status s = Replace(ctx, entry_id, r.failed_slots);
    if (placement::IsNotEnoughBookies(s)) {
      // Nobody to replace them with: the entry stands on the bookies that
      // took it, if they are an ack quorum (as the writer goes on without a
      // replacement while AQ of each write set is alive).
      if (held >= aq) return absl::OkStatus();
      return absl::UnavailableError(absl::StrCat(
          "recovery add reached ", held,
          " bookies, fewer than the ack quorum, and no bookie can replace "
          "the others (",
          s.message(), "): ", errors));
    }
    if (!s.ok()) return s;
    todo = r.failed_slots;  // the replacements sit in the same slots
  }
  return absl::UnavailableError(
      absl::StrCat("recovery add still refused after ", kMaxRounds,
                   " rounds of replacement: ", errors));
}

absl::Status RecoveryEnsemble::Replace(ClientContext* ctx, int64_t entry_id,
                                       const std::vector<int>& slots) {
  auto* segments = md_.mutable_segments();
  const std::vector<std::string> old = Bookies(*segments->rbegin());
  std::vector<std::string> next = old;
  // Never choose a bookie that refused, now or earlier in this recovery.
  std::vector<std::string> excluded = replaced_;
  for (int slot : slots) excluded.push_back(old[slot]);
  std::map<std::string, proto::PlacementNote> notes;
  for (int slot : slots) {
    auto p = ProbeAndReplace(ctx, next, slot, md_.write_quorum_size(),
                             md_.ack_quorum_size(), excluded);
    if (!p.ok()) return p.status();
    next = p->ensemble;
    for (auto& [id, note] : p->notes) notes[id] = note;
  }
  proto::Segment* last = segments->Mutable(segments->size() - 1);
  if (last->first_entry_id() != entry_id) {
    last = md_.add_segments();
    last->set_first_entry_id(entry_id);
  }
  last->clear_bookies();
  for (const auto& b : next) last->add_bookies(b);
  for (const auto& [id, note] : notes) {
    (*md_.mutable_placement_notes())[id] = note;
  }
  for (int slot : slots) replaced_.push_back(old[slot]);
  bk::log::Get("client")->info(
      "recovery: ensemble changed at entry {}: [{}] -> [{}]", entry_id,
      absl::StrJoin(old, ","), absl::StrJoin(next, ","));
  return absl::OkStatus();
}

}  // namespace bk::client::internal
