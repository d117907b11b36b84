// bkctl updatecookie: a bookie's directories moved (a disk remounted under
// another path); its cookies, in every directory and in the metadata store,
// are rewritten to name the new paths so that it starts again.
//
// What a cookie holds and what may change:
//  - the bookie id stays: ledgers name their bookies by id, so a new id is
//    a new, empty bookie. The bookie's address is not in the cookie
//    (advertisedAddress may change freely, with a restart).
//  - the number of journal and of ledger directories stays: ledger L lives
//    in ledgerDirectories[L % n], so adding or removing one would hide
//    ledgers. Every configured directory must hold this bookie's cookie
//    (its old content, moved); an empty one is refused.
//  - paths may change; each position keeps its content (the k-th listed
//    directory must hold what the k-th held), which is printed for the
//    operator to confirm before --yes.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bookie/cookie.h"
#include "bookie/daemon/daemon_options.h"
#include "bookie/dir_lock.h"
#include "common/env.h"
#include "metadata/metadata_store.h"
#include "tools/bkctl/bookie_conf.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"

namespace bk::bkctl {
namespace {

using nlohmann::json;

int Fail(std::ostream& err, const absl::Status& s) {
  err << "bkctl updatecookie: " << s.message() << "\n";
  return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
}

// The cookie of each configured directory: this bookie's, every one.
absl::Status CheckLocalCookies(const std::vector<std::string>& dirs,
                               const proto::Cookie& stored) {
  for (const std::string& dir : dirs) {
    auto local = bookie::ReadCookie(Env::Default(), dir);
    if (absl::IsNotFound(local.status())) {
      return absl::FailedPreconditionError(absl::StrCat(
          dir,
          " holds no cookie: updatecookie only follows directories that "
          "moved. A new, empty directory cannot join a bookie (ledger L "
          "lives in ledgerDirectories[L % n], so it would hide ledgers); "
          "copy the old directory's content there, or format the bookie "
          "(`bookie format --yes`) and let autorecovery refill it"));
    }
    if (!local.ok()) return local.status();
    if (local->bookie_id() != stored.bookie_id() ||
        local->instance_id() != stored.instance_id()) {
      return absl::FailedPreconditionError(
          absl::StrCat(dir, " holds the cookie of bookie ", local->bookie_id(),
                       " of cluster ", local->instance_id(), ", not of bookie ",
                       stored.bookie_id(), " of cluster ", stored.instance_id(),
                       ": it is another bookie's directory"));
    }
  }
  return absl::OkStatus();
}

// "position k: old -> new" for each list position whose path changed.
std::vector<std::string> Moves(
    const char* what,
    const google::protobuf::RepeatedPtrField<std::string>& before,
    const std::vector<std::string>& after) {
  std::vector<std::string> moves;
  for (size_t k = 0; k < after.size(); ++k) {
    if (before[static_cast<int>(k)] != after[k]) {
      moves.push_back(absl::StrCat(
          what, " ", k, ": ", before[static_cast<int>(k)], " -> ", after[k]));
    }
  }
  return moves;
}

int UpdateCookie(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  auto f = ParseFlags(
      args,
      {{"conf", true, "the bookie's config file, with the new paths"},
       {"yes", false, "write the new cookies (default: show the plan)", true},
       {"json", false, "print the plan as JSON", true}});
  if (!f.ok()) return Fail(err, f.status());
  auto o = LoadBookieConf(f->Get("conf"));
  if (!o.ok()) return Fail(err, o.status());
  const std::vector<std::string>& journal = o->store.journal.dirs;
  const std::vector<std::string>& ledger = o->store.storage.ledger_dirs;

  // A running bookie holds its directories' locks: never under it.
  std::vector<std::string> dirs = journal;
  dirs.insert(dirs.end(), ledger.begin(), ledger.end());
  auto locks = bookie::DirLock::AcquireAll(dirs);
  if (!locks.ok()) {
    return Fail(err, absl::FailedPreconditionError(absl::StrCat(
                         locks.status().message(), "; stop the bookie first")));
  }
  auto md = metadata::Open(o->metadata_uri, bookie::MetadataOpenOptions(*o));
  if (!md.ok()) return Fail(err, md.status());
  auto set = (*md)->ListBookies();
  if (!set.ok()) return Fail(err, set.status());
  for (const auto* list : {&set->writable, &set->readonly}) {
    for (const auto& b : *list) {
      if (b.bookie_id() == o->bookie_id) {
        return Fail(err,
                    absl::FailedPreconditionError(absl::StrCat(
                        "bookie ", o->bookie_id, " is registered (gRPC ",
                        b.grpc_endpoint(),
                        "): it runs elsewhere with this id, or stopped less "
                        "than a session timeout ago; stop it and retry")));
      }
    }
  }
  auto stored = (*md)->ReadCookie(o->bookie_id);
  if (absl::IsNotFound(stored.status())) {
    return Fail(
        err,
        absl::NotFoundError(absl::StrCat(
            "no cookie of bookie ", o->bookie_id, " in ", o->metadata_uri,
            ": nothing to update. The bookie id is not an address: if "
            "bookieId changed in ",
            f->Get("conf"),
            ", put the old id back (a new id is a new, empty bookie); a "
            "bookie that never started writes its cookie at first start")));
  }
  if (!stored.ok()) return Fail(err, stored.status());
  const proto::Cookie& old = stored->value;
  if (static_cast<size_t>(old.journal_dirs_size()) != journal.size() ||
      static_cast<size_t>(old.ledger_dirs_size()) != ledger.size()) {
    return Fail(err, absl::FailedPreconditionError(absl::StrCat(
                         "the cookie has ", old.journal_dirs_size(),
                         " journal and ", old.ledger_dirs_size(),
                         " ledger directories, the configuration ",
                         journal.size(), " and ", ledger.size(),
                         ": their number cannot change (ledger L lives in "
                         "ledgerDirectories[L % n]); only their paths can")));
  }
  if (absl::Status s = CheckLocalCookies(dirs, old); !s.ok()) {
    return Fail(err, s);
  }
  const proto::Cookie updated =
      bookie::MakeCookie(o->bookie_id, old.instance_id(), journal, ledger);
  std::vector<std::string> moves =
      Moves("journal dir", old.journal_dirs(), journal);
  for (std::string& m : Moves("ledger dir", old.ledger_dirs(), ledger)) {
    moves.push_back(std::move(m));
  }
  const bool write = f->GetBool("yes") && !moves.empty();
  if (write) {
    for (const std::string& dir : dirs) {
      if (absl::Status s = bookie::WriteCookie(Env::Default(), dir, updated);
          !s.ok()) {
        return Fail(err, s);
      }
    }
    auto v = (*md)->WriteCookie(o->bookie_id, updated, stored->version);
    if (!v.ok()) return Fail(err, v.status());
  }
  if (f->GetBool("json")) {
    out << json{{"bookie", o->bookie_id}, {"moves", moves}, {"written", write}}
               .dump(2)
        << "\n";
    return kExitOk;
  }
  if (moves.empty()) {
    out << "bookie " << o->bookie_id
        << ": its cookie already names these directories; nothing to do\n";
    return kExitOk;
  }
  for (const std::string& m : moves) out << m << "\n";
  out << (write ? "cookies rewritten in every directory and in the metadata "
                  "store; start the bookie\n"
                : "each listed position must hold that directory's old "
                  "content; run again with --yes to write the cookies\n");
  return kExitOk;
}

}  // namespace

std::vector<Command> UpdateCookieCommands() {
  return {{"", "updatecookie",
           "a stopped bookie's directories moved: rewrite its cookies "
           "(directories and metadata store) to the new paths",
           "  --conf BOOKIE.conf (required): the new paths\n"
           "  --yes  write (default: print the plan)\n  --json\n",
           UpdateCookie}};
}

}  // namespace bk::bkctl
