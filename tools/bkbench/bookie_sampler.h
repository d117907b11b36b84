// BookieSampler: the bookies' own view of a run. Once a second it asks
// every registered bookie for its load report (GetBookieInfo: write bytes
// per second, journal IO utilisation, adds in flight, p99 add latency); at
// Start() and Stop() it scrapes each bookie's /metrics for the read-cache
// and write-cache counters, so the run's hit ratio is the difference.
//
// The bookies are asked through client::BookieAdmin, one connection each,
// with the client's TLS settings given to Create.
//
// Threads: one sampling thread of its own between Start() and Stop(); the
// accessors are for after Stop().

#ifndef BK_TOOLS_BKBENCH_BOOKIE_SAMPLER_H_
#define BK_TOOLS_BKBENCH_BOOKIE_SAMPLER_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/bookie_admin.h"
#include "client/client_options.h"

namespace bk::bkbench {

struct BookieLoadPoint {
  double t_s = 0;
  double write_mb_per_s = -1;
  double journal_util = -1;  // percent
  int64_t adds_in_flight = -1;
  double add_p99_ms = -1;
};

struct CacheCounters {
  double read_cache_hits = 0;
  double read_cache_misses = 0;
  double write_cache_hits = 0;
  bool scraped = false;
};

// after - before, counter by counter; scraped only if both were.
CacheCounters CacheDelta(const CacheCounters& before,
                         const CacheCounters& after);

struct BookieSeries {
  std::string id;
  std::string rack;
  std::string grpc;
  std::string http;
  std::vector<BookieLoadPoint> points;
  CacheCounters at_start, at_end;
};

class BookieSampler {
 public:
  // Lists the registered bookies of client.metadata_service_uri now
  // (writable and read-only), with the client's ZooKeeper credentials; asks
  // them with its TLS settings.
  static absl::StatusOr<std::unique_ptr<BookieSampler>> Create(
      const client::ClientOptions& client);
  ~BookieSampler();

  void Start(absl::Time run_start);
  void Stop();

  const std::vector<BookieSeries>& bookies() const { return bookies_; }
  // The bookies' HTTP endpoints ("host:port"; empty where a bookie has
  // none), fixed at Create: safe from any thread.
  const std::vector<std::string>& http() const { return http_; }

  // The cache counters of every bookie scraped now and summed (scraped
  // only if every bookie answered). Safe from any thread, at any time.
  CacheCounters CacheTotals() const;

 private:
  BookieSampler() = default;
  void SampleOnce();

  std::vector<BookieSeries> bookies_;  // written by the sampling thread only
  std::vector<std::string> http_;      // bookies_[i].http; constant
  // admins_[i] reaches bookies_[i]; used by the sampling thread only.
  std::vector<std::unique_ptr<client::BookieAdmin>> admins_;
  absl::Time run_start_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

// Sums the samples of `name` (any labels) in Prometheus text format; -1 if
// absent.
double SumMetric(const std::string& text, const std::string& name);
// GET http://host:port/path with a bounded wait; the body, or an error.
absl::StatusOr<std::string> HttpGetBody(const std::string& host_port,
                                        const std::string& path);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_BOOKIE_SAMPLER_H_
