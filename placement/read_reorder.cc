#include "placement/read_reorder.h"

#include <algorithm>
#include <tuple>

namespace bk::placement {
namespace {

enum Class { kHealthy, kFailed, kReadOnly, kSlow, kUnavailable };

}  // namespace

std::vector<int> ReorderReadSequence(
    const std::vector<BookieId>& ensemble, const std::vector<int>& write_set,
    const BookieHealthMap& health,
    absl::FunctionRef<BookieState(const BookieId&)> state,
    int64_t threshold_pending_requests) {
  static const BookieHealth kNoRecord{};
  auto health_of = [&](int index) -> const BookieHealth& {
    auto it = health.find(ensemble[index]);
    return it == health.end() ? kNoRecord : it->second;
  };

  std::vector<int> order = write_set;
  if (threshold_pending_requests > 0 && !order.empty()) {
    size_t best = 0;
    for (size_t i = 1; i < order.size(); ++i) {
      if (health_of(order[i]).pending_requests <
          health_of(order[best]).pending_requests) {
        best = i;
      }
    }
    if (best > 0 && health_of(order[0]).pending_requests >=
                        health_of(order[best]).pending_requests +
                            threshold_pending_requests) {
      std::rotate(order.begin(), order.begin() + best,
                  order.begin() + best + 1);
    }
  }

  // (class, key within class, position); sorting gives the read order.
  std::vector<std::tuple<int, int64_t, size_t>> keys;
  keys.reserve(order.size());
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const BookieHealth& h = health_of(order[pos]);
    int cls = kHealthy;
    int64_t key = 0;
    switch (state(ensemble[order[pos]])) {
      case BookieState::kUnknown:
        cls = kUnavailable;
        break;
      case BookieState::kReadOnly:
        cls = h.slow ? kSlow : kReadOnly;
        break;
      case BookieState::kWritable:
        cls = h.last_failed_entry >= 0 ? kFailed : h.slow ? kSlow : kHealthy;
        break;
    }
    if (cls == kFailed) key = h.last_failed_entry;
    if (cls == kSlow) key = h.pending_requests;
    keys.emplace_back(cls, key, pos);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<int> result;
  result.reserve(order.size());
  for (const auto& [cls, key, pos] : keys) result.push_back(order[pos]);
  return result;
}

}  // namespace bk::placement
