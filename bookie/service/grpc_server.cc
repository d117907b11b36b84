#include "bookie/service/grpc_server.h"

#include <chrono>

#include "absl/strings/str_cat.h"

namespace bk::bookie {

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(
    grpc::Service* service, const GrpcServerOptions& options) {
  std::unique_ptr<GrpcServer> s(new GrpcServer());
  grpc::ServerBuilder builder;
  auto creds = options.credentials ? options.credentials
                                   : grpc::InsecureServerCredentials();
  builder.AddListeningPort(options.address, creds, &s->port_);
  builder.RegisterService(service);
  // Hard limit: a little above the service's own, so oversize adds get
  // EBADREQ from the service and the stream lives on.
  const size_t hard = options.max_message_bytes * 2 + (1u << 20);
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(std::min<size_t>(hard, static_cast<size_t>(INT32_MAX))));
  builder.SetMaxSendMessageSize(
      static_cast<int>(std::min<size_t>(hard, static_cast<size_t>(INT32_MAX))));
  // Keep idle client connections alive through NATs, but bounded.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
  builder.AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  s->server_ = builder.BuildAndStart();
  if (s->server_ == nullptr || s->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve gRPC on ", options.address,
                     ": the address is in use or not valid (bookiePort)"));
  }
  return s;
}

GrpcServer::~GrpcServer() { Shutdown(absl::ZeroDuration()); }

void GrpcServer::Shutdown(absl::Duration grace) {
  if (shut_down_ || server_ == nullptr) return;
  shut_down_ = true;
  server_->Shutdown(std::chrono::system_clock::now() +
                    absl::ToChronoMilliseconds(grace));
  server_->Wait();
}

}  // namespace bk::bookie
