// TLS for the bookie's gRPC port, from PEM files named in the config
// (tlsCertificatePath, tlsKeyStore, tlsTrustStore, tlsClientAuthentication).

#ifndef BK_BOOKIE_TLS_H_
#define BK_BOOKIE_TLS_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/env.h"

namespace bk::bookie {

struct TlsOptions {
  std::string certificate_path;  // PEM chain; empty: plaintext
  std::string key_path;          // PEM private key, unencrypted
  std::string trust_path;        // PEM CAs for client certificates
  bool require_client_auth = false;
};

// Plaintext credentials when certificate_path is empty; otherwise TLS, with
// client certificates required and verified against trust_path when
// require_client_auth. Unreadable or empty files are errors naming them.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    Env* env, const TlsOptions& options);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_TLS_H_
