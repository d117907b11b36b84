// RunBookie: the `bookie` program (tools/bookie_main/main.cc), made a function
// so that a test build can run the very same program with keys of its own and
// another Env (test/support/bookie_testing: the fault-injecting bookie).
//
//   bookie [--conf=FILE] [--key=value ...]    run
//   bookie format [--conf=FILE] --yes          wipe dirs, write new cookies
//   bookie --help | --print-config
//   bookie --print-config-template            every key, commented, with its
//                                              default, unit and meaning
//                                              (deploy/config/bookie.conf)
//
// Exit codes: 0 after a clean shutdown; 1 on a refused start or bad config
// (one line on stderr says why); 2 when a second signal or the shutdown
// timeout cut the drain short.

#ifndef BK_BOOKIE_DAEMON_BOOKIE_MAIN_H_
#define BK_BOOKIE_DAEMON_BOOKIE_MAIN_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "bookie/daemon/daemon_options.h"
#include "bookie/http/http_router.h"
#include "common/config.h"
#include "common/env.h"

namespace bk::bookie {

struct BookieMainHooks {
  // The program's name in messages ("bookie: ...").
  const char* program = "bookie";
  // Keys beyond the bookie's own: accepted from every source, listed by
  // --help, --print-config and the template, and handed to make_env. Must
  // outlive the call. Null: none.
  const ConfigSchema* extra_keys = nullptr;
  // The Env the daemon runs on, from the loaded configuration; it must
  // outlive the daemon. Unset, or a null Env: Env::Default(). An error
  // refuses the start with it. (`format` always uses Env::Default().)
  std::function<absl::StatusOr<Env*>(const Config&)> make_env;
  // A service the process runs beside the daemon, composed by the
  // executable's main (tools/bookie_main: autorecovery, when
  // autoRecoveryDaemonEnabled is set), so that bookie libraries never
  // include it. Called once the daemon serves, with the loaded
  // configuration; it returns the function that stops it, run after the
  // daemon has drained (null: nothing to stop). An error refuses the start
  // with it (the daemon is shut down first). Unset: none.
  std::function<absl::StatusOr<std::function<void()>>(const Config&)>
      start_companion;
  // Routes the process serves on the bookie's HTTP port beside the
  // bookie's own (tools/bookie_main: autorecovery's admin endpoints), from
  // the loaded configuration and the daemon's options, before the daemon
  // starts; they must stay valid until the process exits. PUT, POST and
  // DELETE routes pass the admin token check (bookie/http/http_router.h).
  // An error refuses the start with it. Unset: none.
  std::function<absl::StatusOr<std::vector<HttpRoute>>(const Config&,
                                                       const DaemonOptions&)>
      http_routes;
};

// Runs the program; returns its exit code (or never returns: the daemon
// ends the process itself once drained).
int RunBookie(int argc, char** argv, const BookieMainHooks& hooks = {});

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_BOOKIE_MAIN_H_
