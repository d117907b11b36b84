#include "bookie/tls.h"

#include <grpcpp/security/server_credentials.h>

#include "absl/strings/str_cat.h"

namespace bk::bookie {
namespace {

absl::StatusOr<std::string> ReadPem(Env* env, const std::string& path,
                                    const char* what) {
  auto text = env->ReadFileToString(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot read ", what, " ", path, ": ", text.status().message()));
  }
  if (text->find("-----BEGIN ") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", path, " holds no PEM block"));
  }
  return text;
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    Env* env, const TlsOptions& options) {
  if (options.certificate_path.empty()) {
    if (!options.key_path.empty() || options.require_client_auth) {
      return absl::InvalidArgumentError(
          "tlsKeyStore or tlsClientAuthentication set without "
          "tlsCertificatePath");
    }
    return grpc::InsecureServerCredentials();
  }
  auto cert = ReadPem(env, options.certificate_path, "tlsCertificatePath");
  if (!cert.ok()) return cert.status();
  auto key = ReadPem(env, options.key_path, "tlsKeyStore");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  if (!options.trust_path.empty()) {
    auto ca = ReadPem(env, options.trust_path, "tlsTrustStore");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
  }
  if (options.require_client_auth) {
    if (ssl.pem_root_certs.empty()) {
      return absl::InvalidArgumentError(
          "tlsClientAuthentication needs tlsTrustStore (the CAs client "
          "certificates must chain to)");
    }
    ssl.client_certificate_request =
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  } else {
    ssl.client_certificate_request = GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE;
  }
  return grpc::SslServerCredentials(ssl);
}

}  // namespace bk::bookie
