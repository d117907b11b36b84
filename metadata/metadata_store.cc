// Open(): the URI dispatch to the backends.

#include "metadata/metadata_store.h"

#include "metadata/mem/mem_store.h"
#include "metadata/uri.h"
#include "metadata/zk/zk_store.h"

namespace bk::metadata {

absl::StatusOr<std::unique_ptr<MetadataStore>> Open(
    const std::string& uri, const OpenOptions& options) {
  absl::StatusOr<StoreUri> parsed = ParseStoreUri(uri);
  if (!parsed.ok()) return parsed.status();
  if (parsed->scheme == "mem") {
    return std::make_unique<MemStore>(uri, MemCluster::Get(parsed->name),
                                      options);
  }
  absl::StatusOr<std::unique_ptr<ZkStore>> zk =
      ZkStore::Open(uri, *parsed, options);
  if (!zk.ok()) return zk.status();
  return std::unique_ptr<MetadataStore>(*std::move(zk));
}

}  // namespace bk::metadata
