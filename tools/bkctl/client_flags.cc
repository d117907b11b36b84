#include "tools/bkctl/client_flags.h"

#include "tools/bkctl/client_conf.h"
#include "tools/bkctl/tls_flags.h"

namespace bk::bkctl {

std::vector<FlagSpec> WithTls(std::vector<FlagSpec> specs) {
  for (FlagSpec& s : TlsFlags()) specs.push_back(std::move(s));
  return specs;
}

absl::StatusOr<client::Client*> MakeClient(const ParsedFlags& f) {
  auto conf = ClientConfOptions();
  if (!conf.ok()) return conf.status();
  client::ClientOptions o = *conf;
  o.metadata_service_uri = f.Get("metadata-uri");
  auto tls = TlsOptionsOf(f);
  if (!tls.ok()) return tls.status();
  o.tls = *tls;
  auto c = client::Client::Create(o);
  if (!c.ok()) return c.status();
  return c->release();
}

}  // namespace bk::bkctl
