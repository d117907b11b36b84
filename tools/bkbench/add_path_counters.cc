#include "tools/bkbench/add_path_counters.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "tools/bkbench/bookie_sampler.h"

namespace bk::bkbench {

std::string AddPathCounters::ToString() const {
  return absl::StrFormat(
      "%.0f entries in %.0f add messages (%.1f each), %.0f journal records "
      "in %.0f groups and %.0f syncs (%.1f records per sync)",
      add_entries, add_messages,
      add_messages > 0 ? add_entries / add_messages : 0.0, journal_records,
      journal_groups, journal_syncs,
      journal_syncs > 0 ? journal_records / journal_syncs : 0.0);
}

AddPathCounters ScrapeAddPath(const std::vector<std::string>& http) {
  AddPathCounters c;
  for (const std::string& h : http) {
    auto text = HttpGetBody(h, "/metrics");
    if (!text.ok()) continue;
    auto sum = [&](const char* name) {
      return std::max(0.0, SumMetric(*text, name));
    };
    c.add_messages += sum("bookie_add_batch_entries_count");
    c.add_entries += sum("bookie_add_batch_entries_sum");
    c.journal_records += sum("bookie_journal_records_total");
    c.journal_groups += sum("bookie_journal_groups_total");
    c.journal_syncs += sum("bookie_journal_syncs_total");
    ++c.bookies;
  }
  return c;
}

AddPathCounters Difference(const AddPathCounters& a, const AddPathCounters& b) {
  AddPathCounters d;
  d.add_messages = b.add_messages - a.add_messages;
  d.add_entries = b.add_entries - a.add_entries;
  d.journal_records = b.journal_records - a.journal_records;
  d.journal_groups = b.journal_groups - a.journal_groups;
  d.journal_syncs = b.journal_syncs - a.journal_syncs;
  d.bookies = std::min(a.bookies, b.bookies);
  return d;
}

}  // namespace bk::bkbench
