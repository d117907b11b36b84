// The metadata store of the cluster a run writes to, opened as the run's
// clients open it: with the ZooKeeper credentials (zkEnableSecurity,
// zkDigestFile) of their options, which a client config file gives, so
// that every store bkbench opens beside its clients reaches a secured
// ZooKeeper as they do.

#ifndef BK_TOOLS_BKBENCH_CLUSTER_STORE_H_
#define BK_TOOLS_BKBENCH_CLUSTER_STORE_H_

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/client_options.h"
#include "metadata/metadata_store.h"
#include "proto/metadata.pb.h"

namespace bk::bkbench {

inline metadata::OpenOptions StoreOptionsOf(const client::ClientOptions& c) {
  metadata::OpenOptions o;
  o.connect_timeout = absl::Seconds(5);
  o.zk_enable_security = c.zk_enable_security;
  o.zk_digest_file = c.zk_digest_file;
  return o;
}

// The bookies registered in c.metadata_service_uri now: the writable ones,
// then the read-only ones (read_only set), each part sorted by id.
inline absl::StatusOr<std::vector<proto::BookieServiceInfo>> RegisteredBookies(
    const client::ClientOptions& c) {
  auto store = metadata::Open(c.metadata_service_uri, StoreOptionsOf(c));
  if (!store.ok()) return store.status();
  auto set = (*store)->ListBookies();
  if (!set.ok()) return set.status();
  std::vector<proto::BookieServiceInfo> out = std::move(set->writable);
  for (proto::BookieServiceInfo& b : set->readonly) {
    b.set_read_only(true);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_CLUSTER_STORE_H_
