#include "tools/bkctl/client_conf.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/client_config.h"
#include "common/config.h"
#include "common/env.h"

namespace bk::bkctl {
namespace {

absl::StatusOr<Config> LoadClientConf(const std::string& path) {
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
  return config;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> FlagsFromClientConf(
    const std::string& path) {
  auto config = LoadClientConf(path);
  if (!config.ok()) return config.status();
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

absl::StatusOr<client::ClientOptions> ClientConfOptions() {
  client::ClientOptions o;
  const char* path = std::getenv(kClientConfEnv);
  if (path == nullptr || path[0] == '\0') return o;
  auto config = LoadClientConf(path);
  if (!config.ok()) return config.status();
  if (absl::Status s = client::ClientConfigTable().Apply(*config, &o);
      !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("client config file ", path, ": ", s.message()));
  }
  return o;
}

absl::StatusOr<std::vector<std::string>> TakeClientConfFlag(
    const std::vector<std::string>& args) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string file;
    if (args[i] == "--client-conf") {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError("--client-conf needs a value");
      }
      file = args[++i];
    } else if (absl::StartsWith(args[i], "--client-conf=")) {
      file = args[i].substr(std::string("--client-conf=").size());
    } else {
      rest.push_back(args[i]);
      continue;
    }
    ::setenv(kClientConfEnv, file.c_str(), /*overwrite=*/1);
  }
  return rest;
}

}  // namespace bk::bkctl
