#include "tools/bkctl/client_conf.h"

#include "absl/strings/str_cat.h"
#include "client/client_config.h"
#include "common/config.h"
#include "common/env.h"

namespace bk::bkctl {

absl::StatusOr<std::map<std::string, std::string>> FlagsFromClientConf(
    const std::string& path) {
  if (!Env::Default()->FileExists(path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("client config file ", path, " (", kClientConfEnv,
                     " or --client-conf) does not exist"));
  }
  ConfigSources sources;
  sources.file = path;
  auto config = Config::Load(client::ClientConfigTable().schema(), sources);
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "client config file ", path, ": ", config.status().message()));
  }
  std::map<std::string, std::string> flags;
  for (const auto& [key, flag] : std::map<std::string, std::string>{
           {"metadataServiceUri", "metadata-uri"},
           {"tlsTrustStore", "tls-ca-file"},
           {"tlsCertificatePath", "tls-cert-file"},
           {"tlsKeyStore", "tls-key-file"}}) {
    if (config->SourceOf(key) == "file") flags[flag] = config->GetString(key);
  }
  return flags;
}

}  // namespace bk::bkctl
