// Parsing of metadata store URIs (see Open in metadata_store.h).

#ifndef BK_METADATA_URI_H_
#define BK_METADATA_URI_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bk::metadata {

struct StoreUri {
  std::string scheme;              // "zk" or "mem"
  std::vector<std::string> hosts;  // zk: "host:port", at least one
  std::string root;                // zk: "/a/b", no trailing '/'; never "/"
  std::string name;                // mem: cluster name; empty = private
};

// kInvalidArgument, naming the URI, for an unknown scheme, a zk URI without
// hosts, without a port or without a root path, or a malformed path.
absl::StatusOr<StoreUri> ParseStoreUri(const std::string& uri);

}  // namespace bk::metadata

#endif  // BK_METADATA_URI_H_
