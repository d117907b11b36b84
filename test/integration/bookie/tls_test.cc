// TLS on a real bookie's gRPC port, with certificates made by openssl in the
// test's own directory: server TLS, then mutual TLS.

#include <fstream>
#include <sstream>

#include "test/integration/bookie/bookie_it_util.h"
#include "test/support/test_certificates.h"

namespace bk::it {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A CA, a server certificate for 127.0.0.1/localhost and a client
// certificate, all signed by the CA, in `dir`.
void MakeCertificates(const TempDir& dir) {
  absl::Status s = bk::testing::MakeTestCertificates(dir.path());
  if (!s.ok()) FAIL(s.message());
}

std::shared_ptr<grpc::ChannelCredentials> Tls(const TempDir& dir,
                                              bool with_client_cert) {
  grpc::SslCredentialsOptions o;
  o.pem_root_certs = Slurp(dir.Sub("ca.pem"));
  if (with_client_cert) {
    o.pem_private_key = Slurp(dir.Sub("client.key"));
    o.pem_cert_chain = Slurp(dir.Sub("client.pem"));
  }
  return grpc::SslCredentials(o);
}

// True when a GetBookieInfo call succeeds within a short deadline.
bool CanCall(proto::Bookie::Stub* stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(3)));
  proto::GetBookieInfoRequest req;
  req.set_requested(proto::FREE_DISK_SPACE);
  proto::GetBookieInfoResponse resp;
  return stub->GetBookieInfo(&ctx, req, &resp).ok();
}

TEST_CASE("TLS: a TLS client is served, a plaintext client is not",
          "[integration][bookie]") {
  TempDir dir;
  MakeCertificates(dir);
  auto b =
      StartBookie(BookieOptions(dir, "bk-tls", FreshZkUri("tls"),
                                {{"tlsCertificatePath", dir.Sub("server.pem")},
                                 {"tlsKeyStore", dir.Sub("server.key")}}));
  auto tls = Connect(b->grpc_target(), Tls(dir, false));
  CHECK(CanCall(tls.get()));
  CHECK(AddOne(tls.get(), MakeAdd(1, 0)) == proto::BK_EOK);
  CHECK(ReadsBackIntact(tls.get(), 1, 0));
  // "localhost" is in the SAN too.
  auto by_name =
      Connect("localhost:" + std::to_string(b->grpc_port()), Tls(dir, false));
  CHECK(CanCall(by_name.get()));

  auto plain = Connect(b->grpc_target());
  CHECK_FALSE(CanCall(plain.get()));
}

TEST_CASE(
    "mutual TLS: a client without a certificate fails, with one it is "
    "served",
    "[integration][bookie]") {
  TempDir dir;
  MakeCertificates(dir);
  auto b =
      StartBookie(BookieOptions(dir, "bk-mtls", FreshZkUri("mtls"),
                                {{"tlsCertificatePath", dir.Sub("server.pem")},
                                 {"tlsKeyStore", dir.Sub("server.key")},
                                 {"tlsTrustStore", dir.Sub("ca.pem")},
                                 {"tlsClientAuthentication", "true"}}));
  auto without = Connect(b->grpc_target(), Tls(dir, false));
  CHECK_FALSE(CanCall(without.get()));
  auto plain = Connect(b->grpc_target());
  CHECK_FALSE(CanCall(plain.get()));
  auto with = Connect(b->grpc_target(), Tls(dir, true));
  CHECK(CanCall(with.get()));
  CHECK(AddOne(with.get(), MakeAdd(2, 0)) == proto::BK_EOK);
  CHECK(ReadsBackIntact(with.get(), 2, 0));
}

}  // namespace
}  // namespace bk::it
