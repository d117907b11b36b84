#include "client/internal/channel_config.h"

#include <grpcpp/grpcpp.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace bk::client::internal {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

absl::StatusOr<ChannelConfig> MakeChannelConfig(const TlsClientOptions& tls,
                                                int64_t max_batch_bytes) {
  ChannelConfig c;
  c.max_batch_bytes = max_batch_bytes;
  if (tls.ca_file.empty()) return c;
  grpc::SslCredentialsOptions ssl;
  auto ca = ReadPem(tls.ca_file);
  if (!ca.ok()) return ca.status();
  ssl.pem_root_certs = *ca;
  if (!tls.cert_file.empty()) {
    auto cert = ReadPem(tls.cert_file);
    if (!cert.ok()) return cert.status();
    auto key = ReadPem(tls.key_file);
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *cert;
    ssl.pem_private_key = *key;
  }
  c.credentials = grpc::SslCredentials(ssl);
  c.server_name_override = tls.server_name_override;
  return c;
}

}  // namespace bk::client::internal
