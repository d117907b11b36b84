#include "tools/bkctl/cluster_file.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "placement/isolation_groups.h"
#include "placement/topology.h"

namespace bk::bkctl {
namespace {

using nlohmann::json;

absl::Status TypeError(absl::string_view where, absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": expected ", expected));
}

absl::Status GetNumber(const json& v, absl::string_view where, double* out) {
  if (!v.is_number()) return TypeError(where, "a number");
  *out = v.get<double>();
  return absl::OkStatus();
}

absl::Status GetInt(const json& v, absl::string_view where, int64_t* out) {
  if (!v.is_number_integer()) return TypeError(where, "an integer");
  *out = v.get<int64_t>();
  return absl::OkStatus();
}

absl::Status GetBool(const json& v, absl::string_view where, bool* out) {
  if (!v.is_boolean()) return TypeError(where, "true or false");
  *out = v.get<bool>();
  return absl::OkStatus();
}

absl::Status GetString(const json& v, absl::string_view where,
                       std::string* out) {
  if (!v.is_string()) return TypeError(where, "a string");
  *out = v.get<std::string>();
  return absl::OkStatus();
}

absl::Status ParsePolicy(const json& policy, placement::PlacementOptions* o) {
  if (!policy.is_object()) return TypeError("policy", "an object");
  for (const auto& [key, v] : policy.items()) {
    const std::string where = absl::StrCat("policy.", key);
    absl::Status s;
    if (key == "weighting") {
      std::string name;
      s = GetString(v, where, &name);
      if (s.ok()) {
        absl::StatusOr<placement::Weighting> w =
            placement::ParseWeighting(name);
        if (!w.ok()) return TypeError(where, "none, disk, load or adaptive");
        o->weighting = *w;
      }
    } else if (key == "minNumRacksPerWriteQuorum") {
      int64_t n = 0;
      s = GetInt(v, where, &n);
      if (s.ok() && (n < 1 || n > 1000)) return TypeError(where, "1..1000");
      o->min_num_racks_per_write_quorum = static_cast<int>(n);
    } else if (key == "enforceMinNumRacksPerWriteQuorum") {
      s = GetBool(v, where, &o->enforce_min_num_racks_per_write_quorum);
    } else if (key == "bookieMaxWeightMultipleForWeightBasedPlacement") {
      s = GetNumber(v, where, &o->bookie_max_weight_multiple);
    } else if (key == "loadThreshold") {
      s = GetNumber(v, where, &o->load_threshold);
    } else if (key == "lowLoadBookieRatio") {
      s = GetNumber(v, where, &o->low_load_bookie_ratio);
    } else if (key == "ensemblePlacementPolicy") {
      std::string name;
      s = GetString(v, where, &name);
      if (s.ok() && name != "rack-aware" && name != "region-aware") {
        return TypeError(where, "rack-aware or region-aware");
      }
      o->region.enabled = name == "region-aware";
    } else if (key == "reppMinimumRegionsForDurability") {
      int64_t n = 0;
      s = GetInt(v, where, &n);
      if (s.ok() && (n < 0 || n > 100)) return TypeError(where, "0..100");
      o->region.min_regions_for_durability = static_cast<int>(n);
    } else if (key == "reppEnableDurabilityEnforcementInReplace") {
      s = GetBool(v, where, &o->region.enforce_durability_in_replace);
    } else if (key == "reppRegionsToWrite") {
      std::string list;
      s = GetString(v, where, &list);
      o->region.regions_to_write.clear();
      for (absl::string_view part : absl::StrSplit(list, absl::ByAnyChar(";,"),
                                                   absl::SkipWhitespace())) {
        o->region.regions_to_write.emplace_back(
            absl::StripAsciiWhitespace(part));
      }
    } else if (key == "clientRegion") {
      s = GetString(v, where, &o->region.local_region);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown key \"", where, "\""));
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<ClusterBookie> ParseBookie(const json& b,
                                          const std::string& at) {
  if (!b.is_object()) return TypeError(at, "an object");
  ClusterBookie bookie;
  bookie.node.network_location = std::string(placement::kDefaultRack);
  bool has_id = false;
  for (const auto& [key, v] : b.items()) {
    const std::string where = absl::StrCat(at, ".", key);
    placement::BookieInfo& info = bookie.info;
    absl::Status s;
    if (key == "id") {
      s = GetString(v, where, &bookie.node.id);
      if (s.ok() && bookie.node.id.empty()) return TypeError(where, "an id");
      has_id = true;
    } else if (key == "rack") {
      std::string rack;
      s = GetString(v, where, &rack);
      if (s.ok()) {
        absl::StatusOr<std::string> parsed =
            placement::ParseNetworkLocation(rack);
        if (!parsed.ok()) return TypeError(where, "/region/rack");
        bookie.node.network_location = *std::move(parsed);
      }
    } else if (key == "readonly") {
      s = GetBool(v, where, &bookie.readonly);
    } else if (key == "groups") {
      if (!v.is_array()) return TypeError(where, "an array of group names");
      std::string joined;
      for (const json& g : v) {
        if (!g.is_string()) return TypeError(where, "an array of group names");
        joined += g.get<std::string>() + ",";
      }
      absl::StatusOr<std::vector<std::string>> names =
          placement::ParseGroupList(joined);
      if (!names.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": ", names.status().message()));
      }
      bookie.node.groups = *std::move(names);
    } else if (key == "free_disk_space") {
      s = GetInt(v, where, &info.free_disk_bytes);
    } else if (key == "total_disk_capacity") {
      s = GetInt(v, where, &info.total_disk_bytes);
    } else if (key == "journal_io_util") {
      s = GetNumber(v, where, &info.journal_io_util);
    } else if (key == "ledger_io_util") {
      s = GetNumber(v, where, &info.ledger_io_util);
    } else if (key == "cpu_used_rate") {
      s = GetNumber(v, where, &info.cpu_used_rate);
    } else if (key == "write_bytes_per_second") {
      s = GetNumber(v, where, &info.write_bytes_per_second);
    } else if (key == "report_age_ms") {
      int64_t ms = 0;
      s = GetInt(v, where, &ms);
      if (s.ok() && ms < 0) return TypeError(where, "a non-negative integer");
      bookie.report_age = absl::Milliseconds(ms);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown key \"", where, "\""));
    }
    if (!s.ok()) return s;
  }
  if (!has_id) {
    return absl::InvalidArgumentError(absl::StrCat(at, ": missing key \"id\""));
  }
  return bookie;
}

}  // namespace

absl::StatusOr<ClusterFile> ParseClusterFile(absl::string_view json_text) {
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster file is not valid JSON: ", e.what()));
  }
  if (!root.is_object()) return TypeError("cluster file", "a JSON object");
  ClusterFile cluster;
  bool has_bookies = false;
  for (const auto& [key, v] : root.items()) {
    if (key == "policy") {
      if (absl::Status s = ParsePolicy(v, &cluster.options); !s.ok()) return s;
    } else if (key == "bookies") {
      if (!v.is_array()) return TypeError("bookies", "an array");
      has_bookies = true;
      absl::flat_hash_set<std::string> ids;
      for (size_t i = 0; i < v.size(); ++i) {
        absl::StatusOr<ClusterBookie> bookie =
            ParseBookie(v[i], absl::StrCat("bookies[", i, "]"));
        if (!bookie.ok()) return bookie.status();
        if (!ids.insert(bookie->node.id).second) {
          return absl::InvalidArgumentError(absl::StrCat(
              "bookies[", i, "].id: duplicate id \"", bookie->node.id, "\""));
        }
        cluster.bookies.push_back(*std::move(bookie));
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown key \"", key, "\""));
    }
  }
  if (!has_bookies) {
    return absl::InvalidArgumentError("cluster file: missing key \"bookies\"");
  }
  if (absl::Status s = placement::ValidatePlacementOptions(cluster.options);
      !s.ok()) {
    return s;
  }
  return cluster;
}

absl::StatusOr<ClusterFile> ReadClusterFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read ", path));
  absl::StatusOr<ClusterFile> cluster = ParseClusterFile(text.str());
  if (!cluster.ok()) {
    return absl::Status(cluster.status().code(),
                        absl::StrCat(path, ": ", cluster.status().message()));
  }
  return cluster;
}

void ApplyCluster(const ClusterFile& cluster,
                  placement::EnsemblePlacementPolicy& policy, absl::Time now) {
  std::vector<placement::BookieNode> writable;
  std::vector<placement::BookieNode> readonly;
  for (const ClusterBookie& b : cluster.bookies) {
    (b.readonly ? readonly : writable).push_back(b.node);
  }
  policy.OnClusterChanged(writable, readonly);
  for (const ClusterBookie& b : cluster.bookies) {
    policy.OnBookieInfo(b.node.id, b.info, now - b.report_age);
  }
  policy.AdvanceTime(now);
}

}  // namespace bk::bkctl
