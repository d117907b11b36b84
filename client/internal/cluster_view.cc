#include "client/internal/cluster_view.h"

#include <algorithm>

#include "common/env.h"
#include "common/logging.h"
#include "placement/topology.h"
#include "placement/weighted_selection.h"

namespace bk::client::internal {

namespace {

ClientOptions WithClock(ClientOptions o) {
  if (o.env == nullptr) o.env = Env::Default();
  return o;
}

}  // namespace

ClusterView::ClusterView(const ClientOptions& options, uint64_t seed,
                         ClientProbe* probe)
    : options_(WithClock(options)),
      probe_(probe),
      gen_(seed),
      policy_(options.placement, absl::BitGenRef(gen_)) {}

void ClusterView::AdvanceLocked(absl::Time now) {
  policy_.AdvanceTime(now);
  now_ = std::max(now_, now);
}

void ClusterView::SetBookies(const metadata::BookieSet& bookies) {
  absl::MutexLock l(&mu_);
  members_.clear();
  readonly_.clear();
  for (const auto* list : {&bookies.writable, &bookies.readonly}) {
    for (const auto& b : *list) {
      members_[b.bookie_id()] = b;
      endpoints_[b.bookie_id()] = b.grpc_endpoint();
    }
  }
  for (const auto& b : bookies.readonly) readonly_.insert(b.bookie_id());
  ApplyMembershipLocked();
}

void ClusterView::SetBookieGroups(
    const std::vector<metadata::BookieGroups>& groups) {
  std::map<std::string, std::vector<std::string>> fresh;
  for (const auto& g : groups) {
    fresh[g.bookie_id] = g.groups;
  }
  absl::MutexLock l(&mu_);
  if (fresh == groups_) return;
  groups_ = std::move(fresh);
  ApplyMembershipLocked();
}

void ClusterView::ApplyMembershipLocked() {
  std::vector<placement::BookieNode> writable, readonly;
  for (const auto& [id, b] : members_) {
    placement::BookieNode node{id, b.network_location(), {}};
    if (auto it = groups_.find(id); it != groups_.end()) {
      node.groups = it->second;
    }
    (readonly_.contains(id) ? readonly : writable).push_back(std::move(node));
  }
  policy_.OnClusterChanged(writable, readonly);
}

std::optional<std::string> ClusterView::Endpoint(const std::string& id) const {
  absl::MutexLock l(&mu_);
  auto it = endpoints_.find(id);
  if (it == endpoints_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> ClusterView::Members() const {
  absl::MutexLock l(&mu_);
  std::vector<std::string> out;
  for (const auto& [id, info] : members_) out.push_back(id);
  return out;
}

bool ClusterView::HasMembers() const {
  absl::MutexLock l(&mu_);
  return !members_.empty();
}

bool ClusterView::IsQuarantinedLocked(const std::string& id) const {
  auto it = health_.find(id);
  return it != health_.end() && it->second.quarantined_until > now_;
}

placement::BookieSet ClusterView::KeptOutSetLocked() const {
  placement::BookieSet out;
  for (const auto& [id, h] : health_) {
    if (h.quarantined_until > now_ || h.unreachable) out.insert(id);
  }
  return out;
}

double ClusterView::ProbabilityLocked(const std::string& id) const {
  // The chance `id` had in a draw among the writable bookies, for the
  // weightings whose weights are a function of the reports alone. -1 for
  // adaptive (its draw also depends on this client's own view).
  const auto& writable = policy_.topology().writable();
  if (writable.empty()) return -1;
  std::vector<double> weights;
  double mine = 0;
  switch (options_.placement.weighting) {
    case placement::Weighting::kNone:
      return 1.0 / static_cast<double>(writable.size());
    case placement::Weighting::kDisk: {
      std::vector<int64_t> free;
      for (const auto& b : writable) {
        const auto* r = policy_.topology().Report(b);
        free.push_back(r ? r->info.free_disk_bytes : -1);
      }
      weights = placement::DiskWeights(
          free, options_.placement.bookie_max_weight_multiple);
      break;
    }
    case placement::Weighting::kLoad:
      for (const auto& b : writable) {
        const auto* r = policy_.topology().Report(b);
        weights.push_back(placement::LoadRouletteWeight(
            r ? r->info.write_bytes_per_second : -1));
      }
      break;
    case placement::Weighting::kAdaptive:
      return -1;
  }
  double sum = 0;
  for (size_t i = 0; i < writable.size(); ++i) {
    sum += weights[i];
    if (writable[i] == id) mine = weights[i];
  }
  return sum > 0 ? mine / sum : -1;
}

proto::PlacementNote ClusterView::NoteLocked(const std::string& id) const {
  proto::PlacementNote note;
  note.set_rack(policy_.topology().Rack(id));
  note.set_weighting(
      std::string(placement::WeightingName(options_.placement.weighting)));
  note.set_journal_io_util(-1);
  note.set_write_bytes_per_second(-1);
  note.set_free_disk_space(-1);
  note.set_report_age_ms(-1);
  if (const auto* r = policy_.topology().Report(id)) {
    note.set_journal_io_util(r->info.journal_io_util);
    note.set_write_bytes_per_second(r->info.write_bytes_per_second);
    note.set_free_disk_space(r->info.free_disk_bytes);
    note.set_report_age_ms(
        std::max<int64_t>(0, absl::ToInt64Milliseconds(now_ - r->received_at)));
  }
  note.set_probability(ProbabilityLocked(id));
  return note;
}

void ClusterView::TakeProbesLocked(const std::vector<ProbeAnswer>& answers) {
  for (const ProbeAnswer& a : answers) {
    if (!a.answered) {
      policy_.OnProbeUnanswered(a.id);
      continue;
    }
    policy_.OnProbeReport(a.id, ToPlacementInfo(a.info), a.at);
    now_ = std::max(now_, a.at);
  }
}

std::vector<std::string> ClusterView::ProbeCandidates(
    int ensemble_size, int write_quorum, const placement::LedgerHints& hints) {
  absl::MutexLock l(&mu_);
  AdvanceLocked(options_.env->Now());
  return policy_.ProbeCandidates(ensemble_size, write_quorum, ensemble_size,
                                 KeptOutSetLocked(), hints);
}

absl::StatusOr<Placement> ClusterView::NewEnsemble(
    int ensemble_size, int write_quorum, int ack_quorum,
    const placement::LedgerHints& hints,
    const std::vector<ProbeAnswer>& answers) {
  absl::MutexLock l(&mu_);
  AdvanceLocked(options_.env->Now());
  TakeProbesLocked(answers);
  // Why bookies may not compete, as of this choice (before it counts).
  const absl::flat_hash_map<std::string, std::string> left_out =
      policy_.LeftOut(hints, ensemble_size, write_quorum);
  const placement::BookieSet kept_out = KeptOutSetLocked();
  auto r = policy_.NewEnsemble(ensemble_size, write_quorum, ack_quorum,
                               kept_out, hints);
  if (!r.ok() && placement::IsNotEnoughBookies(r.status())) {
    // Best effort: use quarantined and unreachable bookies rather than
    // fail.
    r = policy_.NewEnsemble(ensemble_size, write_quorum, ack_quorum, {}, hints);
  }
  if (!r.ok()) return r.status();
  Placement p;
  p.ensemble = r->ensemble;
  for (const auto& id : p.ensemble) p.notes[id] = NoteLocked(id);
  // The left out, by id, at most kMaxLeftOutNotes: what `placement
  // explain` shows beside the members.
  std::map<std::string, std::string> why(left_out.begin(), left_out.end());
  for (const auto& id : kept_out) {
    auto h = health_.find(id);
    why.emplace(id, h != health_.end() && h->second.quarantined_until > now_
                        ? "quarantined after errors from this client"
                        : "unreachable: its connection failed and it has "
                          "not answered since");
  }
  size_t noted = 0;
  for (const auto& [id, reason] : why) {
    if (noted == kMaxLeftOutNotes) break;
    if (p.notes.contains(id)) continue;  // taken all the same
    proto::PlacementNote note = NoteLocked(id);
    note.set_left_out(reason);
    p.notes.emplace(id, std::move(note));
    ++noted;
  }
  return p;
}

std::vector<std::string> ClusterView::ReplaceProbeCandidates(
    const std::vector<std::string>& ensemble, int write_quorum,
    const std::vector<std::string>& excluded,
    const placement::LedgerHints& hints) {
  absl::MutexLock l(&mu_);
  AdvanceLocked(options_.env->Now());
  placement::BookieSet ex = KeptOutSetLocked();
  ex.insert(excluded.begin(), excluded.end());
  ex.insert(ensemble.begin(), ensemble.end());  // never a replacement
  return policy_.ProbeCandidates(static_cast<int>(ensemble.size()),
                                 write_quorum, 1, ex, hints);
}

absl::StatusOr<Placement> ClusterView::ReplaceBookie(
    const std::vector<std::string>& ensemble, int index, int write_quorum,
    int ack_quorum, const std::vector<std::string>& excluded,
    const placement::LedgerHints& hints,
    const std::vector<ProbeAnswer>& answers) {
  absl::MutexLock l(&mu_);
  AdvanceLocked(options_.env->Now());
  TakeProbesLocked(answers);
  placement::BookieSet ex(excluded.begin(), excluded.end());
  placement::BookieSet with_quarantine = ex;
  for (const auto& q : KeptOutSetLocked()) with_quarantine.insert(q);
  auto r = policy_.ReplaceBookie(ensemble, index, write_quorum, ack_quorum,
                                 with_quarantine, hints);
  if (!r.ok() && placement::IsNotEnoughBookies(r.status())) {
    r = policy_.ReplaceBookie(ensemble, index, write_quorum, ack_quorum, ex,
                              hints);
  }
  if (!r.ok()) return r.status();
  Placement p;
  p.ensemble = r->ensemble;
  p.notes[r->bookie] = NoteLocked(r->bookie);
  return p;
}

std::vector<int> ClusterView::ReadOrder(
    const std::vector<std::string>& ensemble,
    const std::vector<int>& write_set) const {
  absl::MutexLock l(&mu_);
  placement::BookieHealthMap health;
  for (int slot : write_set) {
    auto it = health_.find(ensemble[slot]);
    if (it == health_.end()) continue;
    placement::BookieHealth h;
    h.last_failed_entry = it->second.last_failed_entry;
    h.pending_requests = it->second.pending_reads;
    h.slow = it->second.slow;
    health[ensemble[slot]] = h;
  }
  return policy_.ReorderReadSequence(ensemble, write_set, health);
}

void ClusterView::OnLedgerClosed(const std::vector<std::string>& ensemble,
                                 int write_quorum,
                                 const placement::LedgerHints& hints) {
  absl::MutexLock l(&mu_);
  AdvanceLocked(options_.env->Now());
  policy_.OnLedgerClosed(ensemble, write_quorum, hints);
}

void ClusterView::OnPlacedElsewhere(const std::vector<std::string>& ensemble,
                                    int write_quorum,
                                    const placement::LedgerHints& hints) {
  absl::MutexLock l(&mu_);
  AdvanceLocked(options_.env->Now());
  policy_.OnPlacedElsewhere(ensemble, write_quorum, hints);
}

void ClusterView::OnClosedElsewhere(const std::vector<std::string>& ensemble,
                                    int write_quorum,
                                    const placement::LedgerHints& hints) {
  absl::MutexLock l(&mu_);
  AdvanceLocked(options_.env->Now());
  policy_.OnClosedElsewhere(ensemble, write_quorum, hints);
}

void ClusterView::OnReplacedElsewhere(const std::string& leaving,
                                      const std::string& joining,
                                      int ensemble_size, int write_quorum,
                                      const placement::LedgerHints& hints) {
  absl::MutexLock l(&mu_);
  AdvanceLocked(options_.env->Now());
  policy_.OnReplacedElsewhere(leaving, joining, ensemble_size, write_quorum,
                              hints);
}

std::map<std::string, double> ClusterView::EstimatedLoads() const {
  absl::MutexLock l(&mu_);
  const absl::flat_hash_map<std::string, double> loads =
      policy_.EstimatedLoads();
  return std::map<std::string, double>(loads.begin(), loads.end());
}

std::map<std::string, std::string> ClusterView::PlacementLeftOut(
    const placement::LedgerHints& hints, int ensemble_size,
    int write_quorum) const {
  absl::MutexLock l(&mu_);
  const absl::flat_hash_map<std::string, std::string> why =
      policy_.LeftOut(hints, ensemble_size, write_quorum);
  return std::map<std::string, std::string>(why.begin(), why.end());
}

void ClusterView::OnBookieInfo(const std::string& id,
                               const proto::GetBookieInfoResponse& info,
                               absl::Time received_at) {
  if (probe_) probe_->InfoPoll(true);
  absl::MutexLock l(&mu_);
  const placement::BookieInfo pi = ToPlacementInfo(info);
  policy_.OnBookieInfo(id, pi, received_at);
  now_ = std::max(now_, received_at);
  Health& h = health_[id];
  h.info = pi;
  h.info_at = received_at;
  h.unreachable = false;  // it answered
  h.report_covers_poll = false;
  if (h.quarantined_until > now_) {
    const bool healthy =
        info.status() == proto::BK_EOK && !info.read_only() &&
        (!info.has_journal_io_util() || info.journal_io_util() < 0 ||
         info.journal_io_util() <= options_.placement.load_threshold);
    h.healthy_reports = healthy ? h.healthy_reports + 1 : 0;
    if (options_.quarantine_release_healthy_reports > 0 &&
        h.healthy_reports >= options_.quarantine_release_healthy_reports) {
      bk::log::Get("client")->info(
          "bookie={} released from quarantine after {} healthy reports", id,
          h.healthy_reports);
      h.quarantined_until = absl::InfinitePast();
      h.healthy_reports = 0;
      h.errors.clear();
      h.slow = false;
    }
  }
}

void ClusterView::OnBookieInfoFailed(const std::string& id, absl::Time at,
                                     bool unavailable) {
  bool counted_by_report = false;
  if (unavailable) {
    absl::MutexLock l(&mu_);
    Health& h = health_[id];
    counted_by_report = h.report_covers_poll;
    h.report_covers_poll = false;
  }
  // A probe that fails is an error of the bookie like a failed request.
  if (!counted_by_report) OnBookieError(id, -1, at);
  // Counted last, so that whoever sees the poll counted sees its error.
  if (probe_) probe_->InfoPoll(false);
}

void ClusterView::OnAddAnswered(const std::string& id, absl::Duration latency) {
  OnAddsAnswered(id, absl::MakeConstSpan(&latency, 1));
}

void ClusterView::OnAddsAnswered(const std::string& id,
                                 absl::Span<const absl::Duration> latencies) {
  absl::MutexLock l(&mu_);
  Health& h = health_[id];
  h.unreachable = false;  // it answered
  h.report_covers_poll = false;
  for (const absl::Duration latency : latencies) {
    const double ms = absl::ToDoubleMilliseconds(latency);
    h.add_latency_ms =
        h.add_latency_ms == 0 ? ms : 0.9 * h.add_latency_ms + 0.1 * ms;
  }
}

void ClusterView::OnBookieError(const std::string& id, int64_t entry_id,
                                absl::Time at) {
  bool quarantined = false;
  {
    absl::MutexLock l(&mu_);
    now_ = std::max(now_, at);
    Health& h = health_[id];
    h.last_failed_entry = std::max(h.last_failed_entry, entry_id);
    h.healthy_reports = 0;
    h.errors.push_back(at);
    while (!h.errors.empty() &&
           h.errors.front() < at - options_.bookie_health_check_interval) {
      h.errors.pop_front();
    }
    if (static_cast<int64_t>(h.errors.size()) >
            options_.bookie_error_threshold_per_interval &&
        h.quarantined_until <= now_) {
      h.quarantined_until = at + options_.bookie_quarantine_time;
      h.errors.clear();
      quarantined = true;
      // Counted before anyone can see the bookie quarantined (a counter
      // increment takes no lock of ours).
      if (probe_) probe_->Quarantined();
    }
  }
  if (quarantined) {
    bk::log::Get("client")->warn(
        "bookie={} quarantined for {} after more than {} errors", id,
        absl::FormatDuration(options_.bookie_quarantine_time),
        options_.bookie_error_threshold_per_interval);
  }
}

void ClusterView::OnBookieUnreachable(const std::string& id, absl::Time at) {
  OnBookieError(id, -1, at);
  absl::MutexLock l(&mu_);
  Health& h = health_[id];
  h.unreachable = true;
  h.report_covers_poll = true;
}

void ClusterView::OnEntryFailed(const std::string& id, int64_t entry_id) {
  absl::MutexLock l(&mu_);
  Health& h = health_[id];
  h.last_failed_entry = std::max(h.last_failed_entry, entry_id);
}

void ClusterView::OnReadStarted(const std::string& id) {
  absl::MutexLock l(&mu_);
  ++health_[id].pending_reads;
}

void ClusterView::OnReadFinished(const std::string& id) {
  absl::MutexLock l(&mu_);
  --health_[id].pending_reads;
}

void ClusterView::MarkSlow(const std::string& id) {
  absl::MutexLock l(&mu_);
  health_[id].slow = true;
}

void ClusterView::Tick(absl::Time now,
                       const std::map<std::string, int64_t>& inflight) {
  absl::MutexLock l(&mu_);
  now_ = std::max(now_, now);
  policy_.AdvanceTime(now);
  for (auto& [id, h] : health_) {
    auto it = inflight.find(id);
    const int64_t n = it == inflight.end() ? 0 : it->second;
    // No add of ours answered yet: nothing observed. (Reporting latency 0
    // made every bookie this client had not written to look free, so the
    // adaptive rule's second choice preferred exactly those -- a slow
    // bookie included.)
    if (h.add_latency_ms > 0) {
      policy_.OnClientObservation(
          id, n,
          absl::Microseconds(static_cast<int64_t>(h.add_latency_ms * 1e3)),
          now);
    }
    // A slow mark lasts until the bookie answers reads again promptly; the
    // simple rule: cleared when it has no read pending.
    if (h.pending_reads <= 0) h.slow = false;
  }
}

std::vector<std::string> ClusterView::Quarantined() const {
  absl::MutexLock l(&mu_);
  std::vector<std::string> out;
  for (const auto& [id, h] : health_) {
    if (h.quarantined_until > std::max(now_, options_.env->Now())) {
      out.push_back(id);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace bk::client::internal
