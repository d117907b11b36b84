// ReadHandle::TailAsync: the TailEntries streams of a tailing reader.

#include <algorithm>

#include "client/internal/quorum.h"
#include "client/internal/read_handle.h"

namespace bk::client::internal {

namespace {
// Entries one tail message may carry: a reader that has fallen a little
// behind (a burst) gets them in few messages.
constexpr uint32_t kTailEntriesPerMessage = 64;
// A stream whose ledger writes nothing for this long is ended by the
// bookie; the reader opens another when it wants.
constexpr absl::Duration kTailIdle = absl::Seconds(10);
}  // namespace

std::optional<ReadHandle::TailStreams> ReadHandle::TailAsync(
    int64_t first,
    absl::AnyInvocable<void(int, std::vector<ReadResult>, int64_t)> on_entries,
    absl::AnyInvocable<void(int)> done) {
  std::vector<std::string> ensemble;
  int write_quorum;
  entry::DigestType digest;
  {
    absl::MutexLock l(&mu_);
    if (metadata_.state() == proto::CLOSED) return std::nullopt;
    const proto::Segment& last =
        metadata_.segments(metadata_.segments_size() - 1);
    if (first < last.first_entry_id()) return std::nullopt;
    ensemble = Bookies(last);
    write_quorum = metadata_.write_quorum_size();
    digest = static_cast<entry::DigestType>(metadata_.digest_type());
  }
  const int e = static_cast<int>(ensemble.size());
  if (e == 0 || write_quorum <= 0 || write_quorum > e) return std::nullopt;
  TailStreams streams;
  streams.stride = write_quorum >= e ? 1 : e;
  std::vector<std::shared_ptr<BookieClient>> clients;
  std::vector<std::string> names;
  for (int64_t k = 0; k < streams.stride; ++k) {
    // Last member first: it also holds the entries after this one whose
    // adds bring it the LAC that confirms it.
    std::vector<int> slots = WriteSet(first + k, e, write_quorum);
    std::reverse(slots.begin(), slots.end());
    std::vector<int> order = ctx_->cluster()->ReadOrder(ensemble, slots);
    if (order.empty()) order = slots;
    names.push_back(ensemble[order.front()]);
    clients.push_back(ctx_->pool()->Get(names.back()));
    if (clients.back() == nullptr) return std::nullopt;
  }
  struct Shared {
    absl::AnyInvocable<void(int, std::vector<ReadResult>, int64_t)> on_entries;
    absl::AnyInvocable<void(int)> done;
  };
  auto shared = std::make_shared<Shared>();
  shared->on_entries = std::move(on_entries);
  shared->done = std::move(done);
  const uint64_t ledger = static_cast<uint64_t>(ledger_id_);
  const int64_t stride = streams.stride;
  for (int k = 0; k < static_cast<int>(stride); ++k) {
    // A stream's messages come one at a time: its cursor needs no lock.
    struct Cursor {
      int64_t next;
      bool stopped = false;
    };
    auto cursor = std::make_shared<Cursor>();
    cursor->next = first + k;
    proto::TailEntriesRequest request;
    request.set_ledger_id(ledger);
    request.set_first_entry_id(first + k);
    if (stride > 1) request.set_stride(static_cast<uint32_t>(stride));
    request.set_max_entries_per_message(kTailEntriesPerMessage);
    request.set_idle_timeout_ms(
        static_cast<uint32_t>(absl::ToInt64Milliseconds(kTailIdle)));
    streams.cancellers.push_back(clients[k]->TailEntries(
        request,
        [cursor, shared, ledger, digest, stride, k,
         bookie = names[k]](proto::ReadEntryResponse&& m) {
          if (cursor->stopped) return;
          const int64_t lac = m.max_lac();
          std::vector<ReadResult> batch =
              DecodeStreamMessage(std::move(m), digest, ledger, stride, bookie,
                                  "tail", &cursor->next, &cursor->stopped);
          if (!batch.empty()) shared->on_entries(k, std::move(batch), lac);
        },
        [shared, k](absl::Status) { shared->done(k); }));
  }
  return streams;
}

}  // namespace bk::client::internal
