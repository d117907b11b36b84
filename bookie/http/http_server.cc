#include "bookie/http/http_server.h"

#include <civetweb.h>

#include <cstring>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace bk::bookie {
namespace {

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

void Send(struct mg_connection* conn, const HttpResponse& r, bool head) {
  std::string extra;
  for (const auto& [name, value] : r.headers) {
    absl::StrAppend(&extra, name, ": ", value, "\r\n");
  }
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
            "%sCache-Control: no-store\r\nConnection: close\r\n\r\n",
            r.status, Reason(r.status), r.content_type.c_str(), r.body.size(),
            extra.c_str());
  if (!head) mg_write(conn, r.body.data(), r.body.size());
}

// Reads the body into *body; false when it is longer than `max`.
bool ReadBody(struct mg_connection* conn, long long content_length,
              uint64_t max, std::string* body) {
  if (content_length > 0 && static_cast<uint64_t>(content_length) > max) {
    return false;
  }
  char buf[8192];
  while (true) {
    int n = mg_read(conn, buf, sizeof(buf));
    if (n <= 0) return true;
    if (body->size() + static_cast<size_t>(n) > max) return false;
    body->append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const std::string& address, HttpRouter router, HttpServerOptions options) {
  static std::once_flag init;
  std::call_once(init, [] { mg_init_library(0); });

  std::unique_ptr<HttpServer> server(
      new HttpServer(std::move(router), options));
  const std::string threads = absl::StrCat(options.worker_threads);
  const char* mg_options[] = {"listening_ports",
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
  server->ctx_ = mg_start(&callbacks, nullptr, mg_options);
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
  // One catch-all handler: the router matches paths exactly.
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
  for (int i = 0; i < info->num_headers; ++i) {
    const auto& h = info->http_headers[i];
    if (h.name == nullptr) continue;
    req.headers[absl::AsciiStrToLower(h.name)] = h.value ? h.value : "";
  }
  const bool head = req.method == "HEAD";
  HttpResponse r;
  if (!ReadBody(conn, info->content_length, server->options_.max_body_bytes,
                &req.body)) {
    const HttpServerOptions& o = server->options_;
    r = JsonError(
        413, absl::StrCat("request body larger than ", o.max_body_bytes,
                          " bytes", o.max_body_key.empty() ? "" : " (",
                          o.max_body_key, o.max_body_key.empty() ? "" : ")"));
  } else {
    r = server->router_.Handle(req);
  }
  Send(conn, r, head);
  return r.status;
}

}  // namespace bk::bookie
