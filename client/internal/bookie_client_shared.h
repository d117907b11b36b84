// What BookieClient's two source files share (bookie_client.cc: the
// connection and its add stream; bookie_client_reads.cc: the unary calls and
// the ReadEntries stream): the channel and stubs, and deadlines. Private to
// those two files.

#ifndef BK_CLIENT_INTERNAL_BOOKIE_CLIENT_SHARED_H_
#define BK_CLIENT_INTERNAL_BOOKIE_CLIENT_SHARED_H_

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>

#include "absl/time/time.h"
#include "client/internal/bookie_client.h"
#include "proto/bookie.grpc.pb.h"

namespace bk::client::internal {

// The add stream's requests are written by AddBatchEncoder (add_wire.h) as
// bytes, so its stub is a generic one: requests as ByteBuffers, answers
// parsed as the AddResponse messages they are.
using AddStub =
    grpc::TemplatedGenericStub<grpc::ByteBuffer, proto::AddResponse>;

struct BookieClient::Shared {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<proto::Bookie::Stub> stub;
  std::unique_ptr<AddStub> add_stub;
};

// A gRPC deadline `timeout` from now.
inline std::chrono::system_clock::time_point DeadlineIn(
    absl::Duration timeout) {
  return std::chrono::system_clock::now() + absl::ToChronoMilliseconds(timeout);
}

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_BOOKIE_CLIENT_SHARED_H_
