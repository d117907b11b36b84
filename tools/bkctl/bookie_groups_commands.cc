// bkctl bookiegroups set | get | list: the isolation groups operators tag
// bookies with (placement/isolation_groups.h), kept in the metadata store
// under <root>/bookiegroups/<bookie id>.

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "metadata/metadata_store.h"
#include "placement/isolation_groups.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/store_flags.h"

namespace bk::bkctl {
namespace {

using nlohmann::json;

const FlagSpec& kUri = kMetadataUriFlag;
const FlagSpec kBookie{"bookie", true, "bookie id"};

int Fail(std::ostream& err, const std::string& cmd, const absl::Status& s) {
  err << "bkctl bookiegroups " << cmd << ": " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

// Sets (or, with no groups, removes) a bookie's groups; retries a
// concurrent change by reading again.
int Set(const std::vector<std::string>& args, std::ostream& out,
        std::ostream& err) {
  auto f = ParseFlags(
      args, {kUri,
             kBookie,
             {"groups", true,
              "group names, comma-separated; empty removes the bookie's "
              "groups"}});
  if (!f.ok()) return Fail(err, "set", f.status());
  auto names = placement::ParseGroupList(f->Get("groups"));
  if (!names.ok()) return Fail(err, "set", names.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "set", store.status());
  const std::string& id = f->Get("bookie");
  metadata::BookieGroups record;
  record.bookie_id = id;
  record.groups = *names;
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto current = (*store)->ReadBookieGroups(id);
    if (!current.ok() && !absl::IsNotFound(current.status())) {
      return Fail(err, "set", current.status());
    }
    const metadata::Version version =
        current.ok() ? current->version : metadata::kNotExists;
    absl::Status s;
    if (names->empty()) {
      if (!current.ok()) break;  // nothing to remove
      s = (*store)->DeleteBookieGroups(id, version);
    } else {
      s = (*store)->WriteBookieGroups(record, version).status();
    }
    if (s.ok()) {
      out << id << "\t" << absl::StrJoin(*names, ",") << "\n";
      return kExitOk;
    }
    if (!absl::IsAborted(s) && !absl::IsAlreadyExists(s) &&
        !absl::IsNotFound(s)) {
      return Fail(err, "set", s);
    }
  }
  if (names->empty()) {
    out << id << "\t\n";
    return kExitOk;
  }
  return Fail(err, "set",
              absl::AbortedError("the bookie's groups kept changing"));
}

int Get(const std::vector<std::string>& args, std::ostream& out,
        std::ostream& err) {
  auto f = ParseFlags(args, {kUri, kBookie});
  if (!f.ok()) return Fail(err, "get", f.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "get", store.status());
  auto record = (*store)->ReadBookieGroups(f->Get("bookie"));
  if (absl::IsNotFound(record.status())) {
    out << f->Get("bookie") << "\t\n";  // no groups
    return kExitOk;
  }
  if (!record.ok()) return Fail(err, "get", record.status());
  out << record->value.bookie_id << "\t"
      << absl::StrJoin(record->value.groups, ",") << "\n";
  return kExitOk;
}

int List(const std::vector<std::string>& args, std::ostream& out,
         std::ostream& err) {
  auto f = ParseFlags(args, {kUri, {"json", false, "print JSON", true}});
  if (!f.ok()) return Fail(err, "list", f.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return Fail(err, "list", store.status());
  auto all = (*store)->ListBookieGroups();
  if (!all.ok()) return Fail(err, "list", all.status());
  if (f->GetBool("json")) {
    json rows = json::array();
    for (const auto& g : *all) {
      rows.push_back({{"id", g.bookie_id}, {"groups", g.groups}});
    }
    out << rows.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& g : *all) {
    out << g.bookie_id << "\t" << absl::StrJoin(g.groups, ",") << "\n";
  }
  return kExitOk;
}

}  // namespace

std::vector<Command> BookieGroupsCommands() {
  const std::string uri = "  --metadata-uri URI  metadata store (required)\n";
  return {
      {"bookiegroups", "set",
       "tag a bookie with isolation groups (replaces its groups)",
       uri + "  --bookie ID  --groups NAME,...  (empty: remove)\n", Set},
      {"bookiegroups", "get", "a bookie's isolation groups",
       uri + "  --bookie ID\n", Get},
      {"bookiegroups", "list", "every tagged bookie with its groups",
       uri + "  --json\n", List},
  };
}

}  // namespace bk::bkctl
