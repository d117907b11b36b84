#include "bookie/http/http_server.h"

#include <civetweb.h>

#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace bk::bookie {
namespace {

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

void Send(struct mg_connection* conn, const HttpResponse& r) {
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
            r.status, Reason(r.status), r.content_type.c_str(), r.body.size());
  mg_write(conn, r.body.data(), r.body.size());
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const std::string& address, std::map<std::string, HttpHandler> routes,
    int worker_threads) {
  static std::once_flag init;
  std::call_once(init, [] { mg_init_library(0); });

  std::unique_ptr<HttpServer> server(new HttpServer());
  server->routes_ = std::move(routes);
  const std::string threads = absl::StrCat(worker_threads);
  const char* options[] = {"listening_ports",
                           address.c_str(),
                           "num_threads",
                           threads.c_str(),
                           "request_timeout_ms",
                           "10000",
                           "enable_keep_alive",
                           "no",
                           nullptr};
  struct mg_callbacks callbacks;
  std::memset(&callbacks, 0, sizeof(callbacks));
  // Keep civetweb from printing to stderr; errors come back from mg_start.
  callbacks.log_message = [](const struct mg_connection*, const char*) {
    return 1;
  };
  server->ctx_ = mg_start(&callbacks, nullptr, options);
  if (server->ctx_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve HTTP on ", address,
                     ": the address is in use or not valid (httpServerPort)"));
  }
  struct mg_server_port ports[4];
  int n = mg_get_server_ports(server->ctx_, 4, ports);
  if (n < 1) {
    return absl::InternalError("HTTP server started without a port");
  }
  server->port_ = ports[0].port;
  // One catch-all handler: routes are matched exactly in Dispatch.
  mg_set_request_handler(server->ctx_, "/", &HttpServer::Dispatch,
                         server.get());
  return server;
}

HttpServer::~HttpServer() {
  if (ctx_ != nullptr) mg_stop(ctx_);
}

int HttpServer::Dispatch(struct mg_connection* conn, void* self) {
  auto* server = static_cast<HttpServer*>(self);
  const struct mg_request_info* info = mg_get_request_info(conn);
  HttpRequest req;
  req.method = info->request_method ? info->request_method : "";
  req.path = info->local_uri ? info->local_uri : "";
  req.query = info->query_string ? info->query_string : "";
  auto it = server->routes_.find(req.path);
  if (it == server->routes_.end()) {
    Send(conn, HttpResponse{404, "text/plain; charset=utf-8",
                            absl::StrCat("no such path: ", req.path, "\n")});
    return 200;
  }
  if (req.method != "GET" && req.method != "HEAD") {
    Send(conn, HttpResponse{405, "text/plain; charset=utf-8",
                            "only GET is served\n"});
    return 405;
  }
  HttpResponse r = it->second(req);
  Send(conn, r);
  return r.status;
}

}  // namespace bk::bookie
