// LedgerFifo: values waiting for an answer keyed by (ledger, entry), kept per
// ledger in the order they were added.
//
// A bookie answers one ledger's adds on one stream in the order it received
// them (they go through one journal in order); only a refusal can overtake
// adds still waiting for their sync. So the answer almost always belongs to
// the oldest value of its ledger, and a per-ledger queue finds it at the
// front: no search tree, no node allocation per add. A value answered out
// of order leaves a hole that is skipped and reclaimed once it reaches the
// front. The same (ledger, entry) may wait more than once (an add resent on
// the same stream); Take returns the oldest.
//
// Each ledger's queue is a ring over a vector that keeps its capacity, so a
// stream in a steady state allocates nothing per add. Empty queues are kept
// while there are at most kKeepEmpty ledgers, so a ledger with one add at a
// time does not reallocate its ring for every add.
//
// Not thread-safe: the owner guards it.

#ifndef BK_CLIENT_INTERNAL_LEDGER_FIFO_H_
#define BK_CLIENT_INTERNAL_LEDGER_FIFO_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace bk::client::internal {

template <typename V>
class LedgerFifo {
 public:
  static constexpr size_t kKeepEmpty = 64;

  // Appends `value` for (ledger_id, entry_id) after the ledger's others.
  void Push(uint64_t ledger_id, int64_t entry_id, V value) {
    ledgers_[ledger_id].Push(entry_id, std::move(value));
    ++size_;
  }

  // Removes and returns the oldest value waiting for (ledger_id, entry_id);
  // nullopt when none is.
  std::optional<V> Take(uint64_t ledger_id, int64_t entry_id) {
    auto it = ledgers_.find(ledger_id);
    if (it == ledgers_.end()) return std::nullopt;
    std::optional<V> v = it->second.Take(entry_id);
    if (!v.has_value()) return std::nullopt;
    --size_;
    if (it->second.empty() && ledgers_.size() > kKeepEmpty) ledgers_.erase(it);
    return v;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Removes every value, calling fn(ledger_id, entry_id, V&&) for each: a
  // ledger's values in the order they were added, ledgers in no order.
  template <typename Fn>
  void TakeAll(Fn fn) {
    for (auto& ledger : ledgers_) {
      const uint64_t ledger_id = ledger.first;
      ledger.second.TakeAll([&](int64_t entry_id, V&& v) {
        fn(ledger_id, entry_id, std::move(v));
      });
    }
    ledgers_.clear();
    size_ = 0;
  }

 private:
  // One ledger's values in order: a ring over `slots_` from `head_`,
  // `count_` slots long, holes included.
  class Queue {
   public:
    bool empty() const { return live_ == 0; }

    void Push(int64_t entry_id, V value) {
      if (count_ == slots_.size()) Grow();
      Slot& s = slots_[(head_ + count_) % slots_.size()];
      s.entry_id = entry_id;
      s.value = std::move(value);
      ++count_;
      ++live_;
    }

    std::optional<V> Take(int64_t entry_id) {
      for (size_t i = 0; i < count_; ++i) {
        Slot& s = slots_[(head_ + i) % slots_.size()];
        if (!s.value.has_value() || s.entry_id != entry_id) continue;
        std::optional<V> v = std::move(s.value);
        s.value.reset();
        --live_;
        DropFrontHoles();
        return v;
      }
      return std::nullopt;
    }

    template <typename Fn>
    void TakeAll(Fn fn) {
      for (size_t i = 0; i < count_; ++i) {
        Slot& s = slots_[(head_ + i) % slots_.size()];
        if (s.value.has_value()) fn(s.entry_id, std::move(*s.value));
        s.value.reset();
      }
      head_ = count_ = live_ = 0;
    }

   private:
    struct Slot {
      int64_t entry_id = 0;
      std::optional<V> value;  // empty: a hole (answered out of order)
    };

    void DropFrontHoles() {
      while (count_ > 0 && !slots_[head_].value.has_value()) {
        head_ = (head_ + 1) % slots_.size();
        --count_;
      }
      if (count_ == 0) head_ = 0;
    }

    // Doubles the ring, moving the values into order from index 0.
    void Grow() {
      std::vector<Slot> bigger(slots_.empty() ? 4 : slots_.size() * 2);
      for (size_t i = 0; i < count_; ++i) {
        bigger[i] = std::move(slots_[(head_ + i) % slots_.size()]);
      }
      slots_.swap(bigger);
      head_ = 0;
    }

    std::vector<Slot> slots_;
    size_t head_ = 0;
    size_t count_ = 0;  // slots in use, holes included
    size_t live_ = 0;   // values
  };

  absl::flat_hash_map<uint64_t, Queue> ledgers_;
  size_t size_ = 0;
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_LEDGER_FIFO_H_
