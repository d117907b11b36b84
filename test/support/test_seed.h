// TestSeed: the seed of a test binary's randomness. BK_TEST_SEED repeats a
// run; without it a fresh seed is drawn once per process. Either way it is
// printed once, to stderr, so a failing run's log says how to repeat it.

#ifndef BK_TEST_SUPPORT_TEST_SEED_H_
#define BK_TEST_SUPPORT_TEST_SEED_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace bk::testing {

inline uint64_t TestSeed() {
  static const uint64_t seed = [] {
    const char* env = std::getenv("BK_TEST_SEED");
    uint64_t s = 0;
    if (env != nullptr) {
      char* end = nullptr;
      s = std::strtoull(env, &end, 10);
      if (*env == '\0' || *end != '\0') {
        std::fprintf(stderr, "BK_TEST_SEED='%s' is not a number\n", env);
        std::abort();
      }
    } else {
      s = (uint64_t{std::random_device()()} << 32) | std::random_device()();
    }
    std::fprintf(stderr, "test seed %llu (BK_TEST_SEED=%llu to repeat)\n",
                 static_cast<unsigned long long>(s),
                 static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_TEST_SEED_H_
