// SetThreadName names the calling thread as the kernel reports it, cut to
// Linux's 15 bytes, and leaves other threads' names alone.

#include "common/thread_name.h"

#include <pthread.h>

#include <catch2/catch.hpp>
#include <string>
#include <thread>

namespace bk {
namespace {

std::string CurrentName() {
  char buf[64] = {};
  REQUIRE(pthread_getname_np(pthread_self(), buf, sizeof buf) == 0);
  return buf;
}

TEST_CASE("a thread's name is set, and cut to fifteen bytes", "[common]") {
  std::string short_name, long_name;
  std::thread t([&] {
    SetThreadName("bk-jsync");
    char buf[64] = {};
    pthread_getname_np(pthread_self(), buf, sizeof buf);
    short_name = buf;
    SetThreadName("bk-a-name-longer-than-fifteen");
    pthread_getname_np(pthread_self(), buf, sizeof buf);
    long_name = buf;
  });
  const std::string before = CurrentName();
  t.join();
  CHECK(short_name == "bk-jsync");
  CHECK(long_name == "bk-a-name-longe");
  CHECK(CurrentName() == before);
}

}  // namespace
}  // namespace bk
