// ClientOptions from BookKeeper-named keys.

#include <catch2/catch.hpp>

#include "client/client_config.h"
#include "client/client_options.h"

namespace bk::client {
namespace {

TEST_CASE("client options are read from BookKeeper's key names", "[client]") {
  auto o = ClientOptionsFromKeys({{"metadataServiceUri", "zk://h:2181/l"},
                                  {"addEntryTimeoutSec", "3"},
                                  {"speculativeReadTimeout", "250"},
                                  {"bookieErrorThresholdPerInterval", "7"},
                                  {"bookieQuarantineTimeSeconds", "60"},
                                  {"getBookieInfoIntervalSeconds", "2.5"},
                                  {"maxPendingAddsBytes", "8MiB"},
                                  {"placementWeighting", "adaptive"},
                                  {"minNumRacksPerWriteQuorum", "3"}});
  REQUIRE(o.ok());
  CHECK(o->metadata_service_uri == "zk://h:2181/l");
  CHECK(o->add_entry_timeout == absl::Seconds(3));
  CHECK(o->speculative_read_timeout == absl::Milliseconds(250));
  CHECK(o->bookie_error_threshold_per_interval == 7);
  CHECK(o->bookie_quarantine_time == absl::Seconds(60));
  CHECK(o->get_bookie_info_interval == absl::Milliseconds(2500));
  CHECK(o->max_pending_adds_bytes == 8 << 20);
  CHECK(o->placement.weighting == placement::Weighting::kAdaptive);
  CHECK(o->placement.min_num_racks_per_write_quorum == 3);
  CHECK(ClientOptionsFromKeys({{"diskWeightBasedPlacementEnabled", "true"}})
            ->placement.weighting == placement::Weighting::kDisk);
}

TEST_CASE("region-aware placement keys set the policy's region mode",
          "[client]") {
  auto o = ClientOptionsFromKeys(
      {{"ensemblePlacementPolicy", "region-aware"},
       {"reppMinimumRegionsForDurability", "3"},
       {"reppEnableDurabilityEnforcementInReplace", "false"},
       {"reppRegionsToWrite", "east;west, north"},
       {"clientRegion", "east"}});
  REQUIRE(o.ok());
  const placement::RegionOptions& r = o->placement.region;
  CHECK(r.enabled);
  CHECK(r.min_regions_for_durability == 3);
  CHECK_FALSE(r.enforce_durability_in_replace);
  CHECK(r.regions_to_write ==
        std::vector<std::string>{"east", "west", "north"});
  CHECK(r.local_region == "east");
  CHECK_FALSE(ClientOptionsFromKeys({})->placement.region.enabled);
  auto bad = ClientOptionsFromKeys({{"ensemblePlacementPolicy", "zone"}});
  REQUIRE(absl::IsInvalidArgument(bad.status()));
  CHECK(bad.status().message().find("ensemblePlacementPolicy") !=
        absl::string_view::npos);
  auto slash = ClientOptionsFromKeys({{"clientRegion", "a/b"}});
  CHECK(absl::IsInvalidArgument(slash.status()));
}

TEST_CASE("the adaptive policy's constants are client keys, checked",
          "[client]") {
  auto o = ClientOptionsFromKeys(
      {{"placementWeighting", "adaptive"},
       {"adaptivePlacementReportWindowSeconds", "1.5"},
       {"adaptivePlacementMaxReportAgeSeconds", "120"},
       {"adaptivePlacementAvoidUtilPercent", "80"},
       {"adaptivePlacementBigSlotMultiple", "2"},
       {"adaptivePlacementBigSlotUtilPercent", "40"},
       {"adaptivePlacementBigSlotChoices", "4"},
       {"adaptivePlacementReserveForBig", "2"},
       {"adaptivePlacementSmallSlotMaxMultiple", "0"},
       {"adaptivePlacementRankSpread", "0.1"},
       {"adaptivePlacementRateMemory", "64"},
       {"adaptivePlacementRanklessTilt", "0.25"},
       {"adaptivePlacementSlowLatencyMultiple", "-1"},
       {"adaptivePlacementObservationMaxAgeSeconds", "5"},
       {"adaptivePlacementLeastLoadedReportAgeSeconds", "0.5"},
       {"adaptivePlacementRankMatchMinSpread", "0.5"},
       {"adaptivePlacementShareNewLedgers", "false"}});
  REQUIRE(o.ok());
  const placement::AdaptiveOptions& a = o->placement.adaptive;
  CHECK(a.report_window == absl::Milliseconds(1500));
  CHECK(a.max_report_age == absl::Seconds(120));
  CHECK(a.avoid_util_percent == 80);
  CHECK(a.big_slot_multiple == 2);
  CHECK(a.big_slot_util_percent == 40);
  CHECK(a.big_slot_choices == 4);
  CHECK(a.reserve_for_big == 2);
  CHECK(a.small_slot_max_multiple == 0);
  CHECK(a.rank_spread == 0.1);
  CHECK(a.rate_memory == 64);
  CHECK(a.rankless_tilt == 0.25);
  CHECK(a.slow_latency_multiple == -1);
  CHECK(a.observation_max_age == absl::Seconds(5));
  CHECK(a.least_loaded_report_age == absl::Milliseconds(500));
  CHECK(a.rank_match_min_spread == 0.5);
  CHECK_FALSE(a.share_new_ledgers);
  CHECK(ClientOptionsFromKeys({})->placement.adaptive.share_new_ledgers);
  // Defaults are the policy's own.
  CHECK(ClientOptionsFromKeys({})->placement.adaptive.rate_memory ==
        placement::AdaptiveOptions().rate_memory);
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{
           {"adaptivePlacementRankSpread", "2"},
           {"adaptivePlacementRateMemory", "4"},
           {"adaptivePlacementBigSlotChoices", "0"},
           {"adaptivePlacementRanklessTilt", "1"},
           {"adaptivePlacementLeastLoadedReportAgeSeconds", "-1"},
           {"adaptivePlacementRankMatchMinSpread", "-0.5"}}) {
    auto bad = ClientOptionsFromKeys({{key, value}});
    INFO(key << "=" << value);
    REQUIRE(absl::IsInvalidArgument(bad.status()));
    CHECK(bad.status().message().find(key) != absl::string_view::npos);
  }
}

TEST_CASE("an unknown client key or a bad value is an error naming it",
          "[client]") {
  auto unknown = ClientOptionsFromKeys({{"addEntryTimeout", "3"}});
  REQUIRE(absl::IsInvalidArgument(unknown.status()));
  CHECK(unknown.status().message().find("addEntryTimeout") !=
        absl::string_view::npos);
  auto bad = ClientOptionsFromKeys({{"placementWeighting", "fastest"}});
  CHECK(absl::IsInvalidArgument(bad.status()));
  auto tls = ClientOptionsFromKeys({{"tlsCertificatePath", "/c.pem"}});
  CHECK(absl::IsInvalidArgument(tls.status()));
  CHECK(ClientConfigHelp().find("getBookieInfoIntervalSeconds") !=
        std::string::npos);
}

TEST_CASE("loading no client key gives ClientOptions' defaults", "[client]") {
  auto o = ClientOptionsFromKeys({});
  REQUIRE(o.ok());
  const auto& table = ClientConfigTable();
  CHECK(table.Values(*o) == table.Values(ClientOptions()));
  // Every key but the alias diskWeightBasedPlacementEnabled and the list
  // reppRegionsToWrite (';' or ',' separated) is a field's.
  CHECK(table.Values(ClientOptions()).size() + 2 ==
        table.schema().options().size());
  CHECK(table.schema().Find("speculativeReadTimeout")->default_value == "500");
  CHECK(table.schema().Find("addEntryTimeoutSec")->default_value == "10");
}

}  // namespace
}  // namespace bk::client
