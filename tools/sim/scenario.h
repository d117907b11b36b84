// Scenario: everything one simulation run needs to know about the cluster,
// the clients and their traffic, as read from a YAML file (scenario_yaml.h).
//
// Units are in the field names (_s seconds, _ms milliseconds, _mib_per_second
// MiB/s, the "MB/s" of BookKeeper and BP-65). ValidateScenario states what is
// possible; the reader runs it, so a Scenario in hand is always valid.

#ifndef BK_TOOLS_SIM_SCENARIO_H_
#define BK_TOOLS_SIM_SCENARIO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "placement/options.h"

namespace bk::sim {

// A journal device's service curve (device_model.h): `capacity` bytes/s with
// full group commits, `sync_ms` per group commit (fsync), which also sets how
// fast queueing delay grows as the device fills.
struct DeviceClass {
  std::string name;                      // "hdd", "ssd", ...
  double capacity_mib_per_second = 100;  // > 0
  double sync_ms = 5;                    // > 0
};

// `count` bookies on devices of class `device`, `bookies_per_device` of them
// sharing each journal disk (BP-65's cluster ran three bookies on one).
struct BookieGroup {
  int count = 0;                    // >= 1; a multiple of bookies_per_device
  std::string device;               // a DeviceClass name
  int bookies_per_device = 1;       // >= 1
  double disk_capacity_gib = 4096;  // ledger disk size, > 0
  double disk_used_fraction = 0.5;  // ledger disk in use at the start, [0, 1)
};

// A bookie that slows down (a gray failure): its journal device's capacity is
// divided by `slowdown` and its sync time multiplied by it, from `start_s`
// for `duration_s`, then it recovers. A shared device slows every bookie on it.
struct GrayFailure {
  int bookie = 0;         // index into the bookies, in group order
  double start_s = 0;     // >= 0, < duration of the run
  double duration_s = 0;  // > 0
  double slowdown = 10;   // >= 1
};

struct ClientConfig {
  int count = 1;                      // [1, 1000]
  int topics_per_client = 10;         // [1, 100000]: open ledgers each
  double report_interval_s = 30;      // getBookieInfoIntervalSeconds, > 0
  double report_jitter = 0.1;         // poll period x U(1-j, 1+j), [0, 1)
  double observation_interval_s = 1;  // own view refresh, > 0
  // bookieQuarantineTimeSeconds: a bookie the client replaced after a failed
  // add stays out of its new ensembles this long (Pulsar's 1800 s). 0: off.
  double quarantine_s = 1800;  // [0, 86400]
  // Pass each new ledger's drawn rate to the policy as its expected write
  // rate (LedgerHints), as a broker that knows its topic's rate would.
  bool rate_hints = true;
  // Reference runs only: at each placement the client's policy first gets an
  // exact report of every bookie's current offered write rate (no staleness,
  // no report window). What an online policy could reach with perfect
  // information; not a model of any real client.
  bool perfect_reports = false;
  // Reference runs only: new ensembles are chosen by a clairvoyant
  // place-once oracle in the simulator, not by the client's policy
  // (simulator.h): it knows every open ledger's exact rate and closing
  // time, and the new ledger's. Replacements still go through the policy.
  bool clairvoyant = false;
  // Reference runs only: new ensembles are the E least loaded bookies by
  // their offered rate at this moment, across all clients (greedy_oracle.h),
  // not the client's policy's choice. Replacements still go through the
  // policy.
  bool greedy = false;
  // Reference runs only: a poll returns each bookie's offered write rate at
  // the poll instead of its monitor's window (utilisation and latency stay
  // the monitor's). Reports are then exact but as old as the poll interval
  // makes them: what staleness alone costs, apart from measurement.
  bool exact_polls = false;
  // Every client's policy learns each new ledger another client created
  // (its ensemble and rate hint) at once and counts it like its own
  // placements (RackAwarePolicy::OnPlacedElsewhere), and likewise each
  // close and ensemble change (OnClosedElsewhere, OnReplacedElsewhere), as
  // the client's placement feed announces them. Adaptive clients do
  // so anyway where the client's placement feed would
  // (placement::SharesNewLedgers: placement.adaptive.share_new_ledgers and
  // polls of at most least_loaded_report_age); true forces it for every
  // weighting and poll interval (a reference run).
  bool shared_placements = false;
};

// Heavy-tailed write rates: each topic's base rate is Pareto (scale chosen so
// the mean is `mean_mib_per_second`), capped at max; each ledger multiplies
// it by a lognormal(0, burst_sigma) factor.
struct TrafficConfig {
  double mean_mib_per_second = 1;   // per topic, > 0
  double pareto_shape = 1.5;        // > 1 (finite mean)
  double max_mib_per_second = 100;  // >= mean
  double burst_sigma = 0.5;         // [0, 3]
  double entry_bytes = 16384;       // > 0
  // > 0: a topic whose rate exceeds this is split into ceil(rate / this)
  // partitions of equal rate, each with its own ledgers (as a Pulsar
  // operator partitions a hot topic), and no ledger's rate, bursts
  // included, exceeds it. 0: topics are not split. [0, max_mib_per_second]
  double partition_mib_per_second = 0;
};

struct LedgerConfig {
  int ensemble_size = 2;
  int write_quorum = 2;
  int ack_quorum = 2;            // 1 <= ack <= write <= ensemble
  double lifetime_s = 600;       // roll-over age, > 0
  double lifetime_jitter = 0.5;  // lifetime x U(1-j, 1+j), [0, 1)
};

struct MonitorConfig {
  double sample_interval_s = 1;  // BaseMetricMonitor period, > 0
  int window_samples = 3;        // baseMetricMonitorMetricSlideWindowSize
};

struct Scenario {
  std::string name;
  double duration_s = 3600;        // simulated time, > 0
  double tick_ms = 250;            // fluid step of the devices, (0, 10000]
  double metrics_interval_s = 60;  // throughput / percentile interval
  double herd_window_s = 10;       // herd_index window (README)
  double warmup_s = 0;             // metrics ignore [0, warmup_s)
  double max_queue_s = 30;         // journal backlog cap, seconds of work
  // An add not acknowledged within this time, or refused (the bookie's
  // backlog is at max_queue_s and it throttles), makes the writer replace
  // that bookie in the ledger's ensemble (ReplaceBookie), as BookKeeper's
  // client does on an add error or timeout (Pulsar: addEntryTimeout 30 s).
  // 0: ledgers never change ensemble. [0, 3600]
  double add_timeout_s = 30;
  // This project's client only (addEntryLagTimeoutMs; BookKeeper's client
  // has no such rule): at AQ == WQ, a member of a write set whose add waits
  // this much longer than the rest of the set's is replaced as on a
  // timeout. 0: off, BookKeeper's client (bp65.yaml). [0, 3600]
  double add_lag_timeout_s = 0;
  double journal_max_group_wait_ms = 2;  // journalMaxGroupWaitMSec, [0, 1000]
  int racks = 1;                         // bookies round-robin over racks
  // Devices round-robin over regions first, then over `racks` racks in each
  // ("/region-<r>/rack-<k>"); 1 keeps the one-region layout ("/region/...").
  int regions = 1;
  int readonly_bookies = 0;  // the last N bookies are read-only
  std::vector<DeviceClass> devices;
  std::vector<BookieGroup> bookie_groups;
  std::vector<GrayFailure> gray_failures;
  ClientConfig clients;
  TrafficConfig traffic;
  LedgerConfig ledgers;
  MonitorConfig monitor;
  std::vector<placement::Weighting> policies;  // compared, in this order
  placement::PlacementOptions placement;       // weighting is set per policy

  int BookieCount() const;
};

// kInvalidArgument naming the first impossible value (by its YAML key).
absl::Status ValidateScenario(const Scenario& scenario);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_SCENARIO_H_
