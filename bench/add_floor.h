// AddFloor: the least storage work an add can cost in this design, as a
// sink for the echo service (bookie/echo/echo_service.h), so that
// bookie_add_bench can print the ceiling a bookie's add path could reach
// beside what it reaches.
//
// Per batch, on the gRPC thread that read it, under one mutex (one journal,
// as a bookie has): one CRC32C pass per entry, each entry's journal record
// (28-byte header, the body) written with one pwritev to a journal file and
// one fdatasync, and the same entries' entry-log records (24-byte header,
// the body) with one pwritev to an entry-log file. The headers are the
// real formats', their CRCs combined from the body's as the bookie does.
//
// Everything else a bookie must do is left out, so no bookie that journals
// and stores each entry can beat this: no write cache (entries are not kept
// readable), no index, no thread hand-off (the answer goes out on the
// thread that wrote), no entry-log sync (a full log is closed and removed,
// its dirty pages never written back), no preallocation, no checks of the
// ledger (fencing, master key). Files roll over at a fixed size and are
// removed at once, so a run's footprint stays bounded.
//
// With `write_back` (the "durable floor"), the entry log also reaches the
// disk, as every bookie's must: each MiB appended is handed to the disk
// once the previous MiB is written (sync_file_range, as the bookie writes
// behind) and its pages are dropped; every 64 MiB the log is synced
// (fdatasync), as a bookie's flush ends; a full log is synced and kept
// until the floor closes (a run leaves its adds' bytes on the ledger
// directory's disk until then). Without it, a 24 GiB machine never writes
// a floor's entry log back at all (each file is removed long before the
// kernel's dirty thresholds), so the plain floor leaves out a CPU cost no
// durable store can skip; the CPU per add of the two differs by that cost.
// The durable floor waits for the disk on the receiving thread, so its
// rate is no bound.

#ifndef BK_BENCH_ADD_FLOOR_H_
#define BK_BENCH_ADD_FLOOR_H_

#include <sys/uio.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bookie/echo/echo_service.h"
#include "bookie/journal/journal_format.h"
#include "bookie/storage/entry_log_format.h"

namespace bk::bookie {

class AddFloor final : public BatchSink {
 public:
  // Files go to `journal_dir` and `ledger_dir` (both must exist).
  static absl::StatusOr<std::unique_ptr<AddFloor>> Open(
      const std::string& journal_dir, const std::string& ledger_dir,
      bool write_back = false);
  ~AddFloor() override;  // closes and removes its files

  absl::Status Take(const proto::AddRequest& request) override;

  uint64_t entries() const;

 private:
  struct File {
    std::string dir;
    const char* suffix = "";
    uint64_t roll_bytes = 0;
    int fd = -1;
    int seq = 0;
    std::string path;
    uint64_t size = 0;
    bool write_back = false;
    // write_back: bytes handed to the disk, and written.
    uint64_t started = 0;
    uint64_t waited = 0;
    uint64_t dropped = 0;  // from the page cache
    uint64_t synced = 0;
    std::vector<std::string> retired;  // synced, closed, not yet removed
  };
  AddFloor(std::string journal_dir, std::string ledger_dir, bool write_back);
  // Writes iov_[0, iov_.size()) at the end of `f`, rolling it over first
  // when full.
  absl::Status Append(File* f) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static absl::Status Roll(File* f);
  // Syncs a write_back file before it is closed and removed.
  static absl::Status Retire(File* f);
  static void Close(File* f);

  mutable absl::Mutex mu_;
  File journal_ ABSL_GUARDED_BY(mu_);
  File log_ ABSL_GUARDED_BY(mu_);
  uint64_t entries_ ABSL_GUARDED_BY(mu_) = 0;
  // Reused per batch.
  std::vector<uint32_t> crcs_ ABSL_GUARDED_BY(mu_);
  std::vector<journal_format::RecordHeader> journal_headers_
      ABSL_GUARDED_BY(mu_);
  std::vector<std::array<char, entrylog::kRecordHeaderSize>> log_headers_
      ABSL_GUARDED_BY(mu_);
  std::vector<iovec> iov_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bk::bookie

#endif  // BK_BENCH_ADD_FLOOR_H_
