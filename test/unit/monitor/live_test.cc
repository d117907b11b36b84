// Live tests on this machine's real /proc and /sys: a writer thread writes
// and fdatasyncs a file in a temp dir while the monitor samples.
//
// Other builds share the machine's disk, so the block-device figure is only
// asserted to rise while we write (our own syncs guarantee that); its idle
// value is printed, not asserted. The own-busy-share path is fully ours and
// is asserted both ways. Real time advances only while we wait on the
// writer's progress, with a bound; there is no sleep.

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "monitor/base_metric_monitor.h"
#include "test/unit/monitor/fake_host.h"

namespace bk::monitor {
namespace {

// Appends 64 KiB and fdatasyncs, over and over, within an 8 MiB file; its
// counters are what a bookie's journal would report.
class SyncWriter final : public OwnCounters {
 public:
  explicit SyncWriter(const std::string& dir) : path_(dir + "/journal.dat") {
    fd_ = ::open(path_.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd_ >= 0);
    thread_ = std::thread([this] { Loop(); });
  }
  ~SyncWriter() override {
    Stop();
    ::close(fd_);
    ::unlink(path_.c_str());
  }

  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }

  // Waits (bounded) until `n` more syncs have completed.
  bool AwaitMoreSyncs(int64_t n) {
    absl::MutexLock lock(&mu_);
    const int64_t target = syncs_ + n;
    auto reached = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return syncs_ >= target;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  }

  int64_t BytesWritten() const override { return bytes_.load(); }
  int64_t JournalBusyNanos() const override { return busy_nanos_.load(); }
  int64_t LedgerBusyNanos() const override { return busy_nanos_.load(); }

 private:
  void Loop() {
    std::vector<char> block(64 << 10, 'x');
    off_t offset = 0;
    while (!stop_.load()) {
      auto start = std::chrono::steady_clock::now();
      ssize_t n = ::pwrite(fd_, block.data(), block.size(), offset);
      bool ok =
          n == static_cast<ssize_t>(block.size()) && ::fdatasync(fd_) == 0;
      auto busy = std::chrono::steady_clock::now() - start;
      if (!ok) return;  // the test then times out waiting on AwaitMoreSyncs
      busy_nanos_.fetch_add(
          std::chrono::duration_cast<std::chrono::nanoseconds>(busy).count());
      bytes_.fetch_add(n);
      offset = (offset + n) % (8 << 20);
      absl::MutexLock lock(&mu_);
      ++syncs_;
    }
  }

  const std::string path_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> busy_nanos_{0};
  absl::Mutex mu_;
  int64_t syncs_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

MonitorOptions LiveOptions(const std::string& dir) {
  MonitorOptions options;
  options.journal_dirs = {dir};
  options.ledger_dirs = {dir};
  options.slide_window_size = 2;
  options.allow_short_interval_for_testing = true;
  options.stat_interval = absl::Milliseconds(10);
  return options;
}

std::string Describe(const IoUtil& io) {
  std::string s = absl::StrCat(
      "util=", io.util, " source=", UtilSourceName(io.source), " devices=[");
  for (const DeviceUtil& d : io.devices) {
    absl::StrAppend(&s, d.name, ":", d.util, "% ", d.write_bytes_per_second,
                    "B/s ");
  }
  return absl::StrCat(s, "] device_write=", io.device_write_bytes_per_second);
}

// Samples after every `syncs_per_sample` syncs until the journal figure is
// above 0 and the CPU figures are known (a window shorter than one clock
// tick of /proc/stat has none: on a busy disk the first pair of samples can
// already show the journal busy); returns the last report. At most 200
// samples.
LoadReport SampleUntilBusy(BaseMetricMonitor& monitor, SyncWriter& writer,
                           int syncs_per_sample) {
  LoadReport r;
  for (int i = 0; i < 200; ++i) {
    REQUIRE(writer.AwaitMoreSyncs(syncs_per_sample));
    (void)monitor.SampleOnce(SystemClock()->NowNanos());
    r = monitor.Snapshot();
    if (r.journal_io.util > 0 && r.cpu_used_rate >= 0 &&
        r.process_cpu_used_rate >= 0) {
      break;
    }
  }
  return r;
}

TEST_CASE("live: the journal dir's utilisation rises while a writer syncs",
          "[monitor][live]") {
  testing::FakeHost tmp;
  std::string dir = tmp.MakeDir("journal");
  SyncWriter writer(dir);
  auto monitor = BaseMetricMonitor::Create(LiveOptions(dir),
                                           MonitorEnv{&writer, nullptr, {}});
  REQUIRE(monitor.ok());

  LoadReport busy = SampleUntilBusy(**monitor, writer, 20);
  WARN("while writing: " << Describe(busy.journal_io));
  CHECK(busy.journal_io.util > 0);
  CHECK(busy.journal_io.source != UtilSource::kUnknown);
  CHECK(busy.write_bytes_per_second > 0);
  // On a block device our synced bytes reach the disk: its write rate,
  // every writer's, is above 0 (on tmpfs or overlay there is no device).
  if (!busy.journal_io.devices.empty()) {
    CHECK(busy.journal_io.device_write_bytes_per_second > 0);
  }
  CHECK(busy.cpu_used_rate >= 0);
  CHECK(busy.process_cpu_used_rate >= 0);
  CHECK(busy.total_disk_bytes > 0);

  writer.Stop();
  // Idle: window + 1 fresh samples, so no writing interval is left in it.
  // Other builds may be using the disk, so the value is only reported.
  for (int i = 0; i < 3; ++i) {
    REQUIRE(monitor.value()->SampleOnce(SystemClock()->NowNanos()).ok());
  }
  WARN("idle: " << Describe((*monitor)->Snapshot().journal_io));
}

TEST_CASE("live: the own busy share rises while writing and is 0 when idle",
          "[monitor][live]") {
  testing::FakeHost tmp;
  std::string dir = tmp.MakeDir("journal");
  SyncWriter writer(dir);
  MonitorOptions options = LiveOptions(dir);
  options.journal_device_shared = true;  // force the fallback
  auto monitor =
      BaseMetricMonitor::Create(options, MonitorEnv{&writer, nullptr, {}});
  REQUIRE(monitor.ok());

  LoadReport busy = SampleUntilBusy(**monitor, writer, 5);
  WARN("while writing: " << Describe(busy.journal_io));
  CHECK(busy.journal_io.source == UtilSource::kOwnBusyTime);
  CHECK(busy.journal_io.util > 0);

  writer.Stop();
  for (int i = 0; i < 3; ++i) {
    REQUIRE(monitor.value()->SampleOnce(SystemClock()->NowNanos()).ok());
  }
  LoadReport idle = (*monitor)->Snapshot();
  CHECK(idle.journal_io.source == UtilSource::kOwnBusyTime);
  CHECK(idle.journal_io.util == 0);
  CHECK(idle.write_bytes_per_second == 0);
}

}  // namespace
}  // namespace bk::monitor
