#include "monitor/load_calculator.h"

#include <algorithm>
#include <cassert>
#include <optional>

namespace bk::monitor {
namespace {

// newest - oldest of a counter read by `get` (which returns nullopt when the
// reading lacks it), or nullopt if it is missing anywhere in the window or
// ever goes backwards.
template <typename Get>
std::optional<uint64_t> MonotonicDelta(std::span<const Reading> window,
                                       Get get) {
  std::optional<uint64_t> prev;
  std::optional<uint64_t> first;
  for (const Reading& r : window) {
    std::optional<uint64_t> v = get(r);
    if (!v || (prev && *v < *prev)) return std::nullopt;
    if (!first) first = v;
    prev = v;
  }
  return *prev - *first;
}

std::optional<uint64_t> NonNegative(int64_t v) {
  if (v < 0) return std::nullopt;
  return static_cast<uint64_t>(v);
}

double Percent(double part, double whole) {
  return std::clamp(part * 100.0 / whole, 0.0, 100.0);
}

// newest - oldest of device `name`'s counter `field` over the window.
std::optional<uint64_t> DiskDelta(std::span<const Reading> window,
                                  const std::string& name,
                                  uint64_t DiskCounters::*field) {
  return MonotonicDelta(window,
                        [&](const Reading& r) -> std::optional<uint64_t> {
                          if (!r.disks) return std::nullopt;
                          auto it = r.disks->find(name);
                          if (it == r.disks->end()) return std::nullopt;
                          return it->second.*field;
                        });
}

template <typename BusyNanos>
IoUtil GroupUtil(std::span<const Reading> window, const DeviceGroup& group,
                 double wall_nanos, BusyNanos busy_nanos) {
  IoUtil io;
  double sum = 0;
  int known = 0;
  double written = 0;
  bool all_written = !group.disks.empty();
  for (const std::string& disk : group.disks) {
    DeviceUtil dev{disk};
    if (auto ticks = DiskDelta(window, disk, &DiskCounters::io_ticks)) {
      dev.util = Percent(static_cast<double>(*ticks), wall_nanos / 1e6);
    }
    if (auto sectors =
            DiskDelta(window, disk, &DiskCounters::sectors_written)) {
      dev.write_bytes_per_second = static_cast<double>(*sectors) *
                                   kDiskstatsSectorBytes * 1e9 / wall_nanos;
      written += dev.write_bytes_per_second;
    } else {
      all_written = false;
    }
    io.devices.push_back(dev);
    const double util = dev.util;
    if (util < 0) continue;
    sum += util;
    ++known;
    io.util_max = std::max(io.util_max, util);
  }
  // Every writer's bytes, shared disk or not: what a new writer would share
  // the devices with.
  if (all_written) io.device_write_bytes_per_second = written;
  if (known > 0 && !group.shared) {
    io.util = sum / known;
    io.source = UtilSource::kBlockDevice;
    return io;
  }
  io.util = -1;
  io.util_max = -1;
  std::optional<uint64_t> busy =
      MonotonicDelta(window, [&](const Reading& r) { return busy_nanos(r); });
  if (busy) {
    io.util = Percent(static_cast<double>(*busy), wall_nanos);
    io.util_max = io.util;
    io.source = UtilSource::kOwnBusyTime;
  }
  return io;
}

}  // namespace

LoadReport ComputeLoad(std::span<const Reading> window,
                       const DeviceGroup& journal, const DeviceGroup& ledger) {
  assert(window.size() >= 2);
  const Reading& oldest = window.front();
  const Reading& newest = window.back();
  assert(newest.now_nanos > oldest.now_nanos);
  const double wall_nanos =
      static_cast<double>(newest.now_nanos - oldest.now_nanos);

  LoadReport report;
  report.window_ms = (newest.now_nanos - oldest.now_nanos) / 1'000'000;
  report.journal_io = GroupUtil(
      window, journal, wall_nanos,
      [](const Reading& r) { return NonNegative(r.journal_busy_nanos); });
  report.ledger_io = GroupUtil(
      window, ledger, wall_nanos,
      [](const Reading& r) { return NonNegative(r.ledger_busy_nanos); });

  // The CPU figures are only comparable while the allowed set is unchanged.
  bool same_cpus = newest.cpu.has_value();
  for (const Reading& r : window) {
    if (!same_cpus) break;
    same_cpus = r.cpu && r.cpu->cpus == newest.cpu->cpus;
  }
  if (same_cpus) {
    auto total =
        MonotonicDelta(window, [](const Reading& r) -> std::optional<uint64_t> {
          return r.cpu->total;
        });
    auto busy =
        MonotonicDelta(window, [](const Reading& r) -> std::optional<uint64_t> {
          return r.cpu->busy;
        });
    auto own = MonotonicDelta(window,
                              [](const Reading& r) { return r.process_ticks; });
    if (total && *total > 0) {
      if (busy) {
        report.cpu_used_rate =
            Percent(static_cast<double>(*busy), static_cast<double>(*total));
      }
      if (own) {
        report.process_cpu_used_rate =
            Percent(static_cast<double>(*own), static_cast<double>(*total));
      }
    }
  }

  auto bytes = MonotonicDelta(
      window, [](const Reading& r) { return NonNegative(r.bytes_written); });
  if (bytes) {
    report.write_bytes_per_second =
        static_cast<double>(*bytes) * 1e9 / wall_nanos;
  }

  if (newest.disk_space) {
    report.free_disk_bytes = newest.disk_space->free_bytes;
    report.total_disk_bytes = newest.disk_space->total_bytes;
  }
  return report;
}

}  // namespace bk::monitor
