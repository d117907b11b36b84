// ClientOptionsFromKeys (declared in client_options.h): the client's
// configuration keys, BookKeeper's names where BookKeeper has the key, each
// bound once to its ClientOptions field (common/config_table.h), read
// strictly through common/config.h (an unknown key or a bad value is an
// error naming the key). A key's default is its field's default.

#include "client/client_config.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace bk::client {
namespace {

using placement::Weighting;

void AddTimeouts(ConfigTable<ClientOptions>& t) {
  t.Value("metadataServiceUri", BK_FIELD(metadata_service_uri), "-", {},
          "zk://host:port[,host:port]/root or mem://[name]");
  t.Value("zkEnableSecurity", BK_FIELD(zk_enable_security), "-", {},
          "authenticate to ZooKeeper with the digest credentials of "
          "zkDigestFile and create znodes readable and writable by them only");
  t.Value("zkDigestFile", BK_FIELD(zk_digest_file), "-", {},
          "file holding the cluster's ZooKeeper credentials, one line "
          "user:password, mode 0600");
  t.SecondsReal("addEntryTimeoutSec", BK_FIELD(add_entry_timeout), {0.001, 1e6},
                "an add unanswered this long fails its bookie");
  t.Millis("addEntryLagTimeoutMs", BK_FIELD(add_entry_lag_timeout), {0, 1e7},
           "an add the rest of its write quorum answered this long ago fails "
           "the one bookie still silent; 0 disables");
  t.SecondsReal("readEntryTimeoutSec", BK_FIELD(read_entry_timeout),
                {0.001, 1e6},
                "longest one read request to one bookie may take");
  t.Millis("speculativeReadTimeout", BK_FIELD(speculative_read_timeout),
           {0, 1e7}, "wait before the next replica is also asked; 0 disables");
  t.Value("readWindow", BK_FIELD(read_window), "entries", {1, 10000},
          "entries read ahead by one range read");
  t.Bytes("readWindowBytes", BK_FIELD(read_window_bytes), "bytes", {},
          "bytes read ahead by one range read (bounds readWindow by the "
          "entry size)");
  t.Value("batchReadEnabled", BK_FIELD(batch_read_enabled), "", {},
          "stream a range: from one bookie when E == WQ, else one strided "
          "stream per write set");
  t.Value("tailStreamEnabled", BK_FIELD(tail_stream_enabled), "", {},
          "a tailing reader takes entries the bookies push as the LAC "
          "passes them, instead of a long poll per entry");
  t.Bytes("maxPendingAddsBytes", BK_FIELD(max_pending_adds_bytes), "bytes", {},
          "packaged bytes of unconfirmed adds per writer");
  t.Millis("pendingAddsWaitMs", BK_FIELD(pending_adds_wait), {0, 1e7},
           "how long Append waits for room before RESOURCE_EXHAUSTED");
  t.Bytes("maxAddBatchBytes", BK_FIELD(max_add_batch_bytes), "bytes", {},
          "largest batched add message sent to one bookie");
  t.Micros("addFlushIntervalMicros", BK_FIELD(add_flush_interval), {0, 1e6},
           "a connection starts a write of adds at most once per this "
           "interval: adds queued sooner after the last write wait for the "
           "rest of it (unless a batch is full), so fast adds go in fewer, "
           "larger messages; 0 = write as soon as the last write is done");
}

void AddHealthAndPolling(ConfigTable<ClientOptions>& t) {
  t.Value("bookieErrorThresholdPerInterval",
          BK_FIELD(bookie_error_threshold_per_interval), "errors", {0, 1e9},
          "errors within the health-check interval that quarantine a bookie "
          "(a failing connection counts once until the bookie answers again)");
  t.SecondsReal("bookieHealthCheckIntervalSeconds",
                BK_FIELD(bookie_health_check_interval), {0.001, 1e7},
                "window the errors are counted in");
  t.SecondsReal("bookieQuarantineTimeSeconds", BK_FIELD(bookie_quarantine_time),
                {0, 1e7}, "how long a quarantined bookie is avoided");
  t.Value("bookieQuarantineReleaseHealthyReports",
          BK_FIELD(quarantine_release_healthy_reports), "reports", {0, 1000},
          "healthy load reports in a row that end a quarantine early; 0 "
          "never");
  t.SecondsReal("getBookieInfoIntervalSeconds",
                BK_FIELD(get_bookie_info_interval), {0.01, 1e7},
                "period of the GetBookieInfo poll of every bookie");
  t.Value("getBookieInfoJitter", BK_FIELD(get_bookie_info_jitter), "fraction",
          {0, 0.99}, "each poll period is interval x [1 - jitter, 1 + jitter]");
  t.SecondsReal("getBookieInfoTimeoutSecs", BK_FIELD(get_bookie_info_timeout),
                {0.001, 1e6}, "longest one GetBookieInfo may take");
}

// The constants of placementWeighting=adaptive (placement/options.h,
// AdaptiveOptions; tools/sim/README.md shows how each was measured).
void AddAdaptivePlacement(ConfigTable<ClientOptions>& t) {
  t.SecondsReal("adaptivePlacementReportWindowSeconds",
                BK_FIELD(placement.adaptive.report_window), {0, 3600},
                "adaptive: span of writes a load report describes; the "
                "client's own placements fade out over it");
  t.SecondsReal("adaptivePlacementMaxReportAgeSeconds",
                BK_FIELD(placement.adaptive.max_report_age), {0.001, 1e6},
                "adaptive: older load reports count as the median bookie");
  t.SecondsReal("adaptivePlacementForecastMaxAgeSeconds",
                BK_FIELD(placement.adaptive.forecast_max_age), {0, 3600},
                "adaptive: load reports are brought forward by the drift "
                "learned from successive reports, for at most this age; 0 "
                "off");
  t.Value("adaptivePlacementAvoidUtilPercent",
          BK_FIELD(placement.adaptive.avoid_util_percent), "percent", {0, 100},
          "adaptive: journal utilisation at which a bookie is left out while "
          "others are eligible");
  t.Value("adaptivePlacementBigSlotMultiple",
          BK_FIELD(placement.adaptive.big_slot_multiple), "multiple",
          {0.001, 1e6},
          "adaptive: a replica's rate hint above this x the mean bookie load "
          "is a big slot");
  t.Value("adaptivePlacementBigSlotUtilPercent",
          BK_FIELD(placement.adaptive.big_slot_util_percent), "percent",
          {0, 100},
          "adaptive: big slots go to bookies at most this utilised, if any");
  t.Value("adaptivePlacementBigSlotChoices",
          BK_FIELD(placement.adaptive.big_slot_choices), "bookies", {1, 1e6},
          "adaptive: a big slot is drawn among this many least loaded (at "
          "most one in 8 of the candidates)");
  t.Value("adaptivePlacementReserveForBig",
          BK_FIELD(placement.adaptive.reserve_for_big), "bookies", {0, 1e6},
          "adaptive: least loaded bookies other slots leave to big ones, "
          "while big slots are among the remembered rates");
  t.Value("adaptivePlacementSmallSlotMaxMultiple",
          BK_FIELD(placement.adaptive.small_slot_max_multiple), "multiple",
          {-1, 1e6},
          "adaptive: other slots choose among bookies at most this x the "
          "mean load; <= 0 no limit");
  t.Value("adaptivePlacementRankSpread",
          BK_FIELD(placement.adaptive.rank_spread), "fraction", {0, 1},
          "adaptive: spread around a rated slot's target load rank");
  t.Value("adaptivePlacementRateMemory",
          BK_FIELD(placement.adaptive.rate_memory), "slots", {8, 1e6},
          "adaptive: recent slot rates a rate's quantile is taken over");
  t.Value("adaptivePlacementRanklessTilt",
          BK_FIELD(placement.adaptive.rankless_tilt), "fraction", {0, 0.999},
          "adaptive: without a rate hint, weight 1 + tilt for the least "
          "loaded down to 1 - tilt");
  t.Value("adaptivePlacementSlowLatencyMultiple",
          BK_FIELD(placement.adaptive.slow_latency_multiple), "multiple",
          {-1, 1e6},
          "adaptive: a bookie whose add latency exceeds this x the median is "
          "left out; <= 0 off");
  t.Value("adaptivePlacementProbeCandidates",
          BK_FIELD(placement.adaptive.probe_candidates), "bookies per slot",
          {0, 1000},
          "adaptive: createLedger and every replacement (ensemble change, "
          "recovery, repair) ask this many bookies per slot for a fresh "
          "GetBookieInfo and choose among those that answer; 0 off");
  t.Value("adaptivePlacementProbeSlowLatencyMultiple",
          BK_FIELD(placement.adaptive.probe_slow_latency_multiple), "multiple",
          {-1, 1e6},
          "adaptive: a probed bookie whose add latency p99 exceeds this x "
          "the median reported is not chosen; <= 0 off");
  t.Value("adaptivePlacementProbeSlowFloorMultiple",
          BK_FIELD(placement.adaptive.probe_slow_floor_multiple), "multiple",
          {-1, 1e6},
          "adaptive: a probed bookie whose add latency p99 exceeds this x "
          "its own floor (the lowest it reported to this client, rising over "
          "adaptivePlacementLatencyFloorMemorySeconds) is not chosen; <= 0 "
          "off");
  t.SecondsReal("adaptivePlacementLatencyFloorMemorySeconds",
                BK_FIELD(placement.adaptive.latency_floor_memory), {1, 1e7},
                "adaptive: how slowly a bookie's latency floor rises to "
                "reports above it (a slowed bookie becomes its own normal)");
  t.Value("adaptivePlacementRankMatchMinSpread",
          BK_FIELD(placement.adaptive.rank_match_min_spread), "ratio", {0, 100},
          "adaptive: rank matching by rate only while recent slot rates "
          "spread at least this much (coefficient of variation); below it "
          "the rankless draw; 0 always");
  t.SecondsReal("adaptivePlacementLeastLoadedReportAgeSeconds",
                BK_FIELD(placement.adaptive.least_loaded_report_age), {0, 3600},
                "adaptive: when every candidate's report is at most this old "
                "and polled at most this often, a ledger with a rate goes to "
                "the least loaded bookies instead of rank matching; 0 never");
  t.Value("adaptivePlacementShareNewLedgers",
          BK_FIELD(placement.adaptive.share_new_ledgers), "-", {},
          "adaptive: while bookies are polled at least every "
          "adaptivePlacementLeastLoadedReportAgeSeconds, announce each new "
          "ledger to the other clients (<root>/placements) and count theirs "
          "until reports show them");
  t.SecondsReal("adaptivePlacementProbeTimeoutSeconds",
                BK_FIELD(placement_probe_timeout), {0.001, 60},
                "adaptive: longest createLedger or a replacement waits for "
                "the probes' answers");
  t.SecondsReal("adaptivePlacementObservationMaxAgeSeconds",
                BK_FIELD(placement.adaptive.observation_max_age), {0.001, 1e6},
                "adaptive: add latencies older than this are forgotten");
}

void AddPlacement(ConfigTable<ClientOptions>& t) {
  t.Choice("placementWeighting", BK_FIELD(placement.weighting),
           {Weighting::kNone, Weighting::kDisk, Weighting::kLoad,
            Weighting::kAdaptive},
           placement::WeightingName, "how bookies are weighted in placement");
  // BookKeeper's switch, an alias of placementWeighting=disk.
  t.Custom({"diskWeightBasedPlacementEnabled", OptionType::kBool, "false",
            "BookKeeper's switch for disk weighting (same as "
            "placementWeighting=disk)",
            false, 1, 0, "-"},
           [](const Config& c, ClientOptions& o) {
             if (!c.GetBool("diskWeightBasedPlacementEnabled")) {
               return absl::OkStatus();
             }
             if (c.SourceOf("placementWeighting") != "default" &&
                 o.placement.weighting != Weighting::kDisk) {
               return absl::InvalidArgumentError(
                   "diskWeightBasedPlacementEnabled=true contradicts "
                   "placementWeighting");
             }
             o.placement.weighting = Weighting::kDisk;
             return absl::OkStatus();
           });
  t.Value("minNumRacksPerWriteQuorum",
          BK_FIELD(placement.min_num_racks_per_write_quorum), "racks",
          {1, 1000}, "racks each write quorum should span");
  t.Value("enforceMinNumRacksPerWriteQuorum",
          BK_FIELD(placement.enforce_min_num_racks_per_write_quorum), "-", {},
          "fail instead of placing across too few racks");
  t.Value("bookieMaxWeightMultipleForWeightBasedPlacement",
          BK_FIELD(placement.bookie_max_weight_multiple), "multiple", {-1, 1e6},
          "cap of a disk weight as a multiple of the median; <= 0 no cap");
  t.Value("loadThreshold", BK_FIELD(placement.load_threshold), "percent",
          {0, 100},
          "journal IO utilisation above which load weighting skips a bookie");
  t.Value("lowLoadBookieRatio", BK_FIELD(placement.low_load_bookie_ratio),
          "fraction", {0, 1},
          "below this share of quiet bookies load weighting is uniform");
  t.Choice(
      "ensemblePlacementPolicy", BK_FIELD(placement.region.enabled),
      {false, true},
      [](bool region) { return region ? "region-aware" : "rack-aware"; },
      "placement policy: BookKeeper's rack-aware, or region-aware "
      "(RegionAwareEnsemblePlacementPolicy)");
  t.Value("reppMinimumRegionsForDurability",
          BK_FIELD(placement.region.min_regions_for_durability), "regions",
          {0, 100},
          "region-aware: regions every ack quorum spans; <= 1 no durability "
          "rule");
  t.Value("reppEnableDurabilityEnforcementInReplace",
          BK_FIELD(placement.region.enforce_durability_in_replace), "-", {},
          "region-aware: a replacement must keep the durability rule");
  t.Custom({"reppRegionsToWrite", OptionType::kString, "",
            "region-aware: regions ensembles may use, ';' or ',' separated; "
            "empty: all",
            false, 1, 0, "-"},
           [](const Config& c, ClientOptions& o) {
             o.placement.region.regions_to_write.clear();
             for (absl::string_view part : absl::StrSplit(
                      c.GetString("reppRegionsToWrite"), absl::ByAnyChar(";,"),
                      absl::SkipWhitespace())) {
               o.placement.region.regions_to_write.emplace_back(
                   absl::StripAsciiWhitespace(part));
             }
             return absl::OkStatus();
           });
  t.Value("clientRegion", BK_FIELD(placement.region.local_region), "-", {},
          "region-aware: the region this client runs in (its first ensemble "
          "member is drawn there); empty: unknown");
  AddAdaptivePlacement(t);
  t.Value("readReorderThresholdPendingRequests",
          BK_FIELD(placement.read_reorder_threshold_pending_requests),
          "requests", {0, 1e9},
          "pending-read gap that moves the least loaded replica first");
}

void AddTlsAndSeed(ConfigTable<ClientOptions>& t) {
  t.Value("tlsTrustStore", BK_FIELD(tls.ca_file), "-", {},
          "CA certificates (PEM) of the bookies; empty: plaintext");
  t.Value("tlsCertificatePath", BK_FIELD(tls.cert_file), "-", {},
          "client certificate (PEM) for mutual TLS");
  t.Value("tlsKeyStore", BK_FIELD(tls.key_file), "-", {},
          "client private key (PEM)");
  t.Value("clientRandomSeed", BK_FIELD(seed), "-", {0, 9.2e18},
          "seed of placement draws and poll jitter; 0 draws one");
}

}  // namespace

const ConfigTable<ClientOptions>& ClientConfigTable() {
  static const auto* table = [] {
    auto* t = new ConfigTable<ClientOptions>();
    AddTimeouts(*t);
    AddHealthAndPolling(*t);
    AddPlacement(*t);
    AddTlsAndSeed(*t);
    return t;
  }();
  return *table;
}

absl::StatusOr<ClientOptions> ClientOptionsFromKeys(
    const std::map<std::string, std::string>& keys) {
  ConfigSources sources;
  sources.flags = keys;
  auto config = Config::Load(ClientConfigTable().schema(), sources);
  if (!config.ok()) return config.status();
  ClientOptions o;
  if (absl::Status s = ClientConfigTable().Apply(*config, &o); !s.ok()) {
    return s;
  }
  if (absl::Status s = Validate(o); !s.ok()) return s;
  return o;
}

std::string ClientConfigHelp() { return ClientConfigTable().schema().Help(); }

}  // namespace bk::client
