// RackAwarePolicy's learning besides reports: the ledgers this client and
// others place, close and move between bookies, which the adaptive
// weighting counts until reports show them (adaptive_chooser.h), and the
// estimates that result. Other weightings ignore all of it.

#include "placement/rack_aware_policy.h"
#include "placement/weighted_selection.h"

namespace bk::placement {

double RackAwarePolicy::SlotMiB(const LedgerHints& hints, int ensemble_size,
                                int write_quorum) {
  if (!hints.has_rate()) return -1;
  return hints.expected_write_bytes_per_second * write_quorum / ensemble_size /
         kBytesPerMiB;
}

void RackAwarePolicy::OnPlacedElsewhere(const std::vector<BookieId>& ensemble,
                                        int write_quorum,
                                        const LedgerHints& hints) {
  if (ensemble.empty()) return;
  RecordPlaced(ensemble,
               SlotMiB(hints, static_cast<int>(ensemble.size()), write_quorum));
}

void RackAwarePolicy::OnLedgerClosed(const std::vector<BookieId>& ensemble,
                                     int write_quorum,
                                     const LedgerHints& hints) {
  if (ensemble.empty()) return;
  RecordClosed(ensemble,
               SlotMiB(hints, static_cast<int>(ensemble.size()), write_quorum));
}

void RackAwarePolicy::OnClosedElsewhere(const std::vector<BookieId>& ensemble,
                                        int write_quorum,
                                        const LedgerHints& hints) {
  OnLedgerClosed(ensemble, write_quorum, hints);
}

void RackAwarePolicy::OnReplacedElsewhere(const BookieId& leaving,
                                          const BookieId& joining,
                                          int ensemble_size, int write_quorum,
                                          const LedgerHints& hints) {
  if (ensemble_size < 1) return;
  const double slot_mib = SlotMiB(hints, ensemble_size, write_quorum);
  RecordClosed({leaving}, slot_mib);
  RecordPlaced({joining}, slot_mib);
}

absl::flat_hash_map<BookieId, double> RackAwarePolicy::EstimatedLoads() const {
  if (options_.weighting != Weighting::kAdaptive) return {};
  return chooser_.Prepare(topology_, now_).load;
}

absl::flat_hash_map<BookieId, std::string> RackAwarePolicy::LeftOut(
    const LedgerHints& hints, int ensemble_size, int write_quorum) const {
  absl::flat_hash_map<BookieId, std::string> out;
  if (options_.weighting != Weighting::kAdaptive || ensemble_size < 1) {
    return out;
  }
  const double slot_mib = SlotMiB(hints, ensemble_size, write_quorum);
  const AdaptiveChooser::View view = chooser_.Prepare(topology_, now_);
  std::vector<const BookieId*> eligible;
  for (const BookieId& id : topology_.writable()) eligible.push_back(&id);
  for (const BookieId* id : eligible) {
    std::string why =
        chooser_.LeftOutReason(*id, eligible, slot_mib, view, topology_, now_);
    if (!why.empty()) out.emplace(*id, std::move(why));
  }
  return out;
}

void RackAwarePolicy::RecordPlaced(const std::vector<BookieId>& bookies,
                                   double slot_mib) {
  if (options_.weighting != Weighting::kAdaptive) return;
  chooser_.OnPlaced(bookies, slot_mib, now_);
}

void RackAwarePolicy::RecordClosed(const std::vector<BookieId>& bookies,
                                   double slot_mib) {
  if (options_.weighting != Weighting::kAdaptive) return;
  chooser_.OnClosed(bookies, slot_mib, now_);
}

}  // namespace bk::placement
