// The store contract against the in-process backend.

#include "metadata/mem/mem_store.h"

#include "catch2/catch.hpp"

struct MemBackend {
  static std::string Uri(const std::string& cluster) {
    return "mem://" + cluster;
  }
  static bk::metadata::OpenOptions Options() { return {}; }
  static void Expire(bk::metadata::MetadataStore* store) {
    static_cast<bk::metadata::MemStore*>(store)->ExpireSession();
  }
  static void PutRawLedger(bk::metadata::MetadataStore* store,
                           bk::metadata::LedgerId id,
                           const std::string& bytes) {
    static_cast<bk::metadata::MemStore*>(store)->cluster().PutRawLedger(id,
                                                                        bytes);
  }
};

#define CONTRACT_BACKEND MemBackend

#include "test/unit/metadata/store_contract.inc"
// After store_contract.inc, whose helpers it uses.
#include "test/unit/metadata/children_watch_contract.inc"

TEST_CASE("mem:// without a name gives each store a private cluster",
          "[metadata]") {
  auto a = bk::metadata::Open("mem://");
  auto b = bk::metadata::Open("mem://");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE((*a)->CreateLedger(1, contract::Md()).ok());
  CHECK(absl::IsNotFound((*b)->ReadLedger(1).status()));
}
