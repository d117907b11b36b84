// bkctl placement newensemble | replace: run the placement policy many times
// on a cluster file and report how its choices fall.

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "placement/rack_aware_policy.h"
#include "placement/topology.h"
#include "tools/bkctl/cluster_file.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"

namespace bk::bkctl {
namespace {

using nlohmann::ordered_json;
using placement::Adherence;
using placement::BookieId;

// The command's "now": fixed, since only report ages matter and a run must be
// reproducible from its seed.
const absl::Time kNow = absl::FromUnixSeconds(1'000'000'000);
constexpr int64_t kMaxDraws = 10'000'000;
constexpr int64_t kMaxEnsemble = 1000;
constexpr size_t kEnsemblesShown = 10;

// What every run needs, parsed and checked.
struct Run {
  ClusterFile cluster;
  int ensemble_size = 0;
  int write_quorum = 0;
  int ack_quorum = 0;
  int64_t draws = 0;
  uint64_t seed = 0;
  placement::BookieSet excluded;
  placement::LedgerHints hints;  // --expected-rate, --custom
};

// Counts draws per bookie, adherence and failures, and keeps the first
// ensembles, then prints them as the JSON.
class Tally {
 public:
  explicit Tally(const ClusterFile& cluster) {
    for (const ClusterBookie& b : cluster.bookies) {
      order_.push_back(b.node.id);
      counts_[b.node.id] = 0;
      region_of_[b.node.id] = placement::RegionOf(b.node.network_location);
      if (!region_counts_.contains(region_of_[b.node.id])) {
        region_order_.push_back(region_of_[b.node.id]);
        region_counts_[region_of_[b.node.id]] = 0;
      }
    }
  }
  void Add(const std::vector<BookieId>& chosen,
           const std::vector<BookieId>& ensemble, Adherence adherence) {
    for (const BookieId& id : chosen) {
      ++counts_[id];
      ++region_counts_[region_of_[id]];
    }
    ++adherence_[static_cast<int>(adherence)];
    if (ensembles_.size() < kEnsemblesShown) ensembles_.push_back(ensemble);
  }
  void AddNotEnough() { ++not_enough_; }

  ordered_json ToJson(int64_t draws) const {
    ordered_json out;
    out["draws"] = draws;
    ordered_json counts = ordered_json::object();
    for (const BookieId& id : order_) counts[id] = counts_.at(id);
    out["counts"] = std::move(counts);
    ordered_json regions = ordered_json::object();
    for (const std::string& r : region_order_)
      regions[r] = region_counts_.at(r);
    out["region_counts"] = std::move(regions);
    ordered_json adherence = ordered_json::object();
    for (Adherence a :
         {Adherence::kMeetsStrict, Adherence::kMeetsSoft, Adherence::kFail}) {
      adherence[std::string(placement::AdherenceName(a))] =
          adherence_[static_cast<int>(a)];
    }
    out["adherence"] = std::move(adherence);
    out["not_enough_bookies"] = not_enough_;
    out["ensembles"] = ordered_json::array();
    for (const auto& e : ensembles_) out["ensembles"].push_back(e);
    return out;
  }

 private:
  std::vector<BookieId> order_;  // bookies in file order
  absl::flat_hash_map<BookieId, int64_t> counts_;
  absl::flat_hash_map<BookieId, std::string> region_of_;
  std::vector<std::string> region_order_;  // regions in file order
  absl::flat_hash_map<std::string, int64_t> region_counts_;
  int64_t adherence_[3] = {0, 0, 0};  // indexed by Adherence
  int64_t not_enough_ = 0;
  std::vector<std::vector<BookieId>> ensembles_;
};

int Fail(std::ostream& err, int code, const absl::Status& status) {
  err << "bkctl placement: " << status.message() << "\n";
  return code;
}

// Parses the flags shared by both commands (all but the ensemble itself).
absl::Status ParseCommon(const ParsedFlags& flags, Run* run) {
  auto int_flag = [&](absl::string_view name, int64_t min, int64_t max,
                      auto* out) -> absl::Status {
    absl::StatusOr<int64_t> v = flags.GetInt(name, min, max);
    if (!v.ok()) return v.status();
    *out = static_cast<std::remove_pointer_t<decltype(out)>>(*v);
    return absl::OkStatus();
  };
  if (absl::Status s =
          int_flag("write-quorum", 1, kMaxEnsemble, &run->write_quorum);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          int_flag("ack-quorum", 1, kMaxEnsemble, &run->ack_quorum);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = int_flag("draws", 0, kMaxDraws, &run->draws); !s.ok()) {
    return s;
  }
  absl::StatusOr<uint64_t> seed = flags.GetUint64("seed");
  if (!seed.ok()) return seed.status();
  run->seed = *seed;
  absl::StatusOr<std::vector<std::string>> excluded = flags.GetList("exclude");
  if (!excluded.ok()) return excluded.status();
  run->excluded.insert(excluded->begin(), excluded->end());
  if (flags.Has("expected-rate")) {
    absl::StatusOr<int64_t> rate =
        flags.GetInt("expected-rate", 0, int64_t{1} << 40);
    if (!rate.ok()) return rate.status();
    run->hints.expected_write_bytes_per_second = static_cast<double>(*rate);
  }
  absl::StatusOr<std::vector<std::string>> custom = flags.GetList("custom");
  if (!custom.ok()) return custom.status();
  for (const std::string& item : *custom) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--custom: \"", item, "\" is not KEY=VALUE"));
    }
    run->hints.custom_metadata[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return absl::OkStatus();
}

absl::Status CheckQuorums(const Run& run) {
  if (run.ack_quorum > run.write_quorum ||
      run.write_quorum > run.ensemble_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "need --ack-quorum <= --write-quorum <= ensemble size, got ",
        run.ack_quorum, ", ", run.write_quorum, ", ", run.ensemble_size));
  }
  return absl::OkStatus();
}

absl::Status CheckKnown(const Run& run, absl::string_view flag,
                        const std::vector<std::string>& ids) {
  absl::flat_hash_set<std::string> known;
  for (const ClusterBookie& b : run.cluster.bookies) known.insert(b.node.id);
  for (const std::string& id : ids) {
    if (!known.contains(id)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", flag, ": bookie \"", id, "\" is not in the cluster"));
    }
  }
  return absl::OkStatus();
}

const std::vector<FlagSpec>& NewEnsembleFlags() {
  static const auto* const kFlags = new std::vector<FlagSpec>{
      {"cluster", true, "cluster file (JSON, see placement/README.md)"},
      {"ensemble", true, "ensemble size"},
      {"write-quorum", true, "write quorum size"},
      {"ack-quorum", true, "ack quorum size"},
      {"exclude", false, "bookie ids never to choose, comma-separated"},
      {"expected-rate", false,
       "the ledger's expected write rate, bytes/s (a placement hint)"},
      {"custom", false,
       "the ledger's custom metadata, KEY=VALUE pairs, comma-separated"},
      {"draws", true, "number of ensembles to draw"},
      {"seed", true, "random seed"},
  };
  return *kFlags;
}

const std::vector<FlagSpec>& ReplaceFlags() {
  static const auto* const kFlags = new std::vector<FlagSpec>{
      {"cluster", true, "cluster file (JSON, see placement/README.md)"},
      {"ensemble", true, "current ensemble: bookie ids, comma-separated"},
      {"replace", true, "the member to replace"},
      {"write-quorum", true, "write quorum size"},
      {"ack-quorum", true, "ack quorum size"},
      {"exclude", false, "bookie ids never to choose, comma-separated"},
      {"expected-rate", false,
       "the ledger's expected write rate, bytes/s (a placement hint)"},
      {"custom", false,
       "the ledger's custom metadata, KEY=VALUE pairs, comma-separated"},
      {"draws", true, "number of replacements to draw"},
      {"seed", true, "random seed"},
  };
  return *kFlags;
}

int NewEnsemble(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  absl::StatusOr<ParsedFlags> flags = ParseFlags(args, NewEnsembleFlags());
  if (!flags.ok()) return Fail(err, kExitUsage, flags.status());
  Run run;
  absl::StatusOr<int64_t> size = flags->GetInt("ensemble", 1, kMaxEnsemble);
  if (!size.ok()) return Fail(err, kExitUsage, size.status());
  run.ensemble_size = static_cast<int>(*size);
  if (absl::Status s = ParseCommon(*flags, &run); !s.ok()) {
    return Fail(err, kExitUsage, s);
  }
  if (absl::Status s = CheckQuorums(run); !s.ok()) {
    return Fail(err, kExitUsage, s);
  }
  absl::StatusOr<ClusterFile> cluster = ReadClusterFile(flags->Get("cluster"));
  if (!cluster.ok()) return Fail(err, kExitFailure, cluster.status());
  run.cluster = *std::move(cluster);
  if (absl::Status s = CheckKnown(run, "exclude", *flags->GetList("exclude"));
      !s.ok()) {
    return Fail(err, kExitUsage, s);
  }

  std::mt19937_64 gen(run.seed);
  placement::RackAwarePolicy policy(run.cluster.options, gen);
  ApplyCluster(run.cluster, policy, kNow);
  Tally tally(run.cluster);
  for (int64_t i = 0; i < run.draws; ++i) {
    absl::StatusOr<placement::PlacementResult> result =
        policy.NewEnsemble(run.ensemble_size, run.write_quorum, run.ack_quorum,
                           run.excluded, run.hints);
    if (placement::IsNotEnoughBookies(result.status())) {
      tally.AddNotEnough();
      continue;
    }
    if (!result.ok()) return Fail(err, kExitFailure, result.status());
    tally.Add(result->ensemble, result->ensemble, result->adherence);
  }
  out << tally.ToJson(run.draws).dump() << "\n";
  return kExitOk;
}

int Replace(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  absl::StatusOr<ParsedFlags> flags = ParseFlags(args, ReplaceFlags());
  if (!flags.ok()) return Fail(err, kExitUsage, flags.status());
  Run run;
  absl::StatusOr<std::vector<std::string>> ensemble =
      flags->GetList("ensemble");
  if (!ensemble.ok()) return Fail(err, kExitUsage, ensemble.status());
  if (ensemble->empty() ||
      static_cast<int64_t>(ensemble->size()) > kMaxEnsemble) {
    return Fail(err, kExitUsage,
                absl::InvalidArgumentError(absl::StrCat(
                    "--ensemble must list 1 to ", kMaxEnsemble, " bookies")));
  }
  if (absl::flat_hash_set<std::string>(ensemble->begin(), ensemble->end())
          .size() != ensemble->size()) {
    return Fail(err, kExitUsage,
                absl::InvalidArgumentError("--ensemble lists a bookie twice"));
  }
  run.ensemble_size = static_cast<int>(ensemble->size());
  const auto replaced =
      std::find(ensemble->begin(), ensemble->end(), flags->Get("replace"));
  if (replaced == ensemble->end()) {
    return Fail(err, kExitUsage,
                absl::InvalidArgumentError(
                    absl::StrCat("--replace: \"", flags->Get("replace"),
                                 "\" is not in --ensemble")));
  }
  const int index = static_cast<int>(replaced - ensemble->begin());
  if (absl::Status s = ParseCommon(*flags, &run); !s.ok()) {
    return Fail(err, kExitUsage, s);
  }
  if (absl::Status s = CheckQuorums(run); !s.ok()) {
    return Fail(err, kExitUsage, s);
  }
  absl::StatusOr<ClusterFile> cluster = ReadClusterFile(flags->Get("cluster"));
  if (!cluster.ok()) return Fail(err, kExitFailure, cluster.status());
  run.cluster = *std::move(cluster);
  if (absl::Status s = CheckKnown(run, "exclude", *flags->GetList("exclude"));
      !s.ok()) {
    return Fail(err, kExitUsage, s);
  }

  std::mt19937_64 gen(run.seed);
  placement::RackAwarePolicy policy(run.cluster.options, gen);
  ApplyCluster(run.cluster, policy, kNow);
  Tally tally(run.cluster);
  for (int64_t i = 0; i < run.draws; ++i) {
    absl::StatusOr<placement::ReplacementResult> result =
        policy.ReplaceBookie(*ensemble, index, run.write_quorum, run.ack_quorum,
                             run.excluded, run.hints);
    if (placement::IsNotEnoughBookies(result.status())) {
      tally.AddNotEnough();
      continue;
    }
    if (!result.ok()) return Fail(err, kExitFailure, result.status());
    tally.Add({result->bookie}, result->ensemble, result->adherence);
  }
  out << tally.ToJson(run.draws).dump() << "\n";
  return kExitOk;
}

}  // namespace

std::vector<Command> PlacementCommands() {
  return {
      {"placement", "newensemble",
       "draw new ensembles from a cluster file; counts per bookie and "
       "adherence as JSON",
       FlagsUsage(NewEnsembleFlags()), &NewEnsemble},
      {"placement", "replace",
       "draw replacements for one ensemble member; counts per bookie and "
       "adherence of the new ensembles as JSON",
       FlagsUsage(ReplaceFlags()), &Replace},
  };
}

}  // namespace bk::bkctl
