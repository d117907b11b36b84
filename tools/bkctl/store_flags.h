// The --metadata-uri flag of the bkctl commands that read or write the
// metadata store directly, and the store it opens.

#ifndef BK_TOOLS_BKCTL_STORE_FLAGS_H_
#define BK_TOOLS_BKCTL_STORE_FLAGS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "metadata/metadata_store.h"
#include "tools/bkctl/client_conf.h"
#include "tools/bkctl/flags.h"

namespace bk::bkctl {

inline const FlagSpec kMetadataUriFlag{
    "metadata-uri", true, "metadata store, zk://host:port/root or mem://name"};

// How the commands open the metadata store: 5 s to connect, and the
// ZooKeeper credentials (zkEnableSecurity, zkDigestFile) of the client
// config file (client_conf.h).
inline absl::StatusOr<metadata::OpenOptions> StoreOpenOptions() {
  auto conf = ClientConfOptions();
  if (!conf.ok()) return conf.status();
  metadata::OpenOptions o;
  o.connect_timeout = absl::Seconds(5);
  o.zk_enable_security = conf->zk_enable_security;
  o.zk_digest_file = conf->zk_digest_file;
  return o;
}

// Opens the store --metadata-uri names.
inline absl::StatusOr<std::unique_ptr<metadata::MetadataStore>>
OpenStoreFromFlags(const ParsedFlags& flags) {
  auto o = StoreOpenOptions();
  if (!o.ok()) return o.status();
  return metadata::Open(flags.Get("metadata-uri"), *o);
}

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_STORE_FLAGS_H_
