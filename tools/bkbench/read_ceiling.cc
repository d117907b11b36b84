#include "tools/bkbench/read_ceiling.h"

#include <chrono>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "client/bookie_admin.h"
#include "metadata/metadata_store.h"
#include "tools/bkbench/cluster_store.h"

namespace bk::bkbench {

absl::StatusOr<ReadCeiling> MeasureReadCeiling(
    const client::ClientOptions& client, int64_t ledger_id, int64_t count) {
  if (count <= 0) return absl::InvalidArgumentError("nothing to stream");
  auto store =
      metadata::Open(client.metadata_service_uri, StoreOptionsOf(client));
  if (!store.ok()) return store.status();
  auto md = (*store)->ReadLedger(ledger_id);
  if (!md.ok()) return md.status();
  auto set = (*store)->ListBookies();
  if (!set.ok()) return set.status();
  std::map<std::string, std::string> endpoint;
  for (const auto* list : {&set->writable, &set->readonly}) {
    for (const proto::BookieServiceInfo& b : *list) {
      endpoint[b.bookie_id()] = b.grpc_endpoint();
    }
  }
  const proto::LedgerMetadata& m = md->value;
  if (m.segments_size() == 0) {
    return absl::FailedPreconditionError("no segment");
  }
  for (int i = 1; i < m.segments_size(); ++i) {
    if (m.segments(i).first_entry_id() < count) {
      return absl::FailedPreconditionError(
          absl::StrCat("ledger ", ledger_id, " changed ensemble at entry ",
                       m.segments(i).first_entry_id()));
    }
  }
  const auto& bookies = m.segments(0).bookies();
  const int e = bookies.size();
  const int64_t stride = m.write_quorum_size() >= e ? 1 : e;
  // Connections first, so that connecting is not timed.
  std::vector<std::unique_ptr<client::BookieAdmin>> admins;
  for (int64_t k = 0; k < std::min<int64_t>(stride, count); ++k) {
    // Entry k's write set starts at bookie k mod E (the client's WriteSet).
    const std::string& id = bookies.Get(static_cast<int>(k % e));
    auto it = endpoint.find(id);
    if (it == endpoint.end()) {
      return absl::UnavailableError(absl::StrCat(id, " is not registered"));
    }
    auto admin = client::BookieAdmin::Connect(id, it->second, client.tls);
    if (!admin.ok()) return admin.status();
    auto info = (*admin)->Info(absl::Seconds(10));  // connects
    if (!info.ok()) return info.status();
    admins.push_back(std::move(*admin));
  }
  ReadCeiling r;
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t k = 0; k < static_cast<int64_t>(admins.size()); ++k) {
    // A call ends at the bookie's byte budget: go on from there.
    int64_t next = k;
    while (next <= count - 1) {
      auto s = admins[k]->StreamEntries(ledger_id, next, count - 1, stride,
                                        absl::Seconds(60),
                                        client::kRangeReadEntriesPerMessage);
      if (!s.ok()) return s.status();
      if (s->entries == 0) {
        return absl::DataLossError(
            absl::StrCat(admins[k]->bookie_id(), " streamed nothing of ledger ",
                         ledger_id, " from entry ", next));
      }
      r.entries += s->entries;
      r.bytes += s->bytes;
      next = s->next;
    }
  }
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  r.entries_per_s = r.seconds > 0 ? r.entries / r.seconds : 0;
  return r;
}

}  // namespace bk::bkbench
