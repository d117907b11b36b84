// The bookie's own configuration, as the bookie reads it, for the bkctl
// commands that work on a bookie's directories (readjournal, lastmark,
// readentrylog): `--conf FILE` names the bookie's config file, and BK_<key>
// variables apply as they do to the bookie.

#ifndef BK_TOOLS_BKCTL_BOOKIE_CONF_H_
#define BK_TOOLS_BKCTL_BOOKIE_CONF_H_

#include <string>

#include "absl/status/statusor.h"
#include "bookie/daemon/daemon_options.h"

namespace bk::bkctl {

// The options a bookie started with `--conf=path` would run with; errors
// name the key and the file.
absl::StatusOr<bookie::DaemonOptions> LoadBookieConf(const std::string& path);

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_BOOKIE_CONF_H_
