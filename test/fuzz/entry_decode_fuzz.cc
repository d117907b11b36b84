// Fuzz target: the entry packaging decoder (proto/entry_format.h), which
// every client runs on bytes a bookie sends. Any input: ParseHeader and
// Decode never crash. Invariant: a packaged entry decodes to its payload.

#include "proto/entry_format.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bk;
  const absl::string_view body(reinterpret_cast<const char*>(data), size);
  auto h = entry::ParseHeader(body);
  for (auto type : {entry::DigestType::kCrc32c, entry::DigestType::kDummy}) {
    auto d = entry::Decode(body, type, h.ok() ? h->ledger_id : 0, -1);
    if (d.ok()) BK_FUZZ_CHECK(d->payload.size() <= size);
  }
  // Round trip: the input's first 32 bytes as a header, the rest as payload.
  fuzz::Bytes in(data, size);
  entry::EntryHeader eh;
  eh.ledger_id = in.Int(8);
  eh.entry_id = static_cast<int64_t>(in.Int(8) & 0x7fffffffffffffffull);
  // A valid entry carries a LAC in [-1, entry_id).
  eh.last_add_confirmed =
      static_cast<int64_t>(in.Int(8) %
                           (static_cast<uint64_t>(eh.entry_id) + 1)) -
      1;
  eh.ledger_length = in.Int(8);
  const std::string payload = in.Rest();
  const std::string packaged =
      entry::Package(eh, payload, entry::DigestType::kCrc32c);
  auto back = entry::Decode(packaged, entry::DigestType::kCrc32c, eh.ledger_id,
                            eh.entry_id);
  if (payload.size() <= entry::kMaxPayloadSize) {
    if (!back.ok())
      std::fprintf(stderr, "%s\n", back.status().ToString().c_str());
    BK_FUZZ_CHECK(back.ok());
    BK_FUZZ_CHECK(back->payload == payload);
  }
  return 0;
}
