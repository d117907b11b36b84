#include "client/internal/add_wire.h"

#include <grpc/slice.h>

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

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// A new slice of `n` bytes the caller fills: one allocation (or none, when
// small enough to live inside the slice).
grpc::Slice NewSlice(size_t n, char** data) {
  grpc_slice s = grpc_slice_malloc(n);
  *data = reinterpret_cast<char*>(GRPC_SLICE_START_PTR(s));
  return grpc::Slice(s, grpc::Slice::STEAL_REF);
}

void DeleteString(void* p) { delete static_cast<std::string*>(p); }

}  // namespace

EntryBytes EntryBytes::Package(const entry::EntryHeader& header,
                               absl::string_view payload,
                               entry::DigestType type) {
  EntryBytes e;
  e.size_ = entry::PackagedSize(payload.size(), type);
  char* d;
  e.parts_.push_back(NewSlice(e.size_, &d));
  std::memcpy(d + entry::kHeaderSize, payload.data(), payload.size());
  entry::PackageFrame(header, payload, type, d,
                      d + entry::kHeaderSize + payload.size());
  return e;
}

EntryBytes EntryBytes::Package(const entry::EntryHeader& header,
                               std::string&& payload, entry::DigestType type) {
  EntryBytes e;
  const size_t digest = entry::DigestSize(type);
  e.size_ = entry::PackagedSize(payload.size(), type);
  char* frame;
  grpc::Slice frame_slice = NewSlice(entry::kHeaderSize + digest, &frame);
  entry::PackageFrame(header, payload, type, frame, frame + entry::kHeaderSize);
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
  e.parts_.push_back(NewSlice(packaged.size(), &d));
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

  const size_t start = headers_.size();
  headers_.push_back(Key(1, kLen));  // AddRequest.entries
  PutVarint(&headers_, inner);
  if (ledger_id != 0) {
    headers_.push_back(Key(1, kVarint));
    PutVarint(&headers_, ledger_id);
  }
  if (entry != 0) {
    headers_.push_back(Key(2, kVarint));
    PutVarint(&headers_, entry);
  }
  if (!master_key.empty()) {
    headers_.push_back(Key(3, kLen));
    PutVarint(&headers_, master_key.size());
    headers_.append(master_key.data(), master_key.size());
  }
  if (flags != 0) {
    headers_.push_back(Key(4, kVarint));
    PutVarint(&headers_, flags);
  }
  if (!body.empty()) {
    headers_.push_back(Key(5, kLen));
    PutVarint(&headers_, body.size());
  }
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
