#include "client/ledger_repair.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "client/internal/client_context.h"
#include "client/internal/errors.h"
#include "client/internal/fragment_copy.h"
#include "client/internal/placement_probe.h"
#include "client/internal/quorum.h"
#include "common/logging.h"

namespace bk::client {
namespace {

using internal::Annotate;
using internal::Bookies;

constexpr int kMaxCasAttempts = 16;

int SlotOf(const proto::Segment& seg, const std::string& bookie) {
  for (int i = 0; i < seg.bookies_size(); ++i) {
    if (seg.bookies(i) == bookie) return i;
  }
  return -1;
}

}  // namespace

absl::StatusOr<RepairResult> LedgerRepair::ReplaceBookie(
    int64_t ledger_id, const std::string& password, const std::string& bookie,
    const RepairOptions& options) {
  internal::ClientContext* ctx = client_->ctx_.get();
  auto log = bk::log::Get("client");
  auto read = ctx->store()->ReadLedger(ledger_id);
  if (!read.ok()) return Annotate(read.status(), ledger_id);
  metadata::Versioned<proto::LedgerMetadata> md = std::move(*read);
  if (md.value.password_hash() != PasswordHash(password)) {
    return Annotate(
        absl::PermissionDeniedError("the password does not match the ledger's"),
        ledger_id);
  }
  const std::string master_key = MasterKey(password);
  RepairResult result;
  result.absent = true;
  for (int i = 0; i < md.value.segments_size(); ++i) {
    const proto::Segment seg = md.value.segments(i);
    const int slot = SlotOf(seg, bookie);
    if (slot < 0) continue;
    result.absent = false;
    const bool last = i + 1 == md.value.segments_size();
    if (last && md.value.state() != proto::CLOSED) {
      result.skipped_last_segment = true;
      continue;
    }
    // A replacement outside the segment's bookies (as BookKeeper's
    // replicator: a bookie of another segment may serve this one too, which
    // keeps the rack choices open).
    std::vector<std::string> excluded = options.excluded;
    for (const auto& b : seg.bookies()) excluded.push_back(b);
    placement::LedgerHints hints;
    for (const auto& [k, v] : md.value.custom_metadata()) {
      hints.custom_metadata[k] = v;
    }
    auto placed = internal::ProbeAndReplace(
        ctx, Bookies(seg), slot, md.value.write_quorum_size(),
        md.value.ack_quorum_size(), excluded, hints);
    if (!placed.ok()) return Annotate(placed.status(), ledger_id, -2, bookie);
    const std::string to = placed->ensemble[slot];

    internal::FragmentCopy copy;
    copy.ledger_id = static_cast<uint64_t>(ledger_id);
    copy.digest = static_cast<entry::DigestType>(md.value.digest_type());
    copy.ensemble = Bookies(seg);
    // The bookie being replaced is not asked: a lost one would hold each
    // read until its timeout (its registration may still stand when the
    // copy starts), and the surviving replicas are the ones to copy from.
    // Only when it is the sole replica (WQ 1, a decommission) is it read.
    if (md.value.write_quorum_size() > 1) copy.ensemble[slot] = "";
    copy.write_quorum = md.value.write_quorum_size();
    copy.slot = slot;
    copy.first_entry = seg.first_entry_id();
    copy.last_entry = internal::SegmentLastEntry(md.value, i);
    copy.to = to;
    copy.master_key = master_key;
    copy.batch_size = options.batch_size;
    copy.chunks_in_flight = options.chunks_in_flight;
    copy.throttle = options.throttle;
    auto stats = internal::CopyFragment(ctx, copy);
    if (!stats.ok()) return stats.status();

    // Swap by compare-and-set; a concurrent change elsewhere in the
    // metadata is merged, a change of this very segment is not.
    absl::Status swapped = absl::AbortedError("metadata kept changing");
    for (int attempt = 0; attempt < kMaxCasAttempts; ++attempt) {
      proto::LedgerMetadata next = md.value;
      if (i >= next.segments_size() ||
          next.segments(i).first_entry_id() != seg.first_entry_id() ||
          SlotOf(next.segments(i), bookie) != slot) {
        swapped = absl::AbortedError(absl::StrCat(
            "segment ", i, " changed while its entries were copied"));
        break;
      }
      next.mutable_segments(i)->set_bookies(slot, to);
      for (const auto& [id, note] : placed->notes) {
        (*next.mutable_placement_notes())[id] = note;
      }
      auto v = ctx->store()->CompareAndSetLedger(ledger_id, next, md.version);
      if (v.ok()) {
        md = {std::move(next), *v};
        swapped = absl::OkStatus();
        break;
      }
      if (!absl::IsAborted(v.status())) {
        swapped = v.status();
        break;
      }
      auto reread = ctx->store()->ReadLedger(ledger_id);
      if (!reread.ok()) {
        swapped = reread.status();
        break;
      }
      md = std::move(*reread);
    }
    if (!swapped.ok()) return Annotate(swapped, ledger_id, -2, bookie);
    FragmentMove move;
    move.segment = i;
    move.first_entry = copy.first_entry;
    move.last_entry = copy.last_entry;
    move.from = bookie;
    move.to = to;
    move.entries = stats->entries;
    move.bytes = stats->bytes;
    log->info(
        "ledger={} segment {} (entries {}..{}): {} replaced by {}, {} entries "
        "({} bytes) copied",
        ledger_id, i, move.first_entry, move.last_entry, bookie, to,
        move.entries, move.bytes);
    result.moved.push_back(std::move(move));
  }
  return result;
}

}  // namespace bk::client
