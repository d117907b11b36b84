// LabelledCounter: one series of a counter family in a Prometheus registry,
// for tests that read a client's or a bookie's metrics.

#ifndef BK_TEST_SUPPORT_LABELLED_COUNTER_H_
#define BK_TEST_SUPPORT_LABELLED_COUNTER_H_

#include <prometheus/registry.h>

#include <string>

namespace bk::testing {

// The value of counter family `name`'s series whose label `label` is
// `value`; -1 when there is no such series.
inline double LabelledCounter(const prometheus::Registry& registry,
                              const std::string& name, const std::string& label,
                              const std::string& value) {
  for (const auto& family : registry.Collect()) {
    if (family.name != name) continue;
    for (const auto& m : family.metric) {
      for (const auto& l : m.label) {
        if (l.name == label && l.value == value) return m.counter.value;
      }
    }
  }
  return -1;
}

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_LABELLED_COUNTER_H_
