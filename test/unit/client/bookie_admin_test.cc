// BookieAdmin against in-process bookies: the info report, single-entry
// reads, the sanity check, a stopped bookie, and mutual TLS with the
// client's TLS options.

#include "client/bookie_admin.h"

#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "metadata/metadata_store.h"
#include "test/support/temp_dir.h"
#include "test/support/test_certificates.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

constexpr absl::Duration kTimeout = absl::Seconds(5);

std::unique_ptr<BookieAdmin> AdminOf(const LocalBookies& bookies, int i,
                                     const TlsClientOptions& tls = {}) {
  auto admin = BookieAdmin::Connect(bookies.id(i), bookies.endpoint(i), tls);
  REQUIRE(admin.ok());
  return std::move(*admin);
}

// Entries 0..n-1 (Payload(e)) in a closed E = W = A = 1 ledger on
// bookie 0; its id.
int64_t WriteOneBookieLedger(const LocalBookies& bookies, int n) {
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.ensemble_size = 1,
                                 .write_quorum = 1,
                                 .ack_quorum = 1,
                                 .password = "p"});
  REQUIRE(w.ok());
  for (int e = 0; e < n; ++e) {
    auto f = (*w)->Append(Payload(e));
    REQUIRE(Get(f).ok());
  }
  REQUIRE((*w)->Close().ok());
  return (*w)->ledger_id();
}

// Ledger ids in the cluster's metadata store.
std::vector<int64_t> Ledgers(metadata::MetadataStore* store) {
  std::vector<int64_t> ids;
  auto it = store->ListLedgers();
  metadata::LedgerId id;
  while (it->Next(&id)) ids.push_back(id);
  REQUIRE(it->status().ok());
  return ids;
}

TEST_CASE("BookieAdmin gives a bookie's info report as plain figures",
          "[client][admin]") {
  LocalBookies bookies(2);
  auto info = AdminOf(bookies, 1)->Info(kTimeout);
  INFO(info.status().ToString());
  REQUIRE(info.ok());
  // What LocalBookies' bookie 1 reports (local_bookies.cc).
  CHECK(info->total_disk_capacity == 100 << 20);
  CHECK(info->free_disk_space == 51 << 20);
  CHECK(info->journal_io_util == 10);
  CHECK(info->ledger_io_util == -1);
  CHECK(info->cpu_used_rate == -1);
  CHECK(info->write_bytes_per_second == 1000);
  CHECK(info->journal_util_source == "unknown");
  CHECK_FALSE(info->read_only);
}

TEST_CASE("BookieAdmin reads single entries back, digest checked",
          "[client][admin]") {
  LocalBookies bookies(1);
  const int64_t ledger = WriteOneBookieLedger(bookies, 3);
  auto admin = AdminOf(bookies, 0);

  auto e1 = admin->ReadEntry(ledger, 1, DigestType::kCrc32c, kTimeout);
  REQUIRE(e1.ok());
  CHECK(e1->payload == Payload(1));
  CHECK(e1->last_add_confirmed == 0);  // the LAC rides in entry 1

  auto missing = admin->ReadEntry(ledger, 99, DigestType::kCrc32c, kTimeout);
  CHECK(absl::IsNotFound(missing.status()));

  bookies.faults(0)->corrupt_reads = true;
  auto corrupt = admin->ReadEntry(ledger, 2, DigestType::kCrc32c, kTimeout);
  CHECK(absl::IsDataLoss(corrupt.status()));
}

TEST_CASE("BookieAdmin streams a range as stored, strided or whole",
          "[client][admin]") {
  LocalBookies bookies(1);
  const int64_t ledger = WriteOneBookieLedger(bookies, 20);
  auto admin = AdminOf(bookies, 0);

  auto all = admin->StreamEntries(ledger, 0, 19, 1, kTimeout);
  REQUIRE(all.ok());
  CHECK(all->entries == 20);
  CHECK(all->next == 20);
  CHECK(all->bytes > 20 * static_cast<int64_t>(Payload(0).size()));

  auto strided = admin->StreamEntries(ledger, 2, 19, 5, kTimeout);
  REQUIRE(strided.ok());
  CHECK(strided->entries == 4);  // 2, 7, 12, 17
  CHECK(strided->next == 22);

  // Past the ledger's end the stream stops at the first missing entry.
  auto past = admin->StreamEntries(ledger, 15, 40, 1, kTimeout);
  REQUIRE(past.ok());
  CHECK(past->entries == 5);
  CHECK(past->next == 20);

  // Packed several to a message, the same entries.
  auto packed = admin->StreamEntries(ledger, 0, 19, 1, kTimeout, 8);
  REQUIRE(packed.ok());
  CHECK(packed->entries == 20);
  CHECK(packed->bytes == all->bytes);
  CHECK(packed->next == 20);
  auto packed_strided = admin->StreamEntries(ledger, 2, 19, 5, kTimeout, 3);
  REQUIRE(packed_strided.ok());
  CHECK(packed_strided->entries == 4);
  CHECK(packed_strided->next == 22);

  CHECK(absl::IsInvalidArgument(
      admin->StreamEntries(ledger, 5, 4, 1, kTimeout).status()));
  CHECK(absl::IsInvalidArgument(
      admin->StreamEntries(ledger, 0, 4, 0, kTimeout).status()));
}

TEST_CASE("BookieAdmin's sanity check adds, reads back and deletes a ledger",
          "[client][admin]") {
  LocalBookies bookies(2);
  auto store = metadata::Open(bookies.metadata_uri());
  REQUIRE(store.ok());
  for (int i = 0; i < bookies.size(); ++i) {
    INFO("bookie " << bookies.id(i));
    CHECK(AdminOf(bookies, i)->SanityCheck(store->get(), kTimeout).ok());
  }
  CHECK(Ledgers(store->get()).empty());

  // A bookie that fails adds fails the check, and the ledger still goes.
  bookies.faults(1)->fail_adds_from = 0;
  absl::Status s = AdminOf(bookies, 1)->SanityCheck(store->get(), kTimeout);
  CHECK_FALSE(s.ok());
  CHECK(absl::StrContains(s.message(), "b1"));
  CHECK(Ledgers(store->get()).empty());
}

TEST_CASE("BookieAdmin names a stopped bookie in a transport error",
          "[client][admin]") {
  LocalBookies bookies(1);
  auto admin = AdminOf(bookies, 0);
  bookies.Stop(0);
  auto info = admin->Info(absl::Seconds(2));
  REQUIRE_FALSE(info.ok());
  CHECK((absl::IsUnavailable(info.status()) ||
         absl::IsDeadlineExceeded(info.status())));
  CHECK(absl::StrContains(info.status().message(), "bookie b0"));
}

TEST_CASE("BookieAdmin talks mutual TLS with the client's TLS options",
          "[client][admin]") {
  bk::testing::TempDir certs;
  REQUIRE(bk::testing::MakeTestCertificates(certs.path()).ok());
  LocalBookies bookies(1, 1, certs.Sub("server.pem"), certs.Sub("server.key"),
                       certs.Sub("ca.pem"));
  TlsClientOptions tls;
  tls.ca_file = certs.Sub("ca.pem");
  tls.cert_file = certs.Sub("client.pem");
  tls.key_file = certs.Sub("client.key");
  auto store = metadata::Open(bookies.metadata_uri());
  REQUIRE(store.ok());

  auto admin = AdminOf(bookies, 0, tls);
  auto info = admin->Info(kTimeout);
  INFO(info.status().ToString());
  CHECK(info.ok());
  CHECK(admin->SanityCheck(store->get(), kTimeout).ok());

  // Without a client certificate, or in plaintext, the bookie refuses.
  TlsClientOptions server_only = tls;
  server_only.cert_file.clear();
  server_only.key_file.clear();
  CHECK_FALSE(AdminOf(bookies, 0, server_only)->Info(kTimeout).ok());
  CHECK_FALSE(AdminOf(bookies, 0)->Info(kTimeout).ok());

  TlsClientOptions missing = tls;
  missing.ca_file = certs.Sub("nope.pem");
  CHECK(absl::IsNotFound(
      BookieAdmin::Connect("b0", bookies.endpoint(0), missing).status()));
}

}  // namespace
}  // namespace bk::client::testing
