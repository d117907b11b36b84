// What the fault tests of a real bookie process share (fault_bookie:
// bookie_torn_journal_test.cc, bookie_fsync_eio_test.cc,
// bookie_disk_full_test.cc): the seed and the bookie's flags.

#ifndef BK_TEST_FAULT_BOOKIE_FAULT_UTIL_H_
#define BK_TEST_FAULT_BOOKIE_FAULT_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

namespace bk::it {

// The run's seed: BK_FAULT_SEED, else drawn; printed either way.
inline uint64_t Seed() {
  const char* env = getenv("BK_FAULT_SEED");
  const uint64_t seed =
      env != nullptr ? std::stoull(env) : std::random_device{}();
  std::printf("seed=%llu (set BK_FAULT_SEED to repeat)\n",
              static_cast<unsigned long long>(seed));
  return seed;
}

// Session timeout short enough that a SIGKILLed bookie's registration goes
// within about 2 s, so the restart does not wait long.
inline std::map<std::string, std::string> Flags(
    std::map<std::string, std::string> more = {}) {
  std::map<std::string, std::string> f = {
      {"zkTimeout", "2000"},
      {"journalPreAllocSizeMB", "1"},
      {"baseMetricMonitorEnabled", "false"}};
  for (auto& [k, v] : more) f[k] = v;
  return f;
}

}  // namespace bk::it

#endif  // BK_TEST_FAULT_BOOKIE_FAULT_UTIL_H_
