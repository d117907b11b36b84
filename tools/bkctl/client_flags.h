// The client of a bkctl command that talks to bookies: its flag specs
// (a command's own plus the --tls-* flags) and the Client they configure.

#ifndef BK_TOOLS_BKCTL_CLIENT_FLAGS_H_
#define BK_TOOLS_BKCTL_CLIENT_FLAGS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "client/client.h"
#include "tools/bkctl/flags.h"

namespace bk::bkctl {

// `specs` and the --tls-* flags (tls_flags.h).
std::vector<FlagSpec> WithTls(std::vector<FlagSpec> specs);

// The client of --metadata-uri with the TLS settings of the --tls-* flags.
// It is never destroyed: the process ends with the command, and destroying
// a Client can race with gRPC finishing its add streams (a double free in
// grpc_cq_internal_unref, about one run in three of simpletest; a client
// library bug to fix there). Writers and readers are still destroyed
// before the process ends, closing their ledgers.
absl::StatusOr<client::Client*> MakeClient(const ParsedFlags& f);

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_CLIENT_FLAGS_H_
