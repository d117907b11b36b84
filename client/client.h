// Client: the entry point of the client library. It connects to the
// metadata store, learns the bookies (registrations and load reports), keeps
// one connection per bookie shared by every ledger, and makes ledger writers
// and readers.
//
//   auto client = bk::client::Client::Create(options);       // StatusOr
//   auto w = (*client)->CreateLedger({.ensemble_size = 3, .write_quorum = 3,
//                                     .ack_quorum = 2, .password = "pw"});
//   (*w)->Append("hello", [](absl::StatusOr<int64_t> id) { ... });
//   (*w)->Close();
//   auto r = (*client)->OpenLedger(id, "pw", /*recover=*/true);
//
// Threads. Every method is safe to call from any thread. The client owns:
//   - one completion thread, which runs every user callback (add
//     completions) in order, never under a lock of the client's;
//   - one worker thread for blocking work (ensemble changes, metadata
//     writes) and one timer thread (add timeouts, speculative reads);
//   - one bookie-info poller thread;
//   - gRPC's own threads, which only update state and hand off.
// Blocking methods (CreateLedger, OpenLedger, DeleteLedger, ListLedgers,
// LedgerWriter::Close, LedgerReader reads) must not be called from the
// completion thread.
//
// Lifetime. Writers, readers and iterators must be destroyed before the
// client. Destroying the client stops its threads, closes the bookie
// connections and the metadata session; it does not close open ledgers.

#ifndef BK_CLIENT_CLIENT_H_
#define BK_CLIENT_CLIENT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/client_options.h"
#include "client/ledger_reader.h"
#include "client/ledger_writer.h"

namespace bk::client {

namespace internal {
class ClientContext;
}  // namespace internal

// Values match proto::DigestType.
enum class DigestType { kCrc32c = 0, kDummy = 1 };

struct CreateLedgerOptions {
  int ensemble_size = 3;
  int write_quorum = 3;
  int ack_quorum = 2;
  DigestType digest = DigestType::kCrc32c;
  // The ledger's password; the bookies' master key is derived from it, and
  // the metadata keeps only a hash (never the password).
  std::string password;
  std::map<std::string, std::string> custom_metadata;
  // The rate the writer expects to add at, in bytes per second before
  // replication (a broker knows its topic's rate when it rolls a ledger).
  // Passed to the placement policy with the custom metadata, which the
  // adaptive weighting uses to put a busy ledger where there is room for it.
  // < 0: unknown (every policy then places as without hints).
  double expected_write_bytes_per_second = -1;
};

class Client {
 public:
  static absl::StatusOr<std::unique_ptr<Client>> Create(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Chooses an ensemble with the placement policy, writes the ledger's
  // metadata (state OPEN) and returns its writer. kUnavailable when the
  // cluster has too few writable bookies; kInvalidArgument for bad quorums
  // (1 <= ack <= write <= ensemble <= 64).
  absl::StatusOr<std::unique_ptr<LedgerWriter>> CreateLedger(
      const CreateLedgerOptions& options);

  // Opens ledger `id` for reading. With `recover`, an OPEN ledger is
  // recovered first (marked IN_RECOVERY, fenced on its last ensemble, its
  // last entries re-replicated, closed), so the reader sees it closed and
  // its writer, if still running, is stopped. kPermissionDenied when the
  // password does not match; kNotFound for no such ledger.
  absl::StatusOr<std::unique_ptr<LedgerReader>> OpenLedger(
      int64_t id, const std::string& password, bool recover = true);

  // For operators' tools (BookKeeperAdmin's openLedgerNoRecovery): opens
  // ledger `id` for reading without its password and without recovery.
  // Reads carry no master key, and nothing is fenced or written, so a live
  // writer is never disturbed. kNotFound for no such ledger.
  absl::StatusOr<std::unique_ptr<LedgerReader>> OpenLedgerForAdmin(int64_t id);

  // Removes the ledger's metadata; the bookies drop its entries at their
  // next garbage collection. kNotFound when absent.
  absl::Status DeleteLedger(int64_t id);

  // Every ledger id, ascending.
  absl::StatusOr<std::vector<int64_t>> ListLedgers();

  // Bookies currently kept out of placements for their errors.
  std::vector<std::string> QuarantinedBookies() const;

  // Adaptive placement's estimate of each writable bookie's write MiB/s:
  // its last report plus the ledgers this client (and, through the
  // placement feed, other clients) placed and less those closed or moved
  // since, that reports do not show yet. Empty for other weightings. A
  // read-out for tools and tests; placement does not depend on calling it.
  std::map<std::string, double> PlacementLoadEstimates() const;

  // Adaptive placement's reason to leave each bookie out of a ledger created
  // now with `options` (its rate and metadata hints, E and WQ), for the
  // bookies it would leave out before comparing loads: a report giving a
  // slow add latency, a journal reading busy, adds to it answering slowly,
  // or no journal headroom for a big slot. Rack rules and quarantine are
  // not included. Empty for other weightings. A read-out for tools.
  std::map<std::string, std::string> PlacementLeftOut(
      const CreateLedgerOptions& options) const;

  // The registry the client's metrics are in (the one passed in options,
  // or the client's own).
  std::shared_ptr<prometheus::Registry> metrics_registry() const;

  // The seed the client's random source was started from.
  uint64_t seed() const;

 private:
  friend class LedgerRepair;   // reaches the connections and the policy
  friend class LedgerChecker;  // reaches the connections
  explicit Client(std::shared_ptr<internal::ClientContext> ctx);
  std::shared_ptr<internal::ClientContext> ctx_;
};

// The master key of a ledger for `password`: what the client sends to
// bookies with every add and fence (SHA-256 of a salted password, 32 bytes).
std::string MasterKey(const std::string& password);
// The hash stored in the ledger's metadata (SHA-256 of the master key), so
// the metadata never holds the password nor the key.
std::string PasswordHash(const std::string& password);

}  // namespace bk::client

#endif  // BK_CLIENT_CLIENT_H_
