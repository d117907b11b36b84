// ServiceProbe: the gRPC service's Prometheus metrics, with every handle
// taken at construction so the request path does no label lookups and
// builds no strings (STYLE.md 13).
//
// Names follow Prometheus conventions: snake_case, base units (seconds,
// bytes), `_total` counters; the bookie id is a constant label on the
// registry's families, never part of a name.

#ifndef BK_BOOKIE_SERVICE_SERVICE_PROBE_H_
#define BK_BOOKIE_SERVICE_SERVICE_PROBE_H_

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>

#include "proto/bookie.pb.h"

namespace bk::bookie {

class ServiceProbe {
 public:
  // `registry` must outlive the probe.
  ServiceProbe(prometheus::Registry& registry, const std::string& bookie_id);

  void AddDone(double seconds, proto::StatusCode code);
  void ReadDone(double seconds, proto::StatusCode code);
  void AddBatchReceived(size_t entries, size_t bytes);
  void Rejected(proto::StatusCode code);  // ETOOMANYREQUESTS, EBADREQ, ...
  void AddsInFlight(int64_t n) { adds_in_flight_->Set(static_cast<double>(n)); }
  void ReadsInFlight(int64_t n) {
    reads_in_flight_->Set(static_cast<double>(n));
  }
  void LongPollsParked(int64_t n) {
    long_polls_parked_->Set(static_cast<double>(n));
  }
  void AddStreamsPaused(int64_t n) {
    add_streams_paused_->Set(static_cast<double>(n));
  }

 private:
  static constexpr int kCodes = proto::StatusCode_ARRAYSIZE;
  std::array<prometheus::Counter*, kCodes> adds_by_code_{};
  std::array<prometheus::Counter*, kCodes> reads_by_code_{};
  std::array<prometheus::Counter*, kCodes> rejected_by_code_{};
  prometheus::Histogram* add_latency_;
  prometheus::Histogram* read_latency_;
  prometheus::Histogram* add_batch_entries_;
  prometheus::Counter* add_bytes_;
  prometheus::Gauge* adds_in_flight_;
  prometheus::Gauge* reads_in_flight_;
  prometheus::Gauge* add_streams_paused_;
  prometheus::Gauge* long_polls_parked_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_SERVICE_SERVICE_PROBE_H_
