#include "client/internal/add_wire.h"

#include <cstring>
#include <utility>

namespace bk::client::internal {
namespace {

// Protobuf wire format (https://protobuf.dev/programming-guides/encoding/):
// a field is a varint key (field number << 3 | wire type) and its value.
constexpr uint8_t kVarint = 0;
constexpr uint8_t kLen = 2;

constexpr char Key(int field, uint8_t type) {
  return static_cast<char>((field << 3) | type);
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Writes `v` at `p` (at most 10 bytes); returns the end.
char* PutVarint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

void DeleteString(void* p) { delete static_cast<std::string*>(p); }

}  // namespace

EntryBytes EntryBytes::Package(const entry::EntryHeader& header,
                               absl::string_view payload,
                               entry::DigestType type, EntrySlab* slab,
                               int64_t pending) {
  EntryBytes e;
  e.size_ = entry::PackagedSize(payload.size(), type);
  char* d;
  grpc::Slice buffer;
  if (slab != nullptr) {
    d = slab->Reserve(e.size_, pending);
  } else {
    buffer = NewEntryBuffer(e.size_, &d);
  }
  std::memcpy(d + entry::kHeaderSize, payload.data(), payload.size());
  entry::PackageFrame(header, payload, type, d,
                      d + entry::kHeaderSize + payload.size());
  e.parts_.push_back(slab != nullptr ? slab->Finish(e.size_)
                                     : std::move(buffer));
  return e;
}

EntryBytes EntryBytes::Package(const entry::EntryHeader& header,
                               std::string&& payload, entry::DigestType type,
                               EntrySlab* slab, int64_t pending) {
  EntryBytes e;
  const size_t digest = entry::DigestSize(type);
  const size_t frame_size = entry::kHeaderSize + digest;
  e.size_ = entry::PackagedSize(payload.size(), type);
  char* frame;
  grpc::Slice frame_slice;
  if (slab != nullptr) {
    frame = slab->Reserve(frame_size, pending);
  } else {
    frame_slice = NewEntryBuffer(frame_size, &frame);
  }
  entry::PackageFrame(header, payload, type, frame, frame + entry::kHeaderSize);
  if (slab != nullptr) frame_slice = slab->Finish(frame_size);
  e.parts_.push_back(frame_slice.sub(0, entry::kHeaderSize));
  if (!payload.empty()) {
    auto* owned = new std::string(std::move(payload));
    e.parts_.push_back(
        grpc::Slice(owned->data(), owned->size(), &DeleteString, owned));
  }
  if (digest > 0) {
    e.parts_.push_back(
        frame_slice.sub(entry::kHeaderSize, entry::kHeaderSize + digest));
  }
  return e;
}

EntryBytes EntryBytes::Copy(absl::string_view packaged) {
  EntryBytes e;
  e.size_ = packaged.size();
  if (packaged.empty()) return e;
  char* d;
  e.parts_.push_back(NewEntryBuffer(packaged.size(), &d));
  std::memcpy(d, packaged.data(), packaged.size());
  return e;
}

EntryBytes EntryBytes::Adopt(std::string&& packaged) {
  EntryBytes e;
  e.size_ = packaged.size();
  if (packaged.empty()) return e;
  auto* owned = new std::string(std::move(packaged));
  e.parts_.push_back(
      grpc::Slice(owned->data(), owned->size(), &DeleteString, owned));
  return e;
}

std::string EntryBytes::ToString() const {
  std::string out;
  out.reserve(size_);
  for (const grpc::Slice& s : parts_) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

void AddBatchEncoder::Add(uint64_t ledger_id, int64_t entry_id,
                          absl::string_view master_key, uint32_t flags,
                          const EntryBytes& body) {
  // AddEntry's fields in number order; proto3 leaves out default values.
  const uint64_t entry = static_cast<uint64_t>(entry_id);
  size_t inner = 0;
  if (ledger_id != 0) inner += 1 + VarintSize(ledger_id);
  if (entry != 0) inner += 1 + VarintSize(entry);
  if (!master_key.empty()) {
    inner += 1 + VarintSize(master_key.size()) + master_key.size();
  }
  if (flags != 0) inner += 1 + VarintSize(flags);
  if (!body.empty()) inner += 1 + VarintSize(body.size()) + body.size();

  // The fixed fields go through a buffer on the stack, appended in one
  // piece: 4 keys and varints (<= 44 bytes) before the master key, 2 after
  // it (<= 17).
  char buf[64];
  char* p = buf;
  const size_t start = headers_.size();
  *p++ = Key(1, kLen);  // AddRequest.entries
  p = PutVarint(p, inner);
  if (ledger_id != 0) {
    *p++ = Key(1, kVarint);
    p = PutVarint(p, ledger_id);
  }
  if (entry != 0) {
    *p++ = Key(2, kVarint);
    p = PutVarint(p, entry);
  }
  if (!master_key.empty()) {
    *p++ = Key(3, kLen);
    p = PutVarint(p, master_key.size());
    headers_.append(buf, p - buf);
    headers_.append(master_key.data(), master_key.size());
    p = buf;
  }
  if (flags != 0) {
    *p++ = Key(4, kVarint);
    p = PutVarint(p, flags);
  }
  if (!body.empty()) {
    *p++ = Key(5, kLen);
    p = PutVarint(p, body.size());
  }
  headers_.append(buf, p - buf);
  bytes_ += headers_.size() - start + body.size();
  pieces_.push_back({headers_.size(), body});
}

grpc::ByteBuffer AddBatchEncoder::Finish() {
  std::vector<grpc::Slice> slices;
  slices.reserve(pieces_.size() * 4 + 1);
  if (!headers_.empty()) {
    const grpc::Slice all(headers_.data(), headers_.size());
    size_t begin = 0;
    for (const Piece& p : pieces_) {
      slices.push_back(all.sub(begin, p.header_end));
      begin = p.header_end;
      for (const grpc::Slice& s : p.body.slices()) slices.push_back(s);
    }
  }
  grpc::ByteBuffer buffer(slices.data(), slices.size());
  headers_.clear();
  pieces_.clear();
  bytes_ = 0;
  return buffer;
}

}  // namespace bk::client::internal
