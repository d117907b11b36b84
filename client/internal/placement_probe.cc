#include "client/internal/placement_probe.h"

#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/bookie_client.h"

namespace bk::client::internal {
namespace {

// Shared with the callbacks, which may outlive the wait.
struct Round {
  absl::Mutex mu;
  int pending ABSL_GUARDED_BY(mu) = 0;
  bool closed ABSL_GUARDED_BY(mu) = false;
  std::vector<ProbeAnswer> answers ABSL_GUARDED_BY(mu);
};

}  // namespace

std::vector<ProbeAnswer> ProbeForPlacement(ClientContext* ctx,
                                           const std::vector<std::string>& ids,
                                           absl::Duration timeout) {
  if (ids.empty()) return {};
  auto round = std::make_shared<Round>();
  const uint64_t requested =
      proto::TOTAL_DISK_CAPACITY | proto::FREE_DISK_SPACE | proto::LOAD;
  std::vector<std::pair<std::string, std::shared_ptr<BookieClient>>> asked;
  for (const std::string& id : ids) {
    std::shared_ptr<BookieClient> client = ctx->pool()->Get(id);
    if (client != nullptr) asked.emplace_back(id, std::move(client));
  }
  {
    absl::MutexLock l(&round->mu);
    round->pending = static_cast<int>(asked.size());
  }
  for (auto& [id, client] : asked) {
    client->GetBookieInfo(
        requested, timeout,
        [round, ctx, id = id](absl::StatusOr<proto::GetBookieInfoResponse> r) {
          absl::MutexLock l(&round->mu);
          --round->pending;
          if (round->closed || !r.ok() || r->status() != proto::BK_EOK) return;
          round->answers.push_back(ProbeAnswer{id, *std::move(r), ctx->Now()});
        });
  }
  absl::MutexLock l(&round->mu);
  auto all = [&round]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(round->mu) {
    return round->pending == 0;
  };
  round->mu.AwaitWithTimeout(absl::Condition(&all), timeout);
  round->closed = true;
  const int answered = static_cast<int>(round->answers.size());
  ctx->probe()->PlacementProbes(answered,
                                static_cast<int>(ids.size()) - answered);
  std::vector<ProbeAnswer> out = std::move(round->answers);
  absl::flat_hash_set<std::string> heard;
  for (const ProbeAnswer& a : out) heard.insert(a.id);
  for (const std::string& id : ids) {
    if (!heard.contains(id)) {
      out.push_back(ProbeAnswer{.id = id, .at = ctx->Now(), .answered = false});
    }
  }
  return out;
}

absl::StatusOr<Placement> ProbeAndReplace(
    ClientContext* ctx, const std::vector<std::string>& ensemble, int index,
    int write_quorum, int ack_quorum, const std::vector<std::string>& excluded,
    const placement::LedgerHints& hints) {
  const std::vector<std::string> candidates =
      ctx->cluster()->ReplaceProbeCandidates(ensemble, write_quorum, excluded,
                                             hints);
  const std::vector<ProbeAnswer> answers = ProbeForPlacement(
      ctx, candidates, ctx->options().placement_probe_timeout);
  return ctx->cluster()->ReplaceBookie(ensemble, index, write_quorum,
                                       ack_quorum, excluded, hints, answers);
}

}  // namespace bk::client::internal
