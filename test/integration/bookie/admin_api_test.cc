// The admin HTTP API of a real bookie process on a real ZooKeeper: every
// endpoint answers, reads are open, and writes are refused unless the admin
// API is on and the bearer token matches (403 off, 401 without or with a
// wrong token); with the token, PUT state/readonly turns the bookie
// read-only (adds refused, registration moved) and back, and PUT gc runs a
// GC pass.

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

using bk::testing::HttpCall;
using bk::testing::HttpGet;
using nlohmann::json;

constexpr char kToken[] = "admin-token-0123456789";

std::string TokenFile(const TempDir& dir, mode_t mode) {
  const std::string path = dir.Sub("admin.token");
  std::ofstream(path) << kToken << "\n";
  ::chmod(path.c_str(), mode);
  return path;
}

TEST_CASE(
    "every admin endpoint answers a real bookie, with the admin API off, "
    "reads are open and writes are 403",
    "[integration][bookie][http]") {
  TempDir dir;
  const std::string uri = FreshZkUri("admin-off");
  const std::string id = "bk-admin-off";
  auto b = StartBookie(BookieOptions(dir, id, uri));
  auto stub = Connect(b->grpc_target());
  for (int64_t e = 0; e < 3; ++e)
    REQUIRE(AddOne(stub.get(), MakeAdd(7, e)) == proto::BK_EOK);
  const int port = b->http_port();

  auto hb = HttpGet(port, "/heartbeat");
  CHECK(hb.status == 200);
  CHECK(hb.body == "OK\n");
  CHECK(HttpGet(port, "/api/v1/bookie/is_ready").status == 200);

  auto state = BodyJson(HttpGet(port, "/api/v1/bookie/state"));
  CHECK(state["running"] == true);
  CHECK(state["readOnly"] == false);
  CHECK(state["shuttingDown"] == false);

  auto info = BodyJson(HttpGet(port, "/api/v1/bookie/info"));
  CHECK(info["totalSpace"].get<int64_t>() > 0);
  CHECK(info["freeSpace"].get<int64_t>() > 0);
  CHECK(info["load"].contains("journalIoUtil"));
  CHECK(info["load"].contains("writeBytesPerSecond"));
  CHECK(info["dirs"].size() >= 2);

  auto all = BodyJson(HttpGet(port, "/api/v1/bookie/list_bookies"));
  CHECK(all.contains(id));
  auto rw = BodyJson(HttpGet(
      port, "/api/v1/bookie/list_bookies?type=rw&print_hostnames=true"));
  REQUIRE(rw.contains(id));
  CHECK(rw[id].is_string());
  CHECK(BodyJson(HttpGet(port, "/api/v1/bookie/list_bookies?type=ro")).empty());
  CHECK(HttpGet(port, "/api/v1/bookie/list_bookies?type=xx").status == 400);
  CHECK(HttpGet(port, "/api/v1/bookie/list_bookies?print_hostnames=maybe")
            .status == 400);

  auto mark = BodyJson(HttpGet(port, "/api/v1/bookie/last_log_mark"));
  REQUIRE(mark.contains(b->journal_dir()));
  CHECK(mark[b->journal_dir()].contains("logFileId"));
  CHECK(mark[b->journal_dir()].contains("logFileOffset"));

  auto files = BodyJson(HttpGet(port, "/api/v1/bookie/list_disk_file"));
  CHECK_FALSE(files["journal files"].empty());
  CHECK(files.contains("entrylog files"));
  CHECK_FALSE(files["index files"].empty());
  auto journal_only = BodyJson(
      HttpGet(port, "/api/v1/bookie/list_disk_file?file_type=journal"));
  CHECK(journal_only.size() == 1);
  CHECK(HttpGet(port, "/api/v1/bookie/list_disk_file?file_type=x").status ==
        400);

  CHECK(BodyJson(HttpGet(port, "/api/v1/bookie/gc"))["is_in_force_gc"] ==
        "false");
  auto details = BodyJson(HttpGet(port, "/api/v1/bookie/gc_details"));
  REQUIRE(details.is_array());
  CHECK(details[0].contains("majorCompactionCounter"));

  auto config = BodyJson(HttpGet(port, "/api/v1/config/server_config"));
  CHECK(config["bookieId"] == id);
  CHECK(config["metadataServiceUri"] == uri);
  CHECK(config["httpServerAdminEnabled"] == "false");

  // Writes: refused, naming the key to set; nothing changed.
  for (const char* path :
       {"/api/v1/bookie/state/readonly", "/api/v1/bookie/gc"}) {
    auto put =
        HttpCall(port, "PUT", path, Bearer(kToken), "{\"readOnly\":true}");
    INFO(path << ": " << put.body);
    CHECK(put.status == 403);
    CHECK(absl::StrContains(put.body, "httpServerAdminEnabled=true"));
  }
  CHECK(AddOne(stub.get(), MakeAdd(7, 3)) == proto::BK_EOK);

  // Unknown paths and wrong methods: JSON 4xx.
  auto missing = HttpGet(port, "/api/v1/bookie/nothing");
  CHECK(missing.status == 404);
  CHECK(BodyJson(missing).contains("error"));
  auto wrong = HttpCall(port, "POST", "/api/v1/bookie/state");
  CHECK(wrong.status == 405);
  CHECK(BodyJson(wrong).contains("error"));
  CHECK(HttpCall(port, "DELETE", "/metrics").status == 405);
  // The operational endpoints stay as they were.
  CHECK(HttpGet(port, "/metrics").status == 200);
  CHECK(HttpGet(port, "/health").status == 200);
  CHECK(HttpGet(port, "/ready").status == 200);
}

TEST_CASE(
    "with the admin API on, writes need the bearer token, PUT "
    "state/readonly turns the bookie read-only and back, PUT gc runs GC",
    "[integration][bookie][http]") {
  TempDir dir;
  const std::string uri = FreshZkUri("admin-on");
  const std::string id = "bk-admin-on";
  auto md = OpenMetadata(uri);
  auto b = StartBookie(
      BookieOptions(dir, id, uri,
                    {{"httpServerAdminEnabled", "true"},
                     {"httpServerAdminTokenFile", TokenFile(dir, 0600)}}));
  auto stub = Connect(b->grpc_target());
  const int port = b->http_port();
  const std::string ro = "/api/v1/bookie/state/readonly";

  // The token file's path is shown, its contents never.
  auto config = HttpGet(port, "/api/v1/config/server_config");
  CHECK(absl::StrContains(config.body, "admin.token"));
  CHECK_FALSE(absl::StrContains(config.body, kToken));

  auto none = HttpCall(port, "PUT", ro, {}, "{\"readOnly\":true}");
  CHECK(none.status == 401);
  CHECK(absl::StrContains(none.head, "WWW-Authenticate: Bearer"));
  CHECK(HttpCall(port, "PUT", ro, Bearer("wrong"), "{\"readOnly\":true}")
            .status == 401);
  CHECK(HttpCall(port, "PUT", ro, Bearer(std::string(kToken) + "x"),
                 "{\"readOnly\":true}")
            .status == 401);
  CHECK(BodyJson(HttpGet(port, "/api/v1/bookie/state"))["readOnly"] == false);

  // Bad bodies: 400, nothing changed.
  for (const char* bad :
       {"{readOnly", "[true]", "{\"readOnly\":\"yes\"}", "{}"}) {
    auto r = HttpCall(port, "PUT", ro, Bearer(kToken), bad);
    INFO(bad << " -> " << r.body);
    CHECK(r.status == 400);
    CHECK(BodyJson(r).contains("error"));
  }
  REQUIRE(AddOne(stub.get(), MakeAdd(9, 0)) == proto::BK_EOK);

  auto set = HttpCall(port, "PUT", ro, Bearer(kToken), "{\"readOnly\":true}");
  INFO(set.body);
  REQUIRE(set.status == 200);
  CHECK(BodyJson(set)["readOnly"] == true);
  auto state = BodyJson(HttpGet(port, "/api/v1/bookie/state"));
  CHECK(state["readOnly"] == true);
  CHECK(state["adminReadOnly"] == true);
  CHECK(BodyJson(HttpGet(port, ro))["readOnly"] == true);
  CHECK(AddOne(stub.get(), MakeAdd(9, 1)) == proto::BK_EREADONLY);
  CHECK(PollUntil([&] { return Registration(md.get(), id) == Reg::kReadOnly; },
                  absl::Seconds(15)));
  CHECK(BodyJson(HttpGet(port, "/api/v1/bookie/list_bookies?type=ro"))
            .contains(id));
  CHECK(ReadsBackIntact(stub.get(), 9, 0));  // reads still served

  auto back = HttpCall(port, "PUT", ro, Bearer(kToken), "{\"readOnly\":false}");
  INFO(back.body);
  REQUIRE(back.status == 200);
  CHECK(BodyJson(back)["readOnly"] == false);
  CHECK(AddOne(stub.get(), MakeAdd(9, 1)) == proto::BK_EOK);
  CHECK(PollUntil([&] { return Registration(md.get(), id) == Reg::kWritable; },
                  absl::Seconds(15)));

  // GC: a forced pass runs and is counted.
  CHECK(HttpCall(port, "PUT", "/api/v1/bookie/gc", Bearer(kToken),
                 "{\"forceMajor\":\"x\"}")
            .status == 400);
  auto gc = HttpCall(port, "PUT", "/api/v1/bookie/gc", Bearer(kToken),
                     "{\"forceMajor\":true}");
  INFO(gc.body);
  REQUIRE(gc.status == 200);
  json details;
  CHECK(PollUntil(
      [&] {
        details = BodyJson(HttpGet(port, "/api/v1/bookie/gc_details"))[0];
        return details["forcedPasses"].get<int64_t>() >= 1 &&
               details["forceCompacting"] == false;
      },
      absl::Seconds(30)));
  INFO(details.dump());
  CHECK(details["majorCompactionCounter"].get<int64_t>() >= 1);
  CHECK(BodyJson(HttpGet(port, "/api/v1/bookie/gc"))["is_in_force_gc"] ==
        "false");

  // curl, as an operator types it: a body over 1 KiB makes it send
  // "Expect: 100-continue" first.
  const std::string url = "http://127.0.0.1:" + std::to_string(port) +
                          "/api/v1/bookie/state/readonly";
  const std::string padded =
      "{\"readOnly\": true, \"note\": \"" + std::string(2000, 'x') + "\"}";
  auto curl = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"-s", "-o", "/dev/null", "-w", "%{http_code}"});
    auto r = bk::testing::RunProcess("/usr/bin/curl", args, absl::Seconds(30));
    REQUIRE(r.ok());
    return r->out;
  };
  if (::access("/usr/bin/curl", X_OK) != 0) {
    WARN("no /usr/bin/curl: the curl part is not run");
    return;
  }
  CHECK(curl({"-X", "PUT", "-d", padded, url}) == "401");
  CHECK(curl({"-X", "PUT", "-H", std::string("Authorization: Bearer ") + kToken,
              "-d", padded, url}) == "200");
  CHECK(AddOne(stub.get(), MakeAdd(9, 2)) == proto::BK_EREADONLY);
  CHECK(curl({"-X", "PUT", "-H", std::string("Authorization: Bearer ") + kToken,
              "-d", "{\"readOnly\": false}", url}) == "200");
  CHECK(AddOne(stub.get(), MakeAdd(9, 2)) == proto::BK_EOK);
}

TEST_CASE(
    "a request body over httpServerMaxBodyBytes is refused with 413 naming "
    "the key, and changes nothing",
    "[integration][bookie][http]") {
  TempDir dir;
  const std::string uri = FreshZkUri("admin-body-cap");
  auto b = StartBookie(
      BookieOptions(dir, "bk-admin-body-cap", uri,
                    {{"httpServerAdminEnabled", "true"},
                     {"httpServerAdminTokenFile", TokenFile(dir, 0600)},
                     {"httpServerMaxBodyBytes", "1024"}}));
  const int port = b->http_port();
  const std::string ro = "/api/v1/bookie/state/readonly";
  // Valid JSON that would turn the bookie read-only, padded past the cap.
  const std::string padded =
      "{\"readOnly\": true, \"note\": \"" + std::string(1100, 'x') + "\"}";
  auto big = HttpCall(port, "PUT", ro, Bearer(kToken), padded);
  INFO(big.body);
  CHECK(big.status == 413);
  CHECK(absl::StrContains(BodyJson(big)["error"].get<std::string>(),
                          "larger than 1024 bytes (httpServerMaxBodyBytes)"));
  CHECK(BodyJson(HttpGet(port, "/api/v1/bookie/state"))["readOnly"] == false);
  // The same request under the cap is served.
  auto small =
      HttpCall(port, "PUT", ro, Bearer(kToken), "{\"readOnly\": true}");
  INFO(small.body);
  CHECK(small.status == 200);
  CHECK(BodyJson(HttpGet(port, "/api/v1/bookie/state"))["readOnly"] == true);
}

TEST_CASE(
    "the bookie refuses to start when the admin token file is missing or "
    "open to others",
    "[integration][bookie][http]") {
  TempDir dir;
  const std::string open_file = TokenFile(dir, 0644);
  struct Case {
    std::string token_file;
    std::string says;
  };
  for (const Case& c : {Case{open_file, "chmod 600"},
                        Case{dir.Sub("no-such-token"), "cannot be read"}}) {
    auto launched = BookieProcess::Launch(
        BookieOptions(dir, "bk-admin-refused", FreshZkUri("admin-refused"),
                      {{"httpServerAdminEnabled", "true"},
                       {"httpServerAdminTokenFile", c.token_file}}));
    REQUIRE(launched.ok());
    auto exit = (*launched)->WaitExit(absl::Seconds(30));
    REQUIRE(exit.ok());
    INFO((*launched)->Log());
    CHECK(exit->signal == 0);
    CHECK(exit->exit_code == 1);
    CHECK(absl::StrContains((*launched)->Log(), c.says));
    CHECK(absl::StrContains((*launched)->Log(), "httpServerAdminTokenFile"));
  }
}

}  // namespace
}  // namespace bk::it
