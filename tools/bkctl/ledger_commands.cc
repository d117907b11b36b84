// bkctl commands that write and read data through the client library:
// simpletest, write, read, bookiesanity, and format (delegated to the
// bookie binary).

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "proto/crc32c.h"
#include "tools/bkctl/client_flags.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/tls_flags.h"
#include "tools/localcluster/child_process.h"

namespace bk::bkctl {
namespace {

using nlohmann::json;

const FlagSpec kUri{"metadata-uri", true,
                    "metadata store, zk://host:port/root or mem://name"};
const FlagSpec kJson{"json", false, "print JSON", true};
constexpr char kPassword[] = "bkctl";

int Fail(std::ostream& err, const std::string& cmd, const absl::Status& s) {
  err << "bkctl " << cmd << ": " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

const std::vector<FlagSpec> kQuorumFlags = {
    {"e", false, "ensemble size (3)"},
    {"w", false, "write quorum (2)"},
    {"a", false, "ack quorum (2)"},
    {"n", false, "entries (100)"},
    {"entry-size", false, "payload bytes per entry (1024)"},
    {"expected-rate", false,
     "the ledger's expected write rate in bytes/s, a placement hint"}};

struct WriteShape {
  client::CreateLedgerOptions ledger;
  int64_t entries = 100;
  int entry_size = 1024;
};

absl::StatusOr<WriteShape> ShapeOf(const ParsedFlags& f) {
  WriteShape s;
  s.ledger.ensemble_size = 3;
  s.ledger.write_quorum = 2;
  s.ledger.ack_quorum = 2;
  s.ledger.password = kPassword;
  for (auto [name, into] : {std::pair{"e", &s.ledger.ensemble_size},
                            std::pair{"w", &s.ledger.write_quorum},
                            std::pair{"a", &s.ledger.ack_quorum},
                            std::pair{"entry-size", &s.entry_size}}) {
    if (!f.Has(name)) continue;
    auto v =
        f.GetInt(name, 1, std::string(name) == "entry-size" ? 16 << 20 : 64);
    if (!v.ok()) return v.status();
    *into = static_cast<int>(*v);
  }
  if (f.Has("n")) {
    auto v = f.GetInt("n", 0, int64_t{1} << 40);
    if (!v.ok()) return v.status();
    s.entries = *v;
  }
  if (f.Has("expected-rate")) {
    auto v = f.GetInt("expected-rate", 0, int64_t{1} << 40);
    if (!v.ok()) return v.status();
    s.ledger.expected_write_bytes_per_second = static_cast<double>(*v);
  }
  if (!(s.ledger.ack_quorum <= s.ledger.write_quorum &&
        s.ledger.write_quorum <= s.ledger.ensemble_size)) {
    return absl::InvalidArgumentError("need -a <= -w <= -e");
  }
  return s;
}

// Entry e of ledger l: recognisable text, then filler up to `size`.
std::string PayloadOf(int64_t ledger, int64_t entry, int size) {
  std::string p = absl::StrCat("ledger ", ledger, " entry ", entry, " ");
  p.resize(static_cast<size_t>(size), static_cast<char>('a' + entry % 26));
  return p;
}

// Appends every entry with at most `window` in flight; `acked` runs on the
// completion thread, in entry order, for each confirmed entry. Returns the
// number of failed adds.
int64_t WriteEntries(client::LedgerWriter& w, const WriteShape& shape,
                     std::function<void(int64_t, const std::string&)> acked,
                     std::string* first_error) {
  constexpr int64_t kWindow = 1000;
  std::mutex mu;
  std::condition_variable cv;
  int64_t in_flight = 0, failed = 0;
  for (int64_t e = 0; e < shape.entries; ++e) {
    {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return in_flight < kWindow; });
      if (failed > 0) break;  // the writer stops at its first failure
      ++in_flight;
    }
    auto payload = std::make_shared<std::string>(
        PayloadOf(w.ledger_id(), e, shape.entry_size));
    w.Append(*payload, [&, payload](absl::StatusOr<int64_t> r) {
      if (r.ok() && acked) acked(*r, *payload);
      std::lock_guard<std::mutex> l(mu);
      if (!r.ok()) {
        if (failed++ == 0) *first_error = std::string(r.status().message());
      }
      --in_flight;
      cv.notify_all();
    });
  }
  std::unique_lock<std::mutex> l(mu);
  cv.wait(l, [&] { return in_flight == 0; });
  return failed;
}

int SimpleTest(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  std::vector<FlagSpec> specs = kQuorumFlags;
  specs.push_back(kUri);
  specs.push_back(kJson);
  auto f = ParseFlags(ShortFlagsToLong(args), WithTls(specs));
  if (!f.ok()) return Fail(err, "simpletest", f.status());
  auto shape = ShapeOf(*f);
  if (!shape.ok()) return Fail(err, "simpletest", shape.status());
  auto c = MakeClient(*f);
  if (!c.ok()) return Fail(err, "simpletest", c.status());
  auto w = (*c)->CreateLedger(shape->ledger);
  if (!w.ok()) return Fail(err, "simpletest", w.status());
  const int64_t id = (*w)->ledger_id();
  std::string first_error;
  const absl::Time start = absl::Now();
  int64_t failed = WriteEntries(**w, *shape, nullptr, &first_error);
  absl::Status closed = (*w)->Close();
  w->reset();
  const double write_s = absl::ToDoubleSeconds(absl::Now() - start);
  if (failed > 0 || !closed.ok()) {
    return Fail(err, "simpletest",
                absl::InternalError(
                    absl::StrCat("ledger ", id, ": ", failed, " adds failed: ",
                                 failed > 0 ? first_error : closed.message())));
  }
  auto r = (*c)->OpenLedger(id, kPassword, /*recover=*/false);
  if (!r.ok()) return Fail(err, "simpletest", r.status());
  int64_t read = 0, bad = 0;
  if (shape->entries > 0) {
    auto it = (*r)->Read(0, shape->entries - 1);
    client::LedgerEntry e;
    while (it->Next(&e)) {
      if (e.entry_id != read ||
          e.payload != PayloadOf(id, e.entry_id, shape->entry_size)) {
        ++bad;
      }
      ++read;
    }
    if (!it->status().ok()) return Fail(err, "simpletest", it->status());
  }
  r->reset();
  absl::Status del = (*c)->DeleteLedger(id);
  if (!del.ok()) return Fail(err, "simpletest", del);
  const bool ok = bad == 0 && read == shape->entries;
  if (f->GetBool("json")) {
    out << json{{"ledger_id", id},
                {"written", shape->entries},
                {"read", read},
                {"mismatched", bad},
                {"write_seconds", write_s},
                {"ok", ok}}
               .dump()
        << "\n";
  } else {
    out << "ledger " << id << ": wrote " << shape->entries << " entries in "
        << write_s << " s, read " << read << ", mismatched " << bad
        << ", deleted: " << (ok ? "OK" : "FAILED") << "\n";
  }
  if (!ok) {
    err << "bkctl simpletest: ledger " << id << ": " << bad
        << " entries differ, " << read << " of " << shape->entries << " read\n";
    return kExitFailure;
  }
  return kExitOk;
}

int Write(const std::vector<std::string>& args, std::ostream& out,
          std::ostream& err) {
  std::vector<FlagSpec> specs = kQuorumFlags;
  specs.push_back(kUri);
  specs.push_back(kJson);
  specs.push_back({"acked-log", false,
                   "append \"ledger entry crc32c\" per acknowledged entry"});
  auto f = ParseFlags(ShortFlagsToLong(args), WithTls(specs));
  if (!f.ok()) return Fail(err, "write", f.status());
  auto shape = ShapeOf(*f);
  if (!shape.ok()) return Fail(err, "write", shape.status());
  int log_fd = -1;
  if (f->Has("acked-log")) {
    log_fd = ::open(f->Get("acked-log").c_str(),
                    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      err << "bkctl write: cannot open " << f->Get("acked-log") << ": "
          << std::strerror(errno) << "\n";
      return kExitFailure;
    }
  }
  auto c = MakeClient(*f);
  if (!c.ok()) return Fail(err, "write", c.status());
  auto w = (*c)->CreateLedger(shape->ledger);
  if (!w.ok()) return Fail(err, "write", w.status());
  const int64_t id = (*w)->ledger_id();
  if (!f->GetBool("json")) out << "ledger " << id << std::endl;
  std::string first_error;
  int64_t acked = 0;
  bool log_failed = false;
  int64_t failed = WriteEntries(
      **w, *shape,
      [&](int64_t e, const std::string& payload) {
        ++acked;  // the completion thread only
        if (log_fd < 0) return;
        // One write(2) per line: a kill at any time leaves whole lines of
        // acknowledged entries (at worst the last one missing).
        std::string line =
            absl::StrCat(id, " ", e, " ",
                         crc32c::Value(payload.data(), payload.size()), "\n");
        if (::write(log_fd, line.data(), line.size()) !=
            static_cast<ssize_t>(line.size())) {
          log_failed = true;
        }
      },
      &first_error);
  absl::Status closed = (*w)->Close();
  w->reset();
  if (log_fd >= 0) ::close(log_fd);
  if (f->GetBool("json")) {
    out << json{{"ledger_id", id}, {"acked", acked}, {"failed", failed}}.dump()
        << "\n";
  } else {
    out << "ledger " << id << ": " << acked << " entries acknowledged, "
        << failed << " failed\n";
  }
  if (failed > 0) {
    err << "bkctl write: ledger " << id << ": " << failed
        << " adds failed: " << first_error << "\n";
    return kExitFailure;
  }
  if (!closed.ok()) return Fail(err, "write", closed);
  if (log_failed) {
    err << "bkctl write: writing the acked log failed\n";
    return kExitFailure;
  }
  return kExitOk;
}

int Read(const std::vector<std::string>& args, std::ostream& out,
         std::ostream& err) {
  auto f = ParseFlags(
      args,
      WithTls({kUri,
               kJson,
               {"ledger", true, "ledger id"},
               {"no-recover", false, "read up to the LAC, do not fence", true},
               {"verify-acked-log", false,
                "check every entry of this ledger listed in the file"}}));
  if (!f.ok()) return Fail(err, "read", f.status());
  auto id = f->GetInt("ledger", 0, int64_t{1} << 62);
  if (!id.ok()) return Fail(err, "read", id.status());
  // ledger entry -> crc32c of the acknowledged entries in the log.
  std::map<int64_t, uint32_t> expected;
  if (f->Has("verify-acked-log")) {
    std::ifstream in(f->Get("verify-acked-log"));
    if (!in) {
      err << "bkctl read: cannot open " << f->Get("verify-acked-log") << "\n";
      return kExitFailure;
    }
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      int64_t l, e;
      uint32_t crc;
      if (!(ls >> l >> e >> crc)) continue;  // a torn last line
      if (l == *id) expected[e] = crc;
    }
  }
  auto c = MakeClient(*f);
  if (!c.ok()) return Fail(err, "read", c.status());
  auto r = (*c)->OpenLedger(*id, kPassword, !f->GetBool("no-recover"));
  if (!r.ok()) return Fail(err, "read", r.status());
  int64_t last = (*r)->LastAddConfirmed();
  if (f->GetBool("no-recover")) {
    auto lac = (*r)->ReadLac();
    if (lac.ok()) last = *lac;
  }
  int64_t read = 0, bad = 0, missing = 0;
  std::string first_problem;
  if (last >= 0) {
    auto it = (*r)->Read(0, last);
    client::LedgerEntry e;
    while (it->Next(&e)) {
      ++read;
      auto x = expected.find(e.entry_id);
      if (x == expected.end()) continue;
      if (crc32c::Value(e.payload.data(), e.payload.size()) != x->second) {
        if (bad++ == 0) {
          first_problem = absl::StrCat("entry ", e.entry_id, " differs");
        }
      }
      expected.erase(x);
    }
    if (!it->status().ok()) return Fail(err, "read", it->status());
  }
  missing = static_cast<int64_t>(expected.size());
  if (missing > 0 && first_problem.empty()) {
    first_problem = absl::StrCat("acknowledged entry ", expected.begin()->first,
                                 " is missing (last entry ", last, ")");
  }
  if (f->GetBool("json")) {
    out << json{{"ledger_id", *id},
                {"last_entry_id", last},
                {"read", read},
                {"differ", bad},
                {"missing", missing}}
               .dump()
        << "\n";
  } else {
    out << "ledger " << *id << ": " << read << " entries read (last " << last
        << ")";
    if (f->Has("verify-acked-log")) {
      out << ", " << bad << " differ, " << missing
          << " acknowledged entries missing";
    }
    out << "\n";
  }
  if (bad > 0 || missing > 0) {
    err << "bkctl read: ledger " << *id << ": " << first_problem << " (" << bad
        << " differ, " << missing << " missing)\n";
    return kExitFailure;
  }
  return kExitOk;
}

// Runs `bookie format --conf=FILE --yes` (the bookie owns its dirs and
// cookies); its output and exit code are ours.
int Format(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err) {
  auto f = ParseFlags(
      args, {{"conf", true, "the bookie's config file"},
             {"yes", false, "confirm: ERASES the bookie's dirs", true},
             {"metadata-uri", false, "overrides the file's metadataServiceUri"},
             {"bookie-binary", false, "path of `bookie` (beside bkctl)"}});
  if (!f.ok()) return Fail(err, "format", f.status());
  if (!f->GetBool("yes")) {
    err << "bkctl format: erases every journal and ledger directory of the "
           "bookie in "
        << f->Get("conf") << "; run again with --yes to confirm\n";
    return kExitUsage;
  }
  const std::string bin = f->Has("bookie-binary")
                              ? f->Get("bookie-binary")
                              : localcluster::BesideSelf("bookie");
  if (::access(bin.c_str(), X_OK) != 0) {
    err << "bkctl format: no bookie binary at " << bin
        << " (use --bookie-binary)\n";
    return kExitFailure;
  }
  std::vector<std::string> argv = {bin, "format", "--conf=" + f->Get("conf"),
                                   "--yes"};
  if (f->Has("metadata-uri")) {
    argv.push_back("--metadataServiceUri=" + f->Get("metadata-uri"));
  }
  out << std::flush;
  pid_t pid = ::fork();
  if (pid < 0) {
    err << "bkctl format: fork: " << std::strerror(errno) << "\n";
    return kExitFailure;
  }
  if (pid == 0) {
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    ::execv(bin.c_str(), cargv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return kExitOk;
  err << "bkctl format: bookie format failed (exit "
      << (WIFEXITED(status) ? WEXITSTATUS(status) : -1) << ")\n";
  return kExitFailure;
}

}  // namespace

int BookieSanity(const std::vector<std::string>&, std::ostream&, std::ostream&);

std::vector<Command> LedgerCommands() {
  const std::string uri = "  --metadata-uri URI (required)\n";
  return {
      {"", "simpletest",
       "create a ledger, write, read back, verify, delete; exit 0 if all match",
       uri +
           "  -e E (3) -w W (2) -a A (2) -n N (100) --entry-size B (1024) "
           "--json\n" +
           TlsUsage(),
       SimpleTest},
      {"", "write",
       "write N entries to a new ledger, logging each acknowledged entry",
       uri +
           "  -e E -w W -a A -n N --entry-size B --acked-log FILE --json\n"
           "  the log gets \"ledger entry crc32c\" per acknowledged entry, "
           "written per line\n" +
           TlsUsage(),
       Write},
      {"", "read",
       "read a ledger back (recovering it), optionally checking an acked log",
       uri +
           "  --ledger ID (required) --no-recover --verify-acked-log FILE "
           "--json\n" +
           TlsUsage(),
       Read},
      {"", "bookiesanity",
       "write, read and delete one entry on each bookie in turn (E=W=A=1)",
       uri + "  --bookies ID,... (all writable) --json\n" + TlsUsage(),
       BookieSanity},
      {"", "format", "format a bookie's dirs and cookie (runs `bookie format`)",
       "  --conf FILE (required) --yes --metadata-uri URI --bookie-binary "
       "PATH\n",
       Format},
  };
}

}  // namespace bk::bkctl
