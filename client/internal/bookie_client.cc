#include "client/internal/bookie_client.h"

#include <grpcpp/alarm.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/internal/bookie_client_shared.h"
#include "client/internal/ledger_fifo.h"
#include "proto/bookie.grpc.pb.h"
#include "proto/status_codes.h"

namespace bk::client::internal {

namespace {

// The Bookie service's AddEntries method (proto/bookie.proto); static, as
// gRPC may keep the pointer for the call's lifetime.
const std::string& AddEntriesMethod() {
  static const std::string* const kMethod = new std::string(
      absl::StrCat("/", proto::Bookie::service_full_name(), "/AddEntries"));
  return *kMethod;
}

// How long the destructor waits for adds in flight to be answered.
constexpr absl::Duration kDrainTimeout = absl::Milliseconds(500);

}  // namespace

// Hands answers to their waiters, outside the connection's lock: callbacks
// one by one; sinks once per run of consecutive answers for the same sink.
void BookieClient::Deliver(const std::string& bookie,
                           std::vector<Answered>* answered) {
  std::vector<AddAnswer> run;
  run.reserve(answered->size());
  size_t i = 0;
  while (i < answered->size()) {
    Answered& a = (*answered)[i];
    if (a.waiter.done) {
      a.waiter.done(std::move(a.status));
      ++i;
      continue;
    }
    const std::weak_ptr<AddSink>& sink = a.waiter.sink;
    run.clear();
    size_t j = i;
    for (; j < answered->size(); ++j) {
      Answered& b = (*answered)[j];
      if (b.waiter.done || sink.owner_before(b.waiter.sink) ||
          b.waiter.sink.owner_before(sink)) {
        break;
      }
      run.push_back({b.entry_id, b.waiter.tag, b.waiter.sent,
                     std::move(b.status), b.stream_ended});
    }
    if (auto s = sink.lock()) s->OnAddAnswers(bookie, run);
    i = j;
  }
  answered->clear();  // what the callbacks hold goes while the owner lives
}

// One AddEntries call. Its state is guarded by the owner's mu_, so that the
// owner can route adds and the stream can hand over without a second lock.
// Deletes itself in OnDone, after failing every add still waiting.
class BookieClient::AddStream final
    : public grpc::ClientBidiReactor<grpc::ByteBuffer, proto::AddResponse> {
 public:
  explicit AddStream(BookieClient* owner) : owner_(owner) {}

  // Checks that the calling thread holds the owner's mu_. The owner calls
  // it before the *Locked methods below: holding its own mu_, it holds
  // owner_->mu_, but the thread-safety analysis cannot know that owner_ is
  // the caller (stream_->owner_ == this).
  void AssertOwnerHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK(owner_->mu_) {
    owner_->mu_.AssertHeld();
  }

  // REQUIRES: called once, without owner_->mu_ held.
  void Start() {
    // The hold keeps OnDone away while another thread may still call
    // StartWrite from outside a reactor callback; released once broken.
    owner_->shared_->add_stub->PrepareBidiStreamingCall(
        &ctx_, AddEntriesMethod(), grpc::StubOptions(), this);
    AddHold();
    StartRead(&response_);
    StartCall();
  }

  // Queues one entry. Returns true when the caller must call Flush()
  // (outside the lock) to put a batch on the wire.
  // With `take` false the entry only joins the batch being built (more
  // follow); the caller then calls TakeBatchLocked itself.
  bool EnqueueLocked(uint64_t ledger_id, int64_t entry_id,
                     absl::string_view master_key, uint32_t flags,
                     const EntryBytes& body, Waiter waiter, bool take = true)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_->mu_) {
    const size_t bytes = body.size() + 64;
    if (queue_.empty() || queue_.back().bytes() + bytes >
                              static_cast<size_t>(owner_->max_batch_bytes_)) {
      // The last sent batch's encoder, emptied: its buffers keep their
      // capacity, so a batch does not regrow them entry by entry.
      queue_.push_back(std::move(spare_));
      spare_ = AddBatchEncoder();
    }
    waiting_.Push(ledger_id, entry_id, std::move(waiter));
    queue_.back().Add(ledger_id, entry_id, master_key, flags, body);
    return take && TakeBatchLocked();
  }

  bool broken() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_->mu_) {
    return broken_;
  }

  // No add waits for its answer.
  bool answered() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_->mu_) {
    return waiting_.empty();
  }

  void Flush() { StartWrite(&writing_); }

  void Cancel() { ctx_.TryCancel(); }

  void OnWriteDone(bool ok) override {
    bool write = false, release = false;
    {
      absl::MutexLock l(&owner_->mu_);
      write_in_flight_ = false;
      if (!ok) broken_ = true;
      write = TakeBatchLocked();
      release = ReleaseHoldLocked();
    }
    if (write) Flush();
    if (release) RemoveHold();
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      bool release = false;
      {
        absl::MutexLock l(&owner_->mu_);
        broken_ = true;
        release = ReleaseHoldLocked();
      }
      if (release) RemoveHold();
      return;
    }
    std::vector<Answered> answered;
    answered.reserve(static_cast<size_t>(response_.results_size()));
    {
      absl::MutexLock l(&owner_->mu_);
      for (const auto& r : response_.results()) {
        std::optional<Waiter> w = waiting_.Take(r.ledger_id(), r.entry_id());
        if (!w.has_value()) continue;
        absl::Status s =
            r.status() == proto::BK_EOK
                ? absl::OkStatus()
                : ToAbsl(r.status(),
                         absl::StrCat("bookie ", owner_->id_, " add of ledger ",
                                      r.ledger_id(), " entry ", r.entry_id()));
        answered.push_back({r.entry_id(), std::move(*w), std::move(s)});
      }
    }
    owner_->adds_in_flight_.fetch_sub(static_cast<int64_t>(answered.size()),
                                      std::memory_order_relaxed);
    owner_->Reachable();
    Deliver(owner_->id_, &answered);
    response_.Clear();
    StartRead(&response_);
  }

  void OnDone(const grpc::Status& status) override {
    LedgerFifo<Waiter> waiting;
    {
      absl::MutexLock l(&owner_->mu_);
      broken_ = true;
      std::swap(waiting, waiting_);
      queue_.clear();
      // No add is routed here any more (a new one opens a new stream).
      if (owner_->stream_ == this) owner_->stream_ = nullptr;
    }
    owner_->adds_in_flight_.fetch_sub(static_cast<int64_t>(waiting.size()),
                                      std::memory_order_relaxed);
    const absl::Status transport = FromGrpc(status);
    std::vector<Answered> answered;
    answered.reserve(waiting.size());
    waiting.TakeAll([&](uint64_t ledger, int64_t entry, Waiter&& w) {
      answered.push_back(
          {entry, std::move(w),
           absl::UnavailableError(absl::StrCat(
               "bookie ", owner_->id_, " add of ledger ", ledger, " entry ",
               entry, ": add stream ended (",
               transport.ok() ? "closed" : transport.ToString(), ")")),
           /*stream_ended=*/true});
    });
    // One failure of the connection, however many adds it fails; told
    // before the adds, so that whoever replaces the bookie knows it.
    if (!answered.empty()) owner_->Unreachable();
    Deliver(owner_->id_, &answered);
    // Go first, then tell the owner. The call's ClientContext holds a
    // reference to the channel; dropped here, it is never the last one,
    // because the owner keeps its own until every stream has said it is
    // done. (The last reference to a channel must never go on a gRPC
    // thread: ~Channel may then shut down and free the completion queue
    // that very thread is serving.)
    BookieClient* const owner = owner_;
    delete this;
    owner->StreamDone();
  }

  // Marks the call started (Start() has returned); from then on batches
  // may go on the wire and the hold may go. The caller then Flush()es when
  // *write and RemoveHold()s when *release, outside the lock.
  void MarkStartedLocked(bool* write, bool* release)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_->mu_) {
    started_ = true;
    *write = TakeBatchLocked();
    *release = ReleaseHoldLocked();
  }

  void RemoveStartHold() { RemoveHold(); }

  // Takes the next batch for the wire if none is being written; true when
  // the caller must Flush() (outside the lock).
  bool TakeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_->mu_) {
    return TakeBatchLocked();
  }

 private:
  // `alarm`: called from the flush alarm, which never sets itself again
  // (its callback is running), so the batch goes now.
  bool TakeBatchLocked(bool alarm = false)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_->mu_) {
    if (!started_ || write_in_flight_ || broken_ || queue_.empty() ||
        flush_pending_) {
      return false;
    }
    const int64_t interval = owner_->add_flush_interval_ns_;
    if (interval > 0) {
      const int64_t now = NowNanos();
      const int64_t due = last_write_ns_ + interval;
      // A full batch goes at once; so does one after a quiet spell. gRPC's
      // timers fire on whole milliseconds, so a held batch goes once the
      // interval has passed and up to about a millisecond later.
      if (!alarm && now < due && queue_.size() == 1) {
        flush_pending_ = true;
        alarm_.Set(gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                gpr_time_from_nanos(due - now, GPR_TIMESPAN)),
                   [this](bool) { OnFlushDue(); });
        return false;
      }
      last_write_ns_ = now;
    }
    writing_ = queue_.front().Finish();
    spare_ = std::move(queue_.front());
    queue_.pop_front();
    write_in_flight_ = true;
    return true;
  }

  // The hold goes once the stream is broken with no write in flight, and
  // never before Start() has returned (the starter still uses the stream).
  bool ReleaseHoldLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_->mu_) {
    if (!started_ || !broken_ || write_in_flight_ || flush_pending_ ||
        hold_released_) {
      return false;
    }
    hold_released_ = true;
    return true;
  }

  static int64_t NowNanos() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  // The alarm of a write held back by the flush interval. The stream's hold
  // stays while it is pending (ReleaseHoldLocked), so OnDone waits for it.
  void OnFlushDue() {
    bool write = false, release = false;
    {
      absl::MutexLock l(&owner_->mu_);
      flush_pending_ = false;
      write = TakeBatchLocked(/*alarm=*/true);
      release = ReleaseHoldLocked();
    }
    if (write) Flush();
    if (release) RemoveHold();
  }

  BookieClient* const owner_;
  grpc::ClientContext ctx_;
  grpc::Alarm alarm_;            // set only while flush_pending_
  proto::AddResponse response_;  // touched by the read callback only
  grpc::ByteBuffer writing_;     // owned by the write in flight

  // Batches not yet on the wire, each an AddRequest being encoded.
  std::deque<AddBatchEncoder> queue_ ABSL_GUARDED_BY(owner_->mu_);
  AddBatchEncoder spare_ ABSL_GUARDED_BY(owner_->mu_);  // empty
  // Adds waiting for their answers (ledger_fifo.h: a bookie answers a
  // ledger's adds in order).
  LedgerFifo<Waiter> waiting_ ABSL_GUARDED_BY(owner_->mu_);
  bool started_ ABSL_GUARDED_BY(owner_->mu_) = false;
  bool write_in_flight_ ABSL_GUARDED_BY(owner_->mu_) = false;
  bool broken_ ABSL_GUARDED_BY(owner_->mu_) = false;
  bool hold_released_ ABSL_GUARDED_BY(owner_->mu_) = false;
  bool flush_pending_ ABSL_GUARDED_BY(owner_->mu_) = false;
  int64_t last_write_ns_ ABSL_GUARDED_BY(owner_->mu_) = 0;  // NowNanos
};

BookieClient::BookieClient(std::string bookie_id, std::string endpoint,
                           const ChannelConfig& config)
    : id_(std::move(bookie_id)),
      endpoint_(std::move(endpoint)),
      max_batch_bytes_(config.max_batch_bytes),
      add_flush_interval_ns_(
          absl::ToInt64Nanoseconds(config.add_flush_interval)),
      on_unreachable_(config.on_unreachable),
      shared_(std::make_shared<Shared>()) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  // A restarted bookie is found again quickly: the next connection attempt
  // after a failed one starts 100 ms later, backing off to 1 s.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // gRPC gives each connection attempt this long to finish its TCP, TLS and
  // HTTP/2 handshakes (the "minimum backoff" is its connect timeout). At
  // 100 ms a bookie slow to answer (a loaded machine, a round trip across
  // regions) failed its first attempts, and the failed adds could
  // quarantine it; 1 s is what the backoff reaches anyway.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 1000);
  // One channel per bookie per client: do not share subchannels with other
  // clients of this process, so each behaves as its own process would.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (!config.server_name_override.empty()) {
    args.SetSslTargetNameOverride(config.server_name_override);
  }
  auto creds = config.credentials ? config.credentials
                                  : grpc::InsecureChannelCredentials();
  shared_->channel = grpc::CreateCustomChannel(endpoint_, creds, args);
  shared_->stub = proto::Bookie::NewStub(shared_->channel);
  shared_->add_stub = std::make_unique<AddStub>(shared_->channel);
}

BookieClient::~BookieClient() { Shutdown(); }

void BookieClient::ResetConnectBackoff() {
  grpc::experimental::ChannelResetConnectionBackoff(shared_->channel.get());
}

void BookieClient::Shutdown() {
  absl::MutexLock l(&mu_);
  if (closing_) {
    // Shut down already, or being shut down by another thread: wait for it.
    mu_.Await(absl::Condition(this, &BookieClient::IdleLocked));
    return;
  }
  closing_ = true;
  // Let adds in flight be answered before the stream goes (bounded): a
  // graceful end for the bookie, which then never sees the stream close
  // while it still owes answers.
  auto drained = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (stream_ == nullptr) return true;
    stream_->AssertOwnerHeld();
    return stream_->broken() || stream_->answered();
  };
  mu_.AwaitWithTimeout(absl::Condition(&drained), kDrainTimeout);
  if (stream_ != nullptr) stream_->Cancel();
  for (grpc::ClientContext* ctx : live_calls_) ctx->TryCancel();
  // Streams replaced earlier are already broken and finishing; unary calls
  // finish at their deadline at the latest.
  mu_.Await(absl::Condition(this, &BookieClient::IdleLocked));
}

bool BookieClient::IdleLocked() const {
  return live_streams_ == 0 && live_calls_.empty() && unary_finishing_ == 0;
}

void BookieClient::StreamDone() {
  absl::MutexLock l(&mu_);
  --live_streams_;
}

void BookieClient::Unreachable() {
  {
    absl::MutexLock l(&mu_);
    if (closing_) return;  // our own cancel, not the bookie's failure
  }
  if (unreachable_.exchange(true, std::memory_order_relaxed)) return;
  if (on_unreachable_) on_unreachable_(id_);
}

void BookieClient::Add(uint64_t ledger_id, int64_t entry_id,
                       const std::string& master_key, uint32_t flags,
                       const std::string& body, AddDone done) {
  Add(ledger_id, entry_id, master_key, flags, EntryBytes::Copy(body),
      std::move(done));
}

void BookieClient::Add(uint64_t ledger_id, int64_t entry_id,
                       absl::string_view master_key, uint32_t flags,
                       const EntryBytes& body, AddDone done) {
  Waiter w;
  w.done = std::move(done);
  AddWaiting(ledger_id, entry_id, master_key, flags, body, std::move(w));
}

void BookieClient::Add(uint64_t ledger_id, int64_t entry_id,
                       absl::string_view master_key, uint32_t flags,
                       const EntryBytes& body, std::weak_ptr<AddSink> sink,
                       int tag, absl::Time sent) {
  Waiter w;
  w.sink = std::move(sink);
  w.tag = tag;
  w.sent = sent;
  AddWaiting(ledger_id, entry_id, master_key, flags, body, std::move(w));
}

BookieClient::AddStream* BookieClient::StreamForAddsLocked(AddStream** start) {
  bool fresh = stream_ == nullptr;
  if (!fresh) {
    stream_->AssertOwnerHeld();
    fresh = stream_->broken();
  }
  if (fresh) {
    // A broken stream finishes on its own; new adds take a new one.
    stream_ = new AddStream(this);
    ++live_streams_;
    *start = stream_;
  }
  return stream_;
}

void BookieClient::StartStream(AddStream* start) {
  // Binding and starting the call happen outside the lock (gRPC may run
  // callbacks inline); until MarkStartedLocked no batch is written, and
  // the hold taken in Start keeps the stream alive until it is broken
  // with no write in flight.
  start->Start();
  bool write = false, release = false;
  {
    absl::MutexLock l(&mu_);
    start->AssertOwnerHeld();
    start->MarkStartedLocked(&write, &release);
  }
  if (write) start->Flush();
  if (release) start->RemoveStartHold();
  // `start` may be gone now.
}

template <typename Enqueue>
bool BookieClient::EnqueueAdds(int64_t count, Enqueue enqueue) {
  AddStream* start = nullptr;
  AddStream* flush = nullptr;
  {
    absl::MutexLock l(&mu_);
    if (closing_) return false;
    AddStream* stream = StreamForAddsLocked(&start);
    adds_in_flight_.fetch_add(count, std::memory_order_relaxed);
    if (enqueue(stream)) flush = stream;
  }
  // `flush` is null when `start` was made here (a new stream's batches
  // wait for MarkStartedLocked).
  if (start != nullptr) StartStream(start);
  if (flush != nullptr) flush->Flush();
  return true;
}

absl::Status BookieClient::ClosingError() const {
  return absl::CancelledError(absl::StrCat("bookie ", id_, ": client closing"));
}

void BookieClient::AddWaiting(uint64_t ledger_id, int64_t entry_id,
                              absl::string_view master_key, uint32_t flags,
                              const EntryBytes& body, Waiter waiter) {
  const bool queued = EnqueueAdds(1, [&](AddStream* stream) {
    stream->AssertOwnerHeld();
    return stream->EnqueueLocked(ledger_id, entry_id, master_key, flags, body,
                                 std::move(waiter));
  });
  if (queued) return;
  std::vector<Answered> answered;
  answered.push_back({entry_id, std::move(waiter), ClosingError()});
  Deliver(id_, &answered);
}

void BookieClient::AddAll(uint64_t ledger_id, absl::string_view master_key,
                          uint32_t flags, absl::Span<PendingAdd> adds) {
  if (adds.empty()) return;
  const bool queued =
      EnqueueAdds(static_cast<int64_t>(adds.size()), [&](AddStream* stream) {
        stream->AssertOwnerHeld();
        for (PendingAdd& a : adds) {
          Waiter w;
          w.done = std::move(a.done);
          stream->EnqueueLocked(ledger_id, a.entry_id, master_key, flags,
                                a.body, std::move(w), /*take=*/false);
        }
        return stream->TakeLocked();
      });
  if (queued) return;
  std::vector<Answered> answered;
  for (PendingAdd& a : adds) {
    Waiter w;
    w.done = std::move(a.done);
    answered.push_back({a.entry_id, std::move(w), ClosingError()});
  }
  Deliver(id_, &answered);
}

}  // namespace bk::client::internal
