// Helpers for the server-streaming methods registered raw (bytes both
// ways; bookie_service.h): ReadEntries and TailEntries parse their request
// and serialize their answers themselves, so that a request that does not
// parse is answered INVALID_ARGUMENT. Registered typed, gRPC's own handler
// answered such a request UNIMPLEMENTED without calling ours: the status
// that says the bookie has no such method, so a client may stop asking.
// (Ours treats every failed stream alike: what the stream did not deliver
// is read entry by entry, or by long polls for a tail.)

#ifndef BK_BOOKIE_SERVICE_RAW_STREAM_H_
#define BK_BOOKIE_SERVICE_RAW_STREAM_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <utility>

namespace bk::bookie {

// Parses `request` into `*out`; INVALID_ARGUMENT naming `what` when the
// bytes are not one.
template <typename Message>
grpc::Status ParseRawRequest(const grpc::ByteBuffer& request, const char* what,
                             Message* out) {
  grpc::ByteBuffer bytes(request);  // shares the slices; parsing takes them
  grpc::Status s = grpc::SerializationTraits<Message>::Deserialize(&bytes, out);
  if (s.ok()) return s;
  return grpc::Status(
      grpc::StatusCode::INVALID_ARGUMENT,
      std::string("undecodable ") + what + " message: " + s.error_message());
}

// A server-streaming reactor whose answers are `Message`s serialized here,
// one write in flight at a time (as gRPC allows).
template <typename Message>
class SerializingWriteReactor
    : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 protected:
  // Serializes `m` and starts its write; the previous write must be done.
  // A message that does not serialize ends the stream with the error
  // (no write is then in flight; OnDone follows).
  void WriteMessage(const Message& m) {
    out_.Clear();  // the serializer wants an empty buffer
    bool own_buffer = false;
    grpc::Status s =
        grpc::SerializationTraits<Message>::Serialize(m, &out_, &own_buffer);
    if (!s.ok()) {
      Finish(s);
      return;
    }
    StartWrite(&out_);
  }

 private:
  grpc::ByteBuffer out_;  // the write in flight
};

// A stream that ends at once with `status` and no message: a request that
// did not parse, or a method switched off.
class FinishedStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  explicit FinishedStream(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_SERVICE_RAW_STREAM_H_
