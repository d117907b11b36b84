// ClientOptionsFromKeys (declared in client_options.h): the client's
// configuration keys, BookKeeper's names where BookKeeper has the key, read
// strictly through common/config.h (an unknown key or a bad value is an
// error naming the key).

#include "absl/strings/str_cat.h"
#include "client/client_options.h"
#include "common/config.h"

namespace bk::client {
namespace {

using T = OptionType;

const ConfigSchema& Schema() {
  static const ConfigSchema* schema = [] {
    auto* s = new ConfigSchema();
    auto add = [s](const char* key, T type, const char* def, const char* help,
                   double min = 1, double max = 0) {
      s->Add(OptionDef{key, type, def, help, false, min, max});
    };
    add("metadataServiceUri", T::kString, "mem://",
        "zk://host:port[,host:port]/root or mem://[name]");
    add("addEntryTimeoutSec", T::kDouble, "10",
        "seconds before an unanswered add fails its bookie", 0.001, 1e6);
    add("readEntryTimeoutSec", T::kDouble, "10",
        "seconds one read request to one bookie may take", 0.001, 1e6);
    add("speculativeReadTimeout", T::kInt, "500",
        "ms before the next replica is also asked; 0 disables", 0, 1e7);
    add("readWindow", T::kInt, "64", "entries read ahead by one range read", 1,
        10000);
    add("maxPendingAddsBytes", T::kBytes, "64MiB",
        "packaged bytes of unconfirmed adds per writer");
    add("pendingAddsWaitMs", T::kInt, "10000",
        "ms Append waits for room before RESOURCE_EXHAUSTED", 0, 1e7);
    add("maxAddBatchBytes", T::kBytes, "1MiB",
        "largest batched add message sent to one bookie");
    add("bookieErrorThresholdPerInterval", T::kInt, "5",
        "errors within the health-check interval that quarantine a bookie", 0,
        1e9);
    add("bookieHealthCheckIntervalSeconds", T::kDouble, "60",
        "window the errors are counted in, seconds", 0.001, 1e7);
    add("bookieQuarantineTimeSeconds", T::kDouble, "1800",
        "how long a quarantined bookie is avoided, seconds", 0, 1e7);
    add("bookieQuarantineReleaseHealthyReports", T::kInt, "3",
        "healthy load reports in a row that end a quarantine early; 0 never", 0,
        1000);
    add("getBookieInfoIntervalSeconds", T::kDouble, "5",
        "period of the GetBookieInfo poll of every bookie", 0.01, 1e7);
    add("getBookieInfoJitter", T::kDouble, "0.2",
        "each poll period is interval x [1 - jitter, 1 + jitter]", 0, 0.99);
    add("getBookieInfoTimeoutSecs", T::kDouble, "5",
        "seconds one GetBookieInfo may take", 0.001, 1e6);
    add("placementWeighting", T::kString, "none",
        "none, disk, load or adaptive");
    add("diskWeightBasedPlacementEnabled", T::kBool, "false",
        "BookKeeper's switch for disk weighting (same as "
        "placementWeighting=disk)");
    add("minNumRacksPerWriteQuorum", T::kInt, "2",
        "racks each write quorum should span", 1, 1000);
    add("enforceMinNumRacksPerWriteQuorum", T::kBool, "false",
        "fail instead of placing across too few racks");
    add("bookieMaxWeightMultipleForWeightBasedPlacement", T::kDouble, "3",
        "cap of a disk weight as a multiple of the median; <= 0 no cap", -1,
        1e6);
    add("loadThreshold", T::kDouble, "70",
        "journal IO utilisation (percent) above which load weighting skips "
        "a bookie",
        0, 100);
    add("lowLoadBookieRatio", T::kDouble, "0.5",
        "below this share of quiet bookies load weighting is uniform", 0, 1);
    add("readReorderThresholdPendingRequests", T::kInt, "0",
        "pending-read gap that moves the least loaded replica first", 0, 1e9);
    add("tlsTrustStore", T::kString, "",
        "CA certificates (PEM) of the bookies; empty: plaintext");
    add("tlsCertificatePath", T::kString, "",
        "client certificate (PEM) for mutual TLS");
    add("tlsKeyStore", T::kString, "", "client private key (PEM)");
    add("clientRandomSeed", T::kInt, "0",
        "seed of placement draws and poll jitter; 0 draws one", 0, 9.2e18);
    return s;
  }();
  return *schema;
}

absl::Duration Seconds(double s) { return absl::Milliseconds(s * 1000); }

}  // namespace

absl::StatusOr<ClientOptions> ClientOptionsFromKeys(
    const std::map<std::string, std::string>& keys) {
  ConfigSources sources;
  sources.flags = keys;
  auto config = Config::Load(Schema(), sources);
  if (!config.ok()) return config.status();
  const Config& c = *config;
  ClientOptions o;
  o.metadata_service_uri = c.GetString("metadataServiceUri");
  o.add_entry_timeout = Seconds(c.GetDouble("addEntryTimeoutSec"));
  o.read_entry_timeout = Seconds(c.GetDouble("readEntryTimeoutSec"));
  o.speculative_read_timeout =
      absl::Milliseconds(c.GetInt("speculativeReadTimeout"));
  o.read_window = static_cast<int>(c.GetInt("readWindow"));
  o.max_pending_adds_bytes =
      static_cast<int64_t>(c.GetBytes("maxPendingAddsBytes"));
  o.pending_adds_wait = absl::Milliseconds(c.GetInt("pendingAddsWaitMs"));
  o.max_add_batch_bytes = static_cast<int64_t>(c.GetBytes("maxAddBatchBytes"));
  o.bookie_error_threshold_per_interval =
      c.GetInt("bookieErrorThresholdPerInterval");
  o.bookie_health_check_interval =
      Seconds(c.GetDouble("bookieHealthCheckIntervalSeconds"));
  o.bookie_quarantine_time =
      Seconds(c.GetDouble("bookieQuarantineTimeSeconds"));
  o.quarantine_release_healthy_reports =
      static_cast<int>(c.GetInt("bookieQuarantineReleaseHealthyReports"));
  o.get_bookie_info_interval =
      Seconds(c.GetDouble("getBookieInfoIntervalSeconds"));
  o.get_bookie_info_jitter = c.GetDouble("getBookieInfoJitter");
  o.get_bookie_info_timeout = Seconds(c.GetDouble("getBookieInfoTimeoutSecs"));
  auto weighting = placement::ParseWeighting(c.GetString("placementWeighting"));
  if (!weighting.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("placementWeighting: ", weighting.status().message()));
  }
  o.placement.weighting = *weighting;
  if (c.GetBool("diskWeightBasedPlacementEnabled")) {
    if (c.SourceOf("placementWeighting") != "default" &&
        *weighting != placement::Weighting::kDisk) {
      return absl::InvalidArgumentError(
          "diskWeightBasedPlacementEnabled=true contradicts "
          "placementWeighting");
    }
    o.placement.weighting = placement::Weighting::kDisk;
  }
  o.placement.min_num_racks_per_write_quorum =
      static_cast<int>(c.GetInt("minNumRacksPerWriteQuorum"));
  o.placement.enforce_min_num_racks_per_write_quorum =
      c.GetBool("enforceMinNumRacksPerWriteQuorum");
  o.placement.bookie_max_weight_multiple =
      c.GetDouble("bookieMaxWeightMultipleForWeightBasedPlacement");
  o.placement.load_threshold = c.GetDouble("loadThreshold");
  o.placement.low_load_bookie_ratio = c.GetDouble("lowLoadBookieRatio");
  o.placement.read_reorder_threshold_pending_requests =
      c.GetInt("readReorderThresholdPendingRequests");
  o.tls.ca_file = c.GetString("tlsTrustStore");
  o.tls.cert_file = c.GetString("tlsCertificatePath");
  o.tls.key_file = c.GetString("tlsKeyStore");
  o.seed = static_cast<uint64_t>(c.GetInt("clientRandomSeed"));
  if (absl::Status s = Validate(o); !s.ok()) return s;
  return o;
}

std::string ClientConfigHelp() { return Schema().Help(); }

}  // namespace bk::client
