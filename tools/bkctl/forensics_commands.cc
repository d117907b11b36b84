// bkctl readjournal | readentrylog | lastmark: a stopped bookie's journal
// and entry-log files read offline, for forensics (bookie/inspect/). Nothing
// here writes to a bookie's directories.

#include <algorithm>
#include <climits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bookie/inspect/entry_log_dump.h"
#include "bookie/inspect/entry_view.h"
#include "bookie/inspect/journal_dump.h"
#include "bookie/journal/journal_format.h"
#include "common/env.h"
#include "tools/bkctl/bookie_conf.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"

namespace bk::bkctl {
namespace {

using nlohmann::json;
namespace inspect = bookie::inspect;

int Fail(std::ostream& err, const std::string& cmd, const absl::Status& s) {
  err << "bkctl " << cmd << ": " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

const FlagSpec kConf{"conf", false,
                     "the bookie's config file: its directories are read"};
const FlagSpec kLedgerFilter{"ledger", false, "only this ledger's records"};
const FlagSpec kPayload{"payload", false,
                        "show entry payloads: none (default), hex or text"};
const FlagSpec kMaxBytes{"max-payload-bytes", false,
                         "payload bytes shown per entry (default 64, 0: all)"};
const FlagSpec kJson{"json", false, "one JSON object per line", true};

struct Display {
  std::string payload = "none";
  size_t max_bytes = 64;
  std::optional<uint64_t> ledger;
  bool json = false;
};

absl::StatusOr<Display> ParseDisplay(const ParsedFlags& f) {
  Display d;
  d.json = f.GetBool("json");
  if (f.Has("payload")) {
    d.payload = f.Get("payload");
    if (d.payload != "none" && d.payload != "hex" && d.payload != "text") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--payload must be none, hex or text, got \"", d.payload, "\""));
    }
  }
  if (f.Has("max-payload-bytes")) {
    auto n = f.GetInt("max-payload-bytes", 0, int64_t{1} << 30);
    if (!n.ok()) return n.status();
    d.max_bytes = *n == 0 ? SIZE_MAX : static_cast<size_t>(*n);
  }
  if (f.Has("ledger")) {
    auto id = f.GetUint64("ledger");
    if (!id.ok()) return id.status();
    d.ledger = *id;
  }
  return d;
}

// The packaged entry's fields into `row` (JSON) or `line` (text).
void DescribeEntry(absl::string_view packaged, const Display& d, json* row,
                   std::string* line) {
  const inspect::EntryView v = inspect::ViewEntry(packaged);
  if (!v.header_ok) {
    if (d.json) (*row)["entry_header"] = "too short";
    absl::StrAppend(line, " (not a packaged entry: ", packaged.size(),
                    " bytes)");
    return;
  }
  if (d.json) {
    (*row)["lac"] = v.last_add_confirmed;
    (*row)["ledger_length"] = v.ledger_length;
    (*row)["digest"] = v.digest;
    (*row)["payload_size"] = v.payload.size();
  }
  absl::StrAppend(line, " lac=", v.last_add_confirmed,
                  " length=", v.ledger_length, " size=", v.payload.size(),
                  " digest=", v.digest);
  if (d.payload != "none") {
    std::string shown =
        inspect::FormatPayload(v.payload, d.payload, d.max_bytes);
    if (d.json) (*row)["payload"] = shown;
    absl::StrAppend(line, " payload=", shown);
  }
}

// --dir DIR[,DIR...] or --conf FILE (its journalDirectories).
absl::StatusOr<std::vector<std::string>> JournalDirs(const ParsedFlags& f) {
  if (f.Has("dir") == f.Has("conf")) {
    return absl::InvalidArgumentError(
        "give the journal directories: --dir DIR[,DIR...] or --conf FILE");
  }
  if (f.Has("dir")) return f.GetList("dir");
  auto options = LoadBookieConf(f.Get("conf"));
  if (!options.ok()) return options.status();
  return options->store.journal.dirs;
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string NameOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void PrintJournalFile(const inspect::JournalFileDump& file, const Display& d,
                      std::ostream& out) {
  const bookie::JournalFileReport& r = file.report;
  if (d.json) {
    json skipped = json::array();
    for (const auto& s : r.skipped) {
      skipped.push_back(
          {{"offset", s.offset}, {"bytes", s.bytes}, {"reason", s.reason}});
    }
    out << json{{"kind", "file"},
                {"path", r.path},
                {"file_id", file.file_id},
                {"size", r.file_size},
                {"records", r.records},
                {"valid_end", r.valid_end},
                {"torn_bytes", r.torn_bytes},
                {"torn_reason", r.torn_reason},
                {"header_torn", r.header_torn},
                {"skipped", skipped}}
               .dump()
        << "\n";
    return;
  }
  out << "file " << r.path << ": " << r.records << " records, valid to "
      << r.valid_end << " of " << r.file_size << " bytes";
  if (r.header_torn) out << ", header torn (creation interrupted)";
  if (r.torn_bytes > 0) {
    out << ", torn tail of " << r.torn_bytes << " bytes (" << r.torn_reason
        << ")";
  }
  for (const auto& s : r.skipped) {
    out << ", CORRUPT " << s.bytes << " bytes at " << s.offset << " ("
        << s.reason << ")";
  }
  out << "\n";
}

// Dumps one journal file of `dir`.
absl::Status ReadJournalFile(const std::string& dir, uint64_t file_id,
                             const std::optional<bookie::JournalPosition>& mark,
                             const Display& d, std::ostream& out) {
  auto dump = inspect::DumpJournalFile(
      Env::Default(), dir, file_id, mark, [&](const inspect::JournalRecord& r) {
        if (d.ledger.has_value() && r.ledger_id != *d.ledger) return;
        json row;
        std::string line = absl::StrFormat(
            "%s:%d %s ledger=%d entry=%d%s",
            bookie::journal_format::FileName(r.file_id), r.offset, r.type,
            r.ledger_id, r.entry_id, r.checkpointed ? " checkpointed" : "");
        if (d.json) {
          row = {{"kind", "record"},
                 {"file_id", r.file_id},
                 {"offset", r.offset},
                 {"type", std::string(r.type)},
                 {"ledger", r.ledger_id},
                 {"entry", r.entry_id},
                 {"checkpointed", r.checkpointed}};
        }
        if (r.type == "entry") {
          DescribeEntry(r.payload, d, &row, &line);
        } else if (r.type == "masterkey") {
          // The key itself is a secret: its size only.
          if (d.json) row["key_bytes"] = r.payload.size();
          absl::StrAppend(&line, " key_bytes=", r.payload.size());
        } else if (!r.payload.empty()) {
          std::string shown =
              inspect::FormatPayload(r.payload, "hex", d.max_bytes);
          if (d.json) row["payload"] = shown;
          absl::StrAppend(&line, " payload=", shown);
        }
        out << (d.json ? row.dump() : line) << "\n";
      });
  if (!dump.ok()) return dump.status();
  PrintJournalFile(*dump, d, out);
  return absl::OkStatus();
}

void PrintDirHeader(const inspect::JournalDirDump& dir, bool as_json,
                    std::ostream& out) {
  if (as_json) {
    json row = {{"kind", "dir"}, {"dir", dir.dir}};
    if (dir.checkpoint.has_value()) {
      row["checkpoint"] = {{"file_id", dir.checkpoint->file_id},
                           {"offset", dir.checkpoint->offset}};
    } else {
      row["checkpoint"] = nullptr;
      row["checkpoint_error"] = dir.checkpoint_error;
    }
    row["files"] = dir.files.size();
    out << row.dump() << "\n";
    return;
  }
  out << "journal " << dir.dir << ": ";
  if (!dir.checkpoint.has_value()) {
    out << "checkpoint UNREADABLE (" << dir.checkpoint_error << ")";
  } else if (dir.checkpoint->file_id == 0 && dir.checkpoint->offset == 0) {
    out << "no checkpoint yet";
  } else {
    out << "checkpoint "
        << bookie::journal_format::FileName(dir.checkpoint->file_id)
        << " offset " << dir.checkpoint->offset;
  }
  out << ", " << dir.files.size() << " files\n";
}

int ReadJournal(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  auto f =
      ParseFlags(args, {{"dir", false, "journal directories, comma-separated"},
                        kConf,
                        {"file", false, "one journal file (path)"},
                        kLedgerFilter,
                        kPayload,
                        kMaxBytes,
                        kJson});
  if (!f.ok()) return Fail(err, "readjournal", f.status());
  auto d = ParseDisplay(*f);
  if (!d.ok()) return Fail(err, "readjournal", d.status());
  std::vector<std::string> dirs;
  std::optional<uint64_t> only_file;
  if (f->Has("file")) {
    if (f->Has("dir") || f->Has("conf")) {
      return Fail(err, "readjournal",
                  absl::InvalidArgumentError(
                      "--file reads one file; it cannot go with --dir/--conf"));
    }
    uint64_t id = 0;
    if (!bookie::journal_format::ParseFileName(NameOf(f->Get("file")), &id)) {
      return Fail(err, "readjournal",
                  absl::InvalidArgumentError(absl::StrCat(
                      "--file ", f->Get("file"),
                      " is not a journal file name (16 hex digits, .jnl)")));
    }
    dirs.push_back(DirOf(f->Get("file")));
    only_file = id;
  } else {
    auto listed = JournalDirs(*f);
    if (!listed.ok()) return Fail(err, "readjournal", listed.status());
    dirs = *listed;
  }
  for (const std::string& dir : dirs) {
    auto listing = inspect::ListJournalDir(Env::Default(), dir);
    if (!listing.ok()) return Fail(err, "readjournal", listing.status());
    PrintDirHeader(*listing, d->json, out);
    std::vector<uint64_t> ids;
    if (only_file.has_value()) {
      ids.push_back(*only_file);
    } else {
      for (const auto& file : listing->files) ids.push_back(file.file_id);
    }
    for (uint64_t id : ids) {
      if (absl::Status s =
              ReadJournalFile(dir, id, listing->checkpoint, *d, out);
          !s.ok()) {
        return Fail(err, "readjournal", s);
      }
    }
  }
  return kExitOk;
}

int LastMark(const std::vector<std::string>& args, std::ostream& out,
             std::ostream& err) {
  auto f = ParseFlags(
      args,
      {{"dir", false, "journal directories, comma-separated"}, kConf, kJson});
  if (!f.ok()) return Fail(err, "lastmark", f.status());
  auto dirs = JournalDirs(*f);
  if (!dirs.ok()) return Fail(err, "lastmark", dirs.status());
  bool unreadable = false;
  for (const std::string& dir : *dirs) {
    auto listing = inspect::ListJournalDir(Env::Default(), dir);
    if (!listing.ok()) return Fail(err, "lastmark", listing.status());
    unreadable = unreadable || !listing->checkpoint.has_value();
    if (f->GetBool("json")) {
      json row = {{"dir", dir}};
      if (listing->checkpoint.has_value()) {
        row["file_id"] = listing->checkpoint->file_id;
        row["offset"] = listing->checkpoint->offset;
      } else {
        row["error"] = listing->checkpoint_error;
      }
      if (!listing->files.empty()) {
        row["newest_file_id"] = listing->files.back().file_id;
        row["newest_file_size"] = listing->files.back().report.file_size;
      }
      out << row.dump() << "\n";
      continue;
    }
    out << dir << "\t";
    if (!listing->checkpoint.has_value()) {
      out << "UNREADABLE (" << listing->checkpoint_error << ")";
    } else {
      out << "file " << listing->checkpoint->file_id << " ("
          << bookie::journal_format::FileName(listing->checkpoint->file_id)
          << ") offset " << listing->checkpoint->offset;
    }
    if (!listing->files.empty()) {
      out << "\tnewest " << listing->files.back().report.path << " "
          << listing->files.back().report.file_size << " bytes";
    }
    out << "\n";
  }
  return unreadable ? kExitFailure : kExitOk;
}

// --file PATH, or --conf FILE with --log-id (hex, as in the file name):
// the log in whichever ledger directory holds it.
absl::StatusOr<std::string> EntryLogFile(const ParsedFlags& f) {
  if (f.Has("file")) {
    if (f.Has("conf") || f.Has("log-id")) {
      return absl::InvalidArgumentError(
          "--file names the log; it cannot go with --conf/--log-id");
    }
    return f.Get("file");
  }
  if (!f.Has("conf") || !f.Has("log-id")) {
    return absl::InvalidArgumentError(
        "give the log: --file PATH, or --conf FILE --log-id HEX");
  }
  uint64_t id = 0;
  if (!absl::SimpleHexAtoi(f.Get("log-id"), &id)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--log-id must be hexadecimal, as in the file name, got \"",
        f.Get("log-id"), "\""));
  }
  auto options = LoadBookieConf(f.Get("conf"));
  if (!options.ok()) return options.status();
  for (const std::string& dir : options->store.storage.ledger_dirs) {
    const std::string path = inspect::EntryLogPath(dir, id);
    if (Env::Default()->FileExists(path)) return path;
  }
  return absl::NotFoundError(absl::StrCat("no entry log ", f.Get("log-id"),
                                          " in the ledger directories of ",
                                          f.Get("conf")));
}

// One ledger's records in a log, for readentrylog --ledgers.
struct LedgerInLog {
  uint64_t records = 0;
  int64_t first = INT64_MAX;
  int64_t last = -1;
  uint64_t bytes = 0;
  void Add(int64_t entry, size_t size) {
    ++records;
    first = std::min(first, entry);
    last = std::max(last, entry);
    bytes += size;
  }
};

int ReadEntryLog(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  auto f = ParseFlags(
      args,
      {{"file", false, "the entry log (path)"},
       kConf,
       {"log-id", false, "with --conf: the log's id in hex"},
       kLedgerFilter,
       {"entry", false, "only this entry id (with --ledger)"},
       kPayload,
       kMaxBytes,
       kJson,
       {"ledgers", false, "one line per ledger instead of per record", true}});
  if (!f.ok()) return Fail(err, "readentrylog", f.status());
  auto d = ParseDisplay(*f);
  if (!d.ok()) return Fail(err, "readentrylog", d.status());
  std::optional<int64_t> only_entry;
  if (f->Has("entry")) {
    auto e = f->GetInt("entry", 0, INT64_MAX);
    if (!e.ok()) return Fail(err, "readentrylog", e.status());
    if (!d->ledger.has_value()) {
      return Fail(err, "readentrylog",
                  absl::InvalidArgumentError("--entry needs --ledger"));
    }
    only_entry = *e;
  }
  auto path = EntryLogFile(*f);
  if (!path.ok()) return Fail(err, "readentrylog", path.status());
  // --ledgers: what the log holds of each ledger, up to where it could be
  // read (for bkctl recover --ledger after a damaged log).
  const bool by_ledger = f->GetBool("ledgers");
  std::map<uint64_t, LedgerInLog> ledgers;
  auto dump = inspect::DumpEntryLog(
      Env::Default(), *path, [&](const inspect::EntryLogRecord& r) {
        if (d->ledger.has_value() && r.ledger_id != *d->ledger) return;
        if (only_entry.has_value() && r.entry_id != *only_entry) return;
        if (by_ledger) {
          ledgers[r.ledger_id].Add(r.entry_id, r.data.size());
          return;
        }
        json row;
        std::string line = absl::StrFormat("%d ledger=%d entry=%d", r.offset,
                                           r.ledger_id, r.entry_id);
        if (d->json) {
          row = {{"kind", "record"},
                 {"offset", r.offset},
                 {"ledger", r.ledger_id},
                 {"entry", r.entry_id}};
        }
        DescribeEntry(r.data, *d, &row, &line);
        out << (d->json ? row.dump() : line) << "\n";
      });
  if (!dump.ok()) return Fail(err, "readentrylog", dump.status());
  for (const auto& [id, l] : ledgers) {
    if (d->json) {
      out << json{{"kind", "ledger"},     {"ledger", id},
                  {"records", l.records}, {"first_entry", l.first},
                  {"last_entry", l.last}, {"bytes", l.bytes}}
                 .dump()
          << "\n";
    } else {
      out << absl::StrFormat("ledger=%d records=%d entries=%d..%d bytes=%d\n",
                             id, l.records, l.first, l.last, l.bytes);
    }
  }
  if (d->json) {
    out << json{{"kind", "log"},
                {"path", *path},
                {"log_id", dump->log_id},
                {"size", dump->file_size},
                {"records", dump->records},
                {"valid_end", dump->valid_end},
                {"torn_tail", dump->torn_tail},
                {"error", dump->error}}
               .dump()
        << "\n";
  } else {
    out << "log " << *path << " (id " << absl::StrFormat("%x", dump->log_id)
        << "): " << dump->records << " records, valid to " << dump->valid_end
        << " of " << dump->file_size << " bytes"
        << (dump->torn_tail ? ", torn tail (a write cut short)" : "")
        << (dump->error.empty() ? "" : ", CORRUPT: " + dump->error) << "\n";
  }
  return dump->error.empty() ? kExitOk : kExitFailure;
}

}  // namespace

std::vector<Command> ForensicsCommands() {
  const std::string display =
      "  --ledger L  only ledger L's records\n"
      "  --payload none|hex|text  show entry payloads (default none)\n"
      "  --max-payload-bytes N  bytes shown per payload (default 64, 0: all)\n"
      "  --json  one JSON object per line\n";
  return {
      {"", "readjournal",
       "decode a bookie's journal files offline: every record, the "
       "checkpoint, torn tails and corrupt ranges",
       "  --dir DIR[,DIR...] | --conf BOOKIE.conf | --file PATH.jnl\n" +
           display,
       ReadJournal},
      {"", "readentrylog",
       "decode an entry log offline: every record, checked as the bookie "
       "checks it",
       "  --file PATH.log | --conf BOOKIE.conf --log-id HEX\n"
       "  --entry E  only entry E (with --ledger)\n"
       "  --ledgers  one line per ledger (records, entry range, bytes)\n" +
           display,
       ReadEntryLog},
      {"", "lastmark",
       "each journal directory's checkpoint (the last log mark) and newest "
       "file",
       "  --dir DIR[,DIR...] | --conf BOOKIE.conf\n  --json\n", LastMark},
  };
}

}  // namespace bk::bkctl
