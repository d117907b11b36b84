#include "bookie/cookie.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bookie/dir_lock.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace bk::bookie {

namespace {

std::vector<std::string> AllDirs(const proto::Cookie& c) {
  std::vector<std::string> dirs(c.journal_dirs().begin(),
                                c.journal_dirs().end());
  dirs.insert(dirs.end(), c.ledger_dirs().begin(), c.ledger_dirs().end());
  return dirs;
}

std::string CookiePath(const std::string& dir) {
  return absl::StrCat(dir, "/", kCookieFileName);
}

std::string Repair(const proto::Cookie& expected) {
  return absl::StrCat(
      "To repair: if these disks belong to this bookie, restore the "
      "configuration they were formatted with (bookie id, instance id, "
      "journalDirectories and ledgerDirectories in the same order). If a "
      "disk is new, wiped or from another bookie, run `bookie format --yes` "
      "with this bookie's configuration (add --force while its old "
      "registration is still in the metadata store); it erases the "
      "bookie's journal and ledger directories. The ledgers that had "
      "replicas on bookie ",
      expected.bookie_id(),
      " are then under-replicated until autorecovery copies them from "
      "their other replicas (`bkctl autorecovery`, or "
      "autoRecoveryDaemonEnabled=true on the bookies), or until `bkctl "
      "recover --bookie ",
      expected.bookie_id(), "` does it once");
}

}  // namespace

proto::Cookie MakeCookie(const std::string& bookie_id,
                         const std::string& instance_id,
                         const std::vector<std::string>& journal_dirs,
                         const std::vector<std::string>& ledger_dirs) {
  proto::Cookie c;
  c.set_layout_version(kCookieLayoutVersion);
  c.set_bookie_id(bookie_id);
  c.set_instance_id(instance_id);
  for (const auto& d : journal_dirs) c.add_journal_dirs(d);
  for (const auto& d : ledger_dirs) c.add_ledger_dirs(d);
  return c;
}

std::vector<std::string> CookieDifferences(const proto::Cookie& found,
                                           const proto::Cookie& expected) {
  std::vector<std::string> diffs;
  auto field = [&](const char* name, const std::string& f,
                   const std::string& e) {
    if (f != e) {
      diffs.push_back(absl::StrCat(name, " is '", f, "', expected '", e, "'"));
    }
  };
  if (found.layout_version() != expected.layout_version()) {
    diffs.push_back(absl::StrCat("layout version is ", found.layout_version(),
                                 ", expected ", expected.layout_version()));
  }
  field("bookie id", found.bookie_id(), expected.bookie_id());
  field("instance id", found.instance_id(), expected.instance_id());
  field("journal dirs", absl::StrJoin(found.journal_dirs(), ","),
        absl::StrJoin(expected.journal_dirs(), ","));
  field("ledger dirs", absl::StrJoin(found.ledger_dirs(), ","),
        absl::StrJoin(expected.ledger_dirs(), ","));
  return diffs;
}

std::string SerializeCookie(const proto::Cookie& cookie) {
  std::string out;
  google::protobuf::TextFormat::PrintToString(cookie, &out);
  return out;
}

namespace {
// Keeps the parser's complaint for our message instead of letting protobuf
// print it.
class ParseErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first_.empty())
      first_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};
}  // namespace

absl::StatusOr<proto::Cookie> ParseCookie(const std::string& text) {
  proto::Cookie c;
  google::protobuf::TextFormat::Parser parser;
  ParseErrors errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &c)) {
    return absl::DataLossError(absl::StrCat(
        "cookie is not a valid Cookie text message (", errors.first(), ")"));
  }
  return c;
}

absl::StatusOr<proto::Cookie> ReadCookie(Env* env, const std::string& dir) {
  const std::string path = CookiePath(dir);
  if (!env->FileExists(path)) {
    return absl::NotFoundError(absl::StrCat("no cookie in ", dir));
  }
  auto text = env->ReadFileToString(path);
  if (!text.ok()) return text.status();
  auto c = ParseCookie(*text);
  if (!c.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ", c.status().message()));
  }
  return c;
}

absl::Status WriteCookie(Env* env, const std::string& dir,
                         const proto::Cookie& cookie) {
  return env->WriteFileAtomic(CookiePath(dir), SerializeCookie(cookie));
}

absl::Status VerifyOrCreateCookies(Env* env, const proto::Cookie& expected) {
  const std::vector<std::string> dirs = AllDirs(expected);
  bool all_empty = true;
  for (const std::string& dir : dirs) {
    absl::Status s = env->CreateDirRecursive(dir);
    if (!s.ok()) return s;
    auto children = env->GetChildren(dir);
    if (!children.ok()) return children.status();
    for (const std::string& name : *children) {
      if (name != "lost+found" && name != kLockFileName) all_empty = false;
    }
  }
  if (all_empty) {
    for (const std::string& dir : dirs) {
      absl::Status s = WriteCookie(env, dir, expected);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  std::vector<std::string> problems;
  for (const std::string& dir : dirs) {
    auto found = ReadCookie(env, dir);
    if (absl::IsNotFound(found.status())) {
      problems.push_back(absl::StrCat(
          dir,
          ": no cookie, while other directories of this bookie are in "
          "use (a new or wiped disk?)"));
      continue;
    }
    if (!found.ok()) {
      problems.push_back(absl::StrCat(dir, ": ", found.status().message()));
      continue;
    }
    std::vector<std::string> diffs = CookieDifferences(*found, expected);
    if (!diffs.empty()) {
      const bool foreign = found->bookie_id() != expected.bookie_id() ||
                           found->instance_id() != expected.instance_id();
      problems.push_back(
          absl::StrCat(dir,
                       foreign ? ": cookie of another bookie or cluster: "
                               : ": cookie does not match the configuration: ",
                       absl::StrJoin(diffs, "; ")));
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("bookie start refused, cookie check failed: ",
                   absl::StrJoin(problems, " | "), ". ", Repair(expected)));
}

absl::Status FormatDirectories(Env* env, const proto::Cookie& cookie) {
  for (const std::string& dir : AllDirs(cookie)) {
    if (env->FileExists(dir)) {
      // Everything but the lock file, which the caller holds (dir_lock.h).
      auto children = env->GetChildren(dir);
      if (!children.ok()) return children.status();
      for (const std::string& name : *children) {
        if (name == kLockFileName) continue;
        const std::string path = absl::StrCat(dir, "/", name);
        if (!env->RemoveFile(path).ok()) {
          absl::Status s = env->RemoveDirRecursive(path);
          if (!s.ok()) return s;
        }
      }
    }
    absl::Status s = env->CreateDirRecursive(dir);
    if (s.ok()) s = WriteCookie(env, dir, cookie);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace bk::bookie
