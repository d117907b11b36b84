#include "client/internal/recovery.h"

#include <algorithm>
#include <future>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/errors.h"
#include "client/internal/quorum.h"
#include "client/internal/read_op.h"
#include "client/internal/recovery_add.h"
#include "common/logging.h"
#include "proto/entry_format.h"
#include "proto/status_codes.h"

namespace bk::client::internal {
namespace {

constexpr int kMaxCasAttempts = 16;

using VersionedMetadata = metadata::Versioned<proto::LedgerMetadata>;

// Writes `md` with `mutate` applied, re-reading on a version conflict.
// `stop` says, for the stored metadata, that there is nothing to write (it
// is returned as is).
template <typename Mutate, typename Stop>
absl::StatusOr<VersionedMetadata> CasLoop(ClientContext* ctx, int64_t id,
                                          VersionedMetadata md, Mutate mutate,
                                          Stop stop) {
  for (int attempt = 0; attempt < kMaxCasAttempts; ++attempt) {
    if (stop(md.value)) return md;
    proto::LedgerMetadata next = md.value;
    mutate(&next);
    auto v = ctx->store()->CompareAndSetLedger(id, next, md.version);
    if (v.ok()) return VersionedMetadata{std::move(next), *v};
    if (!absl::IsAborted(v.status())) return v.status();
    auto reread = ctx->store()->ReadLedger(id);
    if (!reread.ok()) return reread.status();
    md = std::move(*reread);
  }
  return absl::AbortedError("metadata kept changing");
}

struct FenceResult {
  int64_t lac = -1;
};

absl::StatusOr<FenceResult> Fence(ClientContext* ctx, int64_t ledger_id,
                                  const proto::LedgerMetadata& md,
                                  const std::string& master_key) {
  const auto ensemble = Bookies(md.segments(md.segments_size() - 1));
  const int e = static_cast<int>(ensemble.size());
  const auto digest = static_cast<entry::DigestType>(md.digest_type());
  struct Shared {
    absl::Mutex mu;
    int answered ABSL_GUARDED_BY(mu) = 0;
    std::vector<bool> known ABSL_GUARDED_BY(mu);
    int64_t lac ABSL_GUARDED_BY(mu) = -1;
    absl::Status denied ABSL_GUARDED_BY(mu);
  };
  auto shared = std::make_shared<Shared>();
  {
    absl::MutexLock l(&shared->mu);
    shared->known.assign(e, false);
  }
  const uint64_t ledger = static_cast<uint64_t>(ledger_id);
  for (int slot = 0; slot < e; ++slot) {
    auto client = ctx->pool()->Get(ensemble[slot]);
    if (client == nullptr) {
      absl::MutexLock l(&shared->mu);
      ++shared->answered;
      continue;
    }
    proto::ReadEntryRequest req;
    req.set_ledger_id(ledger);
    req.set_entry_id(-1);
    req.set_flags(proto::FENCE_LEDGER);
    req.set_master_key(master_key);
    client->ReadEntry(
        req, ctx->options().read_entry_timeout,
        [shared, slot, digest, ledger,
         bookie = ensemble[slot]](absl::StatusOr<proto::ReadEntryResponse> r) {
          absl::MutexLock l(&shared->mu);
          ++shared->answered;
          if (!r.ok()) return;
          const proto::StatusCode code = r->status();
          if (code == proto::BK_EUA) {
            shared->denied = ToAbsl(code, absl::StrCat("fence on ", bookie));
            return;
          }
          if (code != proto::BK_EOK && code != proto::BK_ENOENTRY &&
              code != proto::BK_ENOLEDGER) {
            return;
          }
          shared->known[slot] = true;
          shared->lac = std::max(shared->lac, r->max_lac());
          if (code == proto::BK_EOK) {
            auto d = entry::Decode(r->body(), digest, ledger, -1);
            if (d.ok()) {
              shared->lac = std::max(shared->lac, d->header.last_add_confirmed);
            }
          }
        });
  }
  // Every bookie answers or times out (read_entry_timeout): wait for all, so
  // that the LAC is the best the ensemble knows.
  absl::MutexLock l(&shared->mu);
  auto all = [&shared, e]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(shared->mu) {
    return shared->answered == e;
  };
  shared->mu.Await(absl::Condition(&all));
  if (!shared->denied.ok()) return shared->denied;
  if (!CoversEveryWriteQuorum(shared->known, md.write_quorum_size(),
                              md.ack_quorum_size())) {
    return absl::UnavailableError(
        "could not fence enough bookies of the last ensemble: some write "
        "quorum has AQ or more bookies that did not answer");
  }
  FenceResult out;
  out.lac = shared->lac;
  return out;
}

}  // namespace

absl::StatusOr<VersionedMetadata> RecoverLedger(ClientContext* ctx,
                                                int64_t ledger_id,
                                                VersionedMetadata metadata,
                                                const std::string& master_key) {
  auto log = bk::log::Get("client");
  // 1. IN_RECOVERY.
  auto marked = CasLoop(
      ctx, ledger_id, std::move(metadata),
      [](proto::LedgerMetadata* md) { md->set_state(proto::IN_RECOVERY); },
      [](const proto::LedgerMetadata& md) {
        return md.state() != proto::OPEN;
      });
  if (!marked.ok()) return Annotate(marked.status(), ledger_id);
  if (marked->value.state() == proto::CLOSED) return marked;
  const proto::LedgerMetadata& md = marked->value;
  log->info("ledger={} recovery: marked IN_RECOVERY", ledger_id);

  // 2. Fence.
  auto fenced = Fence(ctx, ledger_id, md, master_key);
  if (!fenced.ok()) return Annotate(fenced.status(), ledger_id);
  const int64_t segment_start =
      md.segments(md.segments_size() - 1).first_entry_id();
  int64_t lac = std::max(fenced->lac, segment_start - 1);
  log->info("ledger={} recovery: fenced, lac={}", ledger_id, lac);

  // 3. Read on from LAC + 1 and re-replicate. Reads go to the fenced
  // ensemble (md); adds go to `writes`, which replaces bookies that refuse.
  RecoveryEnsemble writes(md);
  const auto digest = static_cast<entry::DigestType>(md.digest_type());
  int64_t last = lac;
  int64_t length = -1;
  for (int64_t e = lac + 1;; ++e) {
    ReadOpOptions o;
    o.ledger_id = static_cast<uint64_t>(ledger_id);
    o.entry_id = e;
    o.digest = digest;
    o.ensemble = Bookies(SegmentFor(md, e));
    o.write_quorum = md.write_quorum_size();
    o.max_missing = md.write_quorum_size() - md.ack_quorum_size();
    auto r = ReadBlocking(ctx, o);
    if (!r.ok()) {
      if (absl::IsNotFound(r.status())) break;
      return r.status();
    }
    if (absl::Status s = writes.Add(ctx, ledger_id, e, r->body, master_key);
        !s.ok()) {
      return Annotate(s, ledger_id, e);
    }
    last = e;
    length = static_cast<int64_t>(r->header.ledger_length);
  }
  if (length < 0) {
    if (last < 0) {
      length = 0;
    } else {
      // Nothing beyond the LAC: the length is in the LAC entry's header.
      ReadOpOptions o;
      o.ledger_id = static_cast<uint64_t>(ledger_id);
      o.entry_id = last;
      o.digest = digest;
      o.ensemble = Bookies(SegmentFor(md, last));
      o.write_quorum = md.write_quorum_size();
      auto r = ReadBlocking(ctx, o);
      if (!r.ok()) return r.status();
      length = static_cast<int64_t>(r->header.ledger_length);
    }
  }

  // 4. Close, with the segments of any replacement in the same write. The
  // segments before the fenced one are the store's (another client may
  // have re-replicated them meanwhile); from the fenced one on, ours.
  const int fenced_index = md.segments_size() - 1;
  const proto::LedgerMetadata& written = writes.metadata();
  const bool changed = !writes.replaced().empty();
  auto closed = CasLoop(
      ctx, ledger_id, std::move(*marked),
      [last, length, changed, fenced_index,
       &written](proto::LedgerMetadata* m) {
        if (changed) {
          auto* segs = m->mutable_segments();
          segs->DeleteSubrange(fenced_index, segs->size() - fenced_index);
          for (int i = fenced_index; i < written.segments_size(); ++i) {
            *m->add_segments() = written.segments(i);
          }
          for (const auto& [id, note] : written.placement_notes()) {
            (*m->mutable_placement_notes())[id] = note;
          }
        }
        m->set_state(proto::CLOSED);
        m->set_last_entry_id(last);
        m->set_length(length);
      },
      [](const proto::LedgerMetadata& m) {
        return m.state() == proto::CLOSED;
      });
  if (!closed.ok()) return Annotate(closed.status(), ledger_id);
  ctx->probe()->Recovered();
  log->info("ledger={} recovered and closed at entry {} ({} bytes)", ledger_id,
            closed->value.last_entry_id(), closed->value.length());
  return closed;
}

}  // namespace bk::client::internal
