// The metadata side of a bookie's life: the store, the refusal of a
// duplicate id, cookies, registration and the session (daemon_wiring.h).

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bookie/cookie.h"
#include "bookie/daemon/daemon_wiring.h"

namespace bk::bookie {

absl::Status OpenMetadata(const DaemonOptions& options, DaemonParts& p) {
  auto md = metadata::Open(options.metadata_uri, MetadataOpenOptions(options));
  if (!md.ok()) return md.status();
  p.metadata = std::move(*md);
  auto instance = p.metadata->InstanceId();
  if (!instance.ok()) return instance.status();
  p.instance_id = *instance;
  return absl::OkStatus();
}

// A leftover of a bookie that died (SIGKILL, power loss) stays until its
// session expires; BookKeeper waits for it the same way.
absl::Status WaitForOldRegistration(const DaemonOptions& options,
                                    DaemonParts& p) {
  const absl::Time deadline =
      absl::Now() + 2 * options.metadata_session_timeout;
  bool logged = false;
  while (true) {
    auto set = p.metadata->ListBookies();
    if (!set.ok()) return set.status();
    const proto::BookieServiceInfo* found = nullptr;
    for (const auto* list : {&set->writable, &set->readonly}) {
      for (const auto& b : *list) {
        if (b.bookie_id() == options.bookie_id) found = &b;
      }
    }
    if (found == nullptr) return absl::OkStatus();
    if (absl::Now() >= deadline) {
      return absl::AlreadyExistsError(absl::StrCat(
          "another live bookie is registered as ", options.bookie_id, " (gRPC ",
          found->grpc_endpoint(), "); refusing to serve with a duplicate id"));
    }
    if (!logged) {
      p.log->warn(
          "bookie id {} is registered (gRPC {}); waiting up to {} for a "
          "dead predecessor's session to expire",
          options.bookie_id, found->grpc_endpoint(),
          absl::FormatDuration(deadline - absl::Now()));
      logged = true;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
}

absl::Status LockDirectories(const DaemonOptions& options, DaemonParts& p) {
  std::vector<std::string> dirs = options.store.journal.dirs;
  dirs.insert(dirs.end(), options.store.storage.ledger_dirs.begin(),
              options.store.storage.ledger_dirs.end());
  auto locks = DirLock::AcquireAll(dirs);
  if (!locks.ok()) {
    return absl::Status(
        locks.status().code(),
        absl::StrCat("bookie start refused: ", locks.status().message()));
  }
  p.dir_locks = *std::move(locks);
  return absl::OkStatus();
}

absl::Status CheckCookies(const DaemonOptions& options, DaemonParts& p) {
  const std::vector<std::string>& journal_dirs = options.store.journal.dirs;
  const std::vector<std::string>& ledger_dirs =
      options.store.storage.ledger_dirs;
  const proto::Cookie expected =
      MakeCookie(options.bookie_id, p.instance_id, journal_dirs, ledger_dirs);
  bool any_local = false;
  for (const auto* dirs : {&journal_dirs, &ledger_dirs}) {
    for (const auto& dir : *dirs) {
      if (ReadCookie(p.env, dir).ok()) any_local = true;
    }
  }
  auto stored = p.metadata->ReadCookie(options.bookie_id);
  if (stored.ok() && !any_local) {
    return absl::FailedPreconditionError(absl::StrCat(
        "bookie ", options.bookie_id,
        " has a cookie in the metadata store but none of its directories "
        "holds one: the disks were wiped or replaced. Its data is gone from "
        "this machine; run `bookie format --yes` to start it empty (its "
        "ledgers are re-replicated by autorecovery -- `bkctl autorecovery` "
        "or autoRecoveryDaemonEnabled=true -- or once by `bkctl recover "
        "--bookie ",
        options.bookie_id, "`), or point it at its old directories"));
  }
  if (!stored.ok() && !absl::IsNotFound(stored.status())) {
    return stored.status();
  }
  if (absl::Status s = VerifyOrCreateCookies(p.env, expected); !s.ok()) {
    return s;
  }
  if (!stored.ok()) {
    auto v = p.metadata->WriteCookie(options.bookie_id, expected,
                                     metadata::kNotExists);
    return v.status();
  }
  std::vector<std::string> diffs = CookieDifferences(stored->value, expected);
  if (!diffs.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the cookie of bookie ", options.bookie_id,
        " in the metadata store differs from this configuration: ",
        absl::StrJoin(diffs, "; "),
        ". Restore the old configuration, or run `bookie format` to start "
        "this bookie empty"));
  }
  return absl::OkStatus();
}

absl::Status Register(const DaemonOptions& options, DaemonParts& p) {
  proto::BookieServiceInfo info;
  info.set_bookie_id(options.bookie_id);
  info.set_grpc_endpoint(
      absl::StrCat(options.advertised_address, ":", p.grpc_port()));
  if (p.http) {
    info.set_http_endpoint(
        absl::StrCat(options.advertised_address, ":", p.http_port()));
  }
  info.set_network_location(options.network_location);
  const bool read_only = !p.store->Stats().writable;
  info.set_read_only(read_only);
  info.set_start_time_ms(p.start_time_ms);
  info.set_version(BK_VERSION);
  absl::Status s = p.metadata->RegisterBookie(info);
  if (absl::IsAlreadyExists(s)) {
    return absl::AlreadyExistsError(
        absl::StrCat("another live bookie is registered as ", options.bookie_id,
                     "; refusing to serve with a duplicate id"));
  }
  if (!s.ok()) return s;
  {
    absl::MutexLock l(&p.mu);
    p.registered_read_only = read_only;
  }
  p.registered = true;
  return absl::OkStatus();
}

void WatchSession(const DaemonOptions& options, DaemonParts& p) {
  p.registration = std::make_unique<RegistrationKeeper>(
      [&options, &p] { return Register(options, p); },
      RegistrationKeeper::Options{}, p.log);
  p.session_listener =
      p.metadata->AddSessionListener([&p](metadata::SessionEvent e) {
        if (e == metadata::SessionEvent::kExpired) {
          p.registered = false;
          p.log->warn(
              "metadata session expired; registration lost until "
              "the session is re-established");
        } else {
          // Not registered until Register says so: the store's own
          // re-creation may have failed.
          p.log->info("metadata session re-established; registering again");
          p.registration->RegisterAgain();
        }
      });
}

}  // namespace bk::bookie
