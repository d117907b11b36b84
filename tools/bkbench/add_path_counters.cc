#include "tools/bkbench/add_path_counters.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/bkbench/bookie_sampler.h"

namespace bk::bkbench {
namespace {

HistogramTotal Minus(const HistogramTotal& b, const HistogramTotal& a) {
  return HistogramTotal{b.sum_s - a.sum_s, b.count - a.count};
}

std::string Ms(const HistogramTotal& h) {
  const double ms = h.MeanMs();
  return ms < 0 ? "unknown" : absl::StrFormat("%.2f", ms);
}

nlohmann::json MeanJson(const HistogramTotal& h) {
  return {{"mean_ms", h.MeanMs()}, {"count", h.count}};
}

}  // namespace

double HistogramTotal::MeanMs() const {
  return count > 0 ? sum_s * 1000.0 / count : -1;
}

double AddPathCounters::EntriesPerMessage() const {
  return add_messages > 0 ? add_entries / add_messages : 0.0;
}

double AddPathCounters::RecordsPerSync() const {
  return journal_syncs > 0 ? journal_records / journal_syncs : 0.0;
}

std::string AddPathCounters::ToString() const {
  return absl::StrFormat(
      "%.0f entries in %.0f add messages (%.1f each), %.0f journal records "
      "in %.0f groups and %.0f syncs (%.1f records per sync)",
      add_entries, add_messages, EntriesPerMessage(), journal_records,
      journal_groups, journal_syncs, RecordsPerSync());
}

std::string AddPathCounters::StagesToString() const {
  return absl::StrCat(
      "an add ", Ms(add_latency), " ms in the bookie (mean); a journal group ",
      Ms(journal_queue), " ms queued, ", Ms(journal_write), " writing, ",
      Ms(journal_sync_queue), " waiting for its sync, ", Ms(journal_sync),
      " syncing, ", Ms(journal_callback_queue), " waiting for its callbacks");
}

nlohmann::json AddPathCounters::ToJson() const {
  return {{"bookies", bookies},
          {"add_messages", add_messages},
          {"add_entries", add_entries},
          {"journal_records", journal_records},
          {"journal_groups", journal_groups},
          {"journal_syncs", journal_syncs},
          {"add_latency", MeanJson(add_latency)},
          {"journal_group",
           {{"queue", MeanJson(journal_queue)},
            {"write", MeanJson(journal_write)},
            {"sync_queue", MeanJson(journal_sync_queue)},
            {"sync", MeanJson(journal_sync)},
            {"callback_queue", MeanJson(journal_callback_queue)}}}};
}

void AddMetricsText(const std::string& text, AddPathCounters* c) {
  auto sum = [&](const std::string& name) {
    return std::max(0.0, SumMetric(text, name));
  };
  auto hist = [&](const std::string& name, HistogramTotal* h) {
    h->sum_s += sum(name + "_sum");
    h->count += sum(name + "_count");
  };
  c->add_messages += sum("bookie_add_batch_entries_count");
  c->add_entries += sum("bookie_add_batch_entries_sum");
  c->journal_records += sum("bookie_journal_records_total");
  c->journal_groups += sum("bookie_journal_groups_total");
  c->journal_syncs += sum("bookie_journal_syncs_total");
  hist("bookie_add_latency_seconds", &c->add_latency);
  hist("bookie_journal_queue_seconds", &c->journal_queue);
  hist("bookie_journal_write_seconds", &c->journal_write);
  hist("bookie_journal_sync_queue_seconds", &c->journal_sync_queue);
  hist("bookie_journal_sync_seconds", &c->journal_sync);
  hist("bookie_journal_callback_queue_seconds", &c->journal_callback_queue);
  ++c->bookies;
}

AddPathCounters ScrapeAddPath(const std::vector<std::string>& http) {
  AddPathCounters c;
  for (const std::string& h : http) {
    auto text = HttpGetBody(h, "/metrics");
    if (text.ok()) AddMetricsText(*text, &c);
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
  d.add_latency = Minus(b.add_latency, a.add_latency);
  d.journal_queue = Minus(b.journal_queue, a.journal_queue);
  d.journal_write = Minus(b.journal_write, a.journal_write);
  d.journal_sync_queue = Minus(b.journal_sync_queue, a.journal_sync_queue);
  d.journal_sync = Minus(b.journal_sync, a.journal_sync);
  d.journal_callback_queue =
      Minus(b.journal_callback_queue, a.journal_callback_queue);
  d.bookies = std::min(a.bookies, b.bookies);
  return d;
}

}  // namespace bk::bkbench
