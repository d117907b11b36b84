// BookieAdmin: one bookie, spoken to directly, for tools: its disk and load
// report (GetBookieInfo), single-entry reads, and the sanity check of
// `bkctl bookiesanity`. The connection is the client library's own
// (internal/bookie_client.h) with the client's TLS settings
// (ClientOptions::tls), so a tool reaches a bookie that requires mutual TLS
// exactly as a broker does, and no tool holds a gRPC stub of its own.
//
//   auto admin = bk::client::BookieAdmin::Connect(id, "10.0.0.7:3181", tls);
//   auto info = (*admin)->Info(absl::Seconds(5));   // StatusOr<BookieInfo>
//
// Not the data path: no placement, no quorum, no retry; every call goes to
// this one bookie and is bounded by its timeout.
//
// Errors: a transport failure is kUnavailable or kDeadlineExceeded naming
// the bookie; an answer with a wire error code maps as in
// proto/status_codes.h (ENOENTRY -> kNotFound, EFENCED ->
// kFailedPrecondition, ...); a digest mismatch is kDataLoss.
//
// Threads: every method may be called from any thread, also concurrently;
// each blocks until the answer or its timeout. Lifetime: the connection goes
// with the object, which must be destroyed on a thread of the caller's (not
// a gRPC thread); it waits for calls still in flight, at most half a second
// for an add.

#ifndef BK_CLIENT_BOOKIE_ADMIN_H_
#define BK_CLIENT_BOOKIE_ADMIN_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "client/client_options.h"

namespace bk::metadata {
class MetadataStore;
}  // namespace bk::metadata

namespace bk::client {

namespace internal {
class BookieClient;
}  // namespace internal

// A bookie's GetBookieInfo answer. A figure the bookie cannot measure is
// -1, never 0.
struct BookieInfo {
  int64_t total_disk_capacity = -1;  // bytes
  int64_t free_disk_space = -1;      // bytes
  double journal_io_util = -1;       // percent, over window_ms
  double ledger_io_util = -1;        // percent
  // Where each utilisation comes from: "block_device" (the devices'
  // io_ticks), "own_busy_time" (the journal's own share of wall time) or
  // "unknown".
  std::string journal_util_source = "unknown";
  std::string ledger_util_source = "unknown";
  double cpu_used_rate = -1;            // percent
  int64_t write_bytes_per_second = -1;  // bytes per second
  // Bytes every writer on the journal's device(s) wrote per second (other
  // bookies sharing the disk included).
  int64_t journal_device_write_bytes_per_second = -1;
  int64_t window_ms = -1;  // span the load figures cover
  int64_t adds_in_flight = -1;
  int64_t journal_queue_depth = -1;
  double add_latency_p99_ms = -1;  // over the window
  bool read_only = false;
};

// One entry as a bookie holds it, its digest checked.
struct BookieEntry {
  int64_t last_add_confirmed = -1;  // the LAC the entry carries
  std::string payload;
};

class BookieAdmin {
 public:
  // A connection to the bookie `bookie_id` (named in errors and used by
  // SanityCheck) serving gRPC at `endpoint` (host:port). Connects lazily:
  // an unreachable bookie fails the first call, not this. kNotFound when a
  // TLS file cannot be read.
  static absl::StatusOr<std::unique_ptr<BookieAdmin>> Connect(
      std::string bookie_id, std::string endpoint, const TlsClientOptions& tls);
  ~BookieAdmin();
  BookieAdmin(const BookieAdmin&) = delete;
  BookieAdmin& operator=(const BookieAdmin&) = delete;

  const std::string& bookie_id() const { return bookie_id_; }
  const std::string& endpoint() const { return endpoint_; }

  // Disk capacity, free space and the load figures, in one call.
  absl::StatusOr<BookieInfo> Info(absl::Duration timeout);

  // Entry `entry_id` of `ledger_id`, decoded and checked with `digest`.
  absl::StatusOr<BookieEntry> ReadEntry(int64_t ledger_id, int64_t entry_id,
                                        DigestType digest,
                                        absl::Duration timeout);

  // Entries first, first + stride, ... <= last of `ledger_id` streamed as
  // stored (one ReadEntries call; stride 1: every entry), without decoding
  // or checking them: a raw stream for benchmarks (bkbench's catch-up
  // ceiling) and forensics. Ends at the first entry the bookie does not
  // send (it lacks it, or the call's byte budget ran out); `next` is that
  // entry's id (past `last` when all came).
  struct StreamedRange {
    int64_t entries = 0;
    int64_t bytes = 0;  // stored entry sizes (header, payload, digest)
    int64_t next = 0;
  };
  // `per_message`: entries the bookie may pack into one message.
  absl::StatusOr<StreamedRange> StreamEntries(int64_t ledger_id, int64_t first,
                                              int64_t last, int64_t stride,
                                              absl::Duration timeout,
                                              uint32_t per_message = 1);

  // The sanity check: a one-bookie ledger (E = W = A = 1) on this bookie is
  // created in `store`, one entry is added and read back over this
  // connection, and the ledger is deleted again (the bookie drops the entry
  // at its next garbage collection). `timeout` bounds the add and the read
  // each. OK, or the first step that failed. REQUIRES: store outlives the
  // call.
  absl::Status SanityCheck(metadata::MetadataStore* store,
                           absl::Duration timeout);

 private:
  BookieAdmin(std::string bookie_id, std::string endpoint,
              std::unique_ptr<internal::BookieClient> connection);

  // Adds entry `entry_id` of `ledger_id` (CRC32C, LAC -1) with the master
  // key of `password`, and waits for the bookie's answer.
  absl::Status AddEntry(int64_t ledger_id, int64_t entry_id,
                        const std::string& password, absl::string_view payload,
                        absl::Duration timeout);

  // Constant after construction.
  const std::string bookie_id_;
  const std::string endpoint_;
  // Own synchronisation (thread-safe).
  const std::unique_ptr<internal::BookieClient> connection_;
};

}  // namespace bk::client

#endif  // BK_CLIENT_BOOKIE_ADMIN_H_
