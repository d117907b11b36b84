#include "autorecovery/ledgers_on_bookie.h"

namespace bk::autorecovery {

absl::StatusOr<std::vector<int64_t>> LedgersOnBookie(
    metadata::MetadataStore* store, const std::string& bookie) {
  if (absl::Status s = store->Sync(); !s.ok()) return s;
  std::vector<int64_t> out;
  auto it = store->ListLedgers();
  int64_t id;
  while (it->Next(&id)) {
    auto md = store->ReadLedger(id);
    if (absl::IsNotFound(md.status())) continue;
    if (!md.ok()) return md.status();
    bool on = false;
    for (const auto& seg : md->value.segments()) {
      for (const auto& b : seg.bookies()) on |= b == bookie;
    }
    if (on) out.push_back(id);
  }
  if (!it->status().ok()) return it->status();
  return out;
}

}  // namespace bk::autorecovery
