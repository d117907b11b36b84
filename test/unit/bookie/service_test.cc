#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "bookie/service/bookie_service.h"
#include "bookie/service/grpc_server.h"
#include "proto/status_codes.h"
#include "test/support/http_get.h"
#include "test/unit/bookie/service_harness.h"
#include "test/unit/bookie/store_test_util.h"

namespace bk::bookie {
namespace {

using testing::MakeAdd;
using testing::OptionsIn;
using testing::SendBatches;
using testing::ServiceHarness;

TEST_CASE("a stream of batched adds is answered entry by entry",
          "[bookie][service]") {
  ServiceHarness h;
  std::vector<proto::AddRequest> batches(4);
  for (int e = 0; e < 100; ++e) {
    *batches[e / 25].add_entries() = MakeAdd(1, e, "p" + std::to_string(e));
  }
  auto answers = SendBatches(h.stub(), batches);
  for (int e = 0; e < 100; ++e) CHECK(answers[e] == proto::BK_EOK);

  grpc::ClientContext ctx;
  proto::ReadEntryRequest req;
  req.set_ledger_id(1);
  req.set_entry_id(42);
  proto::ReadEntryResponse resp;
  REQUIRE(h.stub()->ReadEntry(&ctx, req, &resp).ok());
  CHECK(resp.status() == proto::BK_EOK);
  CHECK(testing::PayloadOf(MakeEntryBuffer(resp.body())) == "p42");
  CHECK(resp.max_lac() == 98);
}

TEST_CASE("a range read streams entries in order and stops at the first gap",
          "[bookie][service]") {
  ServiceHarness h;
  std::vector<proto::AddRequest> batches(1);
  for (int e = 0; e < 10; ++e) *batches[0].add_entries() = MakeAdd(2, e, "x");
  SendBatches(h.stub(), batches);
  grpc::ClientContext ctx;
  proto::ReadEntriesRequest req;
  req.set_ledger_id(2);
  req.set_first_entry_id(3);
  req.set_last_entry_id(20);
  auto reader = h.stub()->ReadEntries(&ctx, req);
  std::vector<int64_t> ok_ids;
  proto::ReadEntryResponse msg;
  proto::StatusCode last = proto::BK_EOK;
  while (reader->Read(&msg)) {
    if (msg.status() == proto::BK_EOK) ok_ids.push_back(msg.entry_id());
    last = msg.status();
  }
  CHECK(reader->Finish().ok());
  CHECK(ok_ids == std::vector<int64_t>{3, 4, 5, 6, 7, 8, 9});
  CHECK(last == proto::BK_ENOENTRY);
}

TEST_CASE(
    "a range read with a stride streams every stride-th entry and stops at "
    "the first of those it lacks",
    "[bookie][service]") {
  ServiceHarness h;
  std::vector<proto::AddRequest> batches(1);
  // Entries 0..11 except 9, as a bookie of a striped ledger might hold.
  for (int e = 0; e < 12; ++e) {
    if (e != 9) *batches[0].add_entries() = MakeAdd(5, e, "x");
  }
  SendBatches(h.stub(), batches);
  auto read = [&](int64_t first, int64_t last, uint32_t stride) {
    grpc::ClientContext ctx;
    proto::ReadEntriesRequest req;
    req.set_ledger_id(5);
    req.set_first_entry_id(first);
    req.set_last_entry_id(last);
    req.set_stride(stride);
    auto reader = h.stub()->ReadEntries(&ctx, req);
    std::vector<int64_t> ok_ids;
    proto::ReadEntryResponse msg;
    while (reader->Read(&msg)) {
      if (msg.status() == proto::BK_EOK) ok_ids.push_back(msg.entry_id());
    }
    CHECK(reader->Finish().ok());
    return ok_ids;
  };
  CHECK(read(1, 11, 3) == std::vector<int64_t>{1, 4, 7, 10});
  CHECK(read(2, 11, 3) == std::vector<int64_t>{2, 5, 8, 11});
  CHECK(read(0, 11, 3) == std::vector<int64_t>{0, 3, 6});    // 9 is missing
  CHECK(read(0, 3, 0) == std::vector<int64_t>{0, 1, 2, 3});  // 0: every one
}

// The niceness of this process's thread named `name`; nullopt if none.
std::optional<int> NiceOfThread(const std::string& name) {
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string c;
    std::getline(comm, c);
    if (c != name) continue;
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    // Fields after the ")" that ends the name: state is field 3, nice 19.
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 19; ++i) rest >> field;
    return std::stoi(field);
  }
  return std::nullopt;
}

TEST_CASE(
    "a range read asked for several entries per message packs them in order "
    "and ends at the first entry it lacks in a message of its own",
    "[bookie][service]") {
  // rangeReadNice 0: on gRPC's threads; 10: on the bookie's own range-read
  // thread at niceness 10. The same messages either way.
  const int nice = GENERATE(0, 10);
  INFO("rangeReadNice " << nice);
  ServiceOptions so;
  so.range_read_nice = nice;
  ServiceHarness h(so);
  std::vector<proto::AddRequest> batches(1);
  // Entries 0..40 except 31.
  for (int e = 0; e <= 40; ++e) {
    if (e != 31)
      *batches[0].add_entries() = MakeAdd(6, e, "p" + std::to_string(e));
  }
  SendBatches(h.stub(), batches);
  grpc::ClientContext ctx;
  proto::ReadEntriesRequest req;
  req.set_ledger_id(6);
  req.set_first_entry_id(1);
  req.set_last_entry_id(40);
  req.set_stride(2);
  req.set_max_entries_per_message(4);
  auto reader = h.stub()->ReadEntries(&ctx, req);
  std::vector<int64_t> ids;
  std::vector<int> per_message;
  proto::ReadEntryResponse msg;
  proto::StatusCode last = proto::BK_EOK;
  int64_t last_id = -1;
  while (reader->Read(&msg)) {
    last = msg.status();
    last_id = msg.entry_id();
    if (msg.status() != proto::BK_EOK) {
      CHECK(msg.more_bodies_size() == 0);
      continue;
    }
    per_message.push_back(1 + msg.more_bodies_size());
    for (int i = 0; i <= msg.more_bodies_size(); ++i) {
      const int64_t id = msg.entry_id() + 2 * i;
      const std::string& body = i == 0 ? msg.body() : msg.more_bodies(i - 1);
      CHECK(testing::PayloadOf(MakeEntryBuffer(body)) ==
            "p" + std::to_string(id));
      ids.push_back(id);
    }
  }
  CHECK(reader->Finish().ok());
  // 1, 3, ..., 29 in messages of four (the last one of three), then 31 is
  // missing: its own message, ENOENTRY.
  std::vector<int64_t> want;
  for (int64_t e = 1; e < 31; e += 2) want.push_back(e);
  CHECK(ids == want);
  CHECK(per_message == std::vector<int>{4, 4, 4, 3});
  CHECK(last == proto::BK_ENOENTRY);
  CHECK(last_id == 31);
  if (nice > 0) {
    CHECK(NiceOfThread("bk-rangeread") == std::optional<int>(nice));
  } else {
    CHECK_FALSE(NiceOfThread("bk-rangeread").has_value());
  }
}

TEST_CASE("an oversize add message gets EBADREQ and the stream goes on",
          "[bookie][service]") {
  ServiceOptions so;
  so.max_message_bytes = 64 * 1024;
  ServiceHarness h(so);
  std::vector<proto::AddRequest> batches(2);
  *batches[0].add_entries() = MakeAdd(3, 0, std::string(100 * 1024, 'z'));
  *batches[1].add_entries() = MakeAdd(3, 1, "small");
  auto answers = SendBatches(h.stub(), batches);
  CHECK(answers[0] == proto::BK_EBADREQ);
  CHECK(answers[1] == proto::BK_EOK);
}

TEST_CASE("adds past the in-flight permits get ETOOMANYREQUESTS",
          "[bookie][service]") {
  bk::testing::TempDir unused;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncDelay(absl::Milliseconds(200));  // keep adds in flight
  ServiceOptions so;
  so.max_pending_adds = 2;
  ServiceHarness h(so, &env);
  std::vector<proto::AddRequest> batches(1);
  for (int e = 0; e < 20; ++e) *batches[0].add_entries() = MakeAdd(4, e, "x");
  auto answers = SendBatches(h.stub(), batches);
  int ok = 0, rejected = 0;
  for (const auto& [id, code] : answers) {
    if (code == proto::BK_EOK) ++ok;
    if (code == proto::BK_ETOOMANYREQUESTS) ++rejected;
  }
  CHECK(ok >= 2);
  CHECK(rejected >= 1);
  CHECK(ok + rejected == 20);
}

TEST_CASE("a fencing read fences the ledger for plain adds",
          "[bookie][service]") {
  ServiceHarness h;
  std::vector<proto::AddRequest> b(1);
  *b[0].add_entries() = MakeAdd(5, 0, "a");
  *b[0].add_entries() = MakeAdd(5, 1, "b");
  SendBatches(h.stub(), b);
  grpc::ClientContext ctx;
  proto::ReadEntryRequest req;
  req.set_ledger_id(5);
  req.set_entry_id(-1);
  req.set_flags(proto::FENCE_LEDGER);
  req.set_master_key("key");
  proto::ReadEntryResponse resp;
  REQUIRE(h.stub()->ReadEntry(&ctx, req, &resp).ok());
  CHECK(resp.status() == proto::BK_EOK);
  CHECK(resp.entry_id() == 1);
  std::vector<proto::AddRequest> late(1);
  *late[0].add_entries() = MakeAdd(5, 2, "c");
  CHECK(SendBatches(h.stub(), late)[2] == proto::BK_EFENCED);
  auto rec = MakeAdd(5, 2, "c");
  rec.set_flags(proto::RECOVERY_ADD);
  std::vector<proto::AddRequest> recovery(1);
  *recovery[0].add_entries() = rec;
  CHECK(SendBatches(h.stub(), recovery)[2] == proto::BK_EOK);
}

TEST_CASE("a wrong master key over the wire gets EUA", "[bookie][service]") {
  ServiceHarness h;
  std::vector<proto::AddRequest> b(1);
  *b[0].add_entries() = MakeAdd(6, 0, "a", "k1");
  *b[0].add_entries() = MakeAdd(6, 1, "b", "k2");
  auto answers = SendBatches(h.stub(), b);
  CHECK(answers[0] == proto::BK_EOK);
  CHECK(answers[1] == proto::BK_EUA);
}

TEST_CASE("bookie info, LAC and entry list are served", "[bookie][service]") {
  ServiceHarness h;
  std::vector<proto::AddRequest> b(1);
  for (int e = 0; e < 3; ++e) *b[0].add_entries() = MakeAdd(8, e, "a");
  SendBatches(h.stub(), b);
  {
    grpc::ClientContext ctx;
    proto::GetBookieInfoRequest req;
    req.set_requested(proto::FREE_DISK_SPACE | proto::LOAD);
    proto::GetBookieInfoResponse resp;
    REQUIRE(h.stub()->GetBookieInfo(&ctx, req, &resp).ok());
    CHECK(resp.free_disk_space() == 77);
    CHECK(resp.journal_io_util() == -1);
  }
  {
    grpc::ClientContext ctx;
    proto::GetListOfEntriesRequest req;
    req.set_ledger_id(8);
    proto::GetListOfEntriesResponse resp;
    REQUIRE(h.stub()->GetListOfEntriesOfLedger(&ctx, req, &resp).ok());
    CHECK(resp.entry_ids_size() == 3);
  }
  {
    grpc::ClientContext ctx;
    proto::WriteLacRequest req;
    req.set_ledger_id(8);
    req.set_lac(1);
    req.set_master_key("key");
    proto::WriteLacResponse resp;
    REQUIRE(h.stub()->WriteLac(&ctx, req, &resp).ok());
    CHECK(resp.status() == proto::BK_EOK);
  }
  {
    grpc::ClientContext ctx;
    proto::ReadLacRequest req;
    req.set_ledger_id(8);
    proto::ReadLacResponse resp;
    REQUIRE(h.stub()->ReadLac(&ctx, req, &resp).ok());
    CHECK(resp.lac() == 1);
    CHECK_FALSE(resp.last_entry().empty());
  }
  {
    grpc::ClientContext ctx;
    proto::ForceLedgerRequest req;
    req.set_ledger_id(8);
    req.set_master_key("key");
    proto::ForceLedgerResponse resp;
    REQUIRE(h.stub()->ForceLedger(&ctx, req, &resp).ok());
    CHECK(resp.status() == proto::BK_EOK);
  }
}

TEST_CASE("garbage bytes on the gRPC port leave the server serving",
          "[bookie][service]") {
  ServiceHarness h;
  bk::testing::SendRaw(h.port(), "GET / HTTP/1.1\r\n\r\n", 1000);
  bk::testing::SendRaw(h.port(), std::string(5000, '\xff'), 1000);
  // An HTTP/2 preface followed by a malformed frame.
  bk::testing::SendRaw(h.port(),
                       std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") +
                           std::string("\x00\x00\x04\x09\xff\xff\xff\xff", 8),
                       1000);
  std::vector<proto::AddRequest> b(1);
  *b[0].add_entries() = MakeAdd(9, 0, "still alive");
  CHECK(SendBatches(h.stub(), b)[0] == proto::BK_EOK);
}

}  // namespace
}  // namespace bk::bookie
