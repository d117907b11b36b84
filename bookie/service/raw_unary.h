// RawUnaryCall: a unary method registered raw (bytes both ways;
// bookie_service.h), with its typed request and answer owned here.
//
// Why: registered typed, a request that did not parse was answered by
// gRPC 1.51's own unary handler (server_callback_handlers.h) with
// UNIMPLEMENTED and an empty message, without calling ours: the status
// that says the bookie has no such method. Raw, the handler parses the
// request itself (Parse: INVALID_ARGUMENT naming the message), fills
// `response`, and Reply serializes it into gRPC's buffer and finishes the
// call. The streaming methods do the same (raw_stream.h).
//
// Lifecycle: made by the handler (new), which returns it to gRPC; Reply
// (or Finish with an error) is called once, from any thread; gRPC then
// calls OnDone, which deletes it. A subclass that overrides OnDone deletes
// itself there too.

#ifndef BK_BOOKIE_SERVICE_RAW_UNARY_H_
#define BK_BOOKIE_SERVICE_RAW_UNARY_H_

#include <grpcpp/grpcpp.h>

#include <utility>

#include "bookie/service/raw_stream.h"

namespace bk::bookie {

template <typename Request, typename Response>
class RawUnaryCall : public grpc::ServerUnaryReactor {
 public:
  // `out` is gRPC's response buffer for this call.
  explicit RawUnaryCall(grpc::ByteBuffer* out) : out_(out) {}

  // Parses `bytes` into `request`. False: the call is already finished
  // with INVALID_ARGUMENT naming `what`; the caller returns it at once.
  bool Parse(const grpc::ByteBuffer& bytes, const char* what) {
    grpc::Status s = ParseRawRequest(bytes, what, &request);
    if (s.ok()) return true;
    Finish(s);
    return false;
  }

  // Finishes the call OK with `response` as its answer.
  void Reply() {
    out_->Clear();  // the serializer wants an empty buffer
    bool own_buffer = false;
    grpc::Status s = grpc::SerializationTraits<Response>::Serialize(
        response, out_, &own_buffer);
    Finish(s);  // not OK only if the answer does not serialize
  }

  void OnDone() override { delete this; }

  Request request;
  Response response;

 private:
  grpc::ByteBuffer* const out_;
};

// A unary call that ends at once with `status` and no answer: a request
// that did not parse before the handler knew which kind of call to make.
class FinishedUnary final : public grpc::ServerUnaryReactor {
 public:
  explicit FinishedUnary(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_SERVICE_RAW_UNARY_H_
