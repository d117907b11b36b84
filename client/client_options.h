// ClientOptions: every knob of the client library, named after BookKeeper's
// client configuration keys where BookKeeper has one (the key is given in
// each comment), with its unit and default.
//
// Plain data; copy it freely. Validate() says which field is out of range.

#ifndef BK_CLIENT_CLIENT_OPTIONS_H_
#define BK_CLIENT_CLIENT_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "placement/options.h"

namespace prometheus {
class Registry;
}  // namespace prometheus

namespace bk {
class Env;
}  // namespace bk

namespace bk::metadata {
class MetadataStore;
}  // namespace bk::metadata

namespace bk::client {

// TLS towards bookies that serve gRPC over TLS. All paths are PEM files;
// an empty ca_file means plaintext.
// Entries a bookie may pack into one message of a streamed range read
// (ReadEntriesRequest.max_entries_per_message): one gRPC message per entry
// is most of a streamed read's cost on both sides. Not a key; bkbench's
// catch-up ceiling streams with the same packing.
inline constexpr uint32_t kRangeReadEntriesPerMessage = 32;

struct TlsClientOptions {
  std::string ca_file;    // tlsTrustStore: CA certificates to trust
  std::string cert_file;  // tlsCertificatePath: for mutual TLS, optional
  std::string key_file;   // tlsKeyStore: the client certificate's key
  // Overrides the name checked in the bookie's certificate (tests with a
  // certificate made for "localhost" while dialling 127.0.0.1).
  std::string server_name_override;
};

struct ClientOptions {
  // metadataServiceUri: zk://host:port[,host:port]/root or mem://[name].
  std::string metadata_service_uri = "mem://";
  // zkEnableSecurity / zkDigestFile: authenticate to ZooKeeper with the
  // cluster's digest credentials (one line user:password, mode 0600) and
  // create znodes readable and writable by them only. Needed to use a
  // cluster whose bookies run with zkEnableSecurity=true.
  bool zk_enable_security = false;
  std::string zk_digest_file;

  // addEntryTimeoutSec: an add not acknowledged by a bookie within this is
  // a failure of that bookie (ensemble change).
  absl::Duration add_entry_timeout = absl::Seconds(10);
  // addEntryLagTimeoutMs: when every other bookie of an add's write quorum
  // answered it this long ago and one has still not, that one is failed
  // for the ledger (ensemble change) without waiting for
  // addEntryTimeoutSec. A gray-failing bookie -- slow, not down -- at
  // AQ == WQ otherwise holds every ledger on it for the whole add timeout
  // (the idea of Kafka's replica.lag.time.max.ms, for a writer's
  // ensemble). Only ledgers with AQ == WQ >= 2 are watched: at AQ < WQ a
  // lagging bookie holds nothing up and is left alone. Zero disables it.
  absl::Duration add_entry_lag_timeout = absl::Seconds(3);
  // readEntryTimeoutSec: one read request to one bookie.
  absl::Duration read_entry_timeout = absl::Seconds(10);
  // speculativeReadTimeout (ms in BookKeeper): after this without an answer
  // the next replica is asked too. Zero disables speculation.
  absl::Duration speculative_read_timeout = absl::Milliseconds(500);
  // Entries read ahead (in flight or buffered) by one Read() range, at
  // most readWindowBytes of them at the entry size seen so far. A
  // streamed range is issued once half the window is free, so chunks are
  // about half of it, and each chunk costs a round trip before its first
  // entry, and the bookies pay for every chunk's stream setup and drained
  // pipeline: one reader of 100,000 1 KiB entries of an open E3/WQ2 ledger
  // on a local cluster (bench/results/bkbench_read.md) measured 258-309k
  // entries/s at 1000, 318-345k at 2000 and 352-428k at 4000 or more,
  // where readWindowBytes (4096 entries of 1 KiB) binds. So the default
  // leaves the bound to readWindowBytes for entries of 420 bytes or more.
  int read_window = 10000;
  // readWindowBytes: the read window's bound in bytes, so that large
  // entries do not multiply what one reader holds. Until a range's first
  // entry arrives the window is readWindowBytes / the closed ledger's mean
  // entry size, or 64 entries for an open ledger.
  int64_t read_window_bytes = 4 << 20;
  // batchReadEnabled (BookKeeper's key, BP-62): Read() of a range in one
  // segment streams it (ReadEntries) in chunks of about half the read
  // window, instead of one request per entry: from one bookie when every
  // bookie holds every entry (E == WQ), else as E strided streams, one per
  // write set, each from that write set's first bookie in read order.
  // Anything a stream does not deliver is read entry by entry. False:
  // always entry by entry.
  bool batch_read_enabled = true;
  // tailStreamEnabled (ours): LedgerReader::Tail takes entries pushed by
  // the bookies (one TailEntries stream per write set, at the member that
  // learns the LAC first) while it has caught up, instead of one long poll
  // per entry. False: it long-polls (WaitForLac) and reads ranges.
  bool tail_stream_enabled = true;

  // maxPendingAddsBytes (ours; BookKeeper bounds by count with
  // maxPendingAddRequests...): packaged bytes of adds not yet confirmed,
  // per writer. Append waits up to pending_adds_wait for room, then fails
  // with kResourceExhausted.
  int64_t max_pending_adds_bytes = 64 << 20;
  absl::Duration pending_adds_wait = absl::Seconds(10);
  // Largest stream message of batched adds sent to one bookie; a batch is
  // sent as soon as the previous one is on the wire (see add_flush_interval),
  // or split at this size.
  int64_t max_add_batch_bytes = 1 << 20;
  // addFlushIntervalMicros (ours): the connection to a bookie starts a
  // write of adds at most once per this interval. An add queued sooner after
  // the last write waits for the rest of it, unless its batch has reached
  // max_add_batch_bytes; one queued later goes at once. So adds issued
  // faster than one message per interval go in fewer, larger messages: at
  // 45,000 adds/s on a 3-bookie local cluster, 870 messages a second per
  // bookie instead of 5,200, the client's CPU per add a quarter lower and
  // the add p99 about halved (bench/results/bkbench_write.md, 2026-12-06
  // 11:50). An add waits at most this long plus about a millisecond (the
  // held write goes on gRPC's timer, which fires on whole milliseconds),
  // and only while adds come faster than one message per interval. Zero: a
  // write starts as soon as the previous one is on the wire.
  absl::Duration add_flush_interval = absl::Microseconds(500);

  // bookieErrorThresholdPerInterval: failures of one bookie within
  // bookie_health_check_interval that put it in quarantine. A failure is a
  // request the bookie answered with an error (fencing aside) or left
  // unanswered past its timeout, a failed GetBookieInfo, or a spell in
  // which its connection failed: that counts once, however many requests
  // it failed (a poll that found the connection failing included), until
  // the bookie answers again (BookKeeper does not count a lost channel's
  // requests at all).
  int64_t bookie_error_threshold_per_interval = 5;
  // bookieHealthCheckIntervalSeconds: the window errors are counted in.
  absl::Duration bookie_health_check_interval = absl::Seconds(60);
  // bookieQuarantineTimeSeconds: how long a quarantined bookie is kept out
  // of new ensembles and replacements (unless released early).
  absl::Duration bookie_quarantine_time = absl::Seconds(1800);
  // Healthy GetBookieInfo answers in a row (answered, writable, journal
  // below placement.load_threshold) that release a quarantine early. Ours;
  // 0 never releases early.
  int quarantine_release_healthy_reports = 3;

  // getBookieInfoIntervalSeconds: period of the GetBookieInfo poll of every
  // bookie (BookKeeper's default is a day; load reports need seconds). Each
  // period is drawn from [1 - jitter, 1 + jitter] x the interval.
  absl::Duration get_bookie_info_interval = absl::Seconds(5);
  double get_bookie_info_jitter = 0.2;
  // getBookieInfoTimeoutSecs.
  absl::Duration get_bookie_info_timeout = absl::Seconds(5);
  // Probe on placement (placement.adaptive.probe_candidates > 0): how long
  // createLedger waits for the candidates' GetBookieInfo answers; a
  // candidate that has not answered by then counts as a failed probe.
  absl::Duration placement_probe_timeout = absl::Milliseconds(50);

  // Placement: weighting none|disk|load|adaptive and the rack rule.
  placement::PlacementOptions placement;

  TlsClientOptions tls;

  // Seed of the client's random source (placement draws, poll jitter).
  // 0: drawn at start-up and logged, so a run can be replayed.
  uint64_t seed = 0;

  // Where the client's metrics go. Null: the client owns a registry of its
  // own (Client::metrics_registry()).
  std::shared_ptr<prometheus::Registry> registry;

  // The clock (Env::Now) behind add timeouts, quarantine, bookie-error
  // windows and latencies. Null: Env::Default(). A test passes a ClockEnv
  // (test/support/clock_env.h) to let an hour pass at once. Waits stay in
  // real time (gRPC deadlines, pending_adds_wait, the 100 ms maintenance
  // tick that looks at the clock). Must outlive the client.
  Env* env = nullptr;

  // Called once by Client::Create with the metadata store it opened from
  // metadata_service_uri; the client uses, owns and destroys what it
  // returns (not null) instead. Empty: the store as opened. Like env, a
  // seam for tests: a decorator that fails chosen metadata writes
  // (test/unit/client/faulty_metadata_store.h). Not a key.
  std::function<std::unique_ptr<metadata::MetadataStore>(
      std::unique_ptr<metadata::MetadataStore>)>
      wrap_metadata_store;
};

// kInvalidArgument naming the first field out of range.
absl::Status Validate(const ClientOptions& options);

// Options from key=value pairs with BookKeeper's client key names
// (addEntryTimeoutSec, readEntryTimeoutSec, speculativeReadTimeout (ms),
// bookieErrorThresholdPerInterval, bookieQuarantineTimeSeconds,
// getBookieInfoIntervalSeconds, minNumRacksPerWriteQuorum, tlsTrustStore,
// ...) and ours (maxPendingAddsBytes, placementWeighting, ...); see
// ClientConfigHelp(). Unknown keys and malformed values are kInvalidArgument
// naming the key; missing keys take the defaults above.
absl::StatusOr<ClientOptions> ClientOptionsFromKeys(
    const std::map<std::string, std::string>& keys);
// Two lines per key: "--key=<type>  (default D)  unit, range" and its
// meaning (the key table is client_config.h; reference: client/CONFIG.md).
std::string ClientConfigHelp();

}  // namespace bk::client

#endif  // BK_CLIENT_CLIENT_OPTIONS_H_
