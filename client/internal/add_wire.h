// The add path's bytes on the wire, built without a protobuf message.
//
// EntryBytes is a packaged entry (proto/entry_format.h) held as gRPC slices:
// refcounted buffers that every replica's request, a resend after an
// ensemble change and gRPC's own send queue share; copying an EntryBytes
// takes references, never the bytes. A payload appended as a string the
// caller hands over is one of the slices as it is (never copied in user
// space); a payload appended as a view is copied once, into one buffer with
// the header and digest.
//
// AddBatchEncoder writes an AddRequest (proto/bookie.proto) in protobuf's
// wire format, field by field as SerializeAsString would: per entry a few
// bytes (ledger, entry id, master key, flags, the body's length) copied
// into one buffer per batch, then the body's slices by reference. The
// bookie parses it as the AddRequest it is.

#ifndef BK_CLIENT_INTERNAL_ADD_WIRE_H_
#define BK_CLIENT_INTERNAL_ADD_WIRE_H_

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "client/internal/entry_slab.h"
#include "proto/entry_format.h"

namespace bk::client::internal {

class EntryBytes {
 public:
  EntryBytes() = default;

  // Packages `payload` into one new buffer (one copy). With a slab, the
  // buffer is carved from it (entry_slab.h; `pending`: the writer's bytes
  // in flight).
  static EntryBytes Package(const entry::EntryHeader& header,
                            absl::string_view payload, entry::DigestType type,
                            EntrySlab* slab = nullptr, int64_t pending = 0);
  // Packages `payload` without copying it: header and digest in a small
  // buffer of their own (from the slab, if given), the payload's bytes
  // owned by the result.
  static EntryBytes Package(const entry::EntryHeader& header,
                            std::string&& payload, entry::DigestType type,
                            EntrySlab* slab = nullptr, int64_t pending = 0);
  // An already packaged entry (one copy), e.g. one read back for recovery.
  static EntryBytes Copy(absl::string_view packaged);
  // An already packaged entry handed over: its bytes become one slice as
  // they are, never copied (re-replication's entries, read and re-sent).
  static EntryBytes Adopt(std::string&& packaged);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const absl::InlinedVector<grpc::Slice, 3>& slices() const { return parts_; }
  // The bytes, contiguous (copies when held in several slices).
  std::string ToString() const;

 private:
  absl::InlinedVector<grpc::Slice, 3> parts_;
  size_t size_ = 0;
};

class AddBatchEncoder {
 public:
  // Appends one AddEntry to the batch.
  void Add(uint64_t ledger_id, int64_t entry_id, absl::string_view master_key,
           uint32_t flags, const EntryBytes& body);

  size_t entries() const { return pieces_.size(); }
  // Bytes on the wire so far.
  size_t bytes() const { return bytes_; }

  // The batch as one message's bytes; the encoder is empty afterwards.
  grpc::ByteBuffer Finish();

 private:
  struct Piece {
    size_t header_end;  // in headers_; the header starts where the last ended
    EntryBytes body;
  };
  std::string headers_;
  std::vector<Piece> pieces_;
  size_t bytes_ = 0;
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_ADD_WIRE_H_
