// SetThreadName: names the calling thread (pthread_setname_np), so that
// `top -H`, `ps -L`, /proc/PID/task/*/comm, perf and gdb tell a bookie's
// journal, sync, completion and flush threads apart. Linux keeps 15 bytes;
// longer names are cut. Best effort: a failure changes nothing else.

#ifndef BK_COMMON_THREAD_NAME_H_
#define BK_COMMON_THREAD_NAME_H_

#include "absl/strings/string_view.h"

namespace bk {

void SetThreadName(absl::string_view name);

}  // namespace bk

#endif  // BK_COMMON_THREAD_NAME_H_
