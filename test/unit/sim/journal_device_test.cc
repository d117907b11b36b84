#include "tools/sim/journal_device.h"

#include <vector>

#include "catch2/catch.hpp"

namespace bk::sim {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST_CASE("an idle device answers in about one sync", "[sim]") {
  JournalDevice d(100 * kMiB, 0.005, 0.002, 30, 1);
  d.Step(1, {0}, 0);
  CHECK(d.latency_seconds() == Approx(0.005));
  CHECK(d.utilisation() == 0);
}

TEST_CASE("an HDD-like device queues sooner than an SSD-like one", "[sim]") {
  JournalDevice hdd(120 * kMiB, 0.005, 0.002, 30, 1);
  JournalDevice ssd(300 * kMiB, 0.0005, 0.002, 30, 1);
  const std::vector<double> offered = {100 * kMiB};
  hdd.Step(1, offered, 6400);
  ssd.Step(1, offered, 6400);
  CHECK(hdd.latency_seconds() > 10 * ssd.latency_seconds());
  CHECK(hdd.utilisation() > 0.7);
  CHECK(ssd.utilisation() < 0.5);
}

TEST_CASE("overload builds a backlog that drains after", "[sim]") {
  JournalDevice d(100 * kMiB, 0.001, 0.002, 30, 1);
  for (int i = 0; i < 10; ++i) d.Step(1, {150 * kMiB}, 9600);
  CHECK(d.backlog_bytes() == Approx(500 * kMiB));
  CHECK(d.latency_seconds() > 4);
  CHECK(d.utilisation() == 1);
  for (int i = 0; i < 10; ++i) d.Step(1, {0}, 0);
  CHECK(d.backlog_bytes() == 0);
}

TEST_CASE("bookies sharing a device share its capacity", "[sim]") {
  JournalDevice d(90 * kMiB, 0.001, 0.002, 30, 3);
  d.Step(1, {60 * kMiB, 30 * kMiB, 30 * kMiB}, 7680);
  CHECK(d.written_bytes(0) == Approx(45 * kMiB));
  CHECK(d.written_bytes(1) == Approx(22.5 * kMiB));
  CHECK(d.backlog_bytes() == Approx(30 * kMiB));
}

TEST_CASE("a gray failure slows the device and recovery restores it", "[sim]") {
  JournalDevice d(100 * kMiB, 0.001, 0.002, 30, 1);
  d.Step(1, {10 * kMiB}, 640);
  const double healthy = d.latency_seconds();
  d.SetSlowdown(10);
  d.Step(1, {10 * kMiB}, 640);
  CHECK(d.latency_seconds() > 10 * healthy);
  d.SetSlowdown(1);
  d.Step(1, {10 * kMiB}, 640);
  CHECK(d.latency_seconds() == Approx(healthy));
}

TEST_CASE("a backlog beyond max_queue is cut and counted", "[sim]") {
  JournalDevice d(10 * kMiB, 0.001, 0.002, 2, 1);
  d.Step(1, {100 * kMiB}, 6400);
  CHECK(d.backlog_bytes() == Approx(20 * kMiB));
  CHECK(d.throttled_bytes() == Approx(70 * kMiB));
}

}  // namespace
}  // namespace bk::sim
