#include "client/client_options.h"

#include "absl/strings/str_cat.h"

namespace bk::client {
namespace {

absl::Status Bad(const char* field, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("client option ", field, ": ", why));
}

}  // namespace

absl::Status Validate(const ClientOptions& o) {
  if (o.metadata_service_uri.empty()) {
    return Bad("metadataServiceUri", "empty");
  }
  if (o.zk_enable_security && o.zk_digest_file.empty()) {
    return Bad("zkDigestFile", "zkEnableSecurity=true needs it");
  }
  if (o.add_entry_timeout <= absl::ZeroDuration()) {
    return Bad("addEntryTimeoutSec", "must be > 0");
  }
  if (o.add_entry_lag_timeout < absl::ZeroDuration()) {
    return Bad("addEntryLagTimeoutMs", "must be >= 0");
  }
  if (o.read_entry_timeout <= absl::ZeroDuration()) {
    return Bad("readEntryTimeoutSec", "must be > 0");
  }
  if (o.speculative_read_timeout < absl::ZeroDuration()) {
    return Bad("speculativeReadTimeout", "must be >= 0");
  }
  if (o.read_window < 1 || o.read_window > 10000) {
    return Bad("read_window", "must be in [1, 10000]");
  }
  if (o.max_pending_adds_bytes < 1) {
    return Bad("maxPendingAddsBytes", "must be >= 1");
  }
  if (o.read_window_bytes < 1) {
    return Bad("read_window_bytes", "must be >= 1");
  }
  if (o.add_flush_interval < absl::ZeroDuration() ||
      o.add_flush_interval > absl::Seconds(1)) {
    return Bad("add_flush_interval", "must be within [0, 1 s]");
  }
  if (o.max_add_batch_bytes < 1) {
    return Bad("max_add_batch_bytes", "must be >= 1");
  }
  if (o.bookie_error_threshold_per_interval < 0) {
    return Bad("bookieErrorThresholdPerInterval", "must be >= 0");
  }
  if (o.bookie_health_check_interval <= absl::ZeroDuration()) {
    return Bad("bookieHealthCheckIntervalSeconds", "must be > 0");
  }
  if (o.bookie_quarantine_time < absl::ZeroDuration()) {
    return Bad("bookieQuarantineTimeSeconds", "must be >= 0");
  }
  if (o.quarantine_release_healthy_reports < 0) {
    return Bad("quarantine_release_healthy_reports", "must be >= 0");
  }
  if (o.get_bookie_info_interval <= absl::ZeroDuration()) {
    return Bad("getBookieInfoIntervalSeconds", "must be > 0");
  }
  if (!(o.get_bookie_info_jitter >= 0 && o.get_bookie_info_jitter < 1)) {
    return Bad("get_bookie_info_jitter", "must be in [0, 1)");
  }
  if (o.get_bookie_info_timeout <= absl::ZeroDuration()) {
    return Bad("getBookieInfoTimeoutSecs", "must be > 0");
  }
  if (o.tls.cert_file.empty() != o.tls.key_file.empty()) {
    return Bad("tls", "cert_file and key_file go together");
  }
  if (!o.tls.cert_file.empty() && o.tls.ca_file.empty()) {
    return Bad("tls", "a client certificate needs ca_file");
  }
  return placement::ValidatePlacementOptions(o.placement);
}

}  // namespace bk::client
