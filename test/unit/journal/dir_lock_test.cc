// DirLock: one holder per bookie directory; the holder's pid in the refusal;
// released with its owner.

#include "bookie/dir_lock.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "test/support/temp_dir.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;

TEST_CASE("a locked directory refuses a second lock, naming the holder",
          "[journal][cookie]") {
  TempDir dir;
  const std::string journal = dir.Sub("journal");  // created by Acquire
  auto first = DirLock::Acquire(journal);
  REQUIRE(first.ok());
  auto second = DirLock::Acquire(journal);
  REQUIRE(absl::IsFailedPrecondition(second.status()));
  const std::string msg(second.status().message());
  CHECK(msg.find(journal) != std::string::npos);
  CHECK(msg.find("(pid " + std::to_string(::getpid()) + ")") !=
        std::string::npos);

  SECTION("released when its owner goes") {
    { DirLock moved = *std::move(first); }
    CHECK(DirLock::Acquire(journal).ok());
  }
  SECTION("all or none") {
    auto all = DirLock::AcquireAll({dir.Sub("ledgers"), journal});
    CHECK(absl::IsFailedPrecondition(all.status()));
    CHECK(DirLock::Acquire(dir.Sub("ledgers")).ok());  // not left held
  }
}

TEST_CASE("a directory listed twice is locked once", "[journal][cookie]") {
  TempDir dir;
  auto locks = DirLock::AcquireAll({dir.Sub("d"), dir.Sub("d/"), dir.Sub("d")});
  REQUIRE(locks.ok());
  CHECK(locks->size() == 1);
}

}  // namespace
}  // namespace bk::bookie
