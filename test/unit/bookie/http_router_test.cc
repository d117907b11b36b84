// The admin API's routing and authorisation, without a socket: which
// handler answers, 404/405 as JSON, and that no mutation reaches a handler
// unless the admin API is on and the bearer token matches.

#include "bookie/http/http_router.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "absl/strings/match.h"
#include "test/support/temp_dir.h"

namespace bk::bookie {
namespace {

HttpRequest Req(std::string method, std::string path, std::string auth = "",
                std::string body = "") {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  if (!auth.empty()) r.headers["authorization"] = std::move(auth);
  r.body = std::move(body);
  return r;
}

// A router with GET and PUT on /state; counts the PUTs that got through.
HttpRouter StateRouter(AdminAuth auth, int* puts) {
  HttpRouter router(std::move(auth));
  REQUIRE(router
              .Add({"GET", "/state",
                    [](const HttpRequest&) {
                      return JsonResponse({{"readOnly", false}});
                    }})
              .ok());
  REQUIRE(router
              .Add({"PUT", "/state",
                    [puts](const HttpRequest&) {
                      ++*puts;
                      return JsonResponse({{"done", true}});
                    }})
              .ok());
  return router;
}

TEST_CASE("router answers unknown paths 404 and wrong methods 405, as JSON",
          "[bookie][http]") {
  int puts = 0;
  HttpRouter router = StateRouter(AdminAuth(), &puts);
  HttpResponse missing = router.Handle(Req("GET", "/nope"));
  CHECK(missing.status == 404);
  CHECK(missing.content_type == "application/json");
  CHECK(nlohmann::json::parse(missing.body)["error"] == "no such path: /nope");

  HttpResponse post = router.Handle(Req("POST", "/state"));
  CHECK(post.status == 405);
  CHECK(absl::StrContains(post.body, "GET, PUT"));
  REQUIRE(post.headers.size() == 1);
  CHECK(post.headers[0].first == "Allow");

  CHECK(router.Handle(Req("GET", "/state")).status == 200);
  CHECK(router.Handle(Req("HEAD", "/state")).status == 200);
}

TEST_CASE(
    "router serves a path written with a trailing slash as BookKeeper's "
    "documentation writes them",
    "[bookie][http]") {
  int puts = 0;
  HttpRouter router = StateRouter(AdminAuth(), &puts);
  CHECK(router.Handle(Req("GET", "/state/")).status == 200);
  CHECK(router.Handle(Req("GET", "/state//")).status == 404);
  CHECK(router.Handle(Req("GET", "/")).status == 404);
  // The admin check still applies to the slashed form.
  CHECK(router.Handle(Req("PUT", "/state/", "Bearer x")).status == 403);
  CHECK(puts == 0);
}

TEST_CASE("router refuses bad routes and duplicates", "[bookie][http]") {
  HttpRouter router;
  auto h = [](const HttpRequest&) { return HttpResponse{}; };
  CHECK(absl::IsInvalidArgument(router.Add({"PATCH", "/a", h})));
  CHECK(absl::IsInvalidArgument(router.Add({"GET", "a", h})));
  CHECK(absl::IsInvalidArgument(router.Add({"GET", "/a", nullptr})));
  CHECK(router.Add({"GET", "/a", h}).ok());
  CHECK(absl::IsAlreadyExists(router.Add({"GET", "/a", h})));
}

TEST_CASE("with the admin API off every mutation is 403 naming the key",
          "[bookie][http]") {
  int puts = 0;
  HttpRouter router = StateRouter(AdminAuth(), &puts);
  HttpResponse r = router.Handle(Req("PUT", "/state", "Bearer anything"));
  CHECK(r.status == 403);
  CHECK(absl::StrContains(r.body, "httpServerAdminEnabled=true"));
  CHECK(puts == 0);
  CHECK(router.Handle(Req("GET", "/state")).status == 200);
}

TEST_CASE("with the admin API on a mutation needs the exact bearer token",
          "[bookie][http]") {
  int puts = 0;
  HttpRouter router =
      StateRouter(AdminAuth(AdminAuthOptions{true, "s3cret-token"}), &puts);
  for (const char* bad :
       {"", "Bearer", "Bearer ", "Bearer s3cret", "Bearer s3cret-token2",
        "Bearer S3CRET-TOKEN", "Basic s3cret-token", "s3cret-token"}) {
    INFO("Authorization: '" << bad << "'");
    HttpResponse r = router.Handle(Req("PUT", "/state", bad));
    CHECK(r.status == 401);
    CHECK(nlohmann::json::parse(r.body).contains("error"));
    REQUIRE(!r.headers.empty());
    CHECK(r.headers[0].first == "WWW-Authenticate");
  }
  CHECK(puts == 0);
  CHECK(router.Handle(Req("PUT", "/state", "Bearer s3cret-token")).status ==
        200);
  CHECK(router.Handle(Req("PUT", "/state", "bearer s3cret-token ")).status ==
        200);
  CHECK(puts == 2);
  // Reads stay open without a token.
  CHECK(router.Handle(Req("GET", "/state")).status == 200);
}

TEST_CASE("constant-time compare agrees with ==", "[bookie][http]") {
  CHECK(ConstantTimeEquals("", ""));
  CHECK(ConstantTimeEquals("abc", "abc"));
  CHECK_FALSE(ConstantTimeEquals("abc", "abd"));
  CHECK_FALSE(ConstantTimeEquals("abc", "ab"));
  CHECK_FALSE(ConstantTimeEquals("", "a"));
  CHECK_FALSE(ConstantTimeEquals(std::string("a\0", 2), "a"));
}

std::string WriteFile(const std::string& path, const std::string& text,
                      mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
  return path;
}

TEST_CASE("the admin token file must exist, be private and hold a token",
          "[bookie][http]") {
  testing::TempDir dir;
  auto good = LoadAdminToken(
      WriteFile(dir.path() + "/good", "  tok-1 \nignored\n", 0600));
  REQUIRE(good.ok());
  CHECK(*good == "tok-1");
  CHECK(LoadAdminToken(WriteFile(dir.path() + "/ro", "tok", 0400)).ok());

  auto open = LoadAdminToken(WriteFile(dir.path() + "/open", "tok", 0644));
  CHECK(absl::IsFailedPrecondition(open.status()));
  CHECK(absl::StrContains(open.status().message(), "0644"));
  CHECK(absl::StrContains(open.status().message(), "chmod 600"));

  auto empty = LoadAdminToken(WriteFile(dir.path() + "/empty", "\n", 0600));
  CHECK(absl::IsInvalidArgument(empty.status()));
  auto missing = LoadAdminToken(dir.path() + "/missing");
  CHECK(absl::IsNotFound(missing.status()));
  CHECK(absl::StrContains(missing.status().message(),
                          "httpServerAdminTokenFile"));
  CHECK(absl::IsInvalidArgument(LoadAdminToken("").status()));
  CHECK(absl::IsFailedPrecondition(LoadAdminToken(dir.path()).status()));
}

TEST_CASE("query and body parsing refuse malformed input with a reason",
          "[bookie][http]") {
  auto q = ParseQuery("type=rw&print_hostnames=true&name=a%20b+c");
  REQUIRE(q.ok());
  CHECK(q->at("type") == "rw");
  CHECK(q->at("name") == "a b c");
  CHECK(absl::IsInvalidArgument(ParseQuery("a=%zz").status()));
  CHECK(absl::IsInvalidArgument(ParseQuery("a=%2").status()));
  CHECK(absl::IsInvalidArgument(ParseQuery("a=1&a=2").status()));
  CHECK(absl::IsInvalidArgument(ParseQuery("=1").status()));
  CHECK(*QueryBool(*q, "print_hostnames", false));
  CHECK_FALSE(*QueryBool(*q, "absent", false));
  CHECK(absl::IsInvalidArgument(QueryBool(*q, "type", false).status()));

  auto empty = ParseJsonObjectBody(Req("PUT", "/x", "", " \n"));
  REQUIRE(empty.ok());
  CHECK(empty->empty());
  CHECK((*ParseJsonObjectBody(
            Req("PUT", "/x", "", "{\"readOnly\":true}")))["readOnly"] == true);
  CHECK(absl::IsInvalidArgument(
      ParseJsonObjectBody(Req("PUT", "/x", "", "{readOnly")).status()));
  auto array = ParseJsonObjectBody(Req("PUT", "/x", "", "[1]"));
  CHECK(absl::IsInvalidArgument(array.status()));
  CHECK(absl::StrContains(array.status().message(), "array"));
}

}  // namespace
}  // namespace bk::bookie
