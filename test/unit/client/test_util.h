// Shared helpers of the client tests: a client on LocalBookies with short
// timeouts and a printed seed, bounded waits on completions.

#ifndef BK_TEST_UNIT_CLIENT_TEST_UTIL_H_
#define BK_TEST_UNIT_CLIENT_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "client/client.h"
#include "metadata/metadata_store.h"
#include "prometheus/registry.h"
#include "test/support/clock_env.h"
#include "test/support/poll_until.h"
#include "test/support/test_seed.h"
#include "test/unit/client/local_bookies.h"

namespace bk::client::testing {

using bk::testing::PollUntil;

using bk::testing::TestSeed;

inline ClientOptions FastOptions(const LocalBookies& bookies) {
  ClientOptions o;
  o.metadata_service_uri = bookies.metadata_uri();
  o.add_entry_timeout = absl::Seconds(2);
  o.read_entry_timeout = absl::Seconds(2);
  o.speculative_read_timeout = absl::Milliseconds(200);
  o.get_bookie_info_interval = absl::Milliseconds(200);
  o.placement.min_num_racks_per_write_quorum = 1;
  o.seed = TestSeed();
  return o;
}

inline std::unique_ptr<Client> MakeClient(const ClientOptions& o) {
  INFO("seed " << o.seed << " (rerun with BK_TEST_SEED=" << o.seed << ")");
  auto c = Client::Create(o);
  REQUIRE(c.ok());
  return std::move(*c);
}

inline absl::StatusOr<int64_t> Get(std::future<absl::StatusOr<int64_t>>& f) {
  if (f.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    return absl::DeadlineExceededError("no completion within 30 s");
  }
  return f.get();
}

inline std::string Payload(int64_t e) { return "entry-" + std::to_string(e); }

inline proto::LedgerMetadata ReadMetadata(const LocalBookies& b, int64_t id) {
  auto store = metadata::Open(b.metadata_uri());
  REQUIRE(store.ok());
  auto md = (*store)->ReadLedger(id);
  REQUIRE(md.ok());
  return md->value;
}

// Appends entries first..last without waiting; returns their futures.
inline std::vector<std::future<absl::StatusOr<int64_t>>> AppendAll(
    LedgerWriter* w, int first, int last) {
  std::vector<std::future<absl::StatusOr<int64_t>>> fs;
  for (int e = first; e <= last; ++e) fs.push_back(w->Append(Payload(e)));
  return fs;
}

// Waits for AppendAll's futures: each confirmed as first, first + 1, ...
inline void ExpectAllConfirmed(
    std::vector<std::future<absl::StatusOr<int64_t>>>& fs, int first) {
  for (size_t i = 0; i < fs.size(); ++i) {
    auto r = Get(fs[i]);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    REQUIRE(*r == first + static_cast<int64_t>(i));
  }
}

// Appends entries first..last one at a time, so that each entry carries
// the LAC of the one before, and checks each is confirmed as itself.
inline void AppendConfirmed(LedgerWriter* w, int first, int last) {
  for (int e = first; e <= last; ++e) {
    auto f = w->Append(Payload(e));
    auto r = Get(f);
    INFO("entry " << e << ": " << r.status().ToString());
    REQUIRE(r.ok());
    REQUIRE(*r == e);
  }
}

// Reads first..last and checks each payload is Payload(e).
inline void ExpectEntries(LedgerReader* r, int64_t first, int64_t last) {
  auto it = r->Read(first, last);
  LedgerEntry e;
  int64_t expect = first;
  while (it->Next(&e)) {
    REQUIRE(e.entry_id == expect);
    REQUIRE(e.payload == Payload(expect));
    ++expect;
  }
  INFO(it->status().ToString());
  REQUIRE(it->status().ok());
  REQUIRE(expect == last + 1);
}

// The value of a counter or gauge (summed over its labels) in the
// client's registry; -1 when absent.
inline double Metric(const Client& client, const std::string& name) {
  double sum = -1;
  for (const auto& family : client.metrics_registry()->Collect()) {
    if (family.name != name) continue;
    sum = 0;
    for (const auto& m : family.metric) {
      sum += m.counter.value + m.gauge.value;
    }
  }
  return sum;
}

}  // namespace bk::client::testing

#endif  // BK_TEST_UNIT_CLIENT_TEST_UTIL_H_
