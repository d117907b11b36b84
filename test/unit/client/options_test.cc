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
