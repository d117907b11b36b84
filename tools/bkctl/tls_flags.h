// The --tls-* flags of every command that talks to bookies (bkctl
// bookieinfo, bookiesanity, simpletest, write, read; bkbench write and
// scenario), mapped onto the client's TLS settings
// (client::TlsClientOptions in client/client_options.h):
//
//   --tls-ca-file FILE      PEM CAs the bookies' certificates are checked
//                           against; TLS towards the bookies (default:
//                           plaintext)
//   --tls-cert-file FILE    PEM client certificate, for mutual TLS
//   --tls-key-file FILE     PEM key of --tls-cert-file
//   --tls-server-name NAME  name checked in the bookies' certificates
//                           instead of the host dialled

#ifndef BK_TOOLS_BKCTL_TLS_FLAGS_H_
#define BK_TOOLS_BKCTL_TLS_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/client_options.h"
#include "tools/bkctl/flags.h"

namespace bk::bkctl {

// The four flag specs, to append to a command's own.
std::vector<FlagSpec> TlsFlags();

// One usage line per flag, for a command's help text.
std::string TlsUsage();

// The TLS settings the flags give (all empty: plaintext).
// kInvalidArgument when a certificate, key or server name comes without
// --tls-ca-file, or a certificate without its key (or a key without its
// certificate). The files are read when a connection is made.
absl::StatusOr<client::TlsClientOptions> TlsOptionsOf(const ParsedFlags& f);

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_TLS_FLAGS_H_
