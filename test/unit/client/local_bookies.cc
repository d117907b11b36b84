#include "test/unit/client/local_bookies.h"

#include <catch2/catch.hpp>

#include "bookie/tls.h"
#include "proto/entry_format.h"

namespace bk::client::testing {
namespace {

std::atomic<int> cluster_counter{0};

bookie::StoreOptions OptionsIn(const bk::testing::TempDir& dir) {
  bookie::StoreOptions o;
  o.journal.dirs = {dir.Sub("journal")};
  o.journal.preallocate_bytes = 1 << 20;
  o.storage.ledger_dirs = {dir.Sub("ledgers")};
  o.storage.write_cache_bytes = 8 << 20;
  o.storage.read_cache_bytes = 8 << 20;
  o.storage.gc_wait_time = absl::ZeroDuration();
  return o;
}

}  // namespace

void FaultyStore::AddEntry(const bookie::AddArgs& args,
                           bookie::EntryBuffer body,
                           bookie::StatusCallback done) {
  const int64_t drop = drop_adds_from.load();
  if (drop >= 0 && args.entry_id >= drop && !args.recovery) {
    absl::MutexLock l(&mu_);
    swallowed.push_back(std::move(done));
    return;
  }
  const int64_t fail = fail_adds_from.load();
  if (fail >= 0 && args.entry_id >= fail && !args.recovery) {
    done(absl::InternalError("injected add failure"));
    return;
  }
  ForwardingBookieStore::AddEntry(args, std::move(body), std::move(done));
}

absl::StatusOr<bookie::EntryBuffer> FaultyStore::ReadEntry(uint64_t ledger_id,
                                                           int64_t entry_id) {
  reads.fetch_add(1);
  if (hang_reads.load()) reads_released_.WaitForNotification();
  auto r = ForwardingBookieStore::ReadEntry(ledger_id, entry_id);
  if (!r.ok() || !corrupt_reads.load()) return r;
  std::string copy(**r);
  if (copy.size() > entry::kHeaderSize) {
    copy[entry::kHeaderSize] ^= 0x01;  // first payload byte (or the digest)
  }
  return bookie::MakeEntryBuffer(std::move(copy));
}

size_t FaultyStore::swallowed_count() {
  absl::MutexLock l(&mu_);
  return swallowed.size();
}

void FaultyStore::ReleaseSwallowed() {
  std::vector<bookie::StatusCallback> cbs;
  {
    absl::MutexLock l(&mu_);
    cbs.swap(swallowed);
  }
  for (auto& cb : cbs) cb(absl::InternalError("released"));
}

LocalBookies::LocalBookies(int n, int racks, const std::string& tls_cert,
                           const std::string& tls_key,
                           const std::string& tls_trust,
                           const bookie::ServiceOptions& service)
    : tls_cert_(tls_cert),
      tls_key_(tls_key),
      tls_trust_(tls_trust),
      service_options_(service) {
  uri_ = "mem://client-test-" + std::to_string(getpid()) + "-" +
         std::to_string(cluster_counter++);
  auto store = metadata::Open(uri_);
  REQUIRE(store.ok());
  registrar_ = std::move(*store);
  for (int i = 0; i < n; ++i) {
    auto b = std::make_unique<Bookie>();
    auto s = bookie::BookieStoreImpl::Open(Env::Default(), OptionsIn(b->dir));
    REQUIRE(s.ok());
    b->store = std::move(*s);
    b->faulty = std::make_unique<FaultyStore>(b->store.get());
    bookies_.push_back(std::move(b));
    Serve(i, "127.0.0.1:0");
    proto::BookieServiceInfo info;
    info.set_bookie_id(id(i));
    info.set_grpc_endpoint(bookies_[i]->endpoint);
    info.set_network_location("/r/rack" + std::to_string(i % racks));
    REQUIRE(registrar_->RegisterBookie(info).ok());
  }
}

void LocalBookies::Serve(int i, const std::string& address) {
  Bookie* b = bookies_[i].get();
  b->service = std::make_unique<bookie::BookieServiceImpl>(
      b->faulty.get(), service_options_,
      [i, faulty = b->faulty.get()](uint64_t) {
        proto::GetBookieInfoResponse r;
        r.set_total_disk_capacity(100 << 20);
        r.set_free_disk_space((50 + i) << 20);
        r.set_journal_io_util(faulty->reported_journal_util.load());
        r.set_ledger_io_util(-1);
        r.set_cpu_used_rate(-1);
        r.set_write_bytes_per_second(1000);
        return r;
      },
      nullptr);
  bookie::GrpcServerOptions go;
  go.address = address;
  if (!tls_cert_.empty()) {
    bookie::TlsOptions tls;
    tls.certificate_path = tls_cert_;
    tls.key_path = tls_key_;
    tls.trust_path = tls_trust_;
    tls.require_client_auth = !tls_trust_.empty();
    auto creds = bookie::MakeServerCredentials(Env::Default(), tls);
    REQUIRE(creds.ok());
    go.credentials = *creds;
  }
  auto server = bookie::GrpcServer::Start(b->service.get(), go);
  REQUIRE(server.ok());
  b->server = std::move(*server);
  b->endpoint = "127.0.0.1:" + std::to_string(b->server->port());
}

LocalBookies::~LocalBookies() {
  for (auto& b : bookies_) {
    b->faulty->ReleaseSwallowed();
    b->faulty->ReleaseReads();
  }
  for (auto& b : bookies_) {
    if (b->server) b->server->Shutdown(absl::ZeroDuration());
  }
  bookies_.clear();
  registrar_.reset();
}

void LocalBookies::Stop(int i, bool answer_swallowed) {
  if (answer_swallowed) bookies_[i]->faulty->ReleaseSwallowed();
  bookies_[i]->server->Shutdown(absl::ZeroDuration());
  bookies_[i]->server.reset();
}

void LocalBookies::Restart(int i) {
  REQUIRE(bookies_[i]->server == nullptr);
  Serve(i, bookies_[i]->endpoint);
}

void LocalBookies::Unregister(int i) {
  REQUIRE(registrar_->UnregisterBookie(id(i)).ok());
}

}  // namespace bk::client::testing
