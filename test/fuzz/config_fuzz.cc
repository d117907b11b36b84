// Fuzz target: the key=value config parser (common/config.h) with the
// bookie's schema, and the strict value parsers. Invariants: no crash; a
// configuration that loads prints to a file that loads again.

#include "bookie/daemon/bookie_config.h"
#include "common/config.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bk;
  const std::string text(reinterpret_cast<const char*>(data), size);
  ParseInt(text).status().IgnoreError();
  ParseDouble(text).status().IgnoreError();
  ParseBool(text).status().IgnoreError();
  ParseDurationStrict(text).status().IgnoreError();
  ParseBytes(text).status().IgnoreError();

  ConfigSources src;
  src.file = fuzz::WriteScratch("bookie.conf", text);
  auto c = Config::Load(bookie::BookieConfigSchema(), src);
  if (c.ok()) {
    ConfigSources again;
    again.file = fuzz::WriteScratch("printed.conf", c->Print());
    BK_FUZZ_CHECK(Config::Load(bookie::BookieConfigSchema(), again).ok());
  }
  // The same text as one flag's value and as an environment variable.
  ConfigSources flags;
  flags.flags["journalDirectories"] = text;
  flags.environment.push_back("BK_bookiePort=" + text);
  Config::Load(bookie::BookieConfigSchema(), flags).status().IgnoreError();
  return 0;
}
