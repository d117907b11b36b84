#include "common/thread_name.h"

#include <pthread.h>

#include <string>

namespace bk {

void SetThreadName(absl::string_view name) {
  constexpr size_t kMaxBytes = 15;  // Linux's limit, without the NUL
  const std::string cut(name.substr(0, kMaxBytes));
  pthread_setname_np(pthread_self(), cut.c_str());
}

}  // namespace bk
