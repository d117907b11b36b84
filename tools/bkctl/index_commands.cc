// bkctl check-db-ledger-locations-index and rebuild-db-ledger-locations-index:
// a stopped bookie's location index checked against its entry logs
// (bookie/storage/index_check.h), and rebuilt from them
// (bookie/storage/index_rebuild.h); the rebuild named as BookKeeper's shell
// names the same repair.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "bookie/storage/index_check.h"
#include "bookie/storage/index_rebuild.h"
#include "common/env.h"
#include "tools/bkctl/bookie_conf.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"

namespace bk::bkctl {
namespace {

using nlohmann::json;

constexpr char kRebuild[] = "rebuild-db-ledger-locations-index";
constexpr char kCheck[] = "check-db-ledger-locations-index";

int Fail(std::ostream& err, const char* cmd, const absl::Status& s) {
  err << "bkctl " << cmd << ": " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

// One directory's failure (the others are still worth doing).
void DirFailed(std::ostream& err, const char* cmd, const absl::Status& s) {
  err << "bkctl " << cmd << ": " << s.message()
      << (absl::StrContains(s.message(), "lock")
              ? " (is the bookie still running? stop it first)"
              : "")
      << "\n";
}

// --dir DIR[,DIR...] or --conf FILE (its ledgerDirectories).
absl::StatusOr<std::vector<std::string>> LedgerDirs(const ParsedFlags& f) {
  if (f.Has("dir") == f.Has("conf")) {
    return absl::InvalidArgumentError(
        "give the ledger directories: --dir DIR[,DIR...] or --conf FILE");
  }
  if (f.Has("dir")) return f.GetList("dir");
  auto options = LoadBookieConf(f.Get("conf"));
  if (!options.ok()) return options.status();
  return options->store.storage.ledger_dirs;
}

int Rebuild(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  auto f = ParseFlags(
      args,
      {{"dir", false, "ledger directories, comma-separated"},
       {"conf", false, "the bookie's config file: its ledger dirs"},
       {"one-record-per-entry", false,
        "the index format of bookies from before runs (a rollback)", true},
       {"json", false, "one JSON object per directory", true}});
  if (!f.ok()) return Fail(err, kRebuild, f.status());
  auto dirs = LedgerDirs(*f);
  if (!dirs.ok()) return Fail(err, kRebuild, dirs.status());
  bookie::IndexRebuildOptions options;
  if (f->GetBool("one-record-per-entry")) options.max_run_entries = 1;
  int code = kExitOk;
  for (const std::string& dir : *dirs) {
    auto r = bookie::RebuildLocationIndex(Env::Default(), dir, options);
    if (!r.ok()) {
      DirFailed(err, kRebuild, r.status());
      code = kExitFailure;
      continue;
    }
    if (!r->problems.empty()) code = kExitFailure;
    if (f->GetBool("json")) {
      out << json{{"dir", dir},
                  {"live_ledgers", r->live_ledgers},
                  {"logs_read", r->logs_read},
                  {"records_read", r->records_read},
                  {"entries_indexed", r->entries_indexed},
                  {"records_skipped", r->records_skipped},
                  {"location_records", r->location_records},
                  {"problems", r->problems}}
                 .dump()
          << "\n";
      continue;
    }
    out << dir << ": " << r->logs_read << " entry logs read, "
        << r->records_read << " records; " << r->entries_indexed
        << " entries of " << r->live_ledgers << " live ledgers indexed in "
        << r->location_records << " location records; " << r->records_skipped
        << " records of deleted or unknown ledgers left out\n";
    for (const std::string& p : r->problems) out << "  PROBLEM: " << p << "\n";
  }
  return code;
}

int Check(const std::vector<std::string>& args, std::ostream& out,
          std::ostream& err) {
  auto f = ParseFlags(
      args, {{"dir", false, "ledger directories, comma-separated"},
             {"conf", false, "the bookie's config file: its ledger dirs"},
             {"json", false, "one JSON object per directory", true}});
  if (!f.ok()) return Fail(err, kCheck, f.status());
  auto dirs = LedgerDirs(*f);
  if (!dirs.ok()) return Fail(err, kCheck, dirs.status());
  int code = kExitOk;
  for (const std::string& dir : *dirs) {
    auto r = bookie::CheckLocationIndex(Env::Default(), dir);
    if (!r.ok()) {
      DirFailed(err, kCheck, r.status());
      code = kExitFailure;
      continue;
    }
    if (!r->clean()) code = kExitFailure;
    if (f->GetBool("json")) {
      out << json{{"dir", dir},
                  {"clean", r->clean()},
                  {"location_records", r->location_records},
                  {"entries_checked", r->entries_checked},
                  {"entries_bad", r->entries_bad},
                  {"records_bad", r->records_bad},
                  {"entries_of_dead_ledgers", r->entries_of_dead_ledgers},
                  {"logs_read", r->logs_read},
                  {"logs_incomplete", r->logs_incomplete},
                  {"entries_unindexed", r->entries_unindexed},
                  {"problems", r->problems}}
                 .dump()
          << "\n";
      continue;
    }
    out << dir << ": " << (r->clean() ? "clean" : "FAULTS") << ": "
        << r->location_records << " location records, " << r->entries_checked
        << " entries read where the index says (" << r->entries_bad << " bad, "
        << r->records_bad << " unparsable records, "
        << r->entries_of_dead_ledgers << " of deleted or unknown ledgers); "
        << r->logs_read << " committed entry logs read (" << r->logs_incomplete
        << " not whole), " << r->entries_unindexed
        << " of their live entries without a location\n";
    for (const std::string& p : r->problems) out << "  PROBLEM: " << p << "\n";
  }
  return code;
}

}  // namespace

std::vector<Command> IndexCommands() {
  return {
      {"", kCheck,
       "check a stopped bookie's entry location index against its entry "
       "logs, both ways, changing nothing",
       "  --dir DIR[,DIR...] | --conf BOOKIE.conf  the ledger directories\n"
       "  --json  one JSON object per directory\n"
       "Every indexed entry is read where the index says; every entry of a "
       "live ledger in a committed log must be indexed. Exit 1 on any fault "
       "(the PROBLEM lines, at most 100 per directory, say which).\n",
       Check},
      {"", kRebuild,
       "rebuild a stopped bookie's entry location index from its entry logs "
       "(the ledger and entry-log records are kept)",
       "  --dir DIR[,DIR...] | --conf BOOKIE.conf  the ledger directories\n"
       "  --one-record-per-entry  write the index format of bookies from "
       "before runs of entries, to roll the bookie back to one\n"
       "  --json  one JSON object per directory\n"
       "Stop the bookie first. Entries still only in the journal are added "
       "by its replay at the next start. Exit 1 if a directory failed or a "
       "log could not be read whole (the PROBLEM lines name it).\n",
       Rebuild},
  };
}

}  // namespace bk::bkctl
