#include "common/logging.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "test/support/temp_dir.h"

namespace bk::log {
namespace {

// Runs `fn` with stderr redirected to a file and returns what it printed.
template <typename Fn>
std::string CaptureStderr(Fn fn) {
  testing::TempDir dir;
  std::string path = dir.Sub("err");
  std::fflush(stderr);
  int saved = dup(2);
  FILE* f = std::fopen(path.c_str(), "w");
  dup2(fileno(f), 2);
  fn();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::fclose(f);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_CASE("log lines carry level, node id and component", "[common][log]") {
  Init(Level::kInfo, "bookie-7");
  Logger lg = Get("journal");
  std::string out = CaptureStderr([&] {
    lg->info("group synced entries={}", 12);
    lg->flush();
  });
  CHECK(out.find("info node=bookie-7 component=journal group synced "
                 "entries=12") != std::string::npos);
}

TEST_CASE("lines below the level are dropped", "[common][log]") {
  Init(Level::kWarn, "b");
  Logger lg = Get("gc");
  std::string out = CaptureStderr([&] {
    lg->info("quiet");
    lg->warn("loud");
    lg->flush();
  });
  CHECK(out.find("quiet") == std::string::npos);
  CHECK(out.find("loud") != std::string::npos);
  Init(Level::kInfo, "b");
}

TEST_CASE("log levels parse by name and reject others", "[common][log]") {
  CHECK(*ParseLevel("debug") == Level::kDebug);
  CHECK(*ParseLevel("off") == Level::kOff);
  CHECK_FALSE(ParseLevel("verbose").ok());
}

TEST_CASE("the same component returns the same logger", "[common][log]") {
  CHECK(Get("x") == Get("x"));
}

}  // namespace
}  // namespace bk::log
