// EchoService: the Bookie gRPC service with the add stream's structure and
// no store behind it. AddEntries answers every entry EOK as soon as its
// batch is read (one read in flight, answers accumulated and written one
// write at a time, as the real service does); GetBookieInfo answers with
// every figure unknown (-1) and an idle load. Everything else is
// UNIMPLEMENTED. It is the RPC stack's ceiling for a given batching: the
// benchmarks run the same client against it and against real bookies.
//
// Threads: gRPC's callback threads only. The service object must outlive
// the server that serves it.

#ifndef BK_BOOKIE_ECHO_ECHO_SERVICE_H_
#define BK_BOOKIE_ECHO_ECHO_SERVICE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "proto/bookie.grpc.pb.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace bk::bookie {

class EchoService final : public proto::Bookie::CallbackService {
 public:
  grpc::ServerBidiReactor<proto::AddRequest, proto::AddResponse>* AddEntries(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* GetBookieInfo(
      grpc::CallbackServerContext* context,
      const proto::GetBookieInfoRequest* request,
      proto::GetBookieInfoResponse* response) override;
};

// An echo server on 127.0.0.1 at a free port.
struct EchoServer {
  std::unique_ptr<EchoService> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  ~EchoServer();
};

// Starts one; kUnavailable if gRPC cannot bind.
absl::StatusOr<std::unique_ptr<EchoServer>> StartEchoServer();

}  // namespace bk::bookie

#endif  // BK_BOOKIE_ECHO_ECHO_SERVICE_H_
