#include "tools/bkctl/bookie_conf.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "bookie/daemon/bookie_config.h"
#include "common/config.h"

namespace bk::bkctl {

absl::StatusOr<bookie::DaemonOptions> LoadBookieConf(const std::string& path) {
  const ConfigSchema& schema = bookie::BookieConfigSchema();
  ConfigSources sources;
  sources.file = path;
  // The bookie's own BK_<key> variables only: an operator's shell holds
  // bkctl's (BK_metadataServiceUri is a bookie key too; BK_CLIENT_CONF is
  // not), which the bookie's loader would refuse as unknown.
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string var = *e;
    const size_t eq = var.find('=');
    if (var.rfind("BK_", 0) != 0 || eq == std::string::npos) continue;
    if (schema.Find(var.substr(3, eq - 3)) == nullptr) continue;
    sources.environment.push_back(var);
  }
  auto config = Config::Load(schema, sources);
  if (!config.ok()) {
    return absl::Status(config.status().code(),
                        absl::StrCat(path, ": ", config.status().message()));
  }
  return bookie::DaemonOptionsFromConfig(*config);
}

}  // namespace bk::bkctl
