// What a failed GetBookieInfo poll counts towards quarantine
// (ClusterView::OnBookieInfoFailed). A poll that cannot reach the bookie
// makes its connection report the bookie unreachable first (one error for
// the connection's whole failure); that same failure is not counted a
// second time as a failed poll. Later polls of the spell, and polls that
// fail otherwise (a timeout, an error answer), count as before.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "client/client_options.h"
#include "client/internal/cluster_view.h"
#include "metadata/metadata_store.h"
#include "proto/metadata.pb.h"

namespace bk::client::internal {
namespace {

// A view of bookies b0 and b1 that quarantines a bookie at its second
// error within a minute.
std::unique_ptr<ClusterView> View() {
  ClientOptions options;
  options.bookie_error_threshold_per_interval = 1;
  options.bookie_health_check_interval = absl::Minutes(1);
  auto view = std::make_unique<ClusterView>(options, /*seed=*/1,
                                            /*probe=*/nullptr);
  metadata::BookieSet set;
  for (const char* id : {"b0", "b1"}) {
    proto::BookieServiceInfo b;
    b.set_bookie_id(id);
    b.set_grpc_endpoint("127.0.0.1:1");
    set.writable.push_back(b);
  }
  view->SetBookies(set);
  return view;
}

bool Quarantined(const ClusterView& view, const std::string& id) {
  for (const std::string& q : view.Quarantined()) {
    if (q == id) return true;
  }
  return false;
}

TEST_CASE(
    "the poll whose failure the connection reported is not counted twice "
    "but later polls are",
    "[client]") {
  auto view = View();
  const absl::Time t = absl::Now();
  // The poll's connection fails: the report, then the poll's answer.
  view->OnBookieUnreachable("b0", t);
  view->OnBookieInfoFailed("b0", t, /*unavailable=*/true);
  CHECK_FALSE(Quarantined(*view, "b0"));  // one error, not two
  // The next poll of the same spell is an error of its own.
  view->OnBookieInfoFailed("b0", t + absl::Seconds(5), /*unavailable=*/true);
  CHECK(Quarantined(*view, "b0"));
}

TEST_CASE("failed polls that are not the connection's failure all count",
          "[client]") {
  auto view = View();
  const absl::Time t = absl::Now();
  SECTION("timeouts, with no report") {
    view->OnBookieInfoFailed("b0", t, /*unavailable=*/false);
    CHECK_FALSE(Quarantined(*view, "b0"));
    view->OnBookieInfoFailed("b0", t + absl::Seconds(5), false);
    CHECK(Quarantined(*view, "b0"));
  }
  SECTION("a timeout after the report") {
    view->OnBookieUnreachable("b0", t);
    view->OnBookieInfoFailed("b0", t, /*unavailable=*/false);
    CHECK(Quarantined(*view, "b0"));
  }
  SECTION("unavailable polls with no report (a spell already counted)") {
    view->OnBookieInfoFailed("b0", t, /*unavailable=*/true);
    view->OnBookieInfoFailed("b0", t + absl::Seconds(5), true);
    CHECK(Quarantined(*view, "b0"));
  }
  SECTION("an answer in between ends what the report covered") {
    view->OnBookieUnreachable("b0", t);
    proto::GetBookieInfoResponse info;
    info.set_status(proto::BK_EOK);
    view->OnBookieInfo("b0", info, t + absl::Seconds(1));
    view->OnBookieInfoFailed("b0", t + absl::Seconds(2), true);
    CHECK(Quarantined(*view, "b0"));
  }
  CHECK_FALSE(Quarantined(*view, "b1"));
}

}  // namespace
}  // namespace bk::client::internal
