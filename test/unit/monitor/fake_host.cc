#include "test/unit/monitor/fake_host.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bk::monitor::testing {
namespace fs = std::filesystem;

namespace {

void WriteFile(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::trunc);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

FakeHost::FakeHost() {
  static std::atomic<int> counter{0};
  root_ = fs::temp_directory_path() /
          absl::StrCat("bk_monitor_test_", ::getpid(), "_", counter++);
  fs::remove_all(root_);
  fs::create_directories(root_ / "proc" / "self");
  fs::create_directories(root_ / "sys" / "dev" / "block");
  // Static CPU files so that every sample reads cleanly; CPU tests replace
  // them.
  WriteProcFile("stat",
                "cpu  10 0 10 80 0 0 0 0 0 0\n"
                "cpu0 10 0 10 80 0 0 0 0 0 0\n");
  WriteProcFile("self/status", "Name:\tbookie\nCpus_allowed_list:\t0\n");
  WriteProcFile("self/stat",
                "42 (bookie) S 1 42 42 0 -1 4194304 100 0 0 0 5 5 0 0 20 0 "
                "1 0 29200 3133440 415\n");
  SetDiskstats({});
}

FakeHost::~FakeHost() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

std::string FakeHost::MakeDir(const std::string& name) {
  fs::path dir = root_ / "data" / name;
  fs::create_directories(dir);
  return dir.string();
}

fs::path FakeHost::AddDisk(const std::string& name, uint32_t major,
                           uint32_t minor) {
  fs::path dev = root_ / "sys" / "devices" / "pci0000:00" /
                 absl::StrCat("0000:00:0", minor / 16 + 2, ".0") /
                 absl::StrCat("virtio", minor / 16 + 1) / "block" / name;
  WriteFile(dev / "dev", absl::StrCat(major, ":", minor, "\n"));
  WriteFile(dev / "size", "536870912\n");
  Link(major, minor, dev);
  return dev;
}

fs::path FakeHost::AddPartition(const fs::path& disk, const std::string& name,
                                uint32_t major, uint32_t minor) {
  fs::path dev = disk / name;
  WriteFile(dev / "dev", absl::StrCat(major, ":", minor, "\n"));
  WriteFile(dev / "partition", absl::StrCat(minor % 16, "\n"));
  Link(major, minor, dev);
  return dev;
}

fs::path FakeHost::AddStacked(const std::string& name, uint32_t major,
                              uint32_t minor,
                              const std::vector<fs::path>& slaves) {
  fs::path dev = root_ / "sys" / "devices" / "virtual" / "block" / name;
  WriteFile(dev / "dev", absl::StrCat(major, ":", minor, "\n"));
  WriteFile(dev / "dm" / "name", absl::StrCat("vg0-", name, "\n"));
  fs::create_directories(dev / "slaves");
  for (const fs::path& slave : slaves) {
    fs::create_directory_symlink(fs::relative(slave, dev / "slaves"),
                                 dev / "slaves" / slave.filename());
  }
  Link(major, minor, dev);
  return dev;
}

void FakeHost::PlaceDirOn(const std::string& dir, const fs::path& device) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) throw std::runtime_error("stat " + dir);
  Link(major(st.st_dev), minor(st.st_dev), device);
}

void FakeHost::Link(uint32_t major, uint32_t minor, const fs::path& dev) {
  fs::path link =
      root_ / "sys" / "dev" / "block" / absl::StrCat(major, ":", minor);
  std::error_code ec;
  fs::remove(link, ec);
  fs::create_directory_symlink(fs::relative(dev, link.parent_path()), link);
}

void FakeHost::SetDiskstats(const std::vector<DiskLine>& lines) {
  std::string text;
  // Loop devices as on this machine: present, idle.
  for (int i = 0; i < 2; ++i) {
    absl::StrAppendFormat(
        &text, "%4d %7d loop%d 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", 7, i, i);
  }
  for (const DiskLine& l : lines) {
    // reads merged sectors ms | writes merged sectors ms | in_flight
    // io_ticks time_in_queue | discards (4) | flushes (2)
    absl::StrAppendFormat(
        &text, "%4u %7u %s %u %u %u %u %u %u %u %u 0 %u %u 0 0 0 0 %u %u\n",
        l.major, l.minor, l.name, 30719, 7071, 2531986, 10621, 16039, 7900,
        l.sectors_written, 4711, l.io_ticks, 15858, 2435, 94);
  }
  WriteProcFile("diskstats", text);
}

void FakeHost::WriteProcFile(const std::string& relative,
                             const std::string& content) {
  // Write-then-rename, as a sample may be read concurrently in thread tests.
  fs::path target = root_ / "proc" / relative;
  fs::path tmp = target;
  tmp += ".tmp";
  WriteFile(tmp, content);
  fs::rename(tmp, target);
}

}  // namespace bk::monitor::testing
