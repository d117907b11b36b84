// BookieServiceImpl: the `Bookie` gRPC service (proto/bookie.proto) on top of
// a BookieStore, with gRPC's callback API so no thread waits per stream.
//
// Adds arrive as batches on a bidirectional stream; every entry of a batch
// is handed to the store at once and answered when its journal group is
// synced, so one stream keeps many batches in flight and answers may come
// out of order. Admission control is atomic permit counters, no lock: past
// a limit a request gets ETOOMANYREQUESTS. Adds have one pool; reads three,
// so that no kind of read waits behind another:
//   - ordinary reads and range-read streams;
//   - fencing reads and recovery reads (FENCE_LEDGER, HIGH_PRIORITY), as
//     BookKeeper serves them on its high-priority pool: ledger recovery
//     fences and reads even while ordinary reads hold every ordinary permit;
//   - long polls, for as long as they are parked waiting for the LAC, and
//     tailing streams (TailEntries) for their whole life; they hold no read
//     permit, and a cancelled poll or stream leaves its pool at once.
// Each pool has max_pending_reads permits. A range-read stream is cancelled
// by the server after range_read_timeout, so a client that stops reading
// it does not keep its permit.
// A message larger than max_message_bytes is answered EBADREQ entry by entry
// and the stream goes on; gRPC's own hard limit sits well above it.
//
// Backpressure: an add is "in progress" on its stream from the moment its
// message is read until the write carrying its answer completes (as
// BookKeeper counts requests in progress). A stream with
// max_adds_in_progress_per_stream adds in progress stops reading; it reads
// again once half of them are answered on the wire. So a client that never
// reads its answers holds at most that many answers (plus what gRPC's flow
// control windows hold) instead of growing the bookie without bound, and
// other streams are unaffected.
//
// Thread-safety: every handler runs on gRPC's threads; the object must
// outlive the grpc::Server it is registered with.

#ifndef BK_BOOKIE_SERVICE_BOOKIE_SERVICE_H_
#define BK_BOOKIE_SERVICE_BOOKIE_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "bookie/bookie_store.h"
#include "bookie/service/service_probe.h"
#include "bookie/service/windowed_latency.h"
#include "bookie/storage/entry_block_pool.h"
#include "common/deadline_timer.h"
#include "common/executor.h"
#include "proto/bookie.grpc.pb.h"

namespace bk::bookie {

// Most entry ids one GetListOfEntriesOfLedger answer carries (512 KiB of
// ids at most); a client pages on with next_entry_id.
inline constexpr size_t kListEntriesPage = 65536;

struct ServiceOptions {
  // maxPendingAddRequestsPerThread: adds in flight before ETOOMANYREQUESTS.
  int64_t max_pending_adds = 10000;
  // maxPendingReadRequestsPerThread: reads in flight before ETOOMANYREQUESTS.
  int64_t max_pending_reads = 10000;
  // nettyMaxFrameSizeBytes: largest add message served; larger get EBADREQ.
  size_t max_message_bytes = 5u << 20;
  // maxAddsInProgressPerStream: adds read from one stream and not yet
  // answered on the wire before the stream stops being read.
  int64_t max_adds_in_progress_per_stream = 5000;
  // Most bytes one ReadEntries response stream carries (0: 16 MiB).
  size_t max_range_read_bytes = 16u << 20;
  // rangeReadTimeoutMs: longest life of a ReadEntries stream.
  absl::Duration range_read_timeout = absl::Seconds(60);
  // rangeReadNice: 0 reads a range's entries on gRPC's threads, beside the
  // adds; 1..19 on one thread of the bookie's own at that niceness, so that
  // a catch-up read takes the CPU adds leave. bench/results/
  // bkbench_catch_up.md: at 10, on a 2-core machine running the whole
  // cluster, the writers' add p99 during a 60 MiB catch-up stayed within
  // 1.22-1.44x of no readers (1.48-1.91x at 0) while the catch-up read a
  // third as fast.
  int range_read_nice = 0;
  // Longest long-poll wait a client may ask for.
  absl::Duration max_long_poll = absl::Seconds(30);
  // tailEntriesEnabled (ours, true): serve TailEntries streams. Off, the
  // bookie answers them UNIMPLEMENTED, as a bookie that predates them does,
  // and tailing readers long-poll it instead.
  bool tail_entries = true;
  // Window of the add-latency quantile in load reports (the load monitor's
  // window: stat interval x slide window size).
  int latency_window_seconds = 3;
  // Where add streams pack received entries' 256 KiB blocks (the daemon
  // sizes it to the write cache and touches it at start:
  // writeCachePreTouch); null: every block from malloc.
  std::shared_ptr<EntryBlockPool> entry_blocks;
};

// Fills a GetBookieInfo answer for the requested bits (the daemon combines
// the load monitor, disk figures and store stats).
using InfoProvider =
    std::function<proto::GetBookieInfoResponse(uint64_t requested)>;

// Atomic counting permits; no lock.
class Permits {
 public:
  explicit Permits(int64_t limit) : limit_(limit) {}
  bool TryAcquire() {
    if (in_use_.fetch_add(1, std::memory_order_acq_rel) >= limit_) {
      in_use_.fetch_sub(1, std::memory_order_acq_rel);
      return false;
    }
    return true;
  }
  void Release() { in_use_.fetch_sub(1, std::memory_order_acq_rel); }
  int64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }

 private:
  const int64_t limit_;
  std::atomic<int64_t> in_use_{0};
};

// The generated callback service with every method registered raw (bytes
// both ways; the handlers parse and serialize). AddEntries, so that an
// undecodable message ends its stream with INVALID_ARGUMENT instead of
// looking like the client's half-close; the others, so that an undecodable
// request is INVALID_ARGUMENT, not gRPC's UNIMPLEMENTED (raw_stream.h,
// raw_unary.h).
using BookieServiceBase = proto::Bookie::WithRawCallbackMethod_AddEntries<
    proto::Bookie::WithRawCallbackMethod_ReadEntry<
        proto::Bookie::WithRawCallbackMethod_ReadEntries<
            proto::Bookie::WithRawCallbackMethod_TailEntries<
                proto::Bookie::WithRawCallbackMethod_ReadLac<
                    proto::Bookie::WithRawCallbackMethod_WriteLac<
                        proto::Bookie::WithRawCallbackMethod_ForceLedger<
                            proto::Bookie::
                                WithRawCallbackMethod_GetListOfEntriesOfLedger<
                                    proto::Bookie::
                                        WithRawCallbackMethod_GetBookieInfo<
                                            proto::Bookie::Service>>>>>>>>>;

class BookieServiceImpl final : public BookieServiceBase {
 public:
  // `store` and `probe` (may be null) must outlive the service.
  BookieServiceImpl(BookieStore* store, ServiceOptions options,
                    InfoProvider info, ServiceProbe* probe);

  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* AddEntries(
      grpc::CallbackServerContext* ctx) override;
  grpc::ServerUnaryReactor* ReadEntry(grpc::CallbackServerContext* ctx,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  // range_read.cc: a ReadEntriesRequest in, ReadEntryResponse messages out.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* ReadEntries(
      grpc::CallbackServerContext* ctx,
      const grpc::ByteBuffer* request) override;
  // tail_stream.cc: holds a long-poll permit for the stream's life.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* TailEntries(
      grpc::CallbackServerContext* ctx,
      const grpc::ByteBuffer* request) override;
  grpc::ServerUnaryReactor* ReadLac(grpc::CallbackServerContext* ctx,
                                    const grpc::ByteBuffer* request,
                                    grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* WriteLac(grpc::CallbackServerContext* ctx,
                                     const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ForceLedger(grpc::CallbackServerContext* ctx,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetListOfEntriesOfLedger(
      grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* request,
      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetBookieInfo(grpc::CallbackServerContext* ctx,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;

  int64_t adds_in_flight() const { return add_permits_.in_use(); }
  // p99 add latency over the last latency_window_seconds, ms; -1 if no adds.
  double add_latency_p99_ms() const {
    const double s = add_latency_.Quantile(0.99, WindowedLatency::NowSeconds());
    return s < 0 ? -1 : s * 1e3;
  }
  void RecordAddLatency(double seconds) {
    add_latency_.Record(seconds, WindowedLatency::NowSeconds());
  }
  int64_t reads_in_flight() const {
    return read_permits_.in_use() + priority_read_permits_.in_use();
  }
  // Long polls waiting for their ledger's LAC to move, and tail streams.
  int64_t long_polls_parked() const { return long_poll_permits_.in_use(); }
  // Add streams not being read because of unanswered adds.
  int64_t add_streams_paused() const {
    return add_streams_paused_.load(std::memory_order_relaxed);
  }
  // Add streams whose reactor is alive (created, OnDone not yet run). A
  // stream lives at least until every add it handed to the store has
  // called back.
  int64_t add_streams_open() const {
    return add_streams_open_.load(std::memory_order_relaxed);
  }

  // Internal to the service's reactors.
  BookieStore* store() const { return store_; }
  const ServiceOptions& options() const { return options_; }
  ServiceProbe* probe() const { return probe_; }
  Permits& add_permits() { return add_permits_; }
  Permits& read_permits() { return read_permits_; }
  Permits& long_poll_permits() { return long_poll_permits_; }
  DeadlineTimer& timer() { return timer_; }
  // Runs a range read's next message: inline, or on the range-read thread
  // when rangeReadNice is set.
  void RunRangeRead(absl::AnyInvocable<void()> step);
  // Fills `resp` for a read refused with `code` before the store saw it
  // (counted as rejected); max_lac -1: unknown, as 0 would claim entry 0 is
  // confirmed.
  void FillRefusedRead(const proto::ReadEntryRequest& req,
                       proto::StatusCode code, proto::ReadEntryResponse* resp);
  // Fills `resp` with the entry (or the error) for a plain read.
  void FillRead(uint64_t ledger_id, int64_t entry_id,
                proto::ReadEntryResponse* resp);
  void AddStreamPaused(bool paused) {
    add_streams_paused_.fetch_add(paused ? 1 : -1, std::memory_order_relaxed);
  }
  void AddStreamOpen(bool open) {
    add_streams_open_.fetch_add(open ? 1 : -1, std::memory_order_relaxed);
  }

 private:
  // A long poll (long_poll.cc): parked in the store with no read permit.
  // `response` is the call's raw answer buffer.
  grpc::ServerUnaryReactor* LongPoll(const proto::ReadEntryRequest& req,
                                     grpc::ByteBuffer* response);

  // Constant after construction.
  BookieStore* const store_;
  const ServiceOptions options_;
  const InfoProvider info_;
  ServiceProbe* const probe_;

  // Own synchronisation.
  WindowedLatency add_latency_;
  Permits add_permits_;
  Permits read_permits_;
  Permits priority_read_permits_;
  Permits long_poll_permits_;
  std::atomic<int64_t> add_streams_paused_{0};
  std::atomic<int64_t> add_streams_open_{0};
  DeadlineTimer timer_;  // range-read deadlines
  // The range-read thread, when rangeReadNice > 0.
  std::unique_ptr<Executor> range_reads_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_SERVICE_BOOKIE_SERVICE_H_
