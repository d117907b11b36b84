// GrpcServer: the bookie's gRPC listener with the service registered.
//
// gRPC's own receive limit is set well above the service's
// max_message_bytes, so an oversize add reaches the service and is refused
// with EBADREQ per entry instead of tearing the stream down; messages past
// the hard limit are refused by gRPC itself.

#ifndef BK_BOOKIE_SERVICE_GRPC_SERVER_H_
#define BK_BOOKIE_SERVICE_GRPC_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace bk::bookie {

struct GrpcServerOptions {
  std::string address = "0.0.0.0:3181";  // port 0 picks a free one
  std::shared_ptr<grpc::ServerCredentials> credentials;  // null: insecure
  size_t max_message_bytes = 5u << 20;  // the service's soft limit
};

class GrpcServer {
 public:
  // `service` must outlive the server. A port in use is an error naming
  // the address.
  static absl::StatusOr<std::unique_ptr<GrpcServer>> Start(
      grpc::Service* service, const GrpcServerOptions& options);

  ~GrpcServer();  // Shutdown(now)

  int port() const { return port_; }
  // Stops accepting calls, lets running ones finish until `deadline`, then
  // cancels the rest. Idempotent.
  void Shutdown(absl::Duration grace);

 private:
  GrpcServer() = default;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  bool shut_down_ = false;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_SERVICE_GRPC_SERVER_H_
