#include "client/ledger_checker.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "client/internal/client_context.h"
#include "client/internal/errors.h"
#include "client/internal/quorum.h"
#include "proto/status_codes.h"

namespace bk::client {
namespace {

using internal::Annotate;

// The entry ids in [first, last] that `bookie` holds, ascending; kNotFound
// when it does not know the ledger; a transport error when it does not
// answer.
absl::StatusOr<std::vector<int64_t>> HeldEntries(internal::ClientContext* ctx,
                                                 const std::string& bookie,
                                                 int64_t ledger, int64_t first,
                                                 int64_t last,
                                                 absl::Duration timeout) {
  auto conn = ctx->pool()->Get(bookie);
  if (conn == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("no endpoint known for bookie ", bookie));
  }
  std::vector<int64_t> held;
  int64_t from = first;
  while (from >= 0 && from <= last) {
    proto::GetListOfEntriesRequest req;
    req.set_ledger_id(static_cast<uint64_t>(ledger));
    req.set_first_entry_id(from);
    absl::Notification answered;
    absl::StatusOr<proto::GetListOfEntriesResponse> page;
    conn->ListEntries(req, timeout,
                      [&](absl::StatusOr<proto::GetListOfEntriesResponse> r) {
                        page = std::move(r);
                        answered.Notify();
                      });
    answered.WaitForNotification();  // bounded by the call's deadline
    if (!page.ok()) return page.status();
    if (page->status() != proto::BK_EOK) {
      return ToAbsl(page->status(), absl::StrCat("bookie ", bookie));
    }
    for (int64_t id : page->entry_ids()) {
      if (id >= first && id <= last) held.push_back(id);
    }
    from = page->next_entry_id();
  }
  return held;
}

}  // namespace

absl::StatusOr<LedgerCheck> LedgerChecker::Check(int64_t ledger_id,
                                                 absl::Duration timeout) {
  internal::ClientContext* ctx = client_->ctx_.get();
  auto read = ctx->store()->ReadLedger(ledger_id);
  if (!read.ok()) return Annotate(read.status(), ledger_id);
  const proto::LedgerMetadata& md = read->value;
  LedgerCheck out;
  const int wq = md.write_quorum_size();
  for (int i = 0; i < md.segments_size(); ++i) {
    if (i + 1 == md.segments_size() && md.state() != proto::CLOSED) {
      out.skipped_last_segment = true;
      continue;
    }
    const proto::Segment& seg = md.segments(i);
    const int64_t first = seg.first_entry_id();
    const int64_t last = internal::SegmentLastEntry(md, i);
    if (last < first) continue;  // no entries
    const int e = seg.bookies_size();
    for (int slot = 0; slot < e; ++slot) {
      const std::string& bookie = seg.bookies(slot);
      auto held = HeldEntries(ctx, bookie, ledger_id, first, last, timeout);
      if (absl::IsNotFound(held.status())) {
        held = std::vector<int64_t>();  // the bookie has none of it
      } else if (!held.ok()) {
        if (std::find(out.unreachable.begin(), out.unreachable.end(), bookie) ==
            out.unreachable.end()) {
          out.unreachable.push_back(bookie);
        }
        continue;
      }
      ++out.fragments_checked;
      FragmentGap gap;
      gap.segment = i;
      gap.first_entry = first;
      gap.last_entry = last;
      gap.bookie = bookie;
      auto next_held = held->begin();
      for (int64_t id = first; id <= last; ++id) {
        if ((slot - id % e + e) % e >= wq) continue;  // not in its write set
        while (next_held != held->end() && *next_held < id) ++next_held;
        if (next_held != held->end() && *next_held == id) continue;
        if (gap.missing_entries++ == 0) gap.first_missing = id;
      }
      if (gap.missing_entries > 0) out.gaps.push_back(std::move(gap));
    }
  }
  return out;
}

}  // namespace bk::client
