#include "client/malloc_tuning.h"

#include "common/malloc_tuning.h"

namespace bk::client {

bool TuneMallocForClient() { return TuneMalloc(); }

}  // namespace bk::client
