// Shared helpers of the bookie integration tests: one ZooKeeper per test
// process, bookie processes under a temp dir, and a small blocking gRPC
// client for the Bookie service.

#ifndef BK_TEST_INTEGRATION_BOOKIE_BOOKIE_IT_UTIL_H_
#define BK_TEST_INTEGRATION_BOOKIE_BOOKIE_IT_UTIL_H_

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "metadata/metadata_store.h"
#include "proto/bookie.grpc.pb.h"
#include "proto/entry_format.h"
#include "test/support/bookie_process.h"
#include "test/support/http_get.h"
#include "test/support/temp_dir.h"
#include "test/support/zk_server.h"

#ifndef BOOKIE_PATH
#error "BOOKIE_PATH (the bookie binary) must be defined by the build"
#endif

// REQUIRE for an absl::Status, printing it on failure.
#define BK_REQUIRE_OK(expr)                  \
  do {                                       \
    const absl::Status bk_s_ = (expr);       \
    if (!bk_s_.ok()) FAIL(bk_s_.ToString()); \
  } while (0)

namespace bk::it {

using bk::testing::BookieProcess;
using bk::testing::BookieProcessOptions;
using bk::testing::PollUntil;
using bk::testing::TempDir;

// An HTTP answer's body as JSON; fails the test when it is not JSON.
inline nlohmann::json BodyJson(const bk::testing::HttpReply& r) {
  INFO("body: " << r.body);
  nlohmann::json v = nlohmann::json::parse(r.body, nullptr, false);
  REQUIRE_FALSE(v.is_discarded());
  return v;
}

// The Authorization header of an admin API call.
inline std::map<std::string, std::string> Bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

inline const char* BookieBinary() { return BOOKIE_PATH; }

#ifdef BOOKIE_TESTING_PATH
// The bookie program with the testing keys (testingSyncDelayMs,
// testingFailSyncNth, ...: test/support/bookie_testing.h), which the
// production `bookie` refuses.
inline const char* TestingBookieBinary() { return BOOKIE_TESTING_PATH; }
#endif

// One ZooKeeper for the whole test process (each ctest case is a process),
// with a 100 ms tick so that a 1 s session expires quickly. Started on first
// use from the calling (main) thread.
inline bk::test::ZkServer& SharedZk() {
  static std::unique_ptr<bk::test::ZkServer> zk = [] {
    bk::test::ZkServer::Options o;
    o.tick_time_ms = 100;
    auto s = bk::test::ZkServer::Start(o);
    if (!s.ok()) FAIL("ZooKeeper did not start: " << s.status().ToString());
    return std::move(*s);
  }();
  return *zk;
}

// A fresh metadata root per call, so tests never see each other's bookies.
inline std::string FreshZkUri(const std::string& name) {
  static std::atomic<int> n{0};
  return absl::StrCat("zk://", SharedZk().hosts(), "/", name, "-", getpid(),
                      "-", n++);
}

inline std::unique_ptr<metadata::MetadataStore> OpenMetadata(
    const std::string& uri) {
  auto md = metadata::Open(uri);
  REQUIRE(md.ok());
  return std::move(*md);
}

inline BookieProcessOptions BookieOptions(
    const TempDir& dir, const std::string& id, const std::string& uri,
    std::map<std::string, std::string> flags = {}) {
  BookieProcessOptions o;
  o.binary = BookieBinary();
  o.root = dir.path();
  o.bookie_id = id;
  o.metadata_uri = uri;
  o.flags = std::move(flags);
  return o;
}

inline std::unique_ptr<BookieProcess> StartBookie(BookieProcessOptions o) {
  auto p = BookieProcess::Start(std::move(o));
  if (!p.ok()) FAIL(p.status().ToString());
  return std::move(*p);
}

// Registration state of `id`: 0 absent, 1 writable, 2 read-only.
enum class Reg { kAbsent, kWritable, kReadOnly };
inline Reg Registration(metadata::MetadataStore* md, const std::string& id) {
  auto set = md->ListBookies();
  if (!set.ok()) return Reg::kAbsent;
  for (const auto& b : set->writable)
    if (b.bookie_id() == id) return Reg::kWritable;
  for (const auto& b : set->readonly)
    if (b.bookie_id() == id) return Reg::kReadOnly;
  return Reg::kAbsent;
}

// MetricValue(http_port, name): a metric on the bookie's /metrics
// (test/support/http_get.h).
using bk::testing::MetricValue;

// Resident set size of a process, bytes (VmRSS), or -1.
inline int64_t ResidentBytes(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, "VmRSS:")) continue;
    int64_t kib;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::StripSuffix(
                             absl::StripPrefix(line, "VmRSS:"), "kB")),
                         &kib)) {
      return kib * 1024;
    }
  }
  return -1;
}

// ---------------------------------------------------------------- gRPC

inline std::unique_ptr<proto::Bookie::Stub> Connect(
    const std::string& target, std::shared_ptr<grpc::ChannelCredentials> creds =
                                   grpc::InsecureChannelCredentials()) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  // A fresh connection per stub: tests count on their own channel.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return proto::Bookie::NewStub(grpc::CreateCustomChannel(target, creds, args));
}

// A channel of its own whose receive window stays at gRPC's initial 64 KiB
// (no BDP probing), so what a client that does not read can absorb is
// bounded: for tests of the bookie's side of flow control.
inline std::unique_ptr<proto::Bookie::Stub> ConnectNoBdp(
    const std::string& target) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetMaxReceiveMessageSize(64 << 20);
  return proto::Bookie::NewStub(grpc::CreateCustomChannel(
      target, grpc::InsecureChannelCredentials(), args));
}

inline std::string Payload(uint64_t ledger, int64_t entry, size_t size = 100) {
  std::string p = absl::StrCat("L", ledger, "E", entry, ":");
  while (p.size() < size) p.push_back(static_cast<char>('a' + p.size() % 26));
  p.resize(size);
  return p;
}

inline proto::AddEntry MakeAdd(uint64_t ledger, int64_t entry,
                               const std::string& key = "key",
                               size_t size = 100, uint32_t flags = 0) {
  proto::AddEntry e;
  e.set_ledger_id(ledger);
  e.set_entry_id(entry);
  e.set_master_key(key);
  e.set_flags(flags);
  entry::EntryHeader h;
  h.ledger_id = ledger;
  h.entry_id = entry;
  h.last_add_confirmed = entry - 1;
  h.ledger_length = static_cast<uint64_t>(entry + 1) * size;
  e.set_body(entry::Package(h, Payload(ledger, entry, size),
                            entry::DigestType::kCrc32c));
  return e;
}

// Sends the batches on one stream, half-closes and collects every answer
// by (ledger, entry). `status` receives the stream's final status.
inline std::map<std::pair<uint64_t, int64_t>, proto::StatusCode> AddBatches(
    proto::Bookie::Stub* stub, const std::vector<proto::AddRequest>& batches,
    grpc::Status* status = nullptr,
    absl::Duration deadline = absl::Seconds(30)) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  auto stream = stub->AddEntries(&ctx);
  for (const auto& b : batches) {
    if (!stream->Write(b)) break;
  }
  stream->WritesDone();
  std::map<std::pair<uint64_t, int64_t>, proto::StatusCode> out;
  proto::AddResponse resp;
  while (stream->Read(&resp)) {
    for (const auto& r : resp.results())
      out[{r.ledger_id(), r.entry_id()}] = r.status();
  }
  grpc::Status s = stream->Finish();
  if (status != nullptr) *status = s;
  return out;
}

inline proto::StatusCode AddOne(proto::Bookie::Stub* stub,
                                const proto::AddEntry& e) {
  proto::AddRequest req;
  *req.add_entries() = e;
  auto out = AddBatches(stub, {req});
  auto it = out.find({e.ledger_id(), e.entry_id()});
  return it == out.end() ? proto::BK_EIO : it->second;
}

inline proto::ReadEntryResponse Read(proto::Bookie::Stub* stub, uint64_t ledger,
                                     int64_t entry,
                                     grpc::Status* status = nullptr) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  proto::ReadEntryRequest req;
  req.set_ledger_id(ledger);
  req.set_entry_id(entry);
  proto::ReadEntryResponse resp;
  grpc::Status s = stub->ReadEntry(&ctx, req, &resp);
  if (status != nullptr) *status = s;
  if (!s.ok()) resp.set_status(proto::BK_EIO);
  return resp;
}

// The entry read back is the one written: digest, ids and payload.
inline bool ReadsBackIntact(proto::Bookie::Stub* stub, uint64_t ledger,
                            int64_t entry, size_t size = 100) {
  proto::ReadEntryResponse r = Read(stub, ledger, entry);
  if (r.status() != proto::BK_EOK) return false;
  auto d = entry::Decode(r.body(), entry::DigestType::kCrc32c, ledger, entry);
  return d.ok() && std::string(d->payload.data(), d->payload.size()) ==
                       Payload(ledger, entry, size);
}

}  // namespace bk::it

#endif  // BK_TEST_INTEGRATION_BOOKIE_BOOKIE_IT_UTIL_H_
