// EchoService: the Bookie gRPC service with the add stream's structure and
// no store behind it. AddEntries answers every entry EOK as soon as its
// batch is read (one read in flight, answers accumulated and written one
// write at a time, as the real service does); GetBookieInfo answers with
// every figure unknown (-1) and an idle load. Everything else is
// UNIMPLEMENTED. It is the RPC stack's ceiling for a given batching: the
// benchmarks run the same client against it and against real bookies.
//
// With a BatchSink, each batch is handed to it before it is answered (the
// sink's failure answers the batch BK_EIO): bench/bookie_add_bench's floor
// run puts the least storage work of an add there.
//
// Threads: gRPC's callback threads only. The service object (and its sink)
// must outlive the server that serves it.

#ifndef BK_BOOKIE_ECHO_ECHO_SERVICE_H_
#define BK_BOOKIE_ECHO_ECHO_SERVICE_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/bookie.grpc.pb.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace bk::bookie {

// What an echo does with each batch before answering it. Called on gRPC's
// threads, possibly for several streams at once.
class BatchSink {
 public:
  virtual ~BatchSink() = default;
  virtual absl::Status Take(const proto::AddRequest& request) = 0;
};

class EchoService final : public proto::Bookie::CallbackService {
 public:
  explicit EchoService(BatchSink* sink = nullptr) : sink_(sink) {}

  grpc::ServerBidiReactor<proto::AddRequest, proto::AddResponse>* AddEntries(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* GetBookieInfo(
      grpc::CallbackServerContext* context,
      const proto::GetBookieInfoRequest* request,
      proto::GetBookieInfoResponse* response) override;

 private:
  BatchSink* const sink_;  // not owned; may be null
};

// An echo server on 127.0.0.1 at a free port.
struct EchoServer {
  std::unique_ptr<EchoService> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  ~EchoServer();
};

// Starts one; kUnavailable if gRPC cannot bind. `sink` (not owned, may be
// null) must outlive the server.
absl::StatusOr<std::unique_ptr<EchoServer>> StartEchoServer(
    BatchSink* sink = nullptr);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_ECHO_ECHO_SERVICE_H_
