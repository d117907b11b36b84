// The --metadata-uri flag of the bkctl commands that read or write the
// metadata store directly, and the store it opens.

#ifndef BK_TOOLS_BKCTL_STORE_FLAGS_H_
#define BK_TOOLS_BKCTL_STORE_FLAGS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "metadata/metadata_store.h"
#include "tools/bkctl/flags.h"

namespace bk::bkctl {

inline const FlagSpec kMetadataUriFlag{
    "metadata-uri", true, "metadata store, zk://host:port/root or mem://name"};

// Opens the store --metadata-uri names (5 s to connect).
inline absl::StatusOr<std::unique_ptr<metadata::MetadataStore>>
OpenStoreFromFlags(const ParsedFlags& flags) {
  metadata::OpenOptions o;
  o.connect_timeout = absl::Seconds(5);
  return metadata::Open(flags.Get("metadata-uri"), o);
}

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_STORE_FLAGS_H_
