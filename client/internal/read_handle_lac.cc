// ReadHandle's LAC: ReadLac (every bookie of the last segment, under
// quorum coverage) and WaitForLac, the tailing reader's long poll that
// brings back the entry it waits for (TakePiggybacked).

#include <algorithm>

#include "client/internal/errors.h"
#include "client/internal/quorum.h"
#include "client/internal/read_handle.h"
#include "proto/status_codes.h"

namespace bk::client::internal {

absl::StatusOr<int64_t> ReadHandle::ReadLac() {
  proto::Segment last;
  int wq, aq;
  entry::DigestType digest;
  {
    absl::MutexLock l(&mu_);
    if (metadata_.state() == proto::CLOSED) return lac_;
    last = metadata_.segments(metadata_.segments_size() - 1);
    wq = metadata_.write_quorum_size();
    aq = metadata_.ack_quorum_size();
    digest = static_cast<entry::DigestType>(metadata_.digest_type());
  }
  const std::vector<std::string> ensemble = Bookies(last);
  const int e = static_cast<int>(ensemble.size());
  struct Shared {
    absl::Mutex mu;
    int answered ABSL_GUARDED_BY(mu) = 0;
    std::vector<bool> known ABSL_GUARDED_BY(mu);
    int64_t lac ABSL_GUARDED_BY(mu) = -1;
    // The largest payload of the bookies' last entries: an open ledger's
    // entry size before any is read.
    int64_t payload_bytes ABSL_GUARDED_BY(mu) = 0;
  };
  auto shared = std::make_shared<Shared>();
  {
    absl::MutexLock l(&shared->mu);
    shared->known.assign(e, false);
  }
  const uint64_t ledger = static_cast<uint64_t>(ledger_id_);
  for (int slot = 0; slot < e; ++slot) {
    auto client = ctx_->pool()->Get(ensemble[slot]);
    if (client == nullptr) {
      absl::MutexLock l(&shared->mu);
      ++shared->answered;
      continue;
    }
    client->ReadLac(
        ledger, ctx_->options().read_entry_timeout,
        [shared, slot, digest,
         ledger](absl::StatusOr<proto::ReadLacResponse> r) {
          absl::MutexLock l(&shared->mu);
          ++shared->answered;
          if (!r.ok()) return;
          if (r->status() == proto::BK_EOK) {
            shared->known[slot] = true;
            shared->lac = std::max(shared->lac, r->lac());
            if (!r->last_entry().empty()) {
              auto d = entry::Decode(r->last_entry(), digest, ledger, -1);
              if (d.ok()) {
                shared->lac =
                    std::max(shared->lac, d->header.last_add_confirmed);
                shared->payload_bytes =
                    std::max(shared->payload_bytes,
                             static_cast<int64_t>(d->payload.size()));
              }
            }
          } else if (r->status() == proto::BK_ENOLEDGER ||
                     r->status() == proto::BK_ENOENTRY) {
            shared->known[slot] = true;
          }
        });
  }
  int64_t lac;
  {
    absl::MutexLock l(&shared->mu);
    auto done = [&shared, e, wq, aq]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(shared->mu) {
                      return shared->answered == e ||
                             CoversEveryWriteQuorum(shared->known, wq, aq);
                    };
    shared->mu.Await(absl::Condition(&done));
    if (!CoversEveryWriteQuorum(shared->known, wq, aq)) {
      return Annotate(absl::UnavailableError(
                          "too few bookies of the last ensemble answered to "
                          "know the LAC"),
                      ledger_id_);
    }
    lac = shared->lac;
    // Sizes the first range read of an open ledger (RangeIterator) by a
    // real entry instead of a small default window.
    if (shared->payload_bytes > 0 && MeanEntryBytesRead() == 0) {
      NoteEntriesRead(shared->payload_bytes, 1);
    }
  }
  LearnLac(lac);
  return LastAddConfirmed();
}

absl::StatusOr<int64_t> ReadHandle::WaitForLac(int64_t previous,
                                               absl::Duration timeout) {
  if (LastAddConfirmed() > previous) return LastAddConfirmed();
  const int64_t want = previous + 1;
  std::vector<std::string> ensemble;
  std::vector<int> slots;
  entry::DigestType digest;
  {
    absl::MutexLock l(&mu_);
    if (metadata_.state() == proto::CLOSED) return lac_;
    const proto::Segment& last =
        metadata_.segments(metadata_.segments_size() - 1);
    ensemble = Bookies(last);
    const int e = static_cast<int>(ensemble.size());
    const int wq = metadata_.write_quorum_size();
    if (want >= last.first_entry_id() && wq > 0 && wq <= e) {
      // Last member first: it also holds entry want + 1, whose add
      // brings it the LAC that confirms `want`.
      slots = WriteSet(want, e, wq);
      std::reverse(slots.begin(), slots.end());
    } else {
      for (int i = 0; i < e; ++i) slots.push_back(i);
    }
    digest = static_cast<entry::DigestType>(metadata_.digest_type());
  }
  // Unless the client's view ranks that bookie behind another (failed
  // reads, slow, many reads pending).
  std::vector<int> order = ctx_->cluster()->ReadOrder(ensemble, slots);
  if (order.empty()) order = slots;
  if (order.empty()) return LastAddConfirmed();
  struct Shared {
    absl::Mutex mu;
    int asked ABSL_GUARDED_BY(mu) = 0;
    int answered ABSL_GUARDED_BY(mu) = 0;
    int failed ABSL_GUARDED_BY(mu) = 0;
    int64_t lac ABSL_GUARDED_BY(mu) = -1;
    std::string body ABSL_GUARDED_BY(mu);  // entry `want`, as served
  };
  auto shared = std::make_shared<Shared>();
  auto ask = [&](const std::string& bookie) {
    {
      absl::MutexLock l(&shared->mu);
      ++shared->asked;
    }
    auto client = ctx_->pool()->Get(bookie);
    if (client == nullptr) {
      absl::MutexLock l(&shared->mu);
      ++shared->answered;
      ++shared->failed;
      return;
    }
    proto::ReadEntryRequest req;
    req.set_ledger_id(static_cast<uint64_t>(ledger_id_));
    req.set_entry_id(want);
    req.set_long_poll(true);
    req.set_previous_lac(previous);
    req.set_timeout_ms(
        static_cast<uint32_t>(absl::ToInt64Milliseconds(timeout)));
    client->ReadEntry(
        req, timeout + ctx_->options().read_entry_timeout,
        [shared, want](absl::StatusOr<proto::ReadEntryResponse> r) {
          absl::MutexLock l(&shared->mu);
          ++shared->answered;
          // max_lac means something only in an answer about the ledger
          // (an error such as ENOLEDGER from a bookie that has not seen
          // it yet carries none).
          if (r.ok() && (r->status() == proto::BK_EOK ||
                         r->status() == proto::BK_ENOENTRY)) {
            shared->lac = std::max(shared->lac, r->max_lac());
          } else {
            ++shared->failed;
          }
          // The entry only from an answer that confirms it.
          if (r.ok() && r->status() == proto::BK_EOK && r->entry_id() == want &&
              r->max_lac() >= want && shared->body.empty()) {
            shared->body = std::move(*r->mutable_body());
          }
        });
  };
  // One bookie, as BookKeeper's readLastAddConfirmedAndEntry asks: the
  // others only if it fails, or has not answered within
  // speculativeReadTimeout -- past the poll's own timeout when that is the
  // shorter, so that an idle ledger's poll, answered at its timeout, asks
  // no one else, and a bookie that does not answer even then gets company.
  ask(ensemble[order.front()]);
  auto progress_or_all =
      [&shared, previous]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(shared->mu) {
        return shared->lac > previous || shared->answered == shared->asked;
      };
  bool more = false;
  {
    absl::MutexLock l(&shared->mu);
    const absl::Duration speculative = ctx_->options().speculative_read_timeout;
    if (speculative > absl::ZeroDuration()) {
      shared->mu.AwaitWithTimeout(
          absl::Condition(&progress_or_all),
          speculative < timeout ? speculative : timeout + speculative);
    } else {
      shared->mu.Await(absl::Condition(&progress_or_all));
    }
    more = shared->lac <= previous &&
           (shared->failed > 0 || shared->answered < shared->asked);
  }
  if (more) {
    for (size_t i = 1; i < order.size(); ++i) ask(ensemble[order[i]]);
  }
  int64_t lac;
  std::string body;
  {
    absl::MutexLock l(&shared->mu);
    shared->mu.Await(absl::Condition(&progress_or_all));
    lac = shared->lac;
    body = std::move(shared->body);
  }
  LearnLac(lac);
  if (!body.empty()) {
    auto d =
        entry::Decode(body, digest, static_cast<uint64_t>(ledger_id_), want);
    if (d.ok()) {
      ReadResult r;
      r.entry_id = want;
      r.header = d->header;
      r.payload = std::string(d->payload);
      r.body = std::move(body);
      absl::MutexLock l(&mu_);
      piggybacked_ = std::move(r);
    }
    // A damaged answer is dropped: the entry is read again, and that read
    // goes to a good replica (read_op.cc).
  }
  return LastAddConfirmed();
}

std::optional<ReadResult> ReadHandle::TakePiggybacked(int64_t entry_id) {
  absl::MutexLock l(&mu_);
  if (!piggybacked_.has_value() || piggybacked_->entry_id != entry_id) {
    return std::nullopt;
  }
  std::optional<ReadResult> r = std::move(piggybacked_);
  piggybacked_.reset();
  return r;
}

}  // namespace bk::client::internal
