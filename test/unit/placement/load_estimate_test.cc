#include "placement/load_estimate.h"

#include <cmath>
#include <vector>

#include "catch2/catch.hpp"
#include "placement/weighted_selection.h"
#include "test/unit/placement/test_cluster.h"

namespace bk::placement {
namespace {

using testing::Id;
using testing::MakeBookies;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

BookieInfo Writing(double mib_per_second) {
  return BookieInfo{.write_bytes_per_second = mib_per_second * kBytesPerMiB};
}

std::vector<double> EstimateAll(const LoadEstimate& e, const Topology& t,
                                absl::Time now) {
  std::vector<const BookieId*> ids;
  for (const BookieId& id : t.writable()) ids.push_back(&id);
  return e.Estimate(ids, t, now);
}

TEST_CASE(
    "a placement counts in full until a report covers it, then fades "
    "over the report window",
    "[placement]") {
  Topology t;
  t.SetMembers(MakeBookies(2, 1), {});
  t.SetReport(Id(0), Writing(4), kT0);
  t.SetReport(Id(1), Writing(6), kT0);
  LoadEstimate e(absl::Seconds(3), absl::Minutes(5));
  e.OnPlaced(Id(0), 10, kT0 + absl::Seconds(1));

  std::vector<double> est = EstimateAll(e, t, kT0 + absl::Seconds(2));
  CHECK(est[0] == Approx(14));
  CHECK(est[1] == Approx(6));

  // A report received 1.5 s after the placement covers half its window.
  t.SetReport(Id(0), Writing(9), kT0 + absl::Seconds(2.5));
  est = EstimateAll(e, t, kT0 + absl::Seconds(2.5));
  CHECK(est[0] == Approx(9 + 5));

  // A report a whole window after it shows it: nothing pending any more,
  // and Retain forgets it.
  t.SetReport(Id(0), Writing(14), kT0 + absl::Seconds(4));
  est = EstimateAll(e, t, kT0 + absl::Seconds(4));
  CHECK(est[0] == Approx(14));
  e.Retain(t, kT0 + absl::Seconds(4));
  CHECK(e.Pending(Id(0), t) == 0);
}

TEST_CASE(
    "a closed ledger comes off in full until a report covers it, never "
    "below nothing",
    "[placement]") {
  Topology t;
  t.SetMembers(MakeBookies(2, 1), {});
  t.SetReport(Id(0), Writing(30), kT0);
  t.SetReport(Id(1), Writing(4), kT0);
  LoadEstimate e(absl::Seconds(3), absl::Minutes(5));
  // The client closes a 25 MiB/s slot on b0 and a 10 MiB/s one on b1
  // (more than b1 reports: its report was older than that ledger).
  e.OnPlaced(Id(0), -25, kT0 + absl::Seconds(1));
  e.OnPlaced(Id(1), -10, kT0 + absl::Seconds(1));
  std::vector<double> est = EstimateAll(e, t, kT0 + absl::Seconds(2));
  CHECK(est[0] == Approx(5));
  CHECK(est[1] == 0);
  // A report a whole window after the close shows it.
  t.SetReport(Id(0), Writing(5), kT0 + absl::Seconds(4));
  est = EstimateAll(e, t, kT0 + absl::Seconds(4));
  CHECK(est[0] == Approx(5));
  e.Retain(t, kT0 + absl::Seconds(4));
  CHECK(e.Pending(Id(0), t) == 0);
  // 0 and non-finite rates change nothing.
  e.OnPlaced(Id(0), 0, kT0 + absl::Seconds(5));
  e.OnPlaced(Id(0), std::nan(""), kT0 + absl::Seconds(5));
  CHECK(e.Pending(Id(0), t) == 0);
}

TEST_CASE(
    "a bookie without a usable report counts the median of the known "
    "ones, plus its own pending placements",
    "[placement]") {
  Topology t;
  t.SetMembers(MakeBookies(4, 2), {});
  t.SetReport(Id(0), Writing(2), kT0);
  t.SetReport(Id(1), Writing(8), kT0);
  t.SetReport(Id(2), Writing(5), kT0);
  // b3 reported long ago: older than max_report_age, so unknown.
  t.SetReport(Id(3), Writing(500), kT0 - absl::Minutes(10));
  LoadEstimate e(absl::Seconds(3), absl::Minutes(5));
  std::vector<double> est = EstimateAll(e, t, kT0);
  CHECK(est[3] == Approx(5));
  e.OnPlaced(Id(3), 1.5, kT0);
  est = EstimateAll(e, t, kT0);
  CHECK(est[3] == Approx(6.5));
}

TEST_CASE("placements on bookies that left the cluster are forgotten",
          "[placement]") {
  Topology t;
  t.SetMembers(MakeBookies(3, 1), {});
  LoadEstimate e(absl::Seconds(3), absl::Minutes(5));
  e.OnPlaced(Id(2), 7, kT0);
  CHECK(e.Pending(Id(2), t) == 7);
  t.SetMembers(MakeBookies(2, 1), {});
  e.Retain(t, kT0);
  CHECK(e.Pending(Id(2), t) == 0);
}

}  // namespace
}  // namespace bk::placement
