// The bookie daemon.
//
//   bookie [--conf=FILE] [--key=value ...]    run
//   bookie format [--conf=FILE] --yes          wipe dirs, write new cookies
//   bookie --help | --print-config
//
// Exit codes: 0 after a clean shutdown; 1 on a refused start or bad config
// (one line on stderr says why); 2 when a second signal or the shutdown
// timeout cut the drain short.

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "bookie/bookie_config.h"
#include "bookie/cookie.h"
#include "bookie/daemon/bookie_daemon.h"
#include "common/logging.h"
#include "metadata/metadata_store.h"

extern char** environ;

namespace bk::bookie {
namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "bookie: %s\n", std::string(s.message()).c_str());
  return 1;
}

int Format(const DaemonOptions& o, bool yes) {
  if (!yes) {
    std::fprintf(stderr,
                 "bookie: format ERASES every journal and ledger directory "
                 "of bookie %s; run again with --yes to confirm\n",
                 o.bookie_id.c_str());
    return 1;
  }
  auto md = metadata::Open(o.metadata_uri);
  if (!md.ok()) return Fail(md.status());
  auto instance = (*md)->InstanceId();
  if (!instance.ok()) return Fail(instance.status());
  proto::Cookie cookie =
      MakeCookie(o.bookie_id, *instance, o.store.journal.dirs,
                 o.store.storage.ledger_dirs);
  if (absl::Status s = FormatDirectories(Env::Default(), cookie); !s.ok()) {
    return Fail(s);
  }
  absl::Status s = (*md)->DeleteCookie(o.bookie_id, metadata::kAnyVersion);
  if (!s.ok() && !absl::IsNotFound(s)) return Fail(s);
  auto v = (*md)->WriteCookie(o.bookie_id, cookie, metadata::kNotExists);
  if (!v.ok()) return Fail(v.status());
  std::printf("formatted bookie %s\n", o.bookie_id.c_str());
  return 0;
}

int Main(int argc, char** argv) {
  // Debian's Abseil is built with Mutex deadlock detection on, which keeps a
  // lock graph on every Lock (about 1.5 % of the add path's CPU in
  // bookie_add_bench). Tests keep it; the daemon does not pay for it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // `format --yes` is a bare switch, which the generic parser would read as
  // a flag missing its value (or as taking the next word): take it out
  // first.
  bool bare_yes = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::string_view(argv[i]) == "--yes") {
      bare_yes = true;
      continue;
    }
    args.push_back(argv[i]);
  }
  auto cl = ParseCommandLine(static_cast<int>(args.size()), args.data());
  if (!cl.ok()) return Fail(cl.status());
  const ConfigSchema& schema = BookieConfigSchema();
  if (cl->help) {
    std::printf(
        "usage: bookie [format [--yes]] [--conf=FILE] [--key=value ...]\n"
        "       bookie --print-config | --help\n\n"
        "Keys (file key=value, env BK_<key>, or --key=value; flags win):\n%s",
        schema.Help().c_str());
    return 0;
  }
  bool format = false, yes = bare_yes;
  for (const auto& arg : cl->positional) {
    if (arg == "format") {
      format = true;
    } else {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("unknown command '", arg, "' (try --help)")));
    }
  }
  if (auto it = cl->flags.find("yes"); it != cl->flags.end()) {
    yes = it->second == "true" || it->second.empty();
    cl->flags.erase(it);
  }
  ConfigSources sources;
  sources.flags = cl->flags;
  sources.file = cl->config_file;
  for (char** e = environ; *e != nullptr; ++e)
    sources.environment.push_back(*e);
  auto config = Config::Load(schema, sources);
  if (!config.ok()) return Fail(config.status());
  if (cl->print_config) {
    std::printf("%s", config->Print().c_str());
    return 0;
  }
  auto options = DaemonOptionsFromConfig(*config);
  if (!options.ok()) return Fail(options.status());
  log::Init(options->log_level, options->bookie_id);
  if (format) return Format(*options, yes);

  // Signals go to one thread only: block them before any thread starts.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  auto daemon = BookieDaemon::Start(*options);
  if (!daemon.ok()) return Fail(daemon.status());
  BookieDaemon* d = daemon->get();
  const absl::Duration timeout = options->shutdown_timeout;
  std::thread signals([d, set, timeout] {
    int sig;
    sigwait(&set, &sig);
    d->RequestShutdown();
    // A second signal, or a drain that overruns the timeout, ends at once.
    std::thread watchdog([timeout] {
      absl::SleepFor(timeout);
      std::fprintf(stderr, "bookie: shutdown timed out; exiting now\n");
      std::_Exit(2);
    });
    watchdog.detach();
    sigwait(&set, &sig);
    std::fprintf(stderr, "bookie: second signal; exiting now\n");
    std::_Exit(2);
  });
  signals.detach();
  absl::Status s = d->WaitAndShutdown();
  daemon->reset();
  std::fflush(stdout);
  std::fflush(stderr);
  if (!s.ok()) return Fail(s);
  // Detached threads still wait in sigwait: leave without running static
  // destructors under them.
  std::_Exit(0);
}

}  // namespace
}  // namespace bk::bookie

int main(int argc, char** argv) { return bk::bookie::Main(argc, argv); }
