#include "bookie/storage/read_cache.h"

#include <algorithm>
#include <cstring>

namespace bk::bookie {
namespace {

// A segment's offsets are 32-bit; BookKeeper caps its segments at 1 GiB
// too, and a larger budget simply has more of them.
constexpr uint64_t kMaxSegmentBytes = uint64_t{1} << 30;

uint64_t SegmentCount(uint64_t capacity, int segments) {
  const uint64_t wanted = static_cast<uint64_t>(std::max(segments, 1));
  const uint64_t needed = (capacity + kMaxSegmentBytes - 1) / kMaxSegmentBytes;
  return std::max(wanted, needed);
}

EntryBuffer PrivateCopy(absl::string_view bytes) {
  return MakeEntryBuffer(std::string(bytes));
}

}  // namespace

ReadCache::ReadCache(uint64_t capacity_bytes, int segments)
    : capacity_(capacity_bytes),
      segment_bytes_(capacity_bytes / SegmentCount(capacity_bytes, segments)) {
  if (segment_bytes_ > 0) {
    segments_.resize(SegmentCount(capacity_bytes, segments));
  }
}

uint64_t ReadCache::blocks_allocated() const {
  absl::ReaderMutexLock l(&mu_);
  return blocks_allocated_;
}

EntryBuffer ReadCache::HandleOf(const Place& p) const {
  const std::shared_ptr<char[]>& block = segments_[p.segment].block;
  return BlockEntry(block, block.get() + p.offset, p.size);
}

void ReadCache::Advance() {
  current_ = static_cast<uint32_t>((current_ + 1) % segments_.size());
  Segment& s = segments_[current_];
  uint64_t evicted = 0;
  for (const Key& k : s.keys) {
    auto it = index_.find(k);
    // A key dropped (DropLedger) and cached again lives in another segment.
    if (it == index_.end() || it->second.segment != current_) continue;
    evicted += it->second.size;
    index_.erase(it);
  }
  bytes_.fetch_sub(evicted, std::memory_order_relaxed);
  s.keys.clear();
  s.used = 0;
  // The segment lets go of its block, which lives on while a reader holds
  // one of its entries; the next Put takes a fresh one. (Refilling the
  // block when use_count() said no reader held it raced with a reader's
  // last access: that count is read without ordering, found by TSan.)
  s.block = nullptr;
}

EntryBuffer ReadCache::Put(uint64_t ledger_id, int64_t entry_id,
                           absl::string_view bytes, bool* inserted) {
  if (inserted != nullptr) *inserted = false;
  if (segment_bytes_ == 0 || bytes.size() > segment_bytes_) {
    return PrivateCopy(bytes);
  }
  const Key key{ledger_id, entry_id};
  absl::MutexLock l(&mu_);
  if (auto it = index_.find(key); it != index_.end()) {
    return HandleOf(it->second);
  }
  if (segments_[current_].used + bytes.size() > segment_bytes_) Advance();
  Segment& s = segments_[current_];
  if (s.block == nullptr) {
    s.block = NewEntryBlock(segment_bytes_);
    ++blocks_allocated_;
  }
  const Place p{current_, static_cast<uint32_t>(s.used),
                static_cast<uint32_t>(bytes.size())};
  if (!bytes.empty()) {
    std::memcpy(s.block.get() + s.used, bytes.data(), bytes.size());
  }
  s.used += bytes.size();
  s.keys.push_back(key);
  index_.emplace(key, p);
  bytes_.fetch_add(bytes.size(), std::memory_order_relaxed);
  if (inserted != nullptr) *inserted = true;
  return HandleOf(p);
}

EntryBuffer ReadCache::Get(uint64_t ledger_id, int64_t entry_id) const {
  absl::ReaderMutexLock l(&mu_);
  auto it = index_.find(Key{ledger_id, entry_id});
  return it == index_.end() ? nullptr : HandleOf(it->second);
}

void ReadCache::DropLedger(uint64_t ledger_id) {
  absl::MutexLock l(&mu_);
  uint64_t dropped = 0;
  for (auto it = index_.begin(); it != index_.end();) {
    if (it->first.first == ledger_id) {
      dropped += it->second.size;
      index_.erase(it++);
    } else {
      ++it;
    }
  }
  bytes_.fetch_sub(dropped, std::memory_order_relaxed);
}

}  // namespace bk::bookie
