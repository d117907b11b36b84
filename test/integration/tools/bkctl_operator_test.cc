// The operator's bkctl verbs against a live cluster (ZooKeeper and three
// bookie processes): cluster info (counts; a SIGKILLed bookie shows as
// down), ledger read (payloads match the writer's log), a ZooKeeper root
// secured with credentials read through the client config file; then
// readjournal, readentrylog and lastmark on the bookies' files: every
// acknowledged entry is found intact (CRC32C against the writer's log) in
// the journal of the SIGKILLed bookie and in the entry logs of a cleanly
// stopped one, damaged copies are reported as corrupt or torn, never
// decoded as good; the cleanly stopped bookie's location index checks
// clean, lost it checks faulty, rebuilt from its entry logs it holds the
// same locations and checks clean again; bad arguments exit 2.

#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bookie/storage/ledger_index.h"
#include "metadata/metadata_store.h"
#include "nlohmann/json.hpp"
#include "proto/crc32c.h"
#include "test/integration/tools/tool_runner.h"
#include "test/support/poll_until.h"
#include "test/support/temp_dir.h"

namespace {

using bk::testing::ToolResult;
using nlohmann::json;
namespace fs = std::filesystem;

ToolResult Bkctl(const std::string& args, const std::string& scratch) {
  return bk::testing::RunTool(BKCTL_PATH, args, scratch);
}

// entry id -> CRC32C of the payload, from `bkctl write --acked-log`.
std::map<int64_t, uint32_t> AckedEntries(const std::string& log,
                                         uint64_t* ledger) {
  std::map<int64_t, uint32_t> acked;
  std::istringstream in(bk::testing::ReadWholeFile(log));
  uint64_t l;
  int64_t e;
  uint32_t crc;
  while (in >> l >> e >> crc) {
    *ledger = l;
    acked[e] = crc;
  }
  return acked;
}

// The JSON lines of `out` whose "kind" is `kind` ("": lines without one).
std::vector<json> Rows(const std::string& out, const std::string& kind) {
  std::vector<json> rows;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    json row = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (row.is_object() && row.value("kind", "") == kind) rows.push_back(row);
  }
  return rows;
}

// entry id -> CRC32C of the payload, for the entry records of `rows`
// (payloads printed in full as hex) whose digest verified.
std::map<int64_t, uint32_t> EntryCrcs(const std::vector<json>& rows) {
  std::map<int64_t, uint32_t> crcs;
  for (const json& r : rows) {
    if (r.value("type", "entry") != "entry") continue;
    if (r.value("digest", "crc32c") != "crc32c") continue;
    const std::string payload = absl::HexStringToBytes(r.value("payload", ""));
    crcs[r["entry"].get<int64_t>()] =
        bk::crc32c::Value(payload.data(), payload.size());
  }
  return crcs;
}

std::vector<std::string> FilesWithSuffix(const std::string& dir,
                                         const std::string& suffix) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (absl::EndsWith(e.path().string(), suffix)) {
      files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

}  // namespace

TEST_CASE(
    "bkctl ledger read, readjournal, readentrylog and lastmark show what real "
    "bookies hold and report damage",
    "[integration][tools]") {
  bk::testing::TempDir tmp;
  auto cluster = bk::testing::StartToolCluster(tmp.path(), BK_BOOKIE_BINARY);
  REQUIRE(cluster != nullptr);
  const std::string uri = " --metadata-uri " + cluster->metadata_uri();
  const std::string log = tmp.Sub("acked.log");
  ToolResult write = Bkctl("write -e 3 -w 3 -a 3 -n 300 --entry-size 200" +
                               uri + " --acked-log " + log,
                           tmp.path());
  INFO(write.out << write.err);
  REQUIRE(write.exit_code == 0);
  uint64_t ledger = 0;
  const std::map<int64_t, uint32_t> acked = AckedEntries(log, &ledger);
  REQUIRE(acked.size() == 300);

  // ledger read: a range with payloads, checked against the writer's log.
  ToolResult range = Bkctl(absl::StrCat("ledger read --ledger ", ledger,
                                        " --from 10 --to 19 --payload hex "
                                        "--max-payload-bytes 0 --json",
                                        uri),
                           tmp.path());
  INFO(range.err);
  REQUIRE(range.exit_code == 0);
  std::map<int64_t, uint32_t> want(acked.find(10), acked.find(20));
  std::vector<json> entries;
  for (const json& row : Rows(range.out, "")) entries.push_back(row);
  CHECK(EntryCrcs(entries) == want);
  ToolResult text =
      Bkctl(absl::StrCat("ledger read --ledger ", ledger, uri), tmp.path());
  CHECK(text.exit_code == 0);
  CHECK(bk::testing::CountLines(text.out) == 300);
  ToolResult past =
      Bkctl(absl::StrCat("ledger read --ledger ", ledger, " --to 300", uri),
            tmp.path());
  CHECK(past.exit_code == 1);
  CHECK(absl::StrContains(past.err, "past the ledger's last confirmed"));

  // A root secured with ZooKeeper credentials: bkctl reads it only with
  // the client config file's zkEnableSecurity and zkDigestFile.
  {
    const std::string digest = tmp.Sub("zk-digest");
    std::ofstream(digest) << "bookkeeper:s3cret\n";
    fs::permissions(digest, fs::perms::owner_read | fs::perms::owner_write);
    const std::string secured_uri =
        cluster->metadata_uri().substr(0, cluster->metadata_uri().rfind('/')) +
        "/secured";
    bk::metadata::OpenOptions secured;
    secured.zk_enable_security = true;
    secured.zk_digest_file = digest;
    auto store = bk::metadata::Open(secured_uri, secured);
    REQUIRE(store.ok());
    REQUIRE((*store)->InstanceId().ok());
    const std::string conf = tmp.Sub("client.conf");
    std::ofstream(conf) << "metadataServiceUri=" << secured_uri
                        << "\nzkEnableSecurity=true\nzkDigestFile=" << digest
                        << "\n";
    ToolResult refused =
        Bkctl("cluster info --metadata-uri " + secured_uri, tmp.path());
    CHECK(refused.exit_code == 1);
    ToolResult allowed =
        Bkctl("--client-conf " + conf + " cluster info --json", tmp.path());
    INFO(allowed.err);
    CHECK(allowed.exit_code == 0);
    CHECK(allowed.out.find("\"ledgers\": 0") != std::string::npos);
  }

  // Bookie 0 dies with its entries in the journal; the others stop cleanly
  // and flush theirs to entry logs.
  // cluster info: three writable bookies on three racks, one ledger.
  ToolResult info = Bkctl("cluster info --json" + uri, tmp.path());
  INFO(info.err);
  REQUIRE(info.exit_code == 0);
  json summary = json::parse(info.out);
  CHECK(summary["bookies"]["known"] == 3);
  CHECK(summary["bookies"]["writable"] == 3);
  CHECK(summary["bookies"]["down"] == 0);
  CHECK(summary["bookies"]["racks"].size() == 3);
  CHECK(summary["ledgers"] == 1);
  CHECK(summary["underreplicated_ledgers"] == 0);
  CHECK(summary["replication_enabled"] == true);
  CHECK(summary["lost_bookie_recovery_delay_seconds"].is_null());

  cluster->KillBookie(0);
  // Once its session expires, the killed bookie is known (its cookie) but
  // down.
  CHECK(bk::testing::PollUntil(
      [&] {
        ToolResult now = Bkctl("cluster info --json" + uri, tmp.path());
        if (now.exit_code != 0) return false;
        summary = json::parse(now.out);
        return summary["bookies"]["down"] == 1;
      },
      absl::Seconds(60)));
  CHECK(summary["bookies"]["known"] == 3);
  CHECK(summary["bookies"]["writable"] == 2);
  CHECK(summary["bookies"]["down_ids"] ==
        json::array({cluster->bookies()[0].id}));
  const std::string killed_conf = cluster->bookies()[0].dir + "/bookie.conf";
  const std::string stopped_dir = cluster->bookies()[1].dir;
  cluster->Stop();

  const std::string show = absl::StrCat(
      " --ledger ", ledger, " --payload hex --max-payload-bytes 0 --json");
  ToolResult journal =
      Bkctl("readjournal --conf " + killed_conf + show, tmp.path());
  INFO(journal.err);
  REQUIRE(journal.exit_code == 0);
  CHECK(EntryCrcs(Rows(journal.out, "record")) == acked);
  const std::vector<json> files = Rows(journal.out, "file");
  REQUIRE(!files.empty());
  for (const json& f : files) CHECK(f["skipped"].empty());

  ToolResult mark = Bkctl("lastmark --json --conf " + killed_conf, tmp.path());
  INFO(mark.err);
  REQUIRE(mark.exit_code == 0);
  const json mark_row = json::parse(mark.out.substr(0, mark.out.find('\n')));
  CHECK(mark_row.contains("file_id"));
  CHECK(mark_row.contains("newest_file_id"));

  // The cleanly stopped bookie: every acked entry is in its entry logs.
  const std::vector<std::string> logs =
      FilesWithSuffix(stopped_dir + "/ledgers", ".log");
  INFO(bk::testing::ReadWholeFile(stopped_dir + "/bookie.log"));
  REQUIRE(!logs.empty());
  std::map<int64_t, uint32_t> in_logs;
  for (const std::string& path : logs) {
    ToolResult dump = Bkctl("readentrylog --file " + path + show, tmp.path());
    INFO(dump.err);
    REQUIRE(dump.exit_code == 0);
    in_logs.merge(EntryCrcs(Rows(dump.out, "record")));
  }
  CHECK(in_logs == acked);

  {  // --ledgers: one row per ledger, agreeing with the record rows
    const std::string& log = logs.front();
    ToolResult records = Bkctl("readentrylog --json --file " + log, tmp.path());
    ToolResult by_ledger =
        Bkctl("readentrylog --ledgers --json --file " + log, tmp.path());
    INFO(by_ledger.err);
    REQUIRE(by_ledger.exit_code == 0);
    std::map<uint64_t, std::tuple<uint64_t, int64_t, int64_t>> want;
    for (const json& r : Rows(records.out, "record")) {
      auto& [n, first, last] =
          want.try_emplace(r["ledger"].get<uint64_t>(), 0, INT64_MAX, -1)
              .first->second;
      const int64_t e = r["entry"].get<int64_t>();
      ++n;
      first = std::min(first, e);
      last = std::max(last, e);
    }
    std::map<uint64_t, std::tuple<uint64_t, int64_t, int64_t>> got;
    for (const json& l : Rows(by_ledger.out, "ledger")) {
      CHECK(l["bytes"].get<uint64_t>() > 0);
      got[l["ledger"].get<uint64_t>()] = {l["records"].get<uint64_t>(),
                                          l["first_entry"].get<int64_t>(),
                                          l["last_entry"].get<int64_t>()};
    }
    REQUIRE(!want.empty());
    CHECK(got == want);
    CHECK(Rows(by_ledger.out, "record").empty());
  }

  {  // a damaged journal copy: the corrupt range is reported, the rest still
     // read
    const std::vector<std::string> jnl =
        FilesWithSuffix(cluster->bookies()[0].dir + "/journal", ".jnl");
    REQUIRE(!jnl.empty());
    const std::string copy_dir = tmp.Sub("jcopy");
    fs::create_directories(copy_dir);
    const std::string copy =
        copy_dir + "/" + fs::path(jnl.front()).filename().string();
    fs::copy_file(jnl.front(), copy);
    const uint64_t size = fs::file_size(copy);
    FlipByte(copy, size / 2);
    ToolResult damaged = Bkctl("readjournal --json --file " + copy, tmp.path());
    INFO(damaged.err);
    REQUIRE(damaged.exit_code == 0);
    const std::vector<json> file = Rows(damaged.out, "file");
    REQUIRE(file.size() == 1);
    CHECK(file[0]["skipped"].size() == 1);
    // Records after the damage are still read.
    const std::vector<json> records = Rows(damaged.out, "record");
    REQUIRE(!records.empty());
    CHECK(records.back()["offset"].get<uint64_t>() > size / 2);
    ToolResult text = Bkctl("readjournal --file " + copy, tmp.path());
    CHECK(absl::StrContains(text.out, "CORRUPT"));
  }

  {  // a damaged entry log copy fails with CORRUPT; a cut one is torn
    const std::string corrupt = tmp.Sub("corrupt.log");
    fs::copy_file(logs.front(), corrupt);
    const uint64_t size = fs::file_size(corrupt);
    FlipByte(corrupt, size / 2);
    ToolResult bad = Bkctl("readentrylog --file " + corrupt, tmp.path());
    CHECK(bad.exit_code == 1);
    CHECK(absl::StrContains(bad.out, "CORRUPT"));
    // Per ledger: what could be read before the damage, and CORRUPT.
    ToolResult bad_ledgers =
        Bkctl("readentrylog --ledgers --file " + corrupt, tmp.path());
    CHECK(bad_ledgers.exit_code == 1);
    CHECK(absl::StrContains(bad_ledgers.out, "ledger="));
    CHECK(absl::StrContains(bad_ledgers.out, "CORRUPT"));

    ToolResult whole =
        Bkctl("readentrylog --json --file " + logs.front(), tmp.path());
    const std::string cut = tmp.Sub("cut.log");
    fs::copy_file(logs.front(), cut);
    fs::resize_file(cut, size - 10);
    ToolResult torn = Bkctl("readentrylog --json --file " + cut, tmp.path());
    INFO(torn.err);
    REQUIRE(torn.exit_code == 0);
    const json whole_log = Rows(whole.out, "log").at(0);
    const json torn_log = Rows(torn.out, "log").at(0);
    CHECK(torn_log["torn_tail"] == true);
    CHECK(torn_log["records"].get<uint64_t>() ==
          whole_log["records"].get<uint64_t>() - 1);
  }

  {  // the stopped bookie's locations, lost, rebuilt from its entry logs
    const std::string index_dir = stopped_dir + "/ledgers/index";
    const std::string check = "check-db-ledger-locations-index --json --conf " +
                              stopped_dir + "/bookie.conf";
    // Sums a field over the directories' rows of a --json run.
    auto total = [](const ToolResult& r, const std::string& field) {
      uint64_t sum = 0;
      for (const json& row : Rows(r.out, "")) sum += row[field].get<uint64_t>();
      return sum;
    };
    ToolResult clean = Bkctl(check, tmp.path());
    INFO(clean.out << clean.err);
    REQUIRE(clean.exit_code == 0);
    CHECK(total(clean, "entries_checked") >= 300);
    std::map<int64_t, bk::bookie::EntryLocation> before;
    {
      auto index = bk::bookie::LedgerIndex::Open(index_dir);
      REQUIRE(index.ok());
      for (int64_t e = 0; e < 300; ++e) {
        auto loc = (*index)->GetLocation(ledger, e);
        REQUIRE(loc.ok());
        before[e] = *loc;
      }
      REQUIRE((*index)->DeleteAllLocations().ok());
      CHECK(absl::IsNotFound((*index)->GetLocation(ledger, 0).status()));
    }
    ToolResult lost = Bkctl(check, tmp.path());
    INFO(lost.out << lost.err);
    CHECK(lost.exit_code == 1);
    CHECK(total(lost, "entries_unindexed") >= 300);
    ToolResult rebuilt =
        Bkctl("rebuild-db-ledger-locations-index --json --conf " + stopped_dir +
                  "/bookie.conf",
              tmp.path());
    INFO(rebuilt.out << rebuilt.err);
    REQUIRE(rebuilt.exit_code == 0);
    uint64_t indexed = 0;
    for (const json& row : Rows(rebuilt.out, "")) {
      CHECK(row["problems"].empty());
      indexed += row["entries_indexed"].get<uint64_t>();
    }
    CHECK(indexed >= 300);
    ToolResult repaired = Bkctl(check, tmp.path());
    INFO(repaired.out << repaired.err);
    CHECK(repaired.exit_code == 0);
    {
      auto index = bk::bookie::LedgerIndex::Open(index_dir);
      REQUIRE(index.ok());
      CHECK(*(*index)->CountLocationRecords(ledger) < 300);  // runs
    }
    // Rolled back to the format of bookies from before runs.
    ToolResult rolled = Bkctl(
        "rebuild-db-ledger-locations-index --one-record-per-entry "
        "--conf " +
            stopped_dir + "/bookie.conf",
        tmp.path());
    INFO(rolled.out << rolled.err);
    REQUIRE(rolled.exit_code == 0);
    CHECK(absl::StrContains(rolled.out, "indexed in"));
    auto index = bk::bookie::LedgerIndex::Open(index_dir);
    REQUIRE(index.ok());
    CHECK(*(*index)->CountLocationRecords(ledger) == 300);
    for (int64_t e = 0; e < 300; ++e) {
      auto loc = (*index)->GetLocation(ledger, e);
      REQUIRE(loc.ok());
      CHECK(*loc == before[e]);
    }
  }

  {  // bad arguments exit 2 with one line
    for (const std::string args :
         {"readjournal", "readjournal --dir /x --conf /y",
          "readjournal --file /tmp/not-a-journal",
          "readjournal --dir /x --payload base64", "readentrylog",
          "readentrylog --conf /y", "readentrylog --file /x --entry 3",
          "lastmark", "rebuild-db-ledger-locations-index",
          "check-db-ledger-locations-index",
          "rebuild-db-ledger-locations-index --dir /x --conf /y"}) {
      ToolResult r = Bkctl(args, tmp.path());
      INFO(args << ": " << r.err);
      CHECK(r.exit_code == 2);
      CHECK(bk::testing::CountLines(r.err) == 1);
    }
    ToolResult missing =
        Bkctl("readjournal --dir " + tmp.Sub("none"), tmp.path());
    CHECK(missing.exit_code == 1);
  }
}
