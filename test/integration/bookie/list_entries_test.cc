// GetListOfEntriesOfLedger through a real bookie's port answers in bounded
// pages: never more than 65,536 ids per answer, walked with next_entry_id.

#include <grpcpp/grpcpp.h>

#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

proto::GetListOfEntriesResponse ListPage(proto::Bookie::Stub* stub,
                                         uint64_t ledger, int64_t first,
                                         uint32_t max_entries) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  proto::GetListOfEntriesRequest req;
  req.set_ledger_id(ledger);
  req.set_first_entry_id(first);
  req.set_max_entries(max_entries);
  proto::GetListOfEntriesResponse resp;
  if (!stub->GetListOfEntriesOfLedger(&ctx, req, &resp).ok()) {
    resp.set_status(proto::BK_EIO);
  }
  return resp;
}

TEST_CASE("the list of a ledger's entries comes in pages of at most 65,536 ids",
          "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-list", FreshZkUri("list")));
  auto stub = Connect(b->grpc_target());
  // 70,000 small entries: more than one server page.
  constexpr uint64_t L = 70;
  constexpr int64_t kEntries = 70000;
  std::vector<proto::AddRequest> batches;
  for (int64_t e = 0; e < kEntries; ++e) {
    if (e % 1000 == 0) batches.emplace_back();
    *batches.back().add_entries() = MakeAdd(L, e, "k", 16);
  }
  auto out = AddBatches(stub.get(), batches, nullptr, absl::Seconds(120));
  REQUIRE(out.size() == static_cast<size_t>(kEntries));

  // Asking for everything gets the server's page and where to go on.
  auto all = ListPage(stub.get(), L, 0, 0);
  REQUIRE(all.status() == proto::BK_EOK);
  CHECK(all.entry_ids_size() == 65536);
  CHECK(all.next_entry_id() == 65536);
  auto rest = ListPage(stub.get(), L, all.next_entry_id(), 0);
  CHECK(rest.entry_ids_size() == kEntries - 65536);
  CHECK(rest.next_entry_id() == -1);

  // A client's own page size, walked to the end: every id once, in order.
  int64_t next = 0, expected = 0;
  int pages = 0;
  while (next >= 0 && pages < 100) {
    auto p = ListPage(stub.get(), L, next, 7000);
    REQUIRE(p.status() == proto::BK_EOK);
    CHECK(p.entry_ids_size() <= 7000);
    for (int64_t id : p.entry_ids()) CHECK(id == expected++);
    next = p.next_entry_id();
    ++pages;
  }
  CHECK(expected == kEntries);
  CHECK(pages == 10);
  CHECK(ListPage(stub.get(), 999, 0, 0).status() == proto::BK_ENOLEDGER);
}

}  // namespace
}  // namespace bk::it
