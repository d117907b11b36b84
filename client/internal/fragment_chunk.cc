#include "client/internal/fragment_chunk.h"

#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/errors.h"
#include "client/internal/read_op.h"
#include "common/logging.h"

namespace bk::client::internal {
namespace {

// Entries the stream carries per message: a gRPC message per entry is
// most of the CPU a copy costs the replica and this client, so several
// ride together; few enough that the adds of a chunk start while the rest
// of it is still being read.
constexpr uint32_t kEntriesPerMessage = 16;

// One chunk in progress. Counts what is still to answer: the stream (1
// until its end has been handled) plus every read and add in flight; the
// last answer runs `done`.
class ChunkRun : public std::enable_shared_from_this<ChunkRun> {
 public:
  ChunkRun(ClientContext* ctx, std::shared_ptr<const ChunkTarget> target,
           const ChunkPlan& plan, absl::AnyInvocable<void(ChunkOutcome)> done)
      : ctx_(ctx),
        target_(std::move(target)),
        plan_(plan),
        last_(plan.first + plan.stride * (plan.count - 1)),
        done_(std::move(done)) {
    absl::MutexLock l(&mu_);
    next_ = plan.first;
  }

  void Start() {
    auto source =
        plan_.source.empty() ? nullptr : ctx_->pool()->Get(plan_.source);
    if (source == nullptr) {
      StreamEnded();
      return;
    }
    proto::ReadEntriesRequest request;
    request.set_ledger_id(target_->ledger_id);
    request.set_first_entry_id(plan_.first);
    request.set_last_entry_id(last_);
    request.set_stride(static_cast<uint32_t>(plan_.stride));
    request.set_max_entries_per_message(kEntriesPerMessage);
    auto self = shared_from_this();
    source->ReadEntries(
        request, ctx_->options().read_entry_timeout,
        [self](proto::ReadEntryResponse&& m) { self->OnStreamed(&m); },
        [self](absl::Status) { self->StreamEnded(); });
  }

 private:
  // Stream messages come one at a time, in order; each holds one entry or
  // several (body, then more_bodies), the next ones of the run. The
  // entries of one message go to the new bookie together (one AddEntries
  // message when they fit).
  void OnStreamed(proto::ReadEntryResponse* m) {
    if (m->status() != proto::BK_EOK) {
      absl::MutexLock l(&mu_);
      stopped_ = true;  // the rest is read entry by entry
      return;
    }
    const int n = 1 + m->more_bodies_size();
    std::vector<BookieClient::PendingAdd> adds;
    adds.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      std::string* body =
          i == 0 ? m->mutable_body() : m->mutable_more_bodies(i - 1);
      int64_t id;
      {
        absl::MutexLock l(&mu_);
        if (stopped_) break;
        id = next_;
        if ((i == 0 && m->entry_id() != id) || id > last_) {
          stopped_ = true;  // the rest is read entry by entry
          break;
        }
      }
      auto d = entry::Decode(*body, target_->digest, target_->ledger_id, id);
      if (!d.ok()) {
        bk::log::Get("client")->warn(
            "ledger={} entry={} bookie={} re-replication read: {}",
            target_->ledger_id, id, plan_.source, d.status().ToString());
        absl::MutexLock l(&mu_);
        stopped_ = true;  // read again from another replica
        break;
      }
      {
        absl::MutexLock l(&mu_);
        next_ += plan_.stride;
        ++pending_;
      }
      adds.push_back(TargetAdd(id, std::move(*body)));
    }
    SendToTarget(absl::MakeSpan(adds));
  }

  // The stream is over: what it did not deliver is read entry by entry.
  void StreamEnded() {
    int64_t from;
    {
      absl::MutexLock l(&mu_);
      stopped_ = true;
      from = next_;
    }
    for (int64_t id = from; id <= last_; id += plan_.stride) {
      {
        absl::MutexLock l(&mu_);
        ++pending_;
      }
      ReadOpOptions o;
      o.ledger_id = target_->ledger_id;
      o.entry_id = id;
      o.digest = target_->digest;
      o.ensemble = target_->ensemble;
      o.write_quorum = target_->write_quorum;
      StartRead(ctx_, std::move(o),
                [self = shared_from_this(), id](absl::StatusOr<ReadResult> r) {
                  if (r.ok()) {
                    {
                      absl::MutexLock l(&self->mu_);
                      ++self->pending_;
                    }
                    BookieClient::PendingAdd add =
                        self->TargetAdd(id, std::move(r->body));
                    self->SendToTarget(absl::MakeSpan(&add, 1));
                  }
                  self->Answered(r.status(), id, 0);
                });
    }
    Answered(absl::OkStatus(), -2, 0);  // the stream's own count
  }

  // The add of one entry to the new bookie, its bytes as read and checked
  // (not copied again). REQUIRES: pending_ counts it until it answers.
  BookieClient::PendingAdd TargetAdd(int64_t id, std::string body) {
    const int64_t bytes = static_cast<int64_t>(body.size());
    BookieClient::PendingAdd add;
    add.entry_id = id;
    add.body = EntryBytes::Adopt(std::move(body));
    add.done = [self = shared_from_this(), id, bytes](absl::Status s) {
      self->Answered(s, id, bytes);
    };
    return add;
  }

  void SendToTarget(absl::Span<BookieClient::PendingAdd> adds) {
    target_->to->AddAll(target_->ledger_id, target_->master_key,
                        proto::RECOVERY_ADD, adds);
  }

  // One answer: of an add of `bytes` (> 0), or of a read or the stream
  // (0).
  void Answered(const absl::Status& s, int64_t id, int64_t bytes) {
    absl::AnyInvocable<void(ChunkOutcome)> done;
    ChunkOutcome out;
    {
      absl::MutexLock l(&mu_);
      if (!s.ok() && outcome_.status.ok()) {
        outcome_.status = Annotate(s, static_cast<int64_t>(target_->ledger_id),
                                   id, target_->to->id());
      }
      if (s.ok() && bytes > 0) {
        ++outcome_.entries;
        outcome_.bytes += bytes;
      }
      if (--pending_ > 0) return;
      done = std::move(done_);
      out = outcome_;
    }
    if (done) done(std::move(out));
  }

  ClientContext* const ctx_;
  const std::shared_ptr<const ChunkTarget> target_;
  const ChunkPlan plan_;
  const int64_t last_;

  absl::Mutex mu_;
  int64_t next_ ABSL_GUARDED_BY(mu_);  // the stream's next entry
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  int pending_ ABSL_GUARDED_BY(mu_) = 1;  // the stream
  ChunkOutcome outcome_ ABSL_GUARDED_BY(mu_);
  absl::AnyInvocable<void(ChunkOutcome)> done_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void StartChunk(ClientContext* ctx, std::shared_ptr<const ChunkTarget> target,
                const ChunkPlan& plan,
                absl::AnyInvocable<void(ChunkOutcome)> done) {
  if (plan.count <= 0) {
    done(ChunkOutcome{});
    return;
  }
  std::make_shared<ChunkRun>(ctx, std::move(target), plan, std::move(done))
      ->Start();
}

}  // namespace bk::client::internal
