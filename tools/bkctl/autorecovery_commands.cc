// bkctl commands of autorecovery (autorecovery/README.md): autorecovery
// (run the auditor and a worker), listunderreplicated, decommission,
// recover, whoisauditor, triggeraudit.

#include <prometheus/exposer.h>
#include <prometheus/registry.h>
#include <signal.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "autorecovery/auditor_election.h"
#include "autorecovery/autorecovery.h"
#include "autorecovery/autorecovery_config.h"
#include "autorecovery/ledgers_on_bookie.h"
#include "autorecovery/replication_worker.h"
#include "autorecovery/underreplication.h"
#include "bookie/daemon/process_collector.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "tools/bkctl/client_flags.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/store_flags.h"
#include "tools/bkctl/tls_flags.h"

namespace bk::bkctl {
namespace {

using autorecovery::UnderreplicationManager;
using nlohmann::json;

const FlagSpec kUri{"metadata-uri", true,
                    "metadata store, zk://host:port/root or mem://name"};
const FlagSpec kJson{"json", false, "print JSON", true};
const FlagSpec kBookie{"bookie", true, "the bookie's id"};

int Fail(std::ostream& err, const std::string& cmd, const absl::Status& s) {
  err << "bkctl " << cmd << ": " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

// --- autorecovery ----------------------------------------------------------

std::vector<FlagSpec> AutoRecoveryFlags() {
  std::vector<FlagSpec> specs = {
      {"metadata-uri", false, "metadata store (or metadataServiceUri)"},
      {"conf", false, "key=value file of the keys below"}};
  for (const auto& o :
       autorecovery::AutoRecoveryConfigTable().schema().options()) {
    specs.push_back({o.key, false, o.help});
  }
  return specs;
}

int RunAutoRecovery(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err) {
  const std::vector<FlagSpec> specs = AutoRecoveryFlags();
  auto f = ParseFlags(args, specs);
  if (!f.ok()) return Fail(err, "autorecovery", f.status());
  std::map<std::string, std::string> keys;
  for (const auto& s : specs) {
    if (s.name == "conf" || s.name == "metadata-uri" || !f->Has(s.name)) {
      continue;
    }
    keys[s.name] = f->Get(s.name);
  }
  if (f->Has("metadata-uri"))
    keys["metadataServiceUri"] = f->Get("metadata-uri");
  auto options =
      autorecovery::AutoRecoveryOptionsFromKeys(keys, f->Get("conf"));
  if (!options.ok()) return Fail(err, "autorecovery", options.status());
  // Wait for SIGTERM or SIGINT on this thread; the service's threads must
  // not take them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  const int metrics_port = options->prometheus_stats_http_port;
  auto ar = autorecovery::AutoRecovery::Start(*std::move(options));
  if (!ar.ok()) return Fail(err, "autorecovery", ar.status());
  std::shared_ptr<bookie::ProcessCollector> process_metrics;
  std::unique_ptr<prometheus::Exposer> exposer;
  if (metrics_port > 0) {
    exposer = std::make_unique<prometheus::Exposer>(
        "0.0.0.0:" + std::to_string(metrics_port));
    exposer->RegisterCollectable((*ar)->metrics_registry());
    // process_cpu_seconds_total and the rest, as a bookie's /metrics has.
    process_metrics = std::make_shared<bookie::ProcessCollector>();
    exposer->RegisterCollectable(process_metrics);
  }
  out << "autorecovery " << (*ar)->id() << " running; SIGTERM stops it\n";
  out.flush();
  int sig = 0;
  sigwait(&set, &sig);
  (*ar)->Stop();
  const auto st = (*ar)->stats();
  out << "autorecovery stopped: " << st.ledgers_repaired
      << " ledgers repaired, " << st.fragments_rereplicated << " fragments, "
      << st.bytes_rereplicated << " bytes\n";
  return kExitOk;
}

// --- listunderreplicated -----------------------------------------------------

int ListUnderreplicated(const std::vector<std::string>& args, std::ostream& out,
                        std::ostream& err) {
  auto f = ParseFlags(
      args,
      {kUri, kJson, {"missing-bookie", false, "only ledgers missing it"}});
  if (!f.ok()) return Fail(err, "listunderreplicated", f.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "listunderreplicated", store.status());
  UnderreplicationManager marks(store->get());
  auto ids = marks.List();
  if (!ids.ok()) return Fail(err, "listunderreplicated", ids.status());
  json a = json::array();
  for (int64_t id : *ids) {
    auto m = marks.Get(id);
    if (absl::IsNotFound(m.status())) continue;  // repaired meanwhile
    if (!m.ok()) return Fail(err, "listunderreplicated", m.status());
    if (f->Has("missing-bookie") &&
        std::find(m->missing.begin(), m->missing.end(),
                  f->Get("missing-bookie")) == m->missing.end()) {
      continue;
    }
    auto lock = (*store)->ReadNode(UnderreplicationManager::LockPath(id));
    const std::string holder = lock.ok() ? lock->value : "";
    if (f->GetBool("json")) {
      a.push_back(json{{"ledger", id},
                       {"missing", m->missing},
                       {"marked_at_ms", absl::ToUnixMillis(m->marked_at)},
                       {"locked_by", holder}});
    } else {
      out << id << "\tmissing " << absl::StrJoin(m->missing, ",") << "\tsince "
          << absl::FormatTime(m->marked_at)
          << (holder.empty() ? "" : "\trepairing: " + holder) << "\n";
    }
  }
  if (f->GetBool("json")) out << a.dump(2) << "\n";
  return kExitOk;
}

// --- whoisauditor, triggeraudit ---------------------------------------------

int WhoIsAuditor(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  auto f = ParseFlags(args, {kUri, kJson});
  if (!f.ok()) return Fail(err, "whoisauditor", f.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "whoisauditor", store.status());
  auto who = autorecovery::CurrentAuditor(store->get());
  if (!who.ok()) return Fail(err, "whoisauditor", who.status());
  if (f->GetBool("json")) {
    out << json{{"auditor", who->empty() ? json(nullptr) : json(*who)}}.dump(2)
        << "\n";
  } else {
    out << (who->empty() ? "no auditor" : *who) << "\n";
  }
  return who->empty() ? kExitFailure : kExitOk;
}

int TriggerAudit(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  auto f = ParseFlags(args, {kUri, kJson});
  if (!f.ok()) return Fail(err, "triggeraudit", f.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "triggeraudit", store.status());
  if (absl::Status s = autorecovery::RequestAudit(store->get()); !s.ok()) {
    return Fail(err, "triggeraudit", s);
  }
  auto who = autorecovery::CurrentAuditor(store->get());
  const std::string auditor = who.ok() ? *who : "";
  if (f->GetBool("json")) {
    out << json{{"requested", true}, {"auditor", auditor}}.dump(2) << "\n";
  } else {
    out << "audit requested"
        << (auditor.empty() ? " (no auditor is running)" : " of " + auditor)
        << "\n";
  }
  return kExitOk;
}

// --- decommission
// -------------------------------------------------------------

int Decommission(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  auto f = ParseFlags(args, {kUri,
                             kBookie,
                             kJson,
                             {"timeout-seconds", false,
                              "give up after this long (default 3600)"}});
  if (!f.ok()) return Fail(err, "decommission", f.status());
  int64_t timeout_s = 3600;
  if (f->Has("timeout-seconds")) {
    auto t = f->GetInt("timeout-seconds", 1, 1 << 30);
    if (!t.ok()) return Fail(err, "decommission", t.status());
    timeout_s = *t;
  }
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "decommission", store.status());
  const std::string bookie = f->Get("bookie");
  auto set = (*store)->ListBookies();
  if (!set.ok()) return Fail(err, "decommission", set.status());
  for (const auto& b : set->writable) {
    if (b.bookie_id() == bookie && !f->GetBool("json")) {
      out << "note: " << bookie
          << " is writable: new ledgers may still land on it; restart it "
             "with forceReadOnlyBookie=true to drain it\n";
    }
  }
  UnderreplicationManager marks(store->get());
  std::set<int64_t> marked;
  const absl::Time deadline = absl::Now() + absl::Seconds(timeout_s);
  // Mark every ledger on it (again for ledgers that appear meanwhile) until
  // the workers have moved them all.
  while (true) {
    auto on = autorecovery::LedgersOnBookie(store->get(), bookie);
    if (!on.ok()) return Fail(err, "decommission", on.status());
    if (on->empty()) break;
    for (int64_t id : *on) {
      if (absl::Status s = marks.Mark(id, {bookie}, absl::Now()); !s.ok()) {
        return Fail(err, "decommission", s);
      }
      marked.insert(id);
    }
    if (absl::Now() >= deadline) {
      return Fail(err, "decommission",
                  absl::DeadlineExceededError(absl::StrCat(
                      on->size(), " ledgers still name ", bookie, " after ",
                      timeout_s, " s; is an autorecovery process running?")));
    }
    absl::SleepFor(absl::Seconds(1));  // the workers' pace, not a test wait
  }
  // No ledger names it: it leaves the cluster's known bookies (BookKeeper
  // deletes the cookie too). Should it start again on its old disks, it
  // writes its cookie back and rejoins, empty of ledgers.
  absl::Status removed = (*store)->DeleteCookie(bookie, metadata::kAnyVersion);
  if (!removed.ok() && !absl::IsNotFound(removed)) {
    return Fail(err, "decommission", removed);
  }
  if (f->GetBool("json")) {
    out << json{{"bookie", bookie},
                {"ledgers_marked", marked.size()},
                {"remaining", 0},
                {"cookie_removed", true},
                {"safe_to_remove", true}}
               .dump(2)
        << "\n";
  } else {
    out << bookie << ": " << marked.size()
        << " ledgers moved off it; no ledger names it, its cookie is "
           "removed: safe to remove\n";
  }
  return kExitOk;
}

// --- recover
// --------------------------------------------------------------------

std::vector<FlagSpec> RecoverFlags() {
  return WithTls({kUri,
                  kBookie,
                  kJson,
                  {"ledger", false,
                   "only these ledgers (comma-separated ids), each naming "
                   "the bookie"},
                  {"password-file", false,
                   "the ledgers' passwords, one a line, mode 0600 (the "
                   "empty password is always tried)"}});
}

// The ledgers a recover run moves: all that name `bookie`, or the --ledger
// ones, each of which must be among them (a typo moves nothing).
absl::StatusOr<std::vector<int64_t>> LedgersToRecover(
    const ParsedFlags& f, const std::string& bookie,
    std::vector<int64_t> named) {
  if (!f.Has("ledger")) return named;
  auto items = f.GetList("ledger");
  if (!items.ok()) return items.status();
  if (items->empty()) {
    return absl::InvalidArgumentError("--ledger needs at least one id");
  }
  std::set<int64_t> wanted;
  for (const std::string& item : *items) {
    int64_t id;
    if (!absl::SimpleAtoi(item, &id) || id < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--ledger: '", item, "' is not a ledger id"));
    }
    if (!std::binary_search(named.begin(), named.end(), id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("ledger ", id, " does not name ", bookie,
                       " (no such ledger, or none of its segments has it)"));
    }
    wanted.insert(id);
  }
  return std::vector<int64_t>(wanted.begin(), wanted.end());
}

// The marked ledgers whose mark lists `bookie` as missing.
absl::StatusOr<std::vector<int64_t>> MarkedMissing(
    UnderreplicationManager* marks, const std::string& bookie) {
  auto ids = marks->List();
  if (!ids.ok()) return ids.status();
  std::vector<int64_t> out;
  for (int64_t id : *ids) {
    auto m = marks->Get(id);
    if (absl::IsNotFound(m.status())) continue;  // repaired meanwhile
    if (!m.ok()) return m.status();
    if (std::find(m->missing.begin(), m->missing.end(), bookie) !=
        m->missing.end()) {
      out.push_back(id);
    }
  }
  return out;
}

int Recover(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  auto f = ParseFlags(args, RecoverFlags());
  if (!f.ok()) return Fail(err, "recover", f.status());
  std::vector<std::string> passwords;
  if (f->Has("password-file")) {
    auto p = autorecovery::ReadPasswordFile(f->Get("password-file"));
    if (!p.ok()) return Fail(err, "recover", p.status());
    passwords = *std::move(p);
  }
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "recover", store.status());
  const std::string bookie = f->Get("bookie");
  // With the --tls-* flags and the client config file's keys.
  auto client = MakeClient(*f);
  if (!client.ok()) return Fail(err, "recover", client.status());
  // The ledgers on it are marked, then repaired here by a worker of our own
  // (no grace for open ledgers: this is the operator's one-shot repair).
  UnderreplicationManager marks(store->get());
  auto named = autorecovery::LedgersOnBookie(store->get(), bookie);
  if (!named.ok()) return Fail(err, "recover", named.status());
  // --ledger: only these, each of which must name the bookie.
  auto on = LedgersToRecover(*f, bookie, *std::move(named));
  if (!on.ok()) return Fail(err, "recover", on.status());
  for (int64_t id : *on) {
    if (absl::Status s = marks.Mark(id, {bookie}, absl::Now()); !s.ok()) {
      return Fail(err, "recover", s);
    }
  }
  autorecovery::WorkerOptions wo;
  wo.owner = "bkctl-recover";
  wo.open_ledger_grace_period = absl::ZeroDuration();
  wo.backoff = absl::InfiniteDuration();  // one attempt per ledger
  wo.batch_size = 100;
  wo.passwords = passwords;
  wo.honour_disable = false;  // the operator's explicit repair
  // Only ledgers missing this bookie: other bookies' marks are the
  // daemon's. Without --ledger, marks missing it from before (an auditor's,
  // of a ledger that no longer names it) are taken too.
  wo.only.insert(on->begin(), on->end());
  if (!f->Has("ledger")) {
    auto missing = MarkedMissing(&marks, bookie);
    if (!missing.ok()) return Fail(err, "recover", missing.status());
    wo.only.insert(missing->begin(), missing->end());
  }
  autorecovery::ReplicationWorker worker(*client, store->get(), &marks, wo);
  json failures = json::array();
  int64_t repaired = 0, fragments = 0, bytes = 0;
  while (!wo.only.empty()) {  // (an empty `only` would take any mark)
    auto r = worker.RunOnce(absl::Now());
    if (!r.ok()) return Fail(err, "recover", r.status());
    if (r->outcome == autorecovery::WorkResult::kIdle) break;
    fragments += r->fragments;
    bytes += r->bytes;
    if (r->outcome == autorecovery::WorkResult::kRepaired) ++repaired;
    if (r->outcome == autorecovery::WorkResult::kFailed) {
      failures.push_back(
          json{{"ledger", r->ledger}, {"error", r->error.ToString()}});
      if (!f->GetBool("json")) {
        err << "ledger " << r->ledger << ": " << r->error.message() << "\n";
      }
    }
  }
  auto still = autorecovery::LedgersOnBookie(store->get(), bookie);
  if (!still.ok()) return Fail(err, "recover", still.status());
  // With --ledger, of those ledgers; else every ledger naming it now (one
  // created on it meanwhile too: the bookie is not yet empty).
  std::vector<int64_t> left;
  for (int64_t id : *still) {
    if (!f->Has("ledger") || wo.only.contains(id)) left.push_back(id);
  }
  if (f->GetBool("json")) {
    out << json{{"bookie", bookie},     {"ledgers", on->size()},
                {"repaired", repaired}, {"fragments", fragments},
                {"bytes", bytes},       {"still_on_bookie", left},
                {"failures", failures}}
               .dump(2)
        << "\n";
  } else {
    out << bookie << ": " << on->size() << " ledgers, " << fragments
        << " fragments (" << bytes << " bytes) moved; " << left.size()
        << " still name it\n";
  }
  return left.empty() ? kExitOk : kExitFailure;
}

}  // namespace

std::vector<Command> AutoRecoveryCommands() {
  return {
      {"", "autorecovery",
       "run the auditor and a replication worker until SIGTERM",
       FlagsUsage(AutoRecoveryFlags()), RunAutoRecovery},
      {"", "listunderreplicated",
       "ledgers marked under-replicated, their missing bookies and lock",
       FlagsUsage({kUri, kJson, {"missing-bookie", false, "only these"}}),
       ListUnderreplicated},
      {"", "decommission",
       "mark every ledger of a bookie, wait until none names it",
       FlagsUsage(
           {kUri, kBookie, kJson, {"timeout-seconds", false, "default 3600"}}),
       Decommission},
      {"", "recover",
       "move every ledger (or --ledger L,...) off a bookie now, without the "
       "daemon",
       FlagsUsage(RecoverFlags()), Recover},
      {"", "whoisauditor", "the current auditor's id",
       FlagsUsage({kUri, kJson}), WhoIsAuditor},
      {"", "triggeraudit", "ask the auditor for an audit now",
       FlagsUsage({kUri, kJson}), TriggerAudit},
  };
}

}  // namespace bk::bkctl
