// Malformed requests through a real bookie's port get an error, never an
// answer that looks like success: an undecodable AddEntries message ends
// its stream with INVALID_ARGUMENT (after the answers to the good messages
// before it), so does an undecodable ReadEntries or TailEntries request
// (with no message), a read of an entry id below -1 is EBADREQ, and a
// ledger id no metadata store can hold (>= 2^63) is refused before it
// makes state.

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>

#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

grpc::ByteBuffer Bytes(const std::string& s) {
  grpc::Slice slice(s);
  return grpc::ByteBuffer(&slice, 1);
}

// Sends `messages` as raw bytes on one stream of `method`, half-closes,
// reads every answer; returns the stream's status and the answers' bytes.
grpc::Status RawStream(const std::string& target, const std::string& method,
                       const std::vector<std::string>& messages,
                       std::vector<std::string>* answers) {
  auto channel =
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  grpc::GenericStub generic(channel);
  grpc::CompletionQueue cq;
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  auto call = generic.PrepareCall(&ctx, method, &cq);
  // One operation at a time: each Next returns the one just started.
  auto wait = [&cq]() {
    void* tag;
    bool ok = false;
    if (!cq.Next(&tag, &ok)) return false;
    return ok;
  };
  call->StartCall(nullptr);
  bool ok = wait();
  for (const auto& m : messages) {
    if (!ok) break;
    call->Write(Bytes(m), nullptr);
    ok = wait();
  }
  if (ok) {
    call->WritesDone(nullptr);
    wait();
  }
  answers->clear();
  while (true) {
    grpc::ByteBuffer resp;
    call->Read(&resp, nullptr);
    if (!wait()) break;
    std::vector<grpc::Slice> slices;
    std::string& bytes = answers->emplace_back();
    if (resp.Dump(&slices).ok()) {
      for (const auto& s : slices) {
        bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
      }
    }
  }
  grpc::Status status;
  call->Finish(&status, nullptr);
  wait();
  cq.Shutdown();
  void* tag;
  bool drained;
  while (cq.Next(&tag, &drained)) {
  }
  return status;
}

// RawStream on AddEntries; sets `answers` to the results the answers hold.
grpc::Status RawAddStream(const std::string& target,
                          const std::vector<std::string>& messages,
                          int* answers) {
  std::vector<std::string> bytes;
  grpc::Status status =
      RawStream(target, "/bk.proto.Bookie/AddEntries", messages, &bytes);
  *answers = 0;
  for (const std::string& b : bytes) {
    proto::AddResponse r;
    if (r.ParseFromString(b)) *answers += r.results_size();
  }
  return status;
}

// Field 1, a varint that never ends: no request of the Bookie service
// parses from it. (Typed, gRPC answered such a request UNIMPLEMENTED, the
// status for a method the bookie does not have.)
const std::string kUndecodable("\x08\xff\xff\xff", 4);

// Sends kUndecodable to `method`: the call ends INVALID_ARGUMENT with no
// answer. Returns its status for further checks.
grpc::Status SendUndecodable(const std::string& target,
                             const std::string& method) {
  std::vector<std::string> answers;
  grpc::Status s = RawStream(target, method, {kUndecodable}, &answers);
  INFO(method << ": " << s.error_message());
  CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(answers.empty());
  return s;
}

// One well-formed `request` to the unary `method` by the raw path: the call
// is OK and its one answer parses into `answer`.
void RawUnary(const std::string& target, const std::string& method,
              const google::protobuf::Message& request,
              google::protobuf::Message* answer) {
  INFO(method);
  std::vector<std::string> answers;
  grpc::Status s = RawStream(target, "/bk.proto.Bookie/" + method,
                             {request.SerializeAsString()}, &answers);
  INFO(s.error_message());
  REQUIRE(s.ok());
  REQUIRE(answers.size() == 1);
  REQUIRE(answer->ParseFromString(answers[0]));
}

TEST_CASE(
    "an undecodable or truncated AddEntries message ends the stream with "
    "INVALID_ARGUMENT after the earlier answers",
    "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-badreq", FreshZkUri("badreq")));
  proto::AddRequest good;
  *good.add_entries() = MakeAdd(40, 0);
  *good.add_entries() = MakeAdd(40, 1);
  const std::string good_bytes = good.SerializeAsString();
  proto::AddRequest next;
  *next.add_entries() = MakeAdd(40, 2);
  const std::string next_bytes = next.SerializeAsString();

  SECTION("garbage") {
    int answers = 0;
    // Field 1, length-delimited, with a length varint that never ends.
    grpc::Status s = RawAddStream(
        b->grpc_target(), {good_bytes, std::string("\x0a\xff\xff\xff\xff", 5)},
        &answers);
    INFO(s.error_message());
    CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK(answers == 2);
  }
  SECTION("a valid message cut short") {
    int answers = 0;
    grpc::Status s = RawAddStream(
        b->grpc_target(),
        {good_bytes, next_bytes.substr(0, next_bytes.size() / 2)}, &answers);
    INFO(s.error_message());
    CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK(answers == 2);
  }
  SECTION("well-formed messages still end OK") {
    int answers = 0;
    grpc::Status s =
        RawAddStream(b->grpc_target(), {good_bytes, next_bytes}, &answers);
    CHECK(s.ok());
    CHECK(answers == 3);
  }
  auto stub = Connect(b->grpc_target());
  CHECK(ReadsBackIntact(stub.get(), 40, 0));
  CHECK(ReadsBackIntact(stub.get(), 40, 1));
}

TEST_CASE(
    "an undecodable ReadEntries or TailEntries request ends the stream with "
    "INVALID_ARGUMENT and no message, and a good range read streams the "
    "entries",
    "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-badrange", FreshZkUri("range")));
  auto stub = Connect(b->grpc_target());
  for (int64_t e = 0; e < 3; ++e) {
    REQUIRE(AddOne(stub.get(), MakeAdd(41, e)) == proto::BK_EOK);
  }
  const std::string method = "/bk.proto.Bookie/ReadEntries";

  for (const std::string& m :
       {method, std::string("/bk.proto.Bookie/TailEntries")}) {
    SendUndecodable(b->grpc_target(), m);
  }

  std::vector<std::string> answers;

  proto::ReadEntriesRequest req;
  req.set_ledger_id(41);
  req.set_first_entry_id(0);
  req.set_last_entry_id(2);
  req.set_max_entries_per_message(2);
  grpc::Status s =
      RawStream(b->grpc_target(), method, {req.SerializeAsString()}, &answers);
  CHECK(s.ok());
  // Entries 0 and 1 in one message, entry 2 in the next.
  REQUIRE(answers.size() == 2);
  std::vector<std::string> bodies;
  for (const std::string& bytes : answers) {
    proto::ReadEntryResponse r;
    REQUIRE(r.ParseFromString(bytes));
    CHECK(r.status() == proto::BK_EOK);
    CHECK(r.ledger_id() == 41);
    CHECK(r.entry_id() == static_cast<int64_t>(bodies.size()));
    bodies.push_back(r.body());
    for (const std::string& more : r.more_bodies()) bodies.push_back(more);
  }
  REQUIRE(bodies.size() == 3);
  for (int64_t e = 0; e < 3; ++e) {
    auto d = entry::Decode(bodies[e], entry::DigestType::kCrc32c, 41, e);
    REQUIRE(d.ok());
    CHECK(std::string(d->payload) == Payload(41, e, 100));
  }
}

TEST_CASE(
    "an undecodable unary request is answered INVALID_ARGUMENT naming its "
    "message, and a good one on the same raw path is answered",
    "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-badunary", FreshZkUri("unary")));
  auto stub = Connect(b->grpc_target());
  REQUIRE(AddOne(stub.get(), MakeAdd(42, 0)) == proto::BK_EOK);

  const std::vector<std::pair<std::string, std::string>> methods = {
      {"ReadEntry", "ReadEntryRequest"},
      {"ReadLac", "ReadLacRequest"},
      {"WriteLac", "WriteLacRequest"},
      {"ForceLedger", "ForceLedgerRequest"},
      {"GetListOfEntriesOfLedger", "GetListOfEntriesRequest"},
      {"GetBookieInfo", "GetBookieInfoRequest"}};
  for (const auto& [method, message] : methods) {
    grpc::Status s =
        SendUndecodable(b->grpc_target(), "/bk.proto.Bookie/" + method);
    INFO(method << ": " << s.error_message());
    CHECK(s.error_message().find(message) != std::string::npos);
  }

  // Well-formed requests on the same raw path get their typed answers.
  proto::ReadEntryRequest read;
  read.set_ledger_id(42);
  read.set_entry_id(0);
  proto::ReadEntryResponse entry;
  RawUnary(b->grpc_target(), "ReadEntry", read, &entry);
  CHECK(entry.status() == proto::BK_EOK);
  auto d = entry::Decode(entry.body(), entry::DigestType::kCrc32c, 42, 0);
  REQUIRE(d.ok());
  CHECK(std::string(d->payload) == Payload(42, 0, 100));

  proto::GetListOfEntriesRequest list;
  list.set_ledger_id(42);
  proto::GetListOfEntriesResponse ids;
  RawUnary(b->grpc_target(), "GetListOfEntriesOfLedger", list, &ids);
  CHECK(ids.status() == proto::BK_EOK);
  CHECK(std::vector<int64_t>(ids.entry_ids().begin(), ids.entry_ids().end()) ==
        std::vector<int64_t>{0});

  // A long poll goes its own way after the parse: it waits out its short
  // timeout (the LAC is not past -1) and is answered for its ledger.
  proto::ReadEntryRequest poll;
  poll.set_ledger_id(42);
  poll.set_entry_id(-1);
  poll.set_long_poll(true);
  poll.set_previous_lac(-1);
  poll.set_timeout_ms(50);
  proto::ReadEntryResponse polled;
  RawUnary(b->grpc_target(), "ReadEntry", poll, &polled);
  CHECK(polled.ledger_id() == 42);
}

TEST_CASE("a read of an entry id below -1 is EBADREQ, not the last entry",
          "[integration][bookie]") {
  TempDir dir;
  auto b =
      StartBookie(BookieOptions(dir, "bk-badentry", FreshZkUri("badentry")));
  auto stub = Connect(b->grpc_target());
  for (int e = 0; e < 3; ++e)
    REQUIRE(AddOne(stub.get(), MakeAdd(41, e)) == proto::BK_EOK);
  auto last = Read(stub.get(), 41, -1);
  CHECK(last.status() == proto::BK_EOK);
  CHECK(last.entry_id() == 2);
  for (int64_t bad : {int64_t{-2}, int64_t{-7}, INT64_MIN}) {
    INFO("entry id " << bad);
    CHECK(Read(stub.get(), 41, bad).status() == proto::BK_EBADREQ);
  }
}

proto::StatusCode Fence(proto::Bookie::Stub* stub, uint64_t ledger) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  proto::ReadEntryRequest req;
  req.set_ledger_id(ledger);
  req.set_entry_id(-1);
  req.set_flags(proto::FENCE_LEDGER);
  req.set_master_key("any-key");
  proto::ReadEntryResponse resp;
  if (!stub->ReadEntry(&ctx, req, &resp).ok()) return proto::BK_EIO;
  return resp.status();
}

proto::StatusCode WriteLac(proto::Bookie::Stub* stub, uint64_t ledger) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  proto::WriteLacRequest req;
  req.set_ledger_id(ledger);
  req.set_lac(3);
  req.set_master_key("any-key");
  proto::WriteLacResponse resp;
  if (!stub->WriteLac(&ctx, req, &resp).ok()) return proto::BK_EIO;
  return resp.status();
}

TEST_CASE(
    "ledger ids of 2^63 and above are refused with EBADREQ and leave no "
    "state",
    "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-bigid", FreshZkUri("bigid")));
  auto stub = Connect(b->grpc_target());
  const uint64_t ids[] = {uint64_t{1} << 63, (uint64_t{1} << 63) + 5,
                          UINT64_MAX};
  for (uint64_t id : ids) {
    INFO("ledger " << id);
    CHECK(AddOne(stub.get(), MakeAdd(id, 0, "any-key")) == proto::BK_EBADREQ);
    CHECK(Fence(stub.get(), id) == proto::BK_EBADREQ);
    CHECK(WriteLac(stub.get(), id) == proto::BK_EBADREQ);
    CHECK(Read(stub.get(), id, 0).status() == proto::BK_ENOLEDGER);
  }
  // The largest id a store can hold works as any other.
  const uint64_t top = (uint64_t{1} << 63) - 1;
  CHECK(AddOne(stub.get(), MakeAdd(top, 0, "any-key")) == proto::BK_EOK);
  CHECK(ReadsBackIntact(stub.get(), top, 0));
  // Nothing of the refused ids came back after a restart either.
  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(15)).ok());
  BK_REQUIRE_OK(b->Restart());
  stub = Connect(b->grpc_target());
  for (uint64_t id : ids) {
    CHECK(Read(stub.get(), id, -1).status() == proto::BK_ENOLEDGER);
  }
}

}  // namespace
}  // namespace bk::it
