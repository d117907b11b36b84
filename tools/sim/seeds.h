// Seed derivation: every random stream of a run (cluster layout, each
// topic's traffic, each client's policy) gets its own generator seeded from
// the run's seed and the stream's identity, so streams do not disturb each
// other: the traffic is the same whichever policy places it.

#ifndef BK_TOOLS_SIM_SEEDS_H_
#define BK_TOOLS_SIM_SEEDS_H_

#include <cstdint>

namespace bk::sim {

// SplitMix64's finaliser: a bijective mix of 64 bits.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

enum class Stream : uint64_t {
  kCluster = 1,
  kTopic = 2,
  kPolicy = 3,
  kClient = 4,
  kPartition = 5,  // (client, topic x 2^20 + partition), partition >= 1
};

inline uint64_t DeriveSeed(uint64_t seed, Stream stream, uint64_t a = 0,
                           uint64_t b = 0) {
  return Mix64(Mix64(Mix64(seed ^ Mix64(static_cast<uint64_t>(stream))) ^ a) ^
               b);
}

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_SEEDS_H_
