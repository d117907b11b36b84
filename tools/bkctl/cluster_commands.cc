// bkctl commands that read the cluster through the metadata store and the
// bookies themselves (client::BookieAdmin): listbookies, bookieinfo, ledger
// list|metadata|delete, placement explain.

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autorecovery/ledgers_on_bookie.h"
#include "client/bookie_admin.h"
#include "metadata/ledger_json.h"
#include "metadata/metadata_store.h"
#include "placement/topology.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/store_flags.h"
#include "tools/bkctl/tls_flags.h"

namespace bk::bkctl {
namespace {

using nlohmann::json;

const FlagSpec& kUri = kMetadataUriFlag;
const FlagSpec kJson{"json", false, "print JSON", true};

int Fail(std::ostream& err, const std::string& cmd, const absl::Status& s) {
  err << "bkctl " << cmd << ": " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

json BookieJson(const proto::BookieServiceInfo& b) {
  return json{{"id", b.bookie_id()},       {"grpc", b.grpc_endpoint()},
              {"http", b.http_endpoint()}, {"rack", b.network_location()},
              {"readonly", b.read_only()}, {"version", b.version()}};
}

int ListBookies(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  auto f = ParseFlags(
      args, {kUri, kJson, {"readonly", false, "only read-only bookies", true}});
  if (!f.ok()) return Fail(err, "listbookies", f.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "listbookies", store.status());
  auto set = (*store)->ListBookies();
  if (!set.ok()) return Fail(err, "listbookies", set.status());
  std::vector<proto::BookieServiceInfo> shown = set->readonly;
  if (!f->GetBool("readonly")) {
    shown.insert(shown.begin(), set->writable.begin(), set->writable.end());
  }
  if (f->GetBool("json")) {
    json a = json::array();
    for (const auto& b : shown) a.push_back(BookieJson(b));
    out << a.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& b : shown) {
    out << b.bookie_id() << "\t" << b.grpc_endpoint() << "\t"
        << b.network_location() << "\t"
        << (b.read_only() ? "read-only" : "writable") << "\n";
  }
  return kExitOk;
}

// GetBookieInfo from one bookie, with a deadline.
absl::StatusOr<client::BookieInfo> QueryInfo(
    const proto::BookieServiceInfo& b, const client::TlsClientOptions& tls) {
  auto admin =
      client::BookieAdmin::Connect(b.bookie_id(), b.grpc_endpoint(), tls);
  if (!admin.ok()) return admin.status();
  return (*admin)->Info(absl::Seconds(5));
}

int BookieInfo(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  std::vector<FlagSpec> specs = {
      kUri, kJson, {"bookies", false, "comma-separated ids (all)"}};
  for (FlagSpec& s : TlsFlags()) specs.push_back(std::move(s));
  auto f = ParseFlags(args, specs);
  if (!f.ok()) return Fail(err, "bookieinfo", f.status());
  auto tls = TlsOptionsOf(*f);
  if (!tls.ok()) return Fail(err, "bookieinfo", tls.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "bookieinfo", store.status());
  auto set = (*store)->ListBookies();
  if (!set.ok()) return Fail(err, "bookieinfo", set.status());
  auto wanted = f->GetList("bookies");
  if (!wanted.ok()) return Fail(err, "bookieinfo", wanted.status());
  std::vector<proto::BookieServiceInfo> all = set->writable;
  all.insert(all.end(), set->readonly.begin(), set->readonly.end());
  json rows = json::array();
  int failures = 0;
  for (const std::string& id : *wanted) {
    bool found = false;
    for (const auto& b : all) found = found || b.bookie_id() == id;
    if (!found) {
      err << "bkctl bookieinfo: no registered bookie " << id << "\n";
      return kExitFailure;
    }
  }
  for (const auto& b : all) {
    if (!wanted->empty() && std::find(wanted->begin(), wanted->end(),
                                      b.bookie_id()) == wanted->end()) {
      continue;
    }
    auto info = QueryInfo(b, *tls);
    json row = {{"id", b.bookie_id()}, {"rack", b.network_location()}};
    if (!info.ok()) {
      row["error"] = std::string(info.status().message());
      ++failures;
    } else {
      row.update(json{{"total_disk_capacity", info->total_disk_capacity},
                      {"free_disk_space", info->free_disk_space},
                      {"journal_io_util", info->journal_io_util},
                      {"journal_util_source", info->journal_util_source},
                      {"ledger_io_util", info->ledger_io_util},
                      {"ledger_util_source", info->ledger_util_source},
                      {"cpu_used_rate", info->cpu_used_rate},
                      {"write_bytes_per_second", info->write_bytes_per_second},
                      {"journal_device_write_bytes_per_second",
                       info->journal_device_write_bytes_per_second},
                      {"window_ms", info->window_ms},
                      {"adds_in_flight", info->adds_in_flight},
                      {"journal_queue_depth", info->journal_queue_depth},
                      {"read_only", info->read_only}});
    }
    rows.push_back(row);
  }
  if (f->GetBool("json")) {
    out << rows.dump(2) << "\n";
  } else {
    for (const json& r : rows) {
      out << r["id"].get<std::string>();
      if (r.contains("error")) {
        out << "\terror: " << r["error"].get<std::string>() << "\n";
        continue;
      }
      auto fig = [](double v, double scale, const char* unit) {
        if (v < 0) return std::string("unknown");
        return absl::StrCat(absl::SixDigits(v / scale), unit);
      };
      out << "\tjournal_util="
          << fig(r["journal_io_util"].get<double>(), 1, "%") << " ("
          << r["journal_util_source"].get<std::string>() << ")"
          << "\tledger_util=" << fig(r["ledger_io_util"].get<double>(), 1, "%")
          << "\tcpu=" << fig(r["cpu_used_rate"].get<double>(), 1, "%")
          << "\twrite="
          << fig(r["write_bytes_per_second"].get<double>(), 1048576.0, "MiB/s")
          << "\tjournal_device="
          << fig(r["journal_device_write_bytes_per_second"].get<double>(),
                 1048576.0, "MiB/s")
          << "\tfree=" << fig(r["free_disk_space"].get<double>(), 1e9, "GB")
          << "\tin_flight=" << r["adds_in_flight"].get<int64_t>()
          << (r["read_only"].get<bool>() ? "\tread-only" : "") << "\n";
    }
  }
  return failures == 0 ? kExitOk : kExitFailure;
}

int LedgerList(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  auto f = ParseFlags(
      args, {kUri,
             kJson,
             {"bookie", false,
              "only ledgers with a segment on this bookie (its id)"}});
  if (!f.ok()) return Fail(err, "ledger list", f.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "ledger list", store.status());
  std::vector<int64_t> listed;
  if (f->Has("bookie")) {
    // Reads every ledger's metadata (as decommission does).
    auto on = autorecovery::LedgersOnBookie(store->get(), f->Get("bookie"));
    if (!on.ok()) return Fail(err, "ledger list", on.status());
    listed = *std::move(on);
  } else {
    auto it = (*store)->ListLedgers();
    metadata::LedgerId id;
    while (it->Next(&id)) listed.push_back(id);
    if (!it->status().ok()) return Fail(err, "ledger list", it->status());
  }
  if (f->GetBool("json")) {
    out << json(listed).dump() << "\n";
  } else {
    for (int64_t id : listed) out << id << "\n";
  }
  return kExitOk;
}

absl::StatusOr<int64_t> LedgerFlag(const ParsedFlags& f) {
  auto v = f.GetInt("ledger", 0, INT64_MAX);
  if (!v.ok()) return v.status();
  return *v;
}

int LedgerMetadata(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
  auto f = ParseFlags(args, {kUri, {"ledger", true, "ledger id"}});
  if (!f.ok()) return Fail(err, "ledger metadata", f.status());
  auto id = LedgerFlag(*f);
  if (!id.ok()) return Fail(err, "ledger metadata", id.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "ledger metadata", store.status());
  auto md = (*store)->ReadLedger(*id);
  if (!md.ok()) return Fail(err, "ledger metadata", md.status());
  out << metadata::LedgerMetadataJson(*id, *md).dump(2) << "\n";
  return kExitOk;
}

int LedgerDelete(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  auto f = ParseFlags(args, {kUri,
                             {"ledger", true, "ledger id"},
                             {"yes", false, "confirm the deletion", true}});
  if (!f.ok()) return Fail(err, "ledger delete", f.status());
  auto id = LedgerFlag(*f);
  if (!id.ok()) return Fail(err, "ledger delete", id.status());
  if (!f->GetBool("yes")) {
    err << "bkctl ledger delete: deleting ledger " << *id
        << " loses its data; add --yes to confirm\n";
    return kExitUsage;
  }
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "ledger delete", store.status());
  absl::Status s = (*store)->DeleteLedger(*id, metadata::kAnyVersion);
  if (!s.ok()) return Fail(err, "ledger delete", s);
  out << "deleted ledger " << *id << "\n";
  return kExitOk;
}

int PlacementExplain(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  auto f = ParseFlags(args, {kUri, kJson, {"ledger", true, "ledger id"}});
  if (!f.ok()) return Fail(err, "placement explain", f.status());
  auto id = LedgerFlag(*f);
  if (!id.ok()) return Fail(err, "placement explain", id.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "placement explain", store.status());
  auto md = (*store)->ReadLedger(*id);
  if (!md.ok()) return Fail(err, "placement explain", md.status());
  const auto& notes = md->value.placement_notes();
  // Groups as the bookies are tagged now (the notes record racks and load
  // as the writer saw them; groups live in the store).
  auto tagged = (*store)->ListBookieGroups();
  if (!tagged.ok()) return Fail(err, "placement explain", tagged.status());
  std::map<std::string, std::vector<std::string>> groups_of;
  for (const auto& g : *tagged) groups_of[g.bookie_id] = g.groups;
  json segs = json::array();
  for (const auto& s : md->value.segments()) {
    json bookies = json::array();
    for (const auto& b : s.bookies()) {
      json row = {{"id", b}, {"groups", groups_of[b]}};
      if (auto it = notes.find(b); it != notes.end()) {
        const auto& n = it->second;
        row.update(
            json{{"rack", n.rack()},
                 {"region", placement::RegionOf(
                                placement::NetworkLocationOrDefault(n.rack()))},
                 {"weighting", n.weighting()},
                 {"journal_io_util", n.journal_io_util()},
                 {"write_bytes_per_second", n.write_bytes_per_second()},
                 {"free_disk_space", n.free_disk_space()},
                 {"report_age_ms", n.report_age_ms()},
                 {"probability", n.probability()}});
      } else {
        row["note"] = "no placement note recorded";
      }
      bookies.push_back(row);
    }
    segs.push_back(
        {{"first_entry_id", s.first_entry_id()}, {"bookies", bookies}});
  }
  // The bookies the writer did not let compete when it created the ledger.
  json left_out = json::array();
  for (const auto& [b, n] : notes) {
    if (n.left_out().empty()) continue;
    left_out.push_back({{"id", b},
                        {"reason", n.left_out()},
                        {"rack", n.rack()},
                        {"journal_io_util", n.journal_io_util()},
                        {"report_age_ms", n.report_age_ms()}});
  }
  std::sort(left_out.begin(), left_out.end(),
            [](const json& a, const json& b) { return a["id"] < b["id"]; });
  if (f->GetBool("json")) {
    out << json{{"ledger_id", *id}, {"segments", segs}, {"left_out", left_out}}
               .dump(2)
        << "\n";
    return kExitOk;
  }
  for (const json& s : segs) {
    out << "segment from entry " << s["first_entry_id"].get<int64_t>() << ":\n";
    for (const json& b : s["bookies"]) {
      out << "  " << b["id"].get<std::string>();
      if (b.contains("rack")) {
        std::string groups;
        for (const json& g : b["groups"]) {
          groups += (groups.empty() ? "" : ",") + g.get<std::string>();
        }
        out << "  rack=" << b["rack"].get<std::string>()
            << "  region=" << b["region"].get<std::string>()
            << "  groups=" << (groups.empty() ? "-" : groups)
            << "  weighting=" << b["weighting"].get<std::string>()
            << "  journal_util=" << b["journal_io_util"].get<double>()
            << "  write_Bps=" << b["write_bytes_per_second"].get<double>()
            << "  report_age_ms=" << b["report_age_ms"].get<int64_t>()
            << "  p=" << b["probability"].get<double>();
      } else {
        out << "  (" << b["note"].get<std::string>() << ")";
      }
      out << "\n";
    }
  }
  if (!left_out.empty()) {
    out << "left out when the ledger was created:\n";
    for (const json& b : left_out) {
      out << "  " << b["id"].get<std::string>() << "  "
          << b["reason"].get<std::string>()
          << "  rack=" << b["rack"].get<std::string>()
          << "  journal_util=" << b["journal_io_util"].get<double>()
          << "  report_age_ms=" << b["report_age_ms"].get<int64_t>() << "\n";
    }
  }
  return kExitOk;
}

}  // namespace

std::vector<Command> ClusterCommands() {
  const std::string uri = "  --metadata-uri URI  metadata store (required)\n";
  return {
      {"", "listbookies", "list registered bookies (writable and read-only)",
       uri + "  --readonly  only read-only bookies\n  --json\n", ListBookies},
      {"", "bookieinfo",
       "each bookie's extended GetBookieInfo: disk, journal/ledger util, "
       "CPU, write rate",
       uri + "  --bookies ID,...  only these\n  --json\n" + TlsUsage(),
       BookieInfo},
      {"ledger", "list",
       "ledger ids in ascending order (--bookie: those with a segment on it)",
       uri + "  --bookie ID  only ledgers with a segment on this bookie\n"
             "  --json\n",
       LedgerList},
      {"ledger", "metadata", "a ledger's metadata as JSON",
       uri + "  --ledger ID\n", LedgerMetadata},
      {"ledger", "delete", "delete a ledger's metadata (data is then GC'd)",
       uri + "  --ledger ID  --yes\n", LedgerDelete},
      {"placement", "explain",
       "each bookie of each segment with its rack, region and load figures "
       "as the writer saw them when it chose, and its isolation groups now; "
       "the bookies it left out, and why",
       uri + "  --ledger ID  --json\n", PlacementExplain},
  };
}

}  // namespace bk::bkctl
