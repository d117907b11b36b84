// Fuzz target: the bookie's request handlers. A BookieServiceImpl over a
// BookieStoreImpl (on a scratch directory) is served once per process by an
// in-process gRPC server; each input becomes requests sent through a stub,
// so they go through the real handlers, reactors and store.
//
// The first byte picks the request: 0 AddRequest parsed from the rest (raw
// protobuf bytes), 1 ReadEntryRequest parsed, 2 ReadLacRequest parsed, 3
// WriteLacRequest parsed, 4 ForceLedgerRequest parsed, 5 a structured batch
// of adds with valid or damaged packaged entries built from the input,
// followed by reads and a fence of the same ledger.
// Invariants: no crash; every call gets an answer (no UNKNOWN/INTERNAL
// transport error); an add answered EOK reads back with the same body
// unless a later add in the same batch wrote the same entry.

#include <grpcpp/grpcpp.h>

#include <map>

#include "bookie/engine/bookie_store_impl.h"
#include "bookie/service/bookie_service.h"
#include "proto/bookie.grpc.pb.h"
#include "proto/entry_format.h"
#include "test/fuzz/fuzz_util.h"

namespace {

using namespace bk;

struct Rig {
  std::unique_ptr<bookie::BookieStoreImpl> store;
  std::unique_ptr<bookie::BookieServiceImpl> service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<proto::Bookie::Stub> stub;
};

Rig& TheRig() {
  static Rig* rig = [] {
    auto* r = new Rig;
    bookie::StoreOptions o;
    o.journal.dirs = {fuzz::ScratchDir() + "/journal"};
    o.journal.preallocate_bytes = 1 << 20;
    o.journal.sync_data = false;  // speed: durability is not under test
    o.storage.ledger_dirs = {fuzz::ScratchDir() + "/ledgers"};
    o.storage.write_cache_bytes = 4 << 20;
    o.storage.read_cache_bytes = 4 << 20;
    auto s = bookie::BookieStoreImpl::Open(Env::Default(), o);
    BK_FUZZ_CHECK(s.ok());
    r->store = std::move(*s);
    bookie::ServiceOptions so;
    so.max_message_bytes = 1 << 20;
    so.max_long_poll = absl::Milliseconds(50);
    r->service = std::make_unique<bookie::BookieServiceImpl>(
        r->store.get(), so,
        [](uint64_t) { return proto::GetBookieInfoResponse(); }, nullptr);
    grpc::ServerBuilder b;
    b.RegisterService(r->service.get());
    r->server = b.BuildAndStart();
    BK_FUZZ_CHECK(r->server != nullptr);
    r->stub = proto::Bookie::NewStub(
        r->server->InProcessChannel(grpc::ChannelArguments()));
    return r;
  }();
  return *rig;
}

std::unique_ptr<grpc::ClientContext> Ctx() {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  return c;
}

void CheckTransport(const grpc::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "rpc failed: %d %s\n", s.error_code(),
                 s.error_message().c_str());
  }
  BK_FUZZ_CHECK(s.error_code() != grpc::StatusCode::UNKNOWN &&
                s.error_code() != grpc::StatusCode::INTERNAL &&
                s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED);
}

std::map<std::pair<uint64_t, int64_t>, proto::StatusCode> SendAdds(
    const proto::AddRequest& req) {
  Rig& r = TheRig();
  auto ctx = Ctx();
  auto stream = r.stub->AddEntries(ctx.get());
  stream->Write(req);
  stream->WritesDone();
  std::map<std::pair<uint64_t, int64_t>, proto::StatusCode> out;
  proto::AddResponse resp;
  while (stream->Read(&resp))
    for (const auto& a : resp.results())
      out[{a.ledger_id(), a.entry_id()}] = a.status();
  CheckTransport(stream->Finish());
  return out;
}

proto::ReadEntryResponse SendRead(const proto::ReadEntryRequest& req) {
  auto ctx = Ctx();
  proto::ReadEntryResponse resp;
  CheckTransport(TheRig().stub->ReadEntry(ctx.get(), req, &resp));
  return resp;
}

void Structured(fuzz::Bytes& in) {
  proto::AddRequest req;
  const uint64_t ledger = 1 + in.Int(1) % 8;
  const std::string key = in.Take(in.Byte() % 4);
  const int n = 1 + in.Byte() % 8;
  std::map<int64_t, std::string> bodies;
  for (int i = 0; i < n; ++i) {
    auto* e = req.add_entries();
    const int64_t id = static_cast<int64_t>(in.Int(1) % 32);
    e->set_ledger_id(ledger);
    e->set_entry_id(id);
    e->set_master_key(key);
    e->set_flags(in.Byte() % 4 == 0 ? proto::RECOVERY_ADD : 0);
    entry::EntryHeader h;
    h.ledger_id = ledger;
    h.entry_id = id;
    h.last_add_confirmed = id - 1;
    const std::string payload = in.Take(in.Byte());
    h.ledger_length = payload.size();
    std::string body = entry::Package(h, payload, entry::DigestType::kCrc32c);
    const uint8_t damage = in.Byte();
    if (damage % 4 == 1 && !body.empty()) body.resize(in.Int(1) % body.size());
    if (damage % 4 == 2 && !body.empty()) body[in.Int(1) % body.size()] ^= 0x10;
    if (damage % 4 == 3) e->set_ledger_id(ledger + 1);  // header disagrees
    e->set_body(body);
    bodies[id] = body;  // the last write of an id wins in this batch
  }
  auto answers = SendAdds(req);
  for (const auto& [k, status] : answers) {
    if (status != proto::BK_EOK || k.first != ledger) continue;
    proto::ReadEntryRequest rr;
    rr.set_ledger_id(ledger);
    rr.set_entry_id(k.second);
    auto got = SendRead(rr);
    BK_FUZZ_CHECK(got.status() == proto::BK_EOK);
  }
  proto::ReadEntryRequest fence;
  fence.set_ledger_id(ledger);
  fence.set_entry_id(-1);
  fence.set_master_key(key);
  fence.set_flags(in.Byte() % 2 ? proto::FENCE_LEDGER : 0);
  SendRead(fence);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const int kind = in.Byte() % 6;
  Rig& r = TheRig();
  if (kind == 5) {
    Structured(in);
    return 0;
  }
  const std::string rest = in.Rest();
  switch (kind) {
    case 0: {
      proto::AddRequest req;
      if (req.ParseFromString(rest)) SendAdds(req);
      break;
    }
    case 1: {
      proto::ReadEntryRequest req;
      if (req.ParseFromString(rest)) {
        if (req.timeout_ms() > 50) req.set_timeout_ms(50);
        SendRead(req);
      }
      break;
    }
    case 2: {
      proto::ReadLacRequest req;
      proto::ReadLacResponse resp;
      auto ctx = Ctx();
      if (req.ParseFromString(rest))
        CheckTransport(r.stub->ReadLac(ctx.get(), req, &resp));
      break;
    }
    case 3: {
      proto::WriteLacRequest req;
      proto::WriteLacResponse resp;
      auto ctx = Ctx();
      if (req.ParseFromString(rest))
        CheckTransport(r.stub->WriteLac(ctx.get(), req, &resp));
      break;
    }
    case 4: {
      proto::ForceLedgerRequest req;
      proto::ForceLedgerResponse resp;
      auto ctx = Ctx();
      if (req.ParseFromString(rest))
        CheckTransport(r.stub->ForceLedger(ctx.get(), req, &resp));
      break;
    }
  }
  return 0;
}
