// ServiceHarness: a store, the bookie service over it and a gRPC server on
// a free loopback port, with helpers that build adds and send them on one
// stream (service_test.cc, service_tail_test.cc).

#ifndef BK_TEST_UNIT_BOOKIE_SERVICE_HARNESS_H_
#define BK_TEST_UNIT_BOOKIE_SERVICE_HARNESS_H_

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bookie/service/bookie_service.h"
#include "bookie/service/grpc_server.h"
#include "proto/status_codes.h"
#include "test/unit/bookie/store_test_util.h"

namespace bk::bookie::testing {

// A store, the service over it and a gRPC server on a free loopback port.
// `decorate`, when given, wraps the store the service sees (a test's
// decorator over the real store).
class ServiceHarness {
 public:
  using Decorator =
      std::function<std::unique_ptr<BookieStore>(BookieStore* real)>;

  explicit ServiceHarness(ServiceOptions so = {}, Env* env = Env::Default(),
                          const Decorator& decorate = nullptr) {
    auto store = BookieStoreImpl::Open(env, testing::OptionsIn(dir_));
    REQUIRE(store.ok());
    store_ = std::move(*store);
    if (decorate) decorated_ = decorate(store_.get());
    service_ = std::make_unique<BookieServiceImpl>(
        decorated_ != nullptr ? decorated_.get() : store_.get(), so,
        [](uint64_t requested) {
          proto::GetBookieInfoResponse r;
          if (requested & proto::FREE_DISK_SPACE) r.set_free_disk_space(77);
          r.set_journal_io_util(-1);
          return r;
        },
        nullptr);
    GrpcServerOptions go;
    go.address = "127.0.0.1:0";
    go.max_message_bytes = so.max_message_bytes;
    auto server = GrpcServer::Start(service_.get(), go);
    REQUIRE(server.ok());
    server_ = std::move(*server);
    auto ch =
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()),
                            grpc::InsecureChannelCredentials());
    stub_ = proto::Bookie::NewStub(ch);
  }

  proto::Bookie::Stub* stub() { return stub_.get(); }
  BookieStoreImpl* store() { return store_.get(); }
  BookieServiceImpl* service() { return service_.get(); }
  int port() const { return server_->port(); }

 private:
  bk::testing::TempDir dir_;
  std::unique_ptr<BookieStoreImpl> store_;
  std::unique_ptr<BookieStore> decorated_;  // over store_, if any
  std::unique_ptr<BookieServiceImpl> service_;
  std::unique_ptr<GrpcServer> server_;
  std::unique_ptr<proto::Bookie::Stub> stub_;
};

inline proto::AddEntry MakeAdd(uint64_t ledger, int64_t entry,
                               const std::string& payload,
                               const std::string& key = "key") {
  proto::AddEntry e;
  e.set_ledger_id(ledger);
  e.set_entry_id(entry);
  e.set_master_key(key);
  e.set_body(std::string(*testing::Entry(ledger, entry, entry - 1, payload)));
  return e;
}

// Sends the batches on one stream and collects every answer by entry id.
inline std::map<int64_t, proto::StatusCode> SendBatches(
    proto::Bookie::Stub* stub, const std::vector<proto::AddRequest>& batches) {
  grpc::ClientContext ctx;
  auto stream = stub->AddEntries(&ctx);
  size_t expected = 0;
  for (const auto& b : batches) {
    REQUIRE(stream->Write(b));
    expected += b.entries_size();
  }
  stream->WritesDone();
  std::map<int64_t, proto::StatusCode> out;
  proto::AddResponse resp;
  while (stream->Read(&resp)) {
    for (const auto& r : resp.results()) out[r.entry_id()] = r.status();
  }
  CHECK(stream->Finish().ok());
  CHECK(out.size() == expected);
  return out;
}

}  // namespace bk::bookie::testing

#endif  // BK_TEST_UNIT_BOOKIE_SERVICE_HARNESS_H_
