#include "bookie/service/service_probe.h"

#include "common/histogram_bounds.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

prometheus::Histogram::BucketBoundaries LatencyBuckets() {
  // 50 us .. 20 s, four per octave (common/histogram_bounds.h).
  return ExponentialBounds(50e-6, 20, kLatencyBoundsPerOctave);
}

}  // namespace

ServiceProbe::ServiceProbe(prometheus::Registry& registry,
                           const std::string& bookie_id) {
  const prometheus::Labels id{{"bookie", bookie_id}};
  auto& adds = prometheus::BuildCounter()
                   .Name("bookie_add_requests_total")
                   .Help("Add requests answered, by status code")
                   .Labels(id)
                   .Register(registry);
  auto& reads = prometheus::BuildCounter()
                    .Name("bookie_read_requests_total")
                    .Help("Read requests answered, by status code")
                    .Labels(id)
                    .Register(registry);
  auto& rejected = prometheus::BuildCounter()
                       .Name("bookie_rejected_requests_total")
                       .Help(
                           "Requests refused before reaching storage "
                           "(permits exhausted, oversize, malformed)")
                       .Labels(id)
                       .Register(registry);
  for (int c = 0; c < kCodes; ++c) {
    if (!proto::StatusCode_IsValid(c)) continue;
    const char* name = WireCodeName(static_cast<proto::StatusCode>(c));
    adds_by_code_[c] = &adds.Add({{"code", name}});
    reads_by_code_[c] = &reads.Add({{"code", name}});
    rejected_by_code_[c] = &rejected.Add({{"code", name}});
  }
  add_latency_ = &prometheus::BuildHistogram()
                      .Name("bookie_add_latency_seconds")
                      .Help("Time from receiving an add to answering it")
                      .Labels(id)
                      .Register(registry)
                      .Add({}, LatencyBuckets());
  read_latency_ = &prometheus::BuildHistogram()
                       .Name("bookie_read_latency_seconds")
                       .Help("Time to answer a read")
                       .Labels(id)
                       .Register(registry)
                       .Add({}, LatencyBuckets());
  add_batch_entries_ =
      &prometheus::BuildHistogram()
           .Name("bookie_add_batch_entries")
           .Help("Entries per received add message")
           .Labels(id)
           .Register(registry)
           .Add({}, prometheus::Histogram::BucketBoundaries{
                        1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024});
  add_bytes_ = &prometheus::BuildCounter()
                    .Name("bookie_add_received_bytes_total")
                    .Help("Packaged entry bytes received in adds")
                    .Labels(id)
                    .Register(registry)
                    .Add({});
  adds_in_flight_ = &prometheus::BuildGauge()
                         .Name("bookie_adds_in_flight")
                         .Help("Adds received and not yet answered")
                         .Labels(id)
                         .Register(registry)
                         .Add({});
  reads_in_flight_ = &prometheus::BuildGauge()
                          .Name("bookie_reads_in_flight")
                          .Help("Reads received and not yet answered")
                          .Labels(id)
                          .Register(registry)
                          .Add({});
  add_streams_paused_ =
      &prometheus::BuildGauge()
           .Name("bookie_add_streams_paused")
           .Help(
               "Add streams not being read: their client has not taken "
               "maxAddsInProgressPerStream answers")
           .Labels(id)
           .Register(registry)
           .Add({});
  long_polls_parked_ = &prometheus::BuildGauge()
                            .Name("bookie_long_polls_parked")
                            .Help(
                                "Long-poll reads waiting for their ledger's "
                                "LAC, and open tail streams (they hold no "
                                "read permit)")
                            .Labels(id)
                            .Register(registry)
                            .Add({});
}

void ServiceProbe::AddDone(double seconds, proto::StatusCode code) {
  add_latency_->Observe(seconds);
  if (auto* c = adds_by_code_[code]) c->Increment();
}

void ServiceProbe::ReadDone(double seconds, proto::StatusCode code) {
  read_latency_->Observe(seconds);
  if (auto* c = reads_by_code_[code]) c->Increment();
}

void ServiceProbe::AddBatchReceived(size_t entries, size_t bytes) {
  add_batch_entries_->Observe(static_cast<double>(entries));
  add_bytes_->Increment(static_cast<double>(bytes));
}

void ServiceProbe::Rejected(proto::StatusCode code) {
  if (auto* c = rejected_by_code_[code]) c->Increment();
}

}  // namespace bk::bookie
