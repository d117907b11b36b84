#include "bookie/http/http_server.h"

#include <atomic>
#include <catch2/catch.hpp>

#include "test/support/http_get.h"

namespace bk::bookie {
namespace {

TEST_CASE("http server serves its routes and 404s others", "[bookie][http]") {
  std::atomic<int> calls{0};
  auto server = HttpServer::Start(
      "127.0.0.1:0",
      {{"/health",
        [&](const HttpRequest&) {
          ++calls;
          return HttpResponse{200, "text/plain", "ok\n"};
        }},
       {"/ready", [](const HttpRequest& r) {
          return HttpResponse{503, "text/plain", "not ready " + r.query};
        }}});
  REQUIRE(server.ok());
  const int port = (*server)->port();
  CHECK(port > 0);
  auto h = testing::HttpGet(port, "/health");
  CHECK(h.status == 200);
  CHECK(h.body == "ok\n");
  auto r = testing::HttpGet(port, "/ready?x=1");
  CHECK(r.status == 503);
  CHECK(r.body == "not ready x=1");
  CHECK(testing::HttpGet(port, "/nope").status == 404);
  CHECK(calls == 1);
}

TEST_CASE("http server survives garbage and keeps serving", "[bookie][http]") {
  auto server = HttpServer::Start(
      "127.0.0.1:0", {{"/health", [](const HttpRequest&) {
                         return HttpResponse{200, "text/plain", "ok"};
                       }}});
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
  auto first = HttpServer::Start("127.0.0.1:0", {});
  REQUIRE(first.ok());
  const std::string addr = "127.0.0.1:" + std::to_string((*first)->port());
  auto second = HttpServer::Start(addr, {});
  REQUIRE_FALSE(second.ok());
  CHECK(std::string(second.status().message()).find(addr) != std::string::npos);
}

}  // namespace
}  // namespace bk::bookie
