// EntrySlab (client/internal/entry_slab.h): a writer's packaged entries
// carved out of shared buffers. The entries are the bytes entry::Package
// makes, each keeps its buffer alive on its own, and the buffers counted
// are one per slab, sized by the bytes pending.

#include "client/internal/entry_slab.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "client/internal/add_wire.h"
#include "proto/entry_format.h"

namespace bk::client::internal {
namespace {

entry::EntryHeader Header(int64_t entry, size_t size) {
  entry::EntryHeader h;
  h.ledger_id = 9;
  h.entry_id = entry;
  h.last_add_confirmed = entry - 1;
  h.ledger_length = static_cast<uint64_t>(entry + 1) * size;
  return h;
}

TEST_CASE("entries carved from a slab are entry::Package's bytes") {
  const uint32_t seed = std::random_device{}();
  std::cout << "entry_slab_test seed " << seed << "\n";
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  EntrySlab slab;
  std::vector<std::string> want;
  std::vector<EntryBytes> got;
  int64_t pending = 0;
  for (int i = 0; i < 500; ++i) {
    // Sizes on both sides of kMaxPieceBytes, and empty payloads.
    const size_t size = rng() % 4 == 0 ? 0 : rng() % 12000;
    const std::string payload(size, static_cast<char>('a' + i % 26));
    const auto digest =
        rng() % 2 == 0 ? entry::DigestType::kCrc32c : entry::DigestType::kDummy;
    want.push_back(entry::Package(Header(i, size), payload, digest));
    got.push_back(rng() % 2 == 0 ? EntryBytes::Package(Header(i, size), payload,
                                                       digest, &slab, pending)
                                 : EntryBytes::Package(Header(i, size),
                                                       std::string(payload),
                                                       digest, &slab, pending));
    pending += static_cast<int64_t>(want.back().size());
    // Now and then the writer goes idle and lets its slab go.
    if (rng() % 50 == 0) {
      slab.Release();
      pending = 0;
    }
  }
  slab.Release();
  // Every entry still reads as packaged: each holds its own buffer.
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("entry " << i);
    CHECK(got[i].size() == want[i].size());
    CHECK(got[i].ToString() == want[i]);
  }
}

TEST_CASE("a busy writer fills slabs, a writer with one add gets one entry") {
  const std::string payload(1000, 'x');
  const size_t packaged =
      entry::PackagedSize(payload.size(), entry::DigestType::kCrc32c);

  SECTION("thousands pending: one buffer per kMaxSlabBytes") {
    EntrySlab slab;
    std::vector<EntryBytes> held;
    const int n = 1000;
    for (int i = 0; i < n; ++i) {
      held.push_back(EntryBytes::Package(Header(i, payload.size()), payload,
                                         entry::DigestType::kCrc32c, &slab,
                                         /*pending=*/int64_t{2} << 20));
    }
    const int64_t per_slab = EntrySlab::kMaxSlabBytes / packaged;
    CHECK(slab.allocations() == (n + per_slab - 1) / per_slab);
    // Consecutive entries sit back to back in one buffer.
    CHECK(held[1].slices()[0].begin() ==
          held[0].slices()[0].begin() + packaged);
  }

  SECTION("nothing pending: a buffer of one entry each, none wasted") {
    EntrySlab slab;
    for (int i = 0; i < 10; ++i) {
      const EntryBytes e =
          EntryBytes::Package(Header(i, payload.size()), payload,
                              entry::DigestType::kCrc32c, &slab, 0);
      CHECK(e.size() == packaged);
    }
    CHECK(slab.allocations() == 10);
  }

  SECTION("a slab is sized by the bytes pending") {
    EntrySlab slab;
    const int64_t pending = static_cast<int64_t>(3 * packaged);
    for (int i = 0; i < 8; ++i) {
      EntryBytes::Package(Header(i, payload.size()), payload,
                          entry::DigestType::kCrc32c, &slab, pending);
    }
    // Each slab holds pending + one entry: 4 entries.
    CHECK(slab.allocations() == 2);
  }

  SECTION("a big entry gets its own buffer and leaves the slab's room") {
    EntrySlab slab;
    const int64_t pending = int64_t{1} << 20;
    const EntryBytes a =
        EntryBytes::Package(Header(0, payload.size()), payload,
                            entry::DigestType::kCrc32c, &slab, pending);
    const std::string big(EntrySlab::kMaxPieceBytes + 1, 'b');
    const EntryBytes b = EntryBytes::Package(
        Header(1, big.size()), big, entry::DigestType::kCrc32c, &slab, pending);
    const EntryBytes c =
        EntryBytes::Package(Header(2, payload.size()), payload,
                            entry::DigestType::kCrc32c, &slab, pending);
    CHECK(slab.allocations() == 2);
    CHECK(c.slices()[0].begin() == a.slices()[0].begin() + packaged);
    CHECK(b.ToString() == entry::Package(Header(1, big.size()), big,
                                         entry::DigestType::kCrc32c));
  }
}

}  // namespace
}  // namespace bk::client::internal
