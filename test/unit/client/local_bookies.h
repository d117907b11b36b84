// LocalBookies: N real bookie servers in this process (BookieStoreImpl +
// BookieServiceImpl + GrpcServer on a free loopback port), registered in an
// in-process metadata cluster (mem://<name>) as a bookie daemon would
// register them. A test opens a Client on metadata_uri().
//
// Faults:
//  - Stop(i): the server goes away (connections refused), the registration
//    stays, as for a crashed bookie whose session has not expired yet.
//  - faults(i)->corrupt_reads: bookie i flips a byte of every entry it serves.
//  - faults(i)->drop_adds_from = e: bookie i silently never answers plain
//    (not recovery) adds of entries >= e (a bookie that hangs).
//  - faults(i)->fail_adds_from = e: bookie i answers EIO to plain adds of
//    entries >= e.
//  - faults(i)->hang_reads: reads wait until the end of the test.
//  - faults(i)->reported_journal_util: what bookie i reports as its
//    journal's utilisation (default 10 %).
//
// Not thread-safe: one test thread drives it.

#ifndef BK_TEST_UNIT_CLIENT_LOCAL_BOOKIES_H_
#define BK_TEST_UNIT_CLIENT_LOCAL_BOOKIES_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "bookie/bookie_store.h"
#include "bookie/engine/bookie_store_impl.h"
#include "bookie/service/bookie_service.h"
#include "bookie/service/grpc_server.h"
#include "metadata/metadata_store.h"
#include "test/support/forwarding_bookie_store.h"
#include "test/support/temp_dir.h"

namespace bk::client::testing {

// A BookieStore decorator with switchable faults.
class FaultyStore : public bk::testing::ForwardingBookieStore {
 public:
  explicit FaultyStore(bookie::BookieStore* target)
      : ForwardingBookieStore(target) {}

  std::atomic<bool> corrupt_reads{false};
  // Reads block until ReleaseReads() (a bookie that hangs on reads).
  std::atomic<bool> hang_reads{false};
  std::atomic<int64_t> drop_adds_from{-1};  // -1: off
  // The journal utilisation (%) the bookie's GetBookieInfo reports.
  std::atomic<int> reported_journal_util{10};
  std::atomic<int64_t> fail_adds_from{-1};
  std::atomic<int64_t> reads{0};        // ReadEntry calls (single and ranges)
  std::atomic<int64_t> add_batches{0};  // AddEntries calls: add messages
  // Adds swallowed (never answered); their callbacks are kept so that the
  // service's stream can be torn down at the end.
  std::vector<bookie::StatusCallback> swallowed;

  void AddEntry(const bookie::AddArgs& args, bookie::EntryBuffer body,
                bookie::StatusCallback done) override;
  // One AddEntry per add, so that every add of a batch meets the faults.
  void AddEntries(absl::Span<bookie::AddEntryRequest> adds,
                  bookie::AddBatchCallback done) override {
    add_batches.fetch_add(1);
    bookie::BookieStore::AddEntries(adds, std::move(done));
  }
  absl::StatusOr<bookie::EntryBuffer> ReadEntry(uint64_t ledger_id,
                                                int64_t entry_id) override;

  // Answers every swallowed add (with EIO) so streams can finish, and lets
  // hung reads go.
  void ReleaseSwallowed();
  size_t swallowed_count();
  void ReleaseReads() {
    if (!reads_released_.HasBeenNotified()) reads_released_.Notify();
  }

 private:
  absl::Mutex mu_;
  absl::Notification reads_released_;
};

class LocalBookies {
 public:
  // Starts `n` bookies "b0".."b{n-1}", bookie i in rack /r/rack{i % racks};
  // with TLS on their gRPC ports when `tls_cert` and `tls_key` (PEM files)
  // are given, and mutual TLS (client certificates required, checked
  // against these CAs) when `tls_trust` is given too.
  LocalBookies(int n, int racks = 1, const std::string& tls_cert = "",
               const std::string& tls_key = "",
               const std::string& tls_trust = "",
               const bookie::ServiceOptions& service = {});
  // `n` bookies in one rack, their services with `service`.
  LocalBookies(int n, const bookie::ServiceOptions& service)
      : LocalBookies(n, 1, "", "", "", service) {}
  ~LocalBookies();

  const std::string& metadata_uri() const { return uri_; }
  int size() const { return static_cast<int>(bookies_.size()); }
  std::string id(int i) const { return "b" + std::to_string(i); }
  // Bookie i's gRPC address, "127.0.0.1:<port>" (kept after Stop(i)).
  const std::string& endpoint(int i) const { return bookies_[i]->endpoint; }
  int IndexOf(const std::string& id) const { return std::stoi(id.substr(1)); }

  // Shuts bookie i's server down (its endpoint stays bound to nothing).
  // Unless `answer_swallowed` is false, its swallowed adds are answered
  // first (with an error). False: its streams are cut with them unanswered,
  // as when a bookie's process dies; Stop then returns only once another
  // thread has released them (FaultyStore::ReleaseSwallowed), since the
  // server waits for every add its streams handed to the store.
  void Stop(int i, bool answer_swallowed = true);
  // Serves bookie i again, with a new service over the same store, at the
  // endpoint it had. REQUIRES: stopped.
  void Restart(int i);
  // Answers every swallowed add (with an error). Call it while the client
  // is still connected: the bookie service must not be left owing answers
  // on a stream its client has closed.
  void ReleaseAllSwallowed() {
    for (int i = 0; i < size(); ++i) faults(i)->ReleaseSwallowed();
  }
  FaultyStore* faults(int i) { return bookies_[i]->faulty.get(); }
  bookie::BookieStoreImpl* store(int i) { return bookies_[i]->store.get(); }
  // Removes bookie i's registration (it leaves the cluster).
  void Unregister(int i);

 private:
  struct Bookie {
    bk::testing::TempDir dir;
    std::unique_ptr<bookie::BookieStoreImpl> store;
    std::unique_ptr<FaultyStore> faulty;
    std::unique_ptr<bookie::BookieServiceImpl> service;
    std::unique_ptr<bookie::GrpcServer> server;
    std::string endpoint;
  };
  // Starts bookie i's service and server at `address`.
  void Serve(int i, const std::string& address);

  const std::string tls_cert_, tls_key_, tls_trust_;
  const bookie::ServiceOptions service_options_;
  std::string uri_;
  std::unique_ptr<metadata::MetadataStore> registrar_;
  std::vector<std::unique_ptr<Bookie>> bookies_;
};

}  // namespace bk::client::testing

#endif  // BK_TEST_UNIT_CLIENT_LOCAL_BOOKIES_H_
