// ZooKeeper digest credentials (zkEnableSecurity / zkDigestFile).
//
// The file holds one line, "user:password" (a trailing newline is allowed).
// A session authenticates with it (zoo_add_auth, scheme "digest"), and the
// znodes the store creates get ACL creator-all: every permission for the
// identity digest:user:<SHA-1 of user:password>, none for anyone else. All
// bookies, clients and tools of a cluster share the one identity.
//
// The password is a secret: the file must not be readable by group or
// others (mode 0600 or 0400), as ssh insists for a private key. The
// ZooKeeper C client here has no TLS, so the credentials cross the network
// in clear text: see deploy/README.md, "Threat model".

#ifndef BK_METADATA_ZK_ZK_AUTH_H_
#define BK_METADATA_ZK_ZK_AUTH_H_

#include <string>

#include "absl/status/statusor.h"

namespace bk::metadata {

// Reads and checks the credentials of `path`: kInvalidArgument naming the
// file when it is missing, unreadable, readable by group or others, or not
// "user:password" with both parts non-empty.
absl::StatusOr<std::string> ReadZkDigestFile(const std::string& path);

}  // namespace bk::metadata

#endif  // BK_METADATA_ZK_ZK_AUTH_H_
