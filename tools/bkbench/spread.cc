#include "tools/bkbench/spread.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace bk::bkbench {

Spread BookieWriteSpread(const WorkloadRun& run) {
  Spread s;
  std::vector<double> means;
  for (const BookieSeries& b : run.bookies) {
    double sum = 0;
    int n = 0;
    for (const BookieLoadPoint& p : b.points) {
      if (p.write_mb_per_s < 0) continue;
      sum += p.write_mb_per_s;
      ++n;
    }
    s.mean_mb_per_s.push_back(n > 0 ? sum / n : -1);
    if (n > 0) means.push_back(sum / n);
  }
  if (means.empty()) return s;
  double mean = 0;
  for (double m : means) mean += m;
  mean /= static_cast<double>(means.size());
  double var = 0;
  for (double m : means) var += (m - mean) * (m - mean);
  s.stddev = std::sqrt(var / static_cast<double>(means.size()));
  s.min = *std::min_element(means.begin(), means.end());
  s.max = *std::max_element(means.begin(), means.end());
  return s;
}

namespace {

// What an adaptive run's policy estimated of every bookie just before it
// placed ledger 0, by rack, with each member's rank in its rack: the rack
// rule puts each member in its own rack, so "the idlest bookies" means the
// least loaded of each rack the ensemble spans.
std::string EstimatesTable(const std::vector<const WorkloadRun*>& runs) {
  std::string md;
  for (const WorkloadRun* run : runs) {
    if (run->estimates_at_placement.empty() || run->placements.empty()) {
      continue;
    }
    if (md.empty()) {
      md = "What the adaptive policy estimated of every bookie just before it "
           "placed ledger 0 (MiB/s: each report brought forward, plus the "
           "client's own placements), by rack; rank 1 is the least loaded of "
           "its rack; a bookie the policy would leave out of ledger 0 before "
           "comparing loads says why (Client::PlacementLeftOut):\n\n"
           "| run | rack | bookie | estimate MiB/s | rank in rack | in ledger "
           "0 | left out |\n|---|---|---|---|---|---|---|\n";
    }
    std::map<std::string, std::vector<std::pair<double, std::string>>> racks;
    for (const BookieSeries& b : run->bookies) {
      auto it = run->estimates_at_placement.find(b.id);
      if (it == run->estimates_at_placement.end()) continue;
      racks[b.rack].emplace_back(it->second, b.id);
    }
    for (auto& [rack, bookies] : racks) {
      std::sort(bookies.begin(), bookies.end());
      for (size_t i = 0; i < bookies.size(); ++i) {
        const std::string& id = bookies[i].second;
        const auto& members = run->placements[0].ensemble;
        const bool member = std::any_of(
            members.begin(), members.end(),
            [&id](const PlacedBookie& p) { return p.bookie == id; });
        auto why = run->left_out_at_placement.find(id);
        absl::StrAppendFormat(
            &md, "| %s | %s | %s | %.3f | %d | %s | %s |\n", run->label, rack,
            id, bookies[i].first, i + 1, member ? "**yes**" : "",
            why == run->left_out_at_placement.end() ? "" : why->second);
      }
    }
  }
  return md.empty() ? md : md + "\n";
}

// Every measured ledger's first ensemble, each member with what the policy
// saw of it then (its placement note).
std::string PlacementsTable(const std::vector<const WorkloadRun*>& runs) {
  std::string md;
  for (const WorkloadRun* run : runs) {
    for (const LedgerPlacement& lp : run->placements) {
      if (md.empty()) {
        md = "Every measured ledger's first ensemble, each member with its "
             "report as the writer saw it when it placed the ledger (write "
             "MB/s, journal util %, report age ms; `bkctl placement explain` "
             "shows the same per ledger):\n\n"
             "| run | ledger | members |\n|---|---|---|\n";
      }
      std::vector<std::string> members;
      for (const PlacedBookie& b : lp.ensemble) {
        members.push_back(absl::StrFormat("%s (%.3f, %.0f %%, %d)", b.bookie,
                                          b.write_bytes_per_second / 1e6,
                                          b.journal_io_util, b.report_age_ms));
      }
      absl::StrAppend(&md, "| ", run->label, " | ", lp.ledger_id, " | ",
                      absl::StrJoin(members, ", "), " |\n");
    }
  }
  return md.empty() ? md : md + "\n";
}

}  // namespace

std::string SpreadSection(const ScenarioResult& r) {
  std::vector<const WorkloadRun*> runs;
  for (const WorkloadRun& run : r.runs) {
    // The controls repeat the first run's placements.
    if (run.label != "no-readers" && run.label != "streams") {
      runs.push_back(&run);
    }
  }
  if (runs.size() < 2 && r.spec.hot_ledger_x <= 1) return "";
  const WorkloadRun* none = nullptr;
  for (const WorkloadRun* run : runs) {
    if (run->label == "none") none = run;
  }
  const double none_sd = none ? BookieWriteSpread(*none).stddev : -1;
  std::string md = absl::StrCat(
      "## Spread across bookies\n\n"
      "Each bookie's journal write MB/s as it reported it (GetBookieInfo, "
      "once a second), averaged over the run; the spread is across "
      "bookies. ",
      r.spec.hot_ledger_x > 1
          ? absl::StrFormat("Ledger 0 is hot: %dx the rate of each other "
                            "ledger, and its rate hint says so. ",
                            r.spec.hot_ledger_x)
          : "",
      "\n\n| run | stddev MB/s | min MB/s | max MB/s | stddev / none's |\n"
      "|---|---|---|---|---|\n");
  for (const WorkloadRun* run : runs) {
    const Spread s = BookieWriteSpread(*run);
    absl::StrAppendFormat(&md, "| %s | %.3f | %.3f | %.3f | %s |\n", run->label,
                          s.stddev, s.min, s.max,
                          none_sd > 0 && s.stddev >= 0
                              ? absl::StrFormat("%.2f", s.stddev / none_sd)
                              : std::string("-"));
  }
  md +=
      "\nWhere ledger 0 was placed, and what the policy saw of each member "
      "when it placed it (the metadata's placement notes, as `bkctl "
      "placement explain` shows them), with each member's mean journal "
      "MB/s over the run:\n\n"
      "| run | bookie | journal util % at placement | write MB/s at "
      "placement | report age ms | chance in the draw | mean MB/s in the "
      "run |\n|---|---|---|---|---|---|---|\n";
  for (const WorkloadRun* run : runs) {
    if (run->placements.empty()) continue;
    const Spread s = BookieWriteSpread(*run);
    for (const PlacedBookie& b : run->placements[0].ensemble) {
      double during = -1;
      for (size_t i = 0; i < run->bookies.size(); ++i) {
        if (run->bookies[i].id == b.bookie) during = s.mean_mb_per_s[i];
      }
      absl::StrAppendFormat(
          &md, "| %s | %s | %.1f | %.3f | %d | %.3f | %.3f |\n", run->label,
          b.bookie, b.journal_io_util, b.write_bytes_per_second / 1e6,
          b.report_age_ms, b.probability, during);
    }
  }
  return md + "\n" + EstimatesTable(runs) + PlacementsTable(runs);
}

}  // namespace bk::bkbench
