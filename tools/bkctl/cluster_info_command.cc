// bkctl cluster info: the cluster at a glance, for an operator's first
// look: bookies by state and rack (a bookie with a cookie but no
// registration is down), the ledger count, the under-replicated count and
// the auditor.

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "autorecovery/auditor_election.h"
#include "autorecovery/recovery_delay.h"
#include "autorecovery/underreplication.h"
#include "metadata/metadata_store.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/store_flags.h"

namespace bk::bkctl {
namespace {

using nlohmann::json;

int Fail(std::ostream& err, const absl::Status& s) {
  err << "bkctl cluster info: " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

struct RackCounts {
  int writable = 0;
  int readonly = 0;
};

int ClusterInfo(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  auto f =
      ParseFlags(args, {kMetadataUriFlag, {"json", false, "print JSON", true}});
  if (!f.ok()) return Fail(err, f.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, store.status());
  metadata::MetadataStore* md = store->get();
  auto instance = md->InstanceId();
  if (!instance.ok()) return Fail(err, instance.status());
  auto bookies = md->ListBookies();
  if (!bookies.ok()) return Fail(err, bookies.status());
  auto cookies = md->ListCookies();
  if (!cookies.ok()) return Fail(err, cookies.status());

  std::map<std::string, RackCounts> racks;
  std::set<std::string> up;
  for (const auto& b : bookies->writable) {
    ++racks[b.network_location()].writable;
    up.insert(b.bookie_id());
  }
  for (const auto& b : bookies->readonly) {
    ++racks[b.network_location()].readonly;
    up.insert(b.bookie_id());
  }
  std::vector<std::string> down;
  for (const std::string& id : *cookies) {
    if (!up.contains(id)) down.push_back(id);
  }
  const size_t known = up.size() + down.size();

  int64_t ledgers = 0;
  auto it = md->ListLedgers();
  metadata::LedgerId id;
  while (it->Next(&id)) ++ledgers;
  if (!it->status().ok()) return Fail(err, it->status());
  auto marked = autorecovery::UnderreplicationManager(md).List();
  if (!marked.ok()) return Fail(err, marked.status());
  auto auditor = autorecovery::CurrentAuditor(md);
  if (!auditor.ok()) return Fail(err, auditor.status());
  auto paused =
      autorecovery::UnderreplicationManager(md).ReplicationDisabledSince();
  if (!paused.ok()) return Fail(err, paused.status());
  auto delay = autorecovery::ReadLostBookieRecoveryDelay(md);
  if (!delay.ok()) return Fail(err, delay.status());
  // "enabled", or "paused" with the time when it has one.
  std::string replication = "enabled";
  if (paused->has_value()) {
    replication =
        **paused == absl::InfinitePast()
            ? "paused"
            : "paused since " + absl::FormatTime(**paused, absl::UTCTimeZone());
  }

  if (f->GetBool("json")) {
    json by_rack = json::object();
    for (const auto& [rack, c] : racks) {
      by_rack[rack] = {{"writable", c.writable}, {"readonly", c.readonly}};
    }
    out << json{{"metadata_uri", f->Get("metadata-uri")},
                {"instance_id", *instance},
                {"bookies",
                 {{"known", known},
                  {"writable", bookies->writable.size()},
                  {"readonly", bookies->readonly.size()},
                  {"down", down.size()},
                  {"down_ids", down},
                  {"racks", by_rack}}},
                {"ledgers", ledgers},
                {"underreplicated_ledgers", marked->size()},
                {"replication_enabled", !paused->has_value()},
                {"lost_bookie_recovery_delay_seconds",
                 delay->has_value() ? json(absl::ToInt64Seconds(**delay))
                                    : json(nullptr)},
                {"auditor", auditor->empty() ? json(nullptr) : json(*auditor)}}
               .dump(2)
        << "\n";
    return kExitOk;
  }
  out << "cluster " << f->Get("metadata-uri") << " (instance " << *instance
      << ")\n"
      << "bookies: " << known << " known: " << bookies->writable.size()
      << " writable, " << bookies->readonly.size() << " read-only, "
      << down.size() << " down\n";
  for (const auto& [rack, c] : racks) {
    out << "  " << rack << ": " << c.writable << " writable, " << c.readonly
        << " read-only\n";
  }
  if (!down.empty()) {
    out << "  down (a cookie, no registration): " << absl::StrJoin(down, ",")
        << "\n";
  }
  out << "ledgers: " << ledgers << "\n"
      << "under-replicated ledgers: " << marked->size() << "\n"
      << "re-replication: " << replication << "\n"
      << "lostBookieRecoveryDelay: "
      << (delay->has_value()
              ? absl::StrCat(absl::ToInt64Seconds(**delay), " s, cluster-wide")
              : std::string("each auditor's configured value"))
      << "\n"
      << "auditor: " << (auditor->empty() ? "none" : *auditor) << "\n";
  return kExitOk;
}

}  // namespace

std::vector<Command> ClusterInfoCommands() {
  return {{"cluster", "info",
           "bookies by state and rack (down: a cookie but no registration), "
           "ledger and under-replicated counts, whether re-replication is "
           "paused, lostBookieRecoveryDelay when set cluster-wide, the "
           "auditor",
           FlagsUsage({kMetadataUriFlag, {"json", false, "print JSON", true}}),
           ClusterInfo}};
}

}  // namespace bk::bkctl
