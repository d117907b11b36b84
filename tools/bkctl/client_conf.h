// The operator's client config file: the client library's key=value file
// (client/CONFIG.md), named by BK_CLIENT_CONF or `bkctl --client-conf FILE`,
// so that --metadata-uri and the TLS files are set once, not per command.
// Precedence, highest first: the command's flag, BK_metadataServiceUri (for
// the URI), this file.

#ifndef BK_TOOLS_BKCTL_CLIENT_CONF_H_
#define BK_TOOLS_BKCTL_CLIENT_CONF_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/client_options.h"

namespace bk::bkctl {

inline constexpr char kClientConfEnv[] = "BK_CLIENT_CONF";

// The bkctl flags the file at `path` sets: "metadata-uri" from
// metadataServiceUri, "tls-ca-file" / "tls-cert-file" / "tls-key-file" from
// tlsTrustStore / tlsCertificatePath / tlsKeyStore; only keys the file
// gives. The whole file is checked as the client library would (unknown
// keys and bad values are kInvalidArgument naming the file and key).
absl::StatusOr<std::map<std::string, std::string>> FlagsFromClientConf(
    const std::string& path);

// Every client key of the file BK_CLIENT_CONF names (ZooKeeper credentials,
// timeouts, placement, ...), as the client library reads them; the
// defaults when BK_CLIENT_CONF is unset. The commands' flags then override
// the URI and the TLS files.
absl::StatusOr<client::ClientOptions> ClientConfOptions();

// Takes `--client-conf FILE` (or `=FILE`) out of `args`, anywhere on the
// line, and sets BK_CLIENT_CONF to FILE for the flag parser (flags.h) and
// ClientConfOptions above; the rest of `args` in order. A program's
// commands must have no flag of that name (bkctl's and bkbench's have
// none). kInvalidArgument when the flag has no value.
absl::StatusOr<std::vector<std::string>> TakeClientConfFlag(
    const std::vector<std::string>& args);

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_CLIENT_CONF_H_
