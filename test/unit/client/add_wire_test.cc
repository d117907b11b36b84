// The add stream's hand-written wire bytes (client/internal/add_wire.h)
// against protobuf's own: an AddRequest the encoder writes parses as the
// message it stands for and is byte for byte what SerializeAsString makes,
// and a packaged entry made without copying its payload is the one
// entry::Package makes.

#include "client/internal/add_wire.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "proto/bookie.pb.h"
#include "proto/entry_format.h"

namespace bk::client::internal {
namespace {

std::string Bytes(const grpc::ByteBuffer& b) {
  std::vector<grpc::Slice> slices;
  REQUIRE(b.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

entry::EntryHeader Header(uint64_t ledger, int64_t entry, size_t size) {
  entry::EntryHeader h;
  h.ledger_id = ledger;
  h.entry_id = entry;
  h.last_add_confirmed = entry - 1;
  h.ledger_length = static_cast<uint64_t>(entry + 1) * size;
  return h;
}

TEST_CASE("a packaged entry made from a moved payload equals entry::Package") {
  for (auto digest : {entry::DigestType::kCrc32c, entry::DigestType::kDummy}) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{100}, size_t{5000}}) {
      const std::string payload(size, static_cast<char>('a' + size % 26));
      const entry::EntryHeader h = Header(7, 3, size);
      const std::string want = entry::Package(h, payload, digest);
      const EntryBytes viewed = EntryBytes::Package(h, payload, digest);
      const EntryBytes moved =
          EntryBytes::Package(h, std::string(payload), digest);
      CHECK(viewed.ToString() == want);
      CHECK(moved.ToString() == want);
      CHECK(viewed.size() == want.size());
      CHECK(moved.size() == want.size());
      // The decoder accepts it as the entry it is.
      auto d = entry::Decode(moved.ToString(), digest, 7, 3);
      REQUIRE(d.ok());
      CHECK(d->payload == payload);
    }
  }
}

TEST_CASE("a copied entry holds its bytes, however short") {
  // Sizes a gRPC slice could hold inline, and above.
  for (size_t size : {size_t{1}, size_t{5}, size_t{23}, size_t{24}, size_t{40},
                      size_t{3000}}) {
    std::string bytes;
    for (size_t i = 0; i < size; ++i) bytes.push_back(static_cast<char>(i));
    const std::string want = bytes;
    const EntryBytes copied = EntryBytes::Copy(bytes);
    bytes.assign(size, '-');  // the copy does not read the source after
    CHECK(copied.size() == size);
    CHECK(copied.ToString() == want);
  }
}

TEST_CASE("an adopted packaged entry keeps its bytes in place") {
  for (size_t size : {size_t{0}, size_t{100}, size_t{5000}}) {
    const std::string packaged = entry::Package(
        Header(7, 3, size), std::string(size, 'q'), entry::DigestType::kCrc32c);
    std::string handed = packaged;
    const char* const where = handed.data();
    const EntryBytes adopted = EntryBytes::Adopt(std::move(handed));
    CHECK(adopted.size() == packaged.size());
    CHECK(adopted.ToString() == packaged);
    REQUIRE(adopted.slices().size() == 1);
    // The very buffer handed over, not a copy of it.
    CHECK(reinterpret_cast<const char*>(adopted.slices()[0].begin()) == where);
  }
}

TEST_CASE("an encoded add batch is byte for byte protobuf's AddRequest") {
  const uint32_t seed = std::random_device{}();
  std::cout << "add_wire_test seed " << seed << "\n";
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t n) { return rng() % n; };
  for (int round = 0; round < 200; ++round) {
    AddBatchEncoder enc;
    EntrySlab slab;  // half the bodies are carved from it (entry_slab.h)
    proto::AddRequest want;
    const int n = static_cast<int>(pick(70));
    for (int i = 0; i < n; ++i) {
      // Zero ids, empty keys and bodies, and values of every varint width.
      const uint64_t ledger = pick(4) == 0 ? 0 : rng() >> pick(64);
      const int64_t entry =
          pick(4) == 0 ? 0 : static_cast<int64_t>(rng() >> (1 + pick(63)));
      const std::string key(pick(3) == 0 ? 0 : pick(40), 'k');
      const uint32_t flags =
          static_cast<uint32_t>(pick(3) == 0 ? 0 : rng() >> 32);
      const size_t size = pick(5) == 0 ? 0 : pick(3000);
      const std::string payload(size, static_cast<char>('a' + pick(26)));
      EntryBytes body;
      if (pick(6) != 0) {
        EntrySlab* from = pick(2) == 0 ? &slab : nullptr;
        const int64_t pending = static_cast<int64_t>(pick(3) * 4096);
        body =
            pick(2) == 0
                ? EntryBytes::Package(Header(ledger, entry, size), payload,
                                      entry::DigestType::kCrc32c, from, pending)
                : EntryBytes::Package(
                      Header(ledger, entry, size), std::string(payload),
                      entry::DigestType::kCrc32c, from, pending);
      }
      enc.Add(ledger, entry, key, flags, body);
      proto::AddEntry* e = want.add_entries();
      e->set_ledger_id(ledger);
      e->set_entry_id(entry);
      e->set_master_key(key);
      e->set_flags(flags);
      e->set_body(body.ToString());
    }
    const std::string want_bytes = want.SerializeAsString();
    CHECK(enc.entries() == static_cast<size_t>(n));
    CHECK(enc.bytes() == want_bytes.size());
    const std::string got = Bytes(enc.Finish());
    REQUIRE(got == want_bytes);
    proto::AddRequest parsed;
    REQUIRE(parsed.ParseFromString(got));
    CHECK(parsed.entries_size() == n);
    // The encoder starts afresh after Finish.
    CHECK(enc.entries() == 0);
    CHECK(enc.bytes() == 0);
  }
}

TEST_CASE("one entry's buffers are shared by every batch that carries it") {
  const std::string payload(2048, 'p');
  const EntryBytes body =
      EntryBytes::Package(Header(1, 1, payload.size()), std::string(payload),
                          entry::DigestType::kCrc32c);
  AddBatchEncoder a, b;
  a.Add(1, 1, "key", 0, body);
  b.Add(1, 1, "key", 0, body);
  const grpc::ByteBuffer ba = a.Finish(), bb = b.Finish();
  std::vector<grpc::Slice> sa, sb;
  REQUIRE(ba.Dump(&sa).ok());
  REQUIRE(bb.Dump(&sb).ok());
  // The payload slice is the same memory in both requests: not a copy.
  auto payload_slice = [&](const std::vector<grpc::Slice>& v) {
    for (const grpc::Slice& s : v) {
      if (s.size() == payload.size()) return s.begin();
    }
    return static_cast<const uint8_t*>(nullptr);
  };
  REQUIRE(payload_slice(sa) != nullptr);
  CHECK(payload_slice(sa) == payload_slice(sb));
  CHECK(Bytes(ba) == Bytes(bb));
}

}  // namespace
}  // namespace bk::client::internal
