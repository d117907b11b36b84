#include "tools/bkctl/tls_flags.h"

namespace bk::bkctl {

std::vector<FlagSpec> TlsFlags() {
  return {{"tls-ca-file", false,
           "PEM CAs to trust: TLS towards the bookies (plaintext)"},
          {"tls-cert-file", false, "PEM client certificate, for mutual TLS"},
          {"tls-key-file", false, "PEM key of --tls-cert-file"},
          {"tls-server-name", false,
           "name checked in the bookies' certificates (the host dialled)"}};
}

std::string TlsUsage() {
  return "  --tls-ca-file FILE --tls-cert-file FILE --tls-key-file FILE "
         "--tls-server-name NAME\n"
         "      TLS (mutual with a certificate) towards the bookies\n";
}

absl::StatusOr<client::TlsClientOptions> TlsOptionsOf(const ParsedFlags& f) {
  client::TlsClientOptions tls;
  tls.ca_file = f.Get("tls-ca-file");
  tls.cert_file = f.Get("tls-cert-file");
  tls.key_file = f.Get("tls-key-file");
  tls.server_name_override = f.Get("tls-server-name");
  if (tls.ca_file.empty()) {
    for (const char* name :
         {"tls-cert-file", "tls-key-file", "tls-server-name"}) {
      if (f.Has(name)) {
        return absl::InvalidArgumentError(std::string("--") + name +
                                          " needs --tls-ca-file");
      }
    }
  }
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert-file and --tls-key-file go together");
  }
  return tls;
}

}  // namespace bk::bkctl
