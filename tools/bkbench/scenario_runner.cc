#include "tools/bkbench/scenario_runner.h"

#include <stdlib.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/measure.h"
#include "metadata/metadata_store.h"
#include "tools/bkbench/backlog_stream.h"
#include "tools/bkbench/cluster_store.h"
#include "tools/bkbench/read_ceiling.h"
#include "tools/bkbench/writable_bookies.h"

namespace bk::bkbench {
namespace {

// Ledgers among `ids` whose first segment holds `bookie`.
int LedgersOn(const std::string& uri, const metadata::OpenOptions& open,
              const std::vector<int64_t>& ids, const std::string& bookie) {
  auto store = metadata::Open(uri, open);
  if (!store.ok()) return -1;
  int n = 0;
  for (int64_t id : ids) {
    auto md = (*store)->ReadLedger(id);
    if (!md.ok() || md->value.segments().empty()) continue;
    for (const auto& b : md->value.segments(0).bookies()) n += b == bookie;
  }
  return n;
}

// Each ledger's first ensemble with the placement notes its writer
// recorded; a ledger whose metadata cannot be read is left out.
std::vector<LedgerPlacement> ExplainPlacements(
    const std::string& uri, const metadata::OpenOptions& open,
    const std::vector<int64_t>& ids) {
  std::vector<LedgerPlacement> out;
  auto store = metadata::Open(uri, open);
  if (!store.ok()) return out;
  for (int64_t id : ids) {
    auto md = (*store)->ReadLedger(id);
    if (!md.ok() || md->value.segments().empty()) continue;
    LedgerPlacement lp;
    lp.ledger_id = id;
    for (const auto& b : md->value.segments(0).bookies()) {
      PlacedBookie pb;
      pb.bookie = b;
      const auto& notes = md->value.placement_notes();
      if (auto it = notes.find(b); it != notes.end()) {
        pb.journal_io_util = it->second.journal_io_util();
        pb.write_bytes_per_second = it->second.write_bytes_per_second();
        pb.report_age_ms = it->second.report_age_ms();
        pb.probability = it->second.probability();
      }
      lp.ensemble.push_back(pb);
    }
    out.push_back(std::move(lp));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<localcluster::LocalCluster>> StartCluster(
    const ScenarioSpec& spec, const std::string& dir,
    const std::string& bookie_binary,
    std::vector<std::pair<int, std::string>> per_bookie_config) {
  localcluster::LocalClusterOptions o;
  o.bookies = spec.bookies;
  o.racks = spec.racks;
  o.dir = absl::StrCat(dir, "/cluster");
  o.bookie_binary = bookie_binary;
  o.extra_bookie_config = spec.bookie_config;
  o.per_bookie_config = std::move(per_bookie_config);
  o.zookeeper_port = 0;  // a free one too
  return localcluster::LocalCluster::StartOnFreePorts(std::move(o));
}

absl::StatusOr<WorkloadRun> RunWorkload(const ScenarioSpec& spec,
                                        placement::Weighting weighting,
                                        const std::string& label,
                                        const std::string& uri,
                                        const RunnerOptions& options,
                                        const std::string& slow_bookie_id) {
  client::ClientOptions co = options.client;
  co.metadata_service_uri = uri;
  co.placement.weighting = weighting;
  co.get_bookie_info_interval =
      absl::Milliseconds(spec.bookie_info_interval_ms);
  co.seed = options.seed;
  // Read-only bookies (a full disk) said plainly, before placement can only
  // say that too few were eligible.
  std::vector<std::string> warnings;
  if (absl::Status s = CheckWritableBookies(co, spec.ensemble, &warnings);
      !s.ok()) {
    return s;
  }
  for (const std::string& w : warnings) std::cerr << "bkbench: " << w << "\n";
  auto client = client::Client::Create(co);
  if (!client.ok()) return client.status();
  auto sampler = BookieSampler::Create(co);
  if (!sampler.ok()) return sampler.status();

  // The cluster's other traffic: its own client, so that its placements do
  // not depend on the weighting under test.
  std::unique_ptr<client::Client> bg_client;
  std::unique_ptr<WriteLoad> bg_load;
  std::thread bg_thread;
  if (spec.background_rate > 0) {
    client::ClientOptions bo = co;
    bo.placement.weighting = spec.background_weighting;
    bo.seed = options.seed ^ 0x5bd1e995;
    auto bc = client::Client::Create(bo);
    if (!bc.ok()) return bc.status();
    bg_client = std::move(*bc);
    WriteLoadOptions bw;
    bw.ledgers = spec.background_ledgers;
    bw.entry_size = spec.entry_size;
    bw.rate = spec.background_rate;
    bw.ensemble = spec.ensemble;
    bw.write_quorum = spec.write_quorum;
    bw.ack_quorum = spec.ack_quorum;
    bw.duration = absl::Seconds(spec.warmup_s + spec.duration_s + 600);
    auto bl = WriteLoad::Create(bg_client.get(), bw);
    if (!bl.ok()) return bl.status();
    bg_load = std::move(*bl);
    bg_thread = std::thread([l = bg_load.get()] { l->Run(); });
  }
  auto stop_background = [&] {
    if (!bg_load) return;
    bg_load->Stop();
    bg_thread.join();
    bg_load.reset();
    bg_client.reset();
  };

  WriteLoadOptions wo;
  wo.ledgers = spec.ledgers;
  wo.entry_size = spec.entry_size;
  wo.rate = spec.rate;
  wo.hot_ledger_x = spec.hot_ledger_x;
  wo.ensemble = spec.ensemble;
  wo.write_quorum = spec.write_quorum;
  wo.ack_quorum = spec.ack_quorum;
  wo.progress = options.progress;
  if (spec.warmup_s > 0) {
    if (options.progress) std::cerr << "[" << label << "] warm-up\n";
    wo.duration = absl::Seconds(spec.warmup_s);
    auto warm = WriteLoad::Create(client->get(), wo);
    if (!warm.ok()) {
      stop_background();
      return warm.status();
    }
    WriteResult w = (*warm)->Run();
    if (w.failed > 0) {
      stop_background();
      return absl::InternalError(
          absl::StrCat("warm-up adds failed: ", w.first_error));
    }
  }
  // The measured ledgers are created now, after the client has had
  // warmup_s of bookie reports to place them by.
  wo.duration = absl::Seconds(spec.duration_s);
  std::map<std::string, double> estimates = (*client)->PlacementLoadEstimates();
  std::map<std::string, std::string> left_out =
      (*client)->PlacementLeftOut(WriteLoad::LedgerOptions(wo, 0));
  auto load = WriteLoad::Create(client->get(), wo);
  if (!load.ok()) {
    stop_background();
    return load.status();
  }
  WriteLoad* writer = load->get();

  WorkloadRun run;
  run.label = label;
  run.weighting = weighting;
  run.estimates_at_placement = std::move(estimates);
  run.left_out_at_placement = std::move(left_out);
  const absl::Time start = absl::Now();
  std::vector<std::unique_ptr<TailReader>> readers;
  std::vector<ReaderSpec> reader_specs;  // readers[i]'s
  std::vector<std::unique_ptr<BacklogStream>> streams;
  for (const ReaderSpec& rs : spec.readers) {
    const int idx = rs.ledger;
    auto lac = [writer, idx] { return writer->LastAddConfirmed(idx); };
    if (rs.bare_stream) {
      streams.push_back(std::make_unique<BacklogStream>(
          co, rs, writer->ledger_id(idx), start, lac));
      streams.back()->Start();
      continue;
    }
    readers.push_back(std::make_unique<TailReader>(
        client->get(), rs, writer->ledger_id(idx), wo.password, start, lac,
        [s = sampler->get()] { return s->CacheTotals(); }));
    readers.back()->Start();
    reader_specs.push_back(rs);
  }
  run.reader_series.resize(readers.size());
  (*sampler)->Start(start);
  MachineSampler machine;
  machine.Start(start);
  std::atomic<bool> sampling{true};
  std::thread reader_sampler([&] {
    absl::Time next = start + absl::Seconds(1);
    while (sampling.load()) {
      while (sampling.load() && absl::Now() < next) {
        absl::SleepFor(std::min(absl::Milliseconds(50), next - absl::Now()));
      }
      if (!sampling.load()) break;
      for (size_t i = 0; i < readers.size(); ++i) {
        ReaderSecond s;
        s.t_s = absl::ToDoubleSeconds(absl::Now() - start);
        auto [read, p99] = readers[i]->TakeSecond();
        s.read = read;
        s.tail_p99_ms = p99;
        if (readers[i]->Joined()) {
          s.backlog = std::max<int64_t>(
              0, writer->LastAddConfirmed(reader_specs[i].ledger) + 1 -
                     readers[i]->Position());
        }
        run.reader_series[i].push_back(s);
      }
      next += absl::Seconds(1);
    }
  });
  const AddPathCounters adds_start = ScrapeAddPath((*sampler)->http());
  run.write = writer->Run();
  run.add_path = Difference(adds_start, ScrapeAddPath((*sampler)->http()));
  stop_background();
  for (size_t i = 0; i < readers.size(); ++i) {
    run.readers.push_back(readers[i]->Finish(
        run.write.last_entry[reader_specs[i].ledger], absl::Seconds(60)));
  }
  for (auto& bs : streams) run.streams.push_back(bs->Finish());
  // The bare stream of each late reader's backlog, on the same cluster
  // once the writers have stopped.
  for (ReaderResult& rr : run.readers) {
    if (rr.backlog_at_join <= 0) continue;
    auto c = MeasureReadCeiling(co, rr.ledger_id, rr.backlog_at_join);
    if (c.ok()) rr.stream_ceiling_rate = c->entries_per_s;
  }
  sampling.store(false);
  reader_sampler.join();
  (*sampler)->Stop();
  machine.Stop();
  run.bookies = (*sampler)->bookies();
  run.machine = machine.points();
  if (!slow_bookie_id.empty()) {
    run.slow_bookie_ledgers = LedgersOn(uri, StoreOptionsOf(co),
                                        run.write.ledger_ids, slow_bookie_id);
  }
  return run;
}

absl::StatusOr<ScenarioResult> RunScenario(const ScenarioSpec& spec,
                                           const RunnerOptions& options) {
  std::string dir = options.cluster_dir;
  std::string tmp;
  if (options.metadata_uri.empty() && dir.empty()) {
    const char* base = getenv("TMPDIR");
    std::string tmpl =
        absl::StrCat(base && *base ? base : "/tmp", "/bkbench-scenario.XXXXXX");
    if (mkdtemp(tmpl.data()) == nullptr) {
      return absl::InternalError("cannot make a temporary directory");
    }
    dir = tmp = tmpl;
  }
  absl::StatusOr<ScenarioResult> result;
  if (spec.kind == ScenarioKind::kSlowBookie) {
    result = RunSlowBookie(spec, options, dir.empty() ? tmp : dir);
  } else {
    ScenarioResult r;
    r.spec = spec;
    r.seed = options.seed;
    std::unique_ptr<localcluster::LocalCluster> cluster;
    std::string uri = options.metadata_uri;
    if (uri.empty()) {
      auto c = StartCluster(spec, dir, options.bookie_binary, {});
      if (!c.ok()) return c.status();
      cluster = std::move(*c);
      uri = cluster->metadata_uri();
      r.cluster =
          absl::StrCat("local cluster of ", spec.bookies, " bookies in ",
                       spec.racks, " racks under ", dir);
      auto disk = measure::MeasureCeiling(
          dir, static_cast<size_t>(spec.entry_size) * 16, 1.0);
      if (!disk.ok()) return disk.status();
      r.disk_ceiling_mb_per_s = disk->mb_per_s;
      r.small_sync_ms = disk->small_sync_ms;
    } else {
      r.cluster = uri;
    }
    // One run, or one per policy (each with a fresh client) on this cluster.
    std::vector<std::pair<placement::Weighting, std::string>> runs;
    if (spec.policies.empty()) runs.push_back({spec.weighting, "run"});
    for (placement::Weighting w : spec.policies) {
      runs.push_back({w, std::string(placement::WeightingName(w))});
    }
    for (const auto& [w, label] : runs) {
      if (options.progress && runs.size() > 1) {
        std::cerr << "bkbench: run with weighting " << label << "\n";
      }
      auto run = RunWorkload(spec, w, label, uri, options, "");
      if (!run.ok()) {
        return absl::Status(run.status().code(),
                            absl::StrCat(label, ": ", run.status().message()));
      }
      run->placements = ExplainPlacements(uri, StoreOptionsOf(options.client),
                                          run->write.ledger_ids);
      r.runs.push_back(std::move(*run));
    }
    if (options.stream_beside_writers && !r.runs.empty()) {
      ScenarioSpec beside = spec;
      bool late = false;
      for (ReaderSpec& rs : beside.readers) {
        rs.bare_stream = rs.join_s > 0;
        late = late || rs.bare_stream;
      }
      if (late) {
        auto streams =
            RunWorkload(beside, spec.weighting, "streams", uri, options, "");
        if (!streams.ok()) return streams.status();
        // Each reader of the first run is told its stand-in's rate.
        for (ReaderResult& rr : r.runs[0].readers) {
          for (const ReaderResult& st : streams->streams) {
            if (st.name == rr.name && st.errors == 0) {
              rr.stream_beside_writers_rate = st.backlog_rate;
            }
          }
        }
        r.runs.push_back(std::move(*streams));
      }
    }
    if (options.control_without_readers && !spec.readers.empty()) {
      ScenarioSpec alone = spec;
      alone.readers.clear();
      auto control =
          RunWorkload(alone, spec.weighting, "no-readers", uri, options, "");
      if (!control.ok()) return control.status();
      r.runs.push_back(std::move(*control));
    }
    result = std::move(r);
  }
  if (result.ok() && options.echo_seconds > 0) {
    WriteLoadOptions wo;
    wo.ledgers = spec.ledgers;
    wo.entry_size = spec.entry_size;
    wo.ensemble = spec.ensemble;
    wo.write_quorum = spec.write_quorum;
    wo.ack_quorum = spec.ack_quorum;
    auto echo = MeasureEchoCeiling(wo, absl::Seconds(options.echo_seconds));
    if (echo.ok()) result->echo = *echo;
  }
  if (!tmp.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(tmp, ec);
  }
  return result;
}

}  // namespace bk::bkbench
