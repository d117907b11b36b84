#include "bookie/storage/entry_block_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"

namespace bk::bookie {
namespace {

// Linux 5.14; older headers do not name it.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

// Transparent huge pages come in 2 MiB on x86-64 and arm64 (4 KiB pages):
// a region aligned to that can be backed by them from its first byte.
constexpr size_t kHugePageBytes = 2 << 20;

// Makes every page of [p, p + n) resident and writable.
bool Populate(char* p, size_t n) {
  if (madvise(p, n, MADV_POPULATE_WRITE) == 0) return true;
  if (errno != EINVAL) return false;  // e.g. ENOMEM: not all of it fits
  // A kernel before 5.14: one write per page faults each in.
  const long page = sysconf(_SC_PAGESIZE);
  const size_t step = page > 0 ? static_cast<size_t>(page) : 4096;
  for (size_t off = 0; off < n; off += step) {
    *static_cast<volatile char*>(p + off) = 0;
  }
  return true;
}

}  // namespace

struct EntryBlockPool::Core {
  // Constant after Create.
  char* region = nullptr;   // aligned to kHugePageBytes
  size_t region_bytes = 0;  // blocks * kBlockBytes
  char* mapping = nullptr;  // what munmap takes (region, less alignment)
  size_t mapping_bytes = 0;
  size_t blocks = 0;
  bool pre_touched = false;

  mutable absl::Mutex mu;
  std::vector<char*> free ABSL_GUARDED_BY(mu);

  ~Core() {
    if (mapping != nullptr) munmap(mapping, mapping_bytes);
  }
};

absl::StatusOr<std::shared_ptr<EntryBlockPool>> EntryBlockPool::Create(
    uint64_t capacity_bytes, bool pre_touch) {
  auto core = std::make_shared<Core>();
  core->blocks =
      static_cast<size_t>((capacity_bytes + kBlockBytes - 1) / kBlockBytes);
  core->region_bytes = core->blocks * kBlockBytes;
  if (core->blocks > 0) {
    // Over-map by a huge page to align the region; the slack is never
    // touched, so it costs address space only.
    core->mapping_bytes = core->region_bytes + kHugePageBytes;
    void* m = mmap(nullptr, core->mapping_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("entry block pool: cannot map %d bytes: %s",
                          core->mapping_bytes, std::strerror(errno)));
    }
    core->mapping = static_cast<char*>(m);
    const uintptr_t at = reinterpret_cast<uintptr_t>(core->mapping);
    const uintptr_t aligned =
        (at + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
    core->region = reinterpret_cast<char*>(aligned);
    // A hint: refused where transparent huge pages are off.
    (void)madvise(core->region, core->region_bytes, MADV_HUGEPAGE);
    if (pre_touch) {
      core->pre_touched = Populate(core->region, core->region_bytes);
    }
    absl::MutexLock l(&core->mu);
    core->free.reserve(core->blocks);
    // Handed out from the back: the region's first block goes first.
    for (size_t i = core->blocks; i > 0; --i) {
      core->free.push_back(core->region + (i - 1) * kBlockBytes);
    }
  }
  return std::shared_ptr<EntryBlockPool>(new EntryBlockPool(std::move(core)));
}

EntryBlockPool::EntryBlockPool(std::shared_ptr<Core> core)
    : core_(std::move(core)) {}

EntryBlockPool::~EntryBlockPool() = default;

std::shared_ptr<char[]> EntryBlockPool::Take() {
  char* block;
  {
    absl::MutexLock l(&core_->mu);
    if (core_->free.empty()) return nullptr;
    block = core_->free.back();
    core_->free.pop_back();
  }
  // The deleter keeps the mapping alive while the block is out.
  return std::shared_ptr<char[]>(block, [core = core_](char* b) {
    absl::MutexLock l(&core->mu);
    core->free.push_back(b);
  });
}

size_t EntryBlockPool::blocks() const { return core_->blocks; }

size_t EntryBlockPool::free_blocks() const {
  absl::MutexLock l(&core_->mu);
  return core_->free.size();
}

const char* EntryBlockPool::region() const { return core_->region; }

size_t EntryBlockPool::region_bytes() const { return core_->region_bytes; }

bool EntryBlockPool::pre_touched() const { return core_->pre_touched; }

}  // namespace bk::bookie
