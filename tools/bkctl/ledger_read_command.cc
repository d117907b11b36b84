// bkctl ledger read: a range of a ledger's entries with their payloads, for
// an operator looking at what a broker wrote. The ledger is opened as
// BookKeeperAdmin opens it for its shell: no password, no recovery, so a
// live writer is never fenced.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bookie/inspect/entry_view.h"
#include "tools/bkctl/client_flags.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/tls_flags.h"

namespace bk::bkctl {
namespace {

using nlohmann::json;

int Fail(std::ostream& err, const absl::Status& s) {
  err << "bkctl ledger read: " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

const char* StateName(client::LedgerState s) {
  switch (s) {
    case client::LedgerState::kOpen:
      return "OPEN";
    case client::LedgerState::kInRecovery:
      return "IN_RECOVERY";
    case client::LedgerState::kClosed:
      return "CLOSED";
  }
  return "?";
}

int ReadRange(const std::vector<std::string>& args, std::ostream& out,
              std::ostream& err) {
  auto f = ParseFlags(
      args, WithTls({{"metadata-uri", true,
                      "metadata store, zk://host:port/root or mem://name"},
                     {"ledger", true, "ledger id"},
                     {"from", false, "first entry (0)"},
                     {"to", false, "last entry (the ledger's last confirmed)"},
                     {"payload", false, "text (default), hex or none"},
                     {"max-payload-bytes", false, "bytes shown (256, 0: all)"},
                     {"json", false, "one JSON object per entry", true}}));
  if (!f.ok()) return Fail(err, f.status());
  auto id = f->GetInt("ledger", 0, int64_t{1} << 62);
  if (!id.ok()) return Fail(err, id.status());
  int64_t from = 0;
  if (f->Has("from")) {
    auto v = f->GetInt("from", 0, INT64_MAX);
    if (!v.ok()) return Fail(err, v.status());
    from = *v;
  }
  std::string payload = f->Has("payload") ? f->Get("payload") : "text";
  if (payload != "text" && payload != "hex" && payload != "none") {
    return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                         "--payload must be text, hex or none, got \"", payload,
                         "\"")));
  }
  size_t max_bytes = 256;
  if (f->Has("max-payload-bytes")) {
    auto v = f->GetInt("max-payload-bytes", 0, int64_t{1} << 30);
    if (!v.ok()) return Fail(err, v.status());
    max_bytes = *v == 0 ? SIZE_MAX : static_cast<size_t>(*v);
  }
  auto c = MakeClient(*f);
  if (!c.ok()) return Fail(err, c.status());
  auto r = (*c)->OpenLedgerForAdmin(*id);
  if (!r.ok()) return Fail(err, r.status());
  int64_t last = (*r)->LastAddConfirmed();
  if ((*r)->state() != client::LedgerState::kClosed) {
    auto lac = (*r)->ReadLac();
    if (!lac.ok()) return Fail(err, lac.status());
    last = *lac;
  }
  int64_t to = last;
  if (f->Has("to")) {
    auto v = f->GetInt("to", 0, INT64_MAX);
    if (!v.ok()) return Fail(err, v.status());
    to = *v;
    if (to < from) {
      return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                           "--to ", to, " is below --from ", from)));
    }
    if (to > last) {
      return Fail(err, absl::OutOfRangeError(absl::StrCat(
                           "--to ", to,
                           " is past the ledger's last confirmed "
                           "entry ",
                           last, " (", StateName((*r)->state()), ")")));
    }
  }
  int64_t read = 0;
  if (from <= to) {
    auto it = (*r)->Read(from, to);
    client::LedgerEntry e;
    while (it->Next(&e)) {
      ++read;
      std::string shown =
          payload == "none"
              ? ""
              : bookie::inspect::FormatPayload(e.payload, payload, max_bytes);
      if (f->GetBool("json")) {
        json row = {{"entry", e.entry_id}, {"size", e.payload.size()}};
        if (payload != "none") row["payload"] = shown;
        out << row.dump() << "\n";
      } else {
        out << e.entry_id << "\t" << e.payload.size();
        if (payload != "none") out << "\t" << shown;
        out << "\n";
      }
    }
    if (!it->status().ok()) return Fail(err, it->status());
  }
  err << "ledger " << *id << " (" << StateName((*r)->state()) << ", last "
      << last << "): " << read << " entries read\n";
  return kExitOk;
}

}  // namespace

std::vector<Command> LedgerReadCommands() {
  return {{"ledger", "read",
           "entries from..to of a ledger with their payloads, without "
           "recovery (a live writer is not fenced)",
           "  --metadata-uri URI (required) --ledger ID (required)\n"
           "  --from E (0) --to E (last confirmed)\n"
           "  --payload text|hex|none (text: printable ASCII, the rest "
           "\\xNN)\n"
           "  --max-payload-bytes N (256, 0: all) --json\n" +
               TlsUsage(),
           ReadRange}};
}

}  // namespace bk::bkctl
