// A minimal user of the installed client library: connects to an in-process
// metadata store with no bookies and checks that creating a ledger says the
// cluster is too small (kUnavailable). Exit 0 on the expected outcome.

#include <cstdio>

#include "client/client.h"
#include "client/malloc_tuning.h"

int main() {
  bk::client::TuneMallocForClient();  // the header installs and links
  bk::client::ClientOptions options;
  options.metadata_service_uri = "mem://consumer";
  auto client = bk::client::Client::Create(options);
  if (!client.ok()) {
    std::fprintf(stderr, "Create: %s\n", client.status().ToString().c_str());
    return 1;
  }
  auto writer = (*client)->CreateLedger({.password = "secret"});
  if (!absl::IsUnavailable(writer.status())) {
    std::fprintf(stderr, "CreateLedger: %s\n",
                 writer.status().ToString().c_str());
    return 1;
  }
  std::printf("consumer ok: %s\n", writer.status().ToString().c_str());
  return 0;
}
