// Crash consistency: a scripted workload is cut at every operation index
// (a failed write, a failed sync, a torn write, each followed by a power
// cut), and a torn write at every byte of the last record. After restart:
// every acknowledged add is replayed intact (or was checkpointed into the
// storage before the crash), nothing unacknowledged shows up half-written,
// and the journal takes new adds.

#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <random>

#include "bookie/journal/journal.h"
#include "common/fault_env.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::AddWaiter;
using testing::Notify;
using testing::Payload;
using RT = journal_format::RecordType;
using Key = std::pair<uint64_t, int64_t>;

constexpr uint32_t kSeed = 20240611;

struct Fault {
  enum Kind { kNone, kFailWrite, kFailSync, kTear } kind = kNone;
  int64_t n = 0;
  size_t keep = 0;
};

struct Outcome {
  std::map<Key, std::string> submitted;
  std::map<Key, std::string> acked;
  std::map<Key, std::string> checkpointed;  // in the "storage" at the crash
  int64_t writes = 0;
  int64_t syncs = 0;
};

// `aligned`: journalDirectIo's padded groups (the fault Env has no direct
// writes, so they go through its page cache model), else plain writev.
// `recycle`: no backups, larger adds and a checkpoint every third add, so
// that files are retired and reused (journalReuseFiles) during the
// workload; a power cut puts back the old bytes of a reused file past what
// was synced.
JournalOptions Options(const TempDir& dir, bool aligned, bool recycle) {
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  o.direct_io = aligned;
  o.reuse_files = recycle;
  o.max_file_size_bytes = 64 * 1024;  // several rolls in the workload
  o.preallocate_bytes = 64 * 1024;
  o.buffered_entries_threshold = 1;  // one group per add: a fixed op count
  if (recycle) {
    o.max_backups = 0;
  }
  return o;
}

// Runs the workload on `env`, arming `fault` after start. Each add waits for
// its completion; the first failed add ends the workload.
Outcome RunWorkload(FaultInjectionEnv* env, const JournalOptions& o,
                    const Fault& fault) {
  Outcome out;
  std::mt19937 rng(kSeed);
  // Larger adds when recycling: a roll every other add or so.
  std::uniform_int_distribution<size_t> size(1, o.reuse_files ? 60000 : 20000);
  Journal j(env, o);
  REQUIRE(
      j.Replay([](const JournalRecordView&) { return absl::OkStatus(); }).ok());
  REQUIRE(j.Start().ok());
  const int64_t writes0 = env->write_count(), syncs0 = env->sync_count();
  switch (fault.kind) {
    case Fault::kFailWrite:
      env->FailNth(FaultInjectionEnv::Op::kWrite, fault.n, EIO);
      break;
    case Fault::kFailSync:
      env->FailNth(FaultInjectionEnv::Op::kSync, fault.n, EIO);
      break;
    case Fault::kTear:
      env->TearNthWrite(fault.n, fault.keep);
      break;
    case Fault::kNone:
      break;
  }
  std::map<Key, std::string> acked_before_mark;
  for (int64_t e = 0; e < 14; ++e) {
    const uint64_t ledger = 1 + static_cast<uint64_t>(e % 3);
    std::string payload(size(rng), static_cast<char>('a' + e));
    out.submitted[{ledger, e}] = payload;
    auto w = std::make_shared<AddWaiter>();
    if (!j.Add(RT::kEntry, ledger, e, Payload(payload), Notify(w)).ok()) break;
    REQUIRE(w->Ready());
    if (!w->future.get().ok()) break;
    out.acked[{ledger, e}] = payload;
    const bool recycle = o.reuse_files;
    if (recycle ? e % 3 == 2 : e == 6) {
      // The storage flushes everything acknowledged so far, then
      // checkpoints. A failed checkpoint leaves the old one: still safe.
      acked_before_mark = out.acked;
      if (j.Checkpoint(j.CurrentMark()).ok()) {
        out.checkpointed = acked_before_mark;
      }
    }
  }
  out.writes = env->write_count() - writes0;
  out.syncs = env->sync_count() - syncs0;
  j.Stop();
  return out;
}

// Restarts on `env` and checks the invariants; then proves the journal
// takes and replays a new add.
void CheckRecovery(FaultInjectionEnv* env, const JournalOptions& o,
                   const Outcome& out) {
  std::map<Key, std::string> replayed;
  {
    Journal j(env, o);
    auto report = j.Replay([&](const JournalRecordView& rec) {
      Key k{rec.ledger_id, rec.entry_id};
      auto it = out.submitted.find(k);
      REQUIRE(it != out.submitted.end());               // never invented
      REQUIRE(it->second == std::string(rec.payload));  // never half-written
      // Never from before the checkpoint (a reused file's old records).
      REQUIRE(out.checkpointed.count(k) == 0);
      replayed[k] = std::string(rec.payload);
      return absl::OkStatus();
    });
    REQUIRE(report.ok());
    for (const auto& [k, v] : out.acked) {
      INFO("acknowledged entry " << k.first << "/" << k.second << " lost");
      CHECK((replayed.count(k) > 0 || out.checkpointed.count(k) > 0));
    }
    REQUIRE(j.Start().ok());
    auto w = std::make_shared<AddWaiter>();
    REQUIRE(j.Add(RT::kEntry, 9, 0, Payload("after"), Notify(w)).ok());
    REQUIRE(w->Ready());
    REQUIRE(w->future.get().ok());
  }
  bool found = false;
  Journal again(env, o);
  REQUIRE(again
              .Replay([&](const JournalRecordView& rec) {
                if (rec.ledger_id == 9) found = rec.payload == "after";
                return absl::OkStatus();
              })
              .ok());
  CHECK(found);
}

void CrashAndCheck(const Fault& fault, bool aligned, bool recycle) {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  const JournalOptions o = Options(dir, aligned, recycle);
  Outcome out = RunWorkload(&env, o, fault);
  REQUIRE(env.PowerCut().ok());
  env.Restart();
  env.ClearFaults();
  CheckRecovery(&env, o, out);
}

TEST_CASE(
    "after a power cut at any write or sync every acknowledged add "
    "survives and nothing is half-written",
    "[journal]") {
  std::printf("journal crash test seed %u\n", kSeed);
  for (auto [aligned, recycle] :
       {std::pair{false, false}, std::pair{true, false}, std::pair{true, true},
        std::pair{false, true}}) {
    INFO((aligned ? "aligned, padded groups" : "writev groups")
         << (recycle ? ", files reused" : ""));
    Outcome dry;
    int64_t reused = 0;
    {
      TempDir dir(TempDir::Where::kMemory);
      FaultInjectionEnv env(Env::Default());
      const JournalOptions o = Options(dir, aligned, recycle);
      dry = RunWorkload(&env, o, Fault{});
      auto ids = ListJournalFiles(&env, o.dirs[0]);
      REQUIRE(ids.ok());
      reused =
          static_cast<int64_t>(ids->back()) - static_cast<int64_t>(ids->size());
    }
    REQUIRE(dry.acked.size() == 14);
    // Reuse leaves fewer files than ids were used; without it, the backups
    // keep every one.
    CHECK((recycle ? reused > 0 : reused == 0));
    std::mt19937 rng(kSeed);
    for (int64_t n = 1; n <= dry.writes; ++n) {
      INFO("failed write " << n);
      CrashAndCheck(Fault{Fault::kFailWrite, n, 0}, aligned, recycle);
    }
    for (int64_t n = 1; n <= dry.syncs; ++n) {
      INFO("failed sync " << n);
      CrashAndCheck(Fault{Fault::kFailSync, n, 0}, aligned, recycle);
    }
    for (int64_t n = 1; n <= dry.writes; ++n) {
      const size_t keep = std::uniform_int_distribution<size_t>(0, 20000)(rng);
      INFO("torn write " << n << " keeping " << keep << " bytes");
      CrashAndCheck(Fault{Fault::kTear, n, keep}, aligned, recycle);
    }
  }
}

TEST_CASE(
    "a write torn at any byte of the last record is cut on replay and "
    "the earlier records survive",
    "[journal]") {
  const std::string last(60, 'L');
  const size_t record = journal_format::kRecordHeaderSize + last.size();
  for (size_t keep = 0; keep < record; ++keep) {
    INFO("kept " << keep << " of " << record << " bytes");
    TempDir dir(TempDir::Where::kMemory);
    FaultInjectionEnv env(Env::Default());
    JournalOptions o;
    o.dirs = {dir.Sub("journal")};
    o.buffered_entries_threshold = 1;
    {
      Journal j(&env, o);
      REQUIRE(j.Replay([](const JournalRecordView&) {
                 return absl::OkStatus();
               }).ok());
      REQUIRE(j.Start().ok());
      for (int64_t e = 0; e < 3; ++e) {
        auto w = std::make_shared<AddWaiter>();
        REQUIRE(j.Add(RT::kEntry, 1, e, Payload("early"), Notify(w)).ok());
        REQUIRE(w->Ready());
        REQUIRE(w->future.get().ok());
      }
      env.TearNthWrite(1, keep);
      auto w = std::make_shared<AddWaiter>();
      REQUIRE(j.Add(RT::kEntry, 1, 3, Payload(last), Notify(w)).ok());
      REQUIRE(w->Ready());
      CHECK_FALSE(w->future.get().ok());
    }
    env.Restart();  // the torn bytes stay on disk, as after a real crash
    env.ClearFaults();
    std::vector<int64_t> entries;
    Journal j(&env, o);
    auto report = j.Replay([&](const JournalRecordView& rec) {
      entries.push_back(rec.entry_id);
      return absl::OkStatus();
    });
    REQUIRE(report.ok());
    CHECK(entries == std::vector<int64_t>{0, 1, 2});
    CHECK(report->torn_bytes_cut == keep);
    REQUIRE(j.Start().ok());
  }
}

TEST_CASE("replay refuses an older journal file with a damaged tail",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  o.flush_when_queue_empty = true;
  for (int round = 0; round < 2; ++round) {  // two files: one per start
    Journal j(Env::Default(), o);
    REQUIRE(j.Replay([](const JournalRecordView&) {
               return absl::OkStatus();
             }).ok());
    REQUIRE(j.Start().ok());
    auto w = std::make_shared<AddWaiter>();
    REQUIRE(j.Add(RT::kEntry, 1, round, Payload("payload"), Notify(w)).ok());
    REQUIRE(w->Ready());
    REQUIRE(w->future.get().ok());
  }
  auto ids = ListJournalFiles(Env::Default(), o.dirs[0]);
  REQUIRE(ids.ok());
  REQUIRE(ids->size() == 2);
  const std::string first = JournalFilePath(o.dirs[0], ids->front());
  std::string data = testing::ReadRaw(first);
  // The file's last record: its entry, before the padding (journalDirectIo).
  const size_t at = data.rfind("payload");
  REQUIRE(at != std::string::npos);
  data[at + 6] ^= 1;
  testing::WriteRaw(first, data);
  Journal j(Env::Default(), o);
  auto r = j.Replay([](const JournalRecordView&) { return absl::OkStatus(); });
  CHECK(absl::IsDataLoss(r.status()));

  o.skip_corrupt_records = true;
  Journal skipping(Env::Default(), o);
  auto s = skipping.Replay(
      [](const JournalRecordView&) { return absl::OkStatus(); });
  REQUIRE(s.ok());
  CHECK(s->records == 1);
  CHECK(s->skipped_ranges == 1);
}

}  // namespace
}  // namespace bk::bookie
