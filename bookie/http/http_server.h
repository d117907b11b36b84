// HttpServer: a small HTTP/1.1 server (civetweb underneath) for the bookie's
// operational endpoints (/metrics, /health, /ready) and its admin API
// (/api/v1/..., /heartbeat). Which handler answers, and who may mutate,
// is the HttpRouter's business (http_router.h); this class only moves
// bytes: it reads the request line, headers and body (refusing a body over
// max_body_bytes with 413 before reading it) and writes the answer.
//
// The router is fixed at Start and never changes, so handlers need no
// locking of the route table. Handlers run on the server's worker threads,
// possibly several at once: each must be thread-safe. Garbage on the port
// (not HTTP, truncated requests, huge headers) is answered or dropped by
// civetweb and never reaches a handler.
//
// Lifecycle: Start binds and serves; the destructor stops accepting, waits
// for running handlers, and frees the port.

#ifndef BK_BOOKIE_HTTP_HTTP_SERVER_H_
#define BK_BOOKIE_HTTP_HTTP_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "bookie/http/http_message.h"
#include "bookie/http/http_router.h"

struct mg_context;
struct mg_connection;

namespace bk::bookie {

struct HttpServerOptions {
  int worker_threads = 4;
  // Largest request body read; a longer one is answered 413 unread.
  uint64_t max_body_bytes = 1 << 20;
  // The setting the 413 answer names, so the client learns what to change
  // (the daemon's key); "" names none.
  std::string max_body_key;
};

class HttpServer {
 public:
  // Serves `router` on `address` ("host:port"; port 0 picks a free one). A
  // port in use is an error naming it.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const std::string& address, HttpRouter router,
      HttpServerOptions options = {});

  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port (the real one when 0 was asked for).
  int port() const { return port_; }

 private:
  HttpServer(HttpRouter router, HttpServerOptions options)
      : router_(std::move(router)), options_(options) {}
  static int Dispatch(::mg_connection* conn, void* self);

  // Constant after Start.
  const HttpRouter router_;
  const HttpServerOptions options_;
  mg_context* ctx_ = nullptr;
  int port_ = 0;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_HTTP_HTTP_SERVER_H_
