// TailReader: one reader of one ledger written by a WriteLoad in the same
// process. At its join time it opens the ledger without recovery, reads
// from entry 0 on with LedgerReader::Tail: ranges up to the last add
// confirmed (the backlog, for a reader that joins late), then the entries
// the bookies push as they are confirmed (or long polls, with the client's
// tailStreamEnabled off). It measures, per entry, entry added -> entry read
// from the timestamp WriteLoad stamps into each payload.
//
// Caught up: the first entry read that was added less than
// caught_up_age_ms ago. Entries read from then on count towards the tailing
// latency; those before are the catch-up.
//
// Once the writer has closed the ledger, Finish(last) lets the reader read
// to `last` (the tail learns the close from the ledger's metadata, which
// confirms the final entries no later entry carries the LAC of) and joins
// its thread.
//
// Where its backlog came from: given `cache_totals` (the bookies' cache
// counters summed, BookieSampler::CacheTotals), it scrapes them when it
// joins and again, on a thread of its own, once it has read the backlog's
// last entry; the difference is the backlog's read-cache and write-cache
// hits and its misses, give or take the other readers' reads in between.
//
// Threads: Start() and Finish() from the owner's thread; Position() and
// Joined() from any thread.

#ifndef BK_TOOLS_BKBENCH_TAIL_READER_H_
#define BK_TOOLS_BKBENCH_TAIL_READER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "tools/bkbench/bookie_sampler.h"
#include "tools/bkbench/histogram.h"
#include "tools/bkbench/scenario_spec.h"

namespace bk::bkbench {

struct ReaderResult {
  std::string name;
  int ledger_index = 0;
  int64_t ledger_id = -1;
  double join_s = -1;           // when it opened the ledger, from run start
  int64_t backlog_at_join = 0;  // entries confirmed when it joined
  double catch_up_s = -1;       // join -> caught up; -1: never
  double catch_up_rate = 0;     // entries/s read while catching up
  // Join -> the backlog's last entry read (-1: never), and its rate: the
  // backlog alone, without chasing the entries written meanwhile.
  double backlog_s = -1;
  double backlog_rate = 0;
  double open_ms = -1;         // OpenLedger's wall time, before the join
  double first_entry_ms = -1;  // join -> the first entry read
  // The bookies' cache counters from join to the backlog's last entry
  // (scraped false: not measured).
  CacheCounters backlog_cache;
  // The same entries streamed by raw ReadEntries calls after the run
  // (read_ceiling.h), entries/s; 0 when not measured.
  double stream_ceiling_rate = 0;
  // The same backlog streamed the same way at the same join time, beside
  // the same writers, in the "streams" run (backlog_stream.h); 0 when not
  // measured.
  double stream_beside_writers_rate = 0;
  int64_t entries_read = 0;
  // Reads that failed and were tried again (each is counted; the reader
  // goes on from where it was), and reads that never succeeded (the reader
  // stopped short of the writer's last entry).
  int64_t retries = 0;
  std::string first_retry_error;
  int64_t errors = 0;
  std::string first_error;
  LatencyHistogram tail_latency;  // added -> read, once caught up
};

class TailReader {
 public:
  // `client` must outlive the reader. `writer_lac` gives the writer's LAC
  // (for the backlog at join); it is called from the reader's thread.
  TailReader(client::Client* client, ReaderSpec spec, int64_t ledger_id,
             std::string password, absl::Time run_start,
             std::function<int64_t()> writer_lac,
             std::function<CacheCounters()> cache_totals = nullptr);
  ~TailReader();

  void Start();
  // REQUIRES: the writer is done and `last_entry` is its last entry.
  // Bounded by `timeout`; a reader still short of last_entry then records an
  // error.
  ReaderResult Finish(int64_t last_entry, absl::Duration timeout);

  bool Joined() const { return joined_.load(); }
  // Entries read and the p99 of their added -> read latency since the last
  // call (ms; -1 if none): the per-second series.
  std::pair<int64_t, double> TakeSecond();
  // The next entry it will read (entries read so far).
  int64_t Position() const { return next_.load(); }

 private:
  void Run();
  // Accounts for the next entry read; false (recorded, stop_ set) when it
  // is not the one expected.
  bool Record(const client::LedgerEntry& e);
  // A failed attempt; the loop tries again (up to a bound).
  void RecordRetry(const absl::Status& s);
  void RecordError(const absl::Status& s);

  // Constant after construction.
  client::Client* const client_;
  const ReaderSpec spec_;
  const int64_t ledger_id_;
  const std::string password_;
  const absl::Time run_start_;
  const std::function<int64_t()> writer_lac_;
  const std::function<CacheCounters()> cache_totals_;

  std::thread thread_;
  std::thread scrape_;           // the backlog's closing scrape
  CacheCounters cache_at_join_;  // the reader thread's, until scrape_ starts
  std::atomic<bool> joined_{false};
  std::atomic<int64_t> next_{0};
  std::atomic<bool> stop_{false};

  absl::Mutex mu_;
  int64_t final_last_ ABSL_GUARDED_BY(mu_) = -2;  // -2: writer still writing
  ReaderResult result_ ABSL_GUARDED_BY(mu_);
  absl::Time caught_up_at_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  absl::Time joined_at_ ABSL_GUARDED_BY(mu_);
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  LatencyHistogram second_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_TAIL_READER_H_
