// The client talks TLS to bookies that serve it.

#include <catch2/catch.hpp>
#include <cstdlib>

#include "test/support/temp_dir.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

// A CA and a server certificate for 127.0.0.1, made with the openssl tool.
bool MakeCertificates(const bk::testing::TempDir& dir) {
  const std::string d = dir.path();
  const std::string cmd =
      "cd " + d +
      " && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key "
      "-out ca.pem -days 1 -subj /CN=test-ca"
      " && openssl req -newkey rsa:2048 -nodes -keyout server.key "
      "-out server.csr -subj /CN=localhost"
      " && printf 'subjectAltName=IP:127.0.0.1,DNS:localhost' > ext.cnf"
      " && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key "
      "-CAcreateserial -out server.pem -days 1 -extfile ext.cnf";
  return std::system(("(" + cmd + ") >/dev/null 2>&1").c_str()) == 0;
}

TEST_CASE("a client with the bookies' CA writes and reads over TLS",
          "[client]") {
  bk::testing::TempDir certs;
  REQUIRE(MakeCertificates(certs));
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
