// FakeHost: a recorded-style /proc and /sys tree in a temp dir, laid out like
// this kind of machine's (a virtio disk under /sys/devices/pci..., device
// mapper under /sys/devices/virtual/block, /sys/dev/block/M:m symlinks), plus
// real directories whose device number the tree maps to a chosen device.

#ifndef BK_TEST_UNIT_MONITOR_FAKE_HOST_H_
#define BK_TEST_UNIT_MONITOR_FAKE_HOST_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "monitor/own_counters.h"

namespace bk::monitor::testing {

// One /proc/diskstats line: the fields the monitor reads are io_ticks,
// sectors written and the name; the others are filled in plausibly.
struct DiskLine {
  uint32_t major;
  uint32_t minor;
  std::string name;
  uint64_t io_ticks;
  uint64_t sectors_written = 1920776;
};

class FakeHost {
 public:
  FakeHost();   // a fresh tree under the system temp dir
  ~FakeHost();  // removes it

  std::string proc_root() const { return (root_ / "proc").string(); }
  std::string sys_root() const { return (root_ / "sys").string(); }
  const std::filesystem::path& root() const { return root_; }

  // A real, empty directory under the tree (where a bookie would keep data).
  std::string MakeDir(const std::string& name);

  // sysfs devices; each returns the device's sysfs directory.
  std::filesystem::path AddDisk(const std::string& name, uint32_t major,
                                uint32_t minor);
  std::filesystem::path AddPartition(const std::filesystem::path& disk,
                                     const std::string& name, uint32_t major,
                                     uint32_t minor);
  std::filesystem::path AddStacked(
      const std::string& name, uint32_t major, uint32_t minor,
      const std::vector<std::filesystem::path>& slaves);

  // Points /sys/dev/block/<st_dev of dir> at `device`, so that `dir` appears
  // to live on it.
  void PlaceDirOn(const std::string& dir, const std::filesystem::path& device);

  void SetDiskstats(const std::vector<DiskLine>& lines);
  void WriteProcFile(const std::string& relative, const std::string& content);

 private:
  void Link(uint32_t major, uint32_t minor, const std::filesystem::path& dev);

  std::filesystem::path root_;
};

// OwnCounters with values a test sets.
class FakeCounters final : public OwnCounters {
 public:
  int64_t BytesWritten() const override { return bytes_written; }
  int64_t JournalBusyNanos() const override { return journal_busy_nanos; }
  int64_t LedgerBusyNanos() const override { return ledger_busy_nanos; }

  int64_t bytes_written = 0;
  int64_t journal_busy_nanos = 0;
  int64_t ledger_busy_nanos = 0;
};

}  // namespace bk::monitor::testing

#endif  // BK_TEST_UNIT_MONITOR_FAKE_HOST_H_
