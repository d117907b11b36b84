// The client talks TLS to bookies that serve it.

#include <catch2/catch.hpp>

#include "test/support/temp_dir.h"
#include "test/support/test_certificates.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

TEST_CASE("a client with the bookies' CA writes and reads over TLS",
          "[client]") {
  bk::testing::TempDir certs;
  REQUIRE(bk::testing::MakeTestCertificates(certs.path()).ok());
  LocalBookies bookies(3, 1, certs.Sub("server.pem"), certs.Sub("server.key"));
  ClientOptions o = FastOptions(bookies);
  o.tls.ca_file = certs.Sub("ca.pem");
  auto client = MakeClient(o);
  auto w = client->CreateLedger({.password = "p"});
  REQUIRE(w.ok());
  for (int e = 0; e < 10; ++e) {
    auto f = (*w)->Append(Payload(e));
    REQUIRE(Get(f).ok());
  }
  REQUIRE((*w)->Close().ok());
  auto r = client->OpenLedger((*w)->ledger_id(), "p");
  REQUIRE(r.ok());
  ExpectEntries(r->get(), 0, 9);

  ClientOptions missing = o;
  missing.tls.ca_file = certs.Sub("nope.pem");
  CHECK(absl::IsNotFound(Client::Create(missing).status()));
}

}  // namespace
}  // namespace bk::client::testing
