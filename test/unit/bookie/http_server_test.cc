#include "bookie/http/http_server.h"

#include <atomic>
#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "test/support/http_get.h"

namespace bk::bookie {
namespace {

HttpRouter Routes(std::vector<HttpRoute> routes, AdminAuth auth = {}) {
  HttpRouter router(std::move(auth));
  for (auto& r : routes) REQUIRE(router.Add(std::move(r)).ok());
  return router;
}

TEST_CASE("http server serves its routes and 404s others", "[bookie][http]") {
  std::atomic<int> calls{0};
  auto server = HttpServer::Start(
      "127.0.0.1:0",
      Routes({{"GET", "/health",
               [&](const HttpRequest&) {
                 ++calls;
                 return HttpResponse{200, "text/plain", "ok\n"};
               }},
              {"GET", "/ready", [](const HttpRequest& r) {
                 return HttpResponse{503, "text/plain", "not ready " + r.query};
               }}}));
  REQUIRE(server.ok());
  const int port = (*server)->port();
  CHECK(port > 0);
  auto h = testing::HttpGet(port, "/health");
  CHECK(h.status == 200);
  CHECK(h.body == "ok\n");
  auto r = testing::HttpGet(port, "/ready?x=1");
  CHECK(r.status == 503);
  CHECK(r.body == "not ready x=1");
  auto missing = testing::HttpGet(port, "/nope");
  CHECK(missing.status == 404);
  CHECK(absl::StrContains(missing.head, "application/json"));
  CHECK(absl::StrContains(missing.body, "\"error\""));
  CHECK(calls == 1);
}

TEST_CASE(
    "http server hands handlers the method, headers and body, and answers "
    "a wrong method with 405",
    "[bookie][http]") {
  auto server = HttpServer::Start(
      "127.0.0.1:0",
      Routes({{"PUT", "/echo",
               [](const HttpRequest& r) {
                 return HttpResponse{
                     200, "text/plain",
                     r.method + "|" + r.Header("x-thing") + "|" + r.body};
               }}},
             AdminAuth(AdminAuthOptions{true, "tok"})));
  REQUIRE(server.ok());
  const int port = (*server)->port();
  auto put = testing::HttpCall(
      port, "PUT", "/echo", {{"Authorization", "Bearer tok"}, {"X-Thing", "7"}},
      "{\"a\":1}");
  CHECK(put.status == 200);
  CHECK(put.body == "PUT|7|{\"a\":1}");
  auto get = testing::HttpGet(port, "/echo");
  CHECK(get.status == 405);
  CHECK(absl::StrContains(get.head, "Allow: PUT"));
}

TEST_CASE("http server refuses a body over its cap with 413, unread",
          "[bookie][http]") {
  HttpServerOptions o;
  o.max_body_bytes = 16;
  auto server = HttpServer::Start(
      "127.0.0.1:0",
      Routes({{"PUT", "/x",
               [](const HttpRequest& r) {
                 return HttpResponse{200, "text/plain", r.body};
               }}},
             AdminAuth(AdminAuthOptions{true, "tok"})),
      o);
  REQUIRE(server.ok());
  const int port = (*server)->port();
  const std::map<std::string, std::string> auth = {
      {"Authorization", "Bearer tok"}};
  CHECK(
      testing::HttpCall(port, "PUT", "/x", auth, std::string(16, 'a')).status ==
      200);
  auto big = testing::HttpCall(port, "PUT", "/x", auth, std::string(17, 'a'));
  CHECK(big.status == 413);
  CHECK(absl::StrContains(big.body, "16 bytes"));
}

TEST_CASE("http server survives garbage and keeps serving", "[bookie][http]") {
  auto server = HttpServer::Start(
      "127.0.0.1:0", Routes({{"GET", "/health", [](const HttpRequest&) {
                                return HttpResponse{200, "text/plain", "ok"};
                              }}}));
  REQUIRE(server.ok());
  const int port = (*server)->port();
  testing::SendRaw(port, std::string("\x00\x01\x02garbage\r\n\r\n", 14), 2000);
  testing::SendRaw(port, "GET /health HTTP/1.1\r\nHost: x\r\n", 500);  // cut
  testing::SendRaw(port, "POST /health HTTP/1.1\r\nContent-Length: 5\r\n\r\nab",
                   500);
  std::string huge_header =
      "GET /health HTTP/1.1\r\nX: " + std::string(100000, 'a') + "\r\n\r\n";
  testing::SendRaw(port, huge_header, 2000);
  CHECK(testing::HttpGet(port, "/health").status == 200);
}

TEST_CASE("http server refuses a port that is in use, naming it",
          "[bookie][http]") {
  auto first = HttpServer::Start("127.0.0.1:0", HttpRouter());
  REQUIRE(first.ok());
  const std::string addr = "127.0.0.1:" + std::to_string((*first)->port());
  auto second = HttpServer::Start(addr, HttpRouter());
  REQUIRE_FALSE(second.ok());
  CHECK(std::string(second.status().message()).find(addr) != std::string::npos);
}

}  // namespace
}  // namespace bk::bookie
