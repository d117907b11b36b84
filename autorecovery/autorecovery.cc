#include "autorecovery/autorecovery.h"

#include <prometheus/registry.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autorecovery/auditor.h"
#include "autorecovery/auditor_election.h"
#include "autorecovery/autorecovery_probe.h"
#include "autorecovery/byte_rate_limiter.h"
#include "autorecovery/recovery_delay.h"
#include "autorecovery/replica_check.h"
#include "autorecovery/replication_worker.h"
#include "autorecovery/underreplication.h"
#include "client/client.h"
#include "common/logging.h"

namespace bk::autorecovery {
namespace {

std::string DefaultId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return absl::StrCat(host[0] ? host : "localhost", ":", getpid());
}

// The registered bookies as one comparable string.
absl::StatusOr<std::string> BookieSetKey(metadata::MetadataStore* store) {
  auto set = store->ListBookies();
  if (!set.ok()) return set.status();
  std::vector<std::string> ids;
  for (const auto& b : set->writable) ids.push_back(b.bookie_id());
  ids.push_back("|");
  for (const auto& b : set->readonly) ids.push_back(b.bookie_id());
  return absl::StrJoin(ids, ",");
}

metadata::Version AuditRequestVersion(metadata::MetadataStore* store) {
  auto n = store->ReadNode(kAuditRequestNode);
  return n.ok() ? n->version : metadata::kNotExists;
}

// The cluster-wide delay node's contents (nullopt when absent or
// unreadable): a change is a reason to audit, also when made by a tool that
// requests no audit (BookKeeper's shell writes only the node).
std::optional<std::string> DelayNodeValue(metadata::MetadataStore* store) {
  auto n = store->ReadNode(kLostBookieRecoveryDelayNode);
  if (!n.ok()) return std::nullopt;
  return n->value;
}

}  // namespace

absl::Status RequestAudit(metadata::MetadataStore* store) {
  auto created = store->CreateNode(
      kAuditRequestNode, "", metadata::MetadataStore::NodeMode::kPersistent);
  if (created.ok() || !absl::IsAlreadyExists(created.status())) {
    return created.status();
  }
  return store->SetNode(kAuditRequestNode, "", metadata::kAnyVersion).status();
}

AutoRecovery::AutoRecovery(AutoRecoveryOptions options)
    : options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<AutoRecovery>> AutoRecovery::Start(
    AutoRecoveryOptions options) {
  if (options.id.empty()) options.id = DefaultId();
  std::unique_ptr<AutoRecovery> ar(new AutoRecovery(std::move(options)));
  const AutoRecoveryOptions& o = ar->options_;
  metadata::OpenOptions open;
  open.session_timeout = o.zk_timeout;
  open.zk_enable_security = o.zk_enable_security;
  open.zk_digest_file = o.zk_digest_file;
  auto a = metadata::Open(o.metadata_uri, open);
  if (!a.ok()) return a.status();
  ar->auditor_store_ = *std::move(a);
  auto w = metadata::Open(o.metadata_uri, open);
  if (!w.ok()) return w.status();
  ar->worker_store_ = *std::move(w);
  client::ClientOptions co;
  co.metadata_service_uri = o.metadata_uri;
  co.zk_enable_security = o.zk_enable_security;
  co.zk_digest_file = o.zk_digest_file;
  auto c = client::Client::Create(co);
  if (!c.ok()) return c.status();
  ar->client_ = *std::move(c);
  ar->auditor_marks_ =
      std::make_unique<UnderreplicationManager>(ar->auditor_store_.get());
  ar->worker_marks_ =
      std::make_unique<UnderreplicationManager>(ar->worker_store_.get());
  ar->election_ =
      std::make_unique<AuditorElection>(ar->auditor_store_.get(), o.id);
  ar->limiter_ = std::make_unique<ByteRateLimiter>(o.replication_rate_by_bytes);
  ar->probe_ = std::make_unique<AutoRecoveryProbe>(
      o.registry ? o.registry : std::make_shared<prometheus::Registry>(), o.id);
  ar->auditor_thread_ = std::thread([p = ar.get()] { p->AuditorLoop(); });
  for (int i = 0; i < std::max(1, o.workers); ++i) {
    ar->worker_threads_.emplace_back([p = ar.get()] { p->WorkerLoop(); });
  }
  bk::log::Get("autorecovery")
      ->info("autorecovery {} started on {}", o.id, o.metadata_uri);
  return ar;
}

AutoRecovery::~AutoRecovery() { Stop(); }

void AutoRecovery::Stop() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
  }
  if (auditor_thread_.joinable()) auditor_thread_.join();
  for (auto& t : worker_threads_) {
    if (t.joinable()) t.join();
  }
  if (election_) election_->Withdraw();
  is_auditor_ = false;
}

std::shared_ptr<prometheus::Registry> AutoRecovery::metrics_registry() const {
  return probe_->registry();
}

AutoRecoveryStats AutoRecovery::stats() const {
  absl::MutexLock l(&mu_);
  return stats_;
}

bool AutoRecovery::Wait(absl::Duration d) {
  absl::MutexLock l(&mu_);
  auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
  mu_.AwaitWithTimeout(absl::Condition(&stopping), d);
  return !stop_;
}

void AutoRecovery::AuditorLoop() {
  auto log = bk::log::Get("autorecovery");
  Auditor auditor(auditor_store_.get(), auditor_marks_.get(),
                  options_.lost_bookie_recovery_delay);
  probe_->SetLostBookieRecoveryDelay(options_.lost_bookie_recovery_delay);
  probe_->SetConfiguredLostBookieRecoveryDelay(
      options_.lost_bookie_recovery_delay);
  // Each bookie's answer to the replica check is awaited this long at most.
  constexpr absl::Duration kCheckTimeout = absl::Seconds(10);
  ReplicaCheck replica_check(auditor_store_.get(), auditor_marks_.get(),
                             client_.get(), kCheckTimeout);
  absl::Time next_check = absl::InfiniteFuture();
  bool was_auditor = false;
  std::string last_set;
  metadata::Version last_request = metadata::kNotExists;
  std::optional<std::string> last_delay;
  absl::Time last_full = absl::InfinitePast();
  do {
    auto am = election_->Run();
    if (!am.ok()) {
      log->warn("auditor election: {}", am.status().ToString());
      is_auditor_ = was_auditor = false;
      probe_->SetAuditor(false);
      continue;
    }
    if (*am != was_auditor) {
      log->info("{} {} the auditor", options_.id,
                *am ? "is now" : "is no longer");
    }
    is_auditor_ = *am;
    probe_->SetAuditor(*am);
    if (!*am) {
      was_auditor = false;
      continue;
    }
    auto set = BookieSetKey(auditor_store_.get());
    if (!set.ok()) {
      log->warn("auditor: listing bookies: {}", set.status().ToString());
      continue;
    }
    const metadata::Version request = AuditRequestVersion(auditor_store_.get());
    const std::optional<std::string> delay =
        DelayNodeValue(auditor_store_.get());
    const absl::Time now = absl::Now();
    const bool due =
        !was_auditor || *set != last_set || request != last_request ||
        delay != last_delay || now >= auditor.NextDeadline() ||
        now - last_full >= options_.auditor_periodic_bookie_check_interval;
    if (!was_auditor) {
      next_check =
          options_.auditor_periodic_check_interval > absl::ZeroDuration()
              ? now + options_.auditor_periodic_check_interval
              : absl::InfiniteFuture();
    }
    was_auditor = true;
    if (auto marked = auditor_marks_->List(); marked.ok()) {
      probe_->SetUnderreplicated(static_cast<int64_t>(marked->size()));
    }
    if (now >= next_check) {
      auto checked = replica_check.Run(now);
      next_check = absl::Now() + options_.auditor_periodic_check_interval;
      if (!checked.ok()) {
        log->warn("replica check failed: {}", checked.status().ToString());
      } else {
        absl::MutexLock l(&mu_);
        ++stats_.replica_checks;
        stats_.replica_check_marks += checked->ledgers_marked;
      }
    }
    if (!due) continue;
    auto report = auditor.Audit(now);
    if (!report.ok()) {
      log->warn("audit failed: {}", report.status().ToString());
      continue;
    }
    last_set = *set;
    last_request = request;
    last_delay = delay;
    last_full = now;
    probe_->Audited();
    if (!report->replication_disabled) {
      probe_->SetLostBookieRecoveryDelay(report->delay);
    }
    for (const auto& [bookie, took] : report->healed) {
      probe_->BookieRepaired(took);
    }
    absl::MutexLock l(&mu_);
    ++stats_.audits;
  } while (Wait(options_.poll_interval));
  election_->Withdraw();
  is_auditor_ = false;
  probe_->SetAuditor(false);
}

void AutoRecovery::WorkerLoop() {
  auto log = bk::log::Get("autorecovery");
  WorkerOptions wo;
  wo.owner = options_.id;
  wo.open_ledger_grace_period = options_.open_ledger_rereplication_grace_period;
  wo.backoff = options_.rw_rereplicate_backoff;
  wo.batch_size = options_.rereplication_entry_batch_size;
  wo.passwords = options_.ledger_passwords;
  if (options_.replication_rate_by_bytes > 0) {
    wo.throttle = [l = limiter_.get()](int64_t bytes) { l->Acquire(bytes); };
  }
  ReplicationWorker worker(client_.get(), worker_store_.get(),
                           worker_marks_.get(), std::move(wo));
  bool busy = false;
  do {
    auto r = worker.RunOnce(absl::Now());
    if (!r.ok()) {
      log->warn("replication worker: {}", r.status().ToString());
      busy = false;
      continue;
    }
    // Its workers read the pause on every pass (honour_disable).
    probe_->SetReplicationEnabled(!r->paused);
    busy = r->outcome != WorkResult::kIdle;
    if (busy) {
      probe_->Repaired(r->fragments, r->bytes,
                       r->outcome == WorkResult::kRepaired);
    }
    if (r->outcome == WorkResult::kFailed) probe_->Failed();
    absl::MutexLock l(&mu_);
    stats_.fragments_rereplicated += r->fragments;
    stats_.entries_rereplicated += r->entries;
    stats_.bytes_rereplicated += r->bytes;
    if (r->outcome == WorkResult::kRepaired) ++stats_.ledgers_repaired;
    if (r->outcome == WorkResult::kFailed) ++stats_.repair_failures;
  } while (Wait(busy ? absl::ZeroDuration() : options_.poll_interval));
}

}  // namespace bk::autorecovery
