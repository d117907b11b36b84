#include "monitor/diskstats.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "monitor/read_file.h"

namespace bk::monitor {
namespace {

// Field positions on a line, counting from 0 at "major".
constexpr size_t kNameField = 2;
constexpr size_t kSectorsWrittenField = kNameField + 7;
constexpr size_t kIoTicksField = kNameField + 10;

}  // namespace

absl::StatusOr<DiskCounterMap> ParseDiskstats(absl::string_view text) {
  DiskCounterMap disks;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields.empty()) continue;
    DiskCounters c;
    if (fields.size() <= kIoTicksField ||
        !absl::SimpleAtoi(fields[kIoTicksField], &c.io_ticks)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "diskstats line ", line_no, " has no io_ticks: '", line, "'"));
    }
    if (!absl::SimpleAtoi(fields[kSectorsWrittenField], &c.sectors_written)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "diskstats line ", line_no, " has no sectors written: '", line, "'"));
    }
    disks[std::string(fields[kNameField])] = c;
  }
  return disks;
}

absl::StatusOr<DiskCounterMap> ReadDiskstats(const std::string& proc_root) {
  absl::StatusOr<std::string> text = ReadSmallFile(proc_root + "/diskstats");
  if (!text.ok()) return text.status();
  return ParseDiskstats(*text);
}

}  // namespace bk::monitor
