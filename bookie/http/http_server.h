// HttpServer: a small HTTP/1.1 server (civetweb underneath) for the bookie's
// operational endpoints: /metrics, /health, /ready.
//
// Routes are fixed at Start and never change, so handlers need no locking
// of the route table. Handlers run on the server's worker threads, possibly
// several at once: each must be thread-safe. Garbage on the port (not HTTP,
// truncated requests, huge headers) is answered or dropped by civetweb and
// never reaches a handler.
//
// Lifecycle: Start binds and serves; the destructor stops accepting, waits
// for running handlers, and frees the port.

#ifndef BK_BOOKIE_HTTP_HTTP_SERVER_H_
#define BK_BOOKIE_HTTP_HTTP_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

struct mg_context;
struct mg_connection;

namespace bk::bookie {

struct HttpRequest {
  std::string method;  // "GET", ...
  std::string path;    // "/ready"
  std::string query;   // after '?', undecoded; empty if none
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpServer {
 public:
  // Serves `routes` (exact paths) on `address` ("host:port"; port 0 picks a
  // free one). Unknown paths get 404. A port in use is an error naming it.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const std::string& address, std::map<std::string, HttpHandler> routes,
      int worker_threads = 4);

  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port (the real one when 0 was asked for).
  int port() const { return port_; }

 private:
  HttpServer() = default;
  static int Dispatch(::mg_connection* conn, void* self);

  // Constant after Start.
  std::map<std::string, HttpHandler> routes_;
  mg_context* ctx_ = nullptr;
  int port_ = 0;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_HTTP_HTTP_SERVER_H_
