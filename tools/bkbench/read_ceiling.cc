#include "tools/bkbench/read_ceiling.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "metadata/metadata_store.h"
#include "proto/bookie.grpc.pb.h"

namespace bk::bkbench {

absl::StatusOr<ReadCeiling> MeasureReadCeiling(const std::string& metadata_uri,
                                               int64_t ledger_id,
                                               int64_t count) {
  if (count <= 0) return absl::InvalidArgumentError("nothing to stream");
  auto store = metadata::Open(metadata_uri, {});
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
  if (m.segments_size() == 0)
    return absl::FailedPreconditionError("no segment");
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
  ReadCeiling r;
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t k = 0; k < std::min<int64_t>(stride, count); ++k) {
    // Entry k's write set starts at bookie k mod E (quorum.h's WriteSet).
    const std::string& id = bookies.Get(static_cast<int>(k % e));
    auto it = endpoint.find(id);
    if (it == endpoint.end()) {
      return absl::UnavailableError(absl::StrCat(id, " is not registered"));
    }
    auto stub = proto::Bookie::NewStub(
        grpc::CreateChannel(it->second, grpc::InsecureChannelCredentials()));
    // A stream ends at the bookie's byte limit per call: go on from there.
    int64_t want = k;
    while (want <= count - 1) {
      grpc::ClientContext ctx;
      proto::ReadEntriesRequest req;
      req.set_ledger_id(static_cast<uint64_t>(ledger_id));
      req.set_first_entry_id(want);
      req.set_last_entry_id(count - 1);
      if (stride > 1) req.set_stride(static_cast<uint32_t>(stride));
      auto reader = stub->ReadEntries(&ctx, req);
      proto::ReadEntryResponse resp;
      const int64_t from = want;
      while (reader->Read(&resp)) {
        if (resp.status() != proto::BK_EOK || resp.entry_id() != want) break;
        r.bytes += static_cast<int64_t>(resp.body().size());
        ++r.entries;
        want += stride;
      }
      ctx.TryCancel();
      grpc::Status s = reader->Finish();
      if (want == from) {
        return absl::DataLossError(
            absl::StrCat(id, " streamed nothing of ledger ", ledger_id,
                         " from entry ", from, " (", s.error_message(), ")"));
      }
    }
  }
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  r.entries_per_s = r.seconds > 0 ? r.entries / r.seconds : 0;
  return r;
}

}  // namespace bk::bkbench
