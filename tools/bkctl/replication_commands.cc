// bkctl replication disable | enable | status: pause replication
// cluster-wide for a maintenance window (BookKeeper's `autorecovery
// -disable/-enable/-status`), so that bookies restarted one after another
// are not re-replicated. While paused the autorecovery workers take no
// ledger and the auditor and the replica check mark none; marks already
// made stay. `enable` also asks the auditor for an audit, so bookies still
// missing are found at once. bkctl recover does not wait for it.
//
// bkctl replication delay [--set SECONDS | --clear]: lostBookieRecoveryDelay
// cluster-wide at run time (BookKeeper's `lostbookierecoverydelay -get/-set`;
// recovery_delay.h). Setting it asks for an audit, so that a shorter delay
// marks a bookie already missing that long at once.

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "autorecovery/operator_actions.h"
#include "autorecovery/recovery_delay.h"
#include "autorecovery/underreplication.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/store_flags.h"

namespace bk::bkctl {
namespace {

using autorecovery::UnderreplicationManager;
using nlohmann::json;

const FlagSpec kReplicationJson{"json", false, "print JSON", true};
const FlagSpec kDelaySet{"set", false,
                         "seconds: set lostBookieRecoveryDelay cluster-wide"};
const FlagSpec kDelayClear{
    "clear", false,
    "remove the cluster-wide value (each auditor's own configuration applies)",
    true};

int Fail(std::ostream& err, const std::string& cmd, const absl::Status& s) {
  err << "bkctl replication " << cmd << ": " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

// Prints the state after `cmd`: "enabled", or "disabled since T".
int Report(const std::string& cmd, UnderreplicationManager* marks,
           bool json_out, std::ostream& out, std::ostream& err) {
  auto since = marks->ReplicationDisabledSince();
  if (!since.ok()) return Fail(err, cmd, since.status());
  if (json_out) {
    json row = {{"enabled", !since->has_value()}};
    if (since->has_value() && **since != absl::InfinitePast()) {
      row["disabled_since_ms"] = absl::ToUnixMillis(**since);
    }
    out << row.dump(2) << "\n";
  } else if (!since->has_value()) {
    out << "replication enabled\n";
  } else {
    out << "replication disabled"
        << (**since == absl::InfinitePast()
                ? ""
                : " since " + absl::FormatTime(**since, absl::UTCTimeZone()))
        << "\n";
  }
  return kExitOk;
}

int Run(const std::string& cmd, const std::vector<std::string>& args,
        std::ostream& out, std::ostream& err) {
  auto f = ParseFlags(args, {kMetadataUriFlag, kReplicationJson});
  if (!f.ok()) return Fail(err, cmd, f.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, cmd, store.status());
  UnderreplicationManager marks(store->get());
  if (cmd != "status") {
    // Resuming requests an audit: bookies that went missing while paused
    // are found now, not at the next periodic audit.
    if (absl::Status s = autorecovery::SetReplicationEnabledByOperator(
            store->get(), cmd == "enable", absl::Now());
        !s.ok()) {
      return Fail(err, cmd, s);
    }
  }
  return Report(cmd, &marks, f->GetBool("json"), out, err);
}

int RunDelay(const std::vector<std::string>& args, std::ostream& out,
             std::ostream& err) {
  const std::string cmd = "delay";
  auto f = ParseFlags(
      args, {kMetadataUriFlag, kReplicationJson, kDelaySet, kDelayClear});
  if (!f.ok()) return Fail(err, cmd, f.status());
  const bool clear = f->GetBool("clear");
  if (clear && f->Has("set")) {
    return Fail(err, cmd,
                absl::InvalidArgumentError("--set and --clear exclude each "
                                           "other"));
  }
  std::optional<int64_t> seconds;
  if (f->Has("set")) {
    auto v =
        f->GetInt("set", 0, autorecovery::kMaxLostBookieRecoveryDelaySeconds);
    if (!v.ok()) return Fail(err, cmd, v.status());
    seconds = *v;
  }
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, cmd, store.status());
  if (seconds.has_value() || clear) {
    // Requests an audit too: the auditor applies the change now.
    if (absl::Status s =
            autorecovery::ChangeLostBookieRecoveryDelay(store->get(), seconds);
        !s.ok()) {
      return Fail(err, cmd, s);
    }
  }
  auto delay = autorecovery::ReadLostBookieRecoveryDelay(store->get());
  if (!delay.ok()) return Fail(err, cmd, delay.status());
  if (f->GetBool("json")) {
    json row = {{"set", delay->has_value()}};
    if (delay->has_value()) {
      row["delay_seconds"] = absl::ToInt64Seconds(**delay);
    }
    out << row.dump(2) << "\n";
  } else if (delay->has_value()) {
    out << "lostBookieRecoveryDelay " << absl::ToInt64Seconds(**delay)
        << " s, set cluster-wide (overrides each auditor's configuration)\n";
  } else {
    out << "lostBookieRecoveryDelay not set cluster-wide: each auditor uses "
           "its configured value\n";
  }
  return kExitOk;
}

}  // namespace

std::vector<Command> ReplicationCommands() {
  const std::string flags = FlagsUsage({kMetadataUriFlag, kReplicationJson});
  return {
      {"replication", "disable",
       "pause re-replication cluster-wide (workers take nothing, the auditor "
       "marks nothing) for a maintenance window",
       flags,
       [](const std::vector<std::string>& a, std::ostream& o, std::ostream& e) {
         return Run("disable", a, o, e);
       }},
      {"replication", "enable",
       "resume re-replication and ask the auditor for an audit", flags,
       [](const std::vector<std::string>& a, std::ostream& o, std::ostream& e) {
         return Run("enable", a, o, e);
       }},
      {"replication", "status",
       "whether re-replication is enabled, or paused since when", flags,
       [](const std::vector<std::string>& a, std::ostream& o, std::ostream& e) {
         return Run("status", a, o, e);
       }},
      {"replication", "delay",
       "show, set or clear lostBookieRecoveryDelay cluster-wide (no restart)",
       FlagsUsage({kMetadataUriFlag, kReplicationJson, kDelaySet, kDelayClear}),
       RunDelay},
  };
}

}  // namespace bk::bkctl
