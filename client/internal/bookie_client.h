// BookieClient: this client's one connection to one bookie, shared by every
// ledger: one gRPC channel and one AddEntries stream.
//
// Adds are coalesced: Add appends the entry to the batch being built; a
// batch goes on the wire as soon as the previous one has been written, and
// a batch is closed at ChannelConfig::max_batch_bytes. So a busy writer sends
// few, large stream messages and an idle one sends each add at once.
// Answers come back in any order and are matched by (ledger, entry).
//
// When the stream ends (bookie down, connection lost, cancelled), every add
// still waiting for an answer completes with kUnavailable naming the
// bookie; the next Add opens a new stream.
//
// Unreachable: an add stream that ends with adds waiting, or a unary call
// or read stream that fails kUnavailable, is one failure of the
// connection, however many calls it fails. The first such failure since the
// bookie last answered anything is reported once, to
// ChannelConfig::on_unreachable; later ones are not until an answer comes
// again. Not when this client closed the connection.
//
// Threads: every method may be called from any thread. Callbacks run on
// gRPC threads (or inline on the caller's thread when the call fails before
// reaching gRPC), never under this object's lock; they must be short and
// must not block.
//
// Lifetime: Shutdown (and the destructor, which calls it) waits up to half
// a second for adds in flight to be answered, then cancels the stream and
// the unary calls in flight and returns once every callback has run and
// has been destroyed, and gRPC holds nothing of this connection any more:
// in particular no reference to its channel. So the channel goes with this
// object, on the thread that destroys it. That thread must not be a gRPC
// thread: destroying the last channel there would shut down the completion
// queue that thread serves (a double free in gRPC). After Shutdown, Add and
// the unary calls fail at once with kCancelled, inline.

#ifndef BK_CLIENT_INTERNAL_BOOKIE_CLIENT_H_
#define BK_CLIENT_INTERNAL_BOOKIE_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "client/internal/add_wire.h"
#include "proto/bookie.pb.h"

namespace grpc {
class Channel;
class ClientContext;
class ChannelCredentials;
}  // namespace grpc

namespace bk::client::internal {

// One answer to an add sent with a sink (BookieClient::Add below).
struct AddAnswer {
  int64_t entry_id = 0;
  int tag = 0;      // the sender's own, given to Add (e.g. an ensemble slot)
  absl::Time sent;  // given to Add
  absl::Status status;
  // The add failed because its stream ended, not because the bookie
  // answered so: the connection reported that once (on_unreachable).
  bool stream_ended = false;
};

// Where the answers to adds sent with a sink go. A connection hands a sink
// every answer it has for it at once -- those of one message from the
// bookie, or every waiting add when the stream ends -- in the order it got
// them, on a gRPC thread, never under the connection's lock. So a writer
// takes its lock once per message, not once per replica-add. Held weakly:
// answers for a sink that is gone are dropped.
class AddSink {
 public:
  virtual void OnAddAnswers(const std::string& bookie,
                            absl::Span<const AddAnswer> answers) = 0;

 protected:
  ~AddSink() = default;
};

struct ChannelConfig {
  std::shared_ptr<grpc::ChannelCredentials> credentials;  // null: insecure
  std::string server_name_override;
  int64_t max_batch_bytes = 1 << 20;
  // ClientOptions::add_flush_interval: the add stream starts a write at
  // most once per this interval; adds queued sooner wait for the rest of it
  // (a gRPC alarm) unless a batch is full. Zero: a write starts as soon as
  // the previous one is on the wire.
  absl::Duration add_flush_interval = absl::ZeroDuration();
  // Told the bookie's id once per spell of unreachability (see Unreachable
  // above); on a gRPC thread, under no lock of the connection. May be empty.
  std::function<void(const std::string& bookie)> on_unreachable;
};

class BookieClient {
 public:
  using AddDone = absl::AnyInvocable<void(absl::Status)>;
  template <typename T>
  using Done = absl::AnyInvocable<void(absl::StatusOr<T>)>;

  BookieClient(std::string bookie_id, std::string endpoint,
               const ChannelConfig& config);
  ~BookieClient();  // Shutdown()
  BookieClient(const BookieClient&) = delete;
  BookieClient& operator=(const BookieClient&) = delete;

  const std::string& id() const { return id_; }
  const std::string& endpoint() const { return endpoint_; }

  // Sends one packaged entry; `done` gets the bookie's answer as a Status
  // (EOK -> OK, EFENCED -> kFailedPrecondition, ...; see
  // proto/status_codes.h) or kUnavailable when the stream broke.
  // `body` is shared, not copied: every replica's request and gRPC's send
  // queue reference the same buffers.
  void Add(uint64_t ledger_id, int64_t entry_id, absl::string_view master_key,
           uint32_t flags, const EntryBytes& body, AddDone done);
  // The same, answered through `sink` (no allocation per add).
  void Add(uint64_t ledger_id, int64_t entry_id, absl::string_view master_key,
           uint32_t flags, const EntryBytes& body, std::weak_ptr<AddSink> sink,
           int tag, absl::Time sent);
  // The same with a body copied once into a new buffer.
  void Add(uint64_t ledger_id, int64_t entry_id, const std::string& master_key,
           uint32_t flags, const std::string& body, AddDone done);

  // One entry of AddAll.
  struct PendingAdd {
    int64_t entry_id = 0;
    EntryBytes body;
    AddDone done;
  };
  // Several entries of one ledger, queued together: they go on the wire
  // in as few AddEntries messages as max_batch_bytes allows, rather than
  // the first alone and the rest behind it. Each `done` is called as Add's.
  void AddAll(uint64_t ledger_id, absl::string_view master_key, uint32_t flags,
              absl::Span<PendingAdd> adds);

  // Unary calls. `done` gets the response (whose own status field the
  // caller interprets) or the transport error (kUnavailable,
  // kDeadlineExceeded after `timeout`, ...).
  void ReadEntry(const proto::ReadEntryRequest& request, absl::Duration timeout,
                 Done<proto::ReadEntryResponse> done);
  void ReadLac(uint64_t ledger_id, absl::Duration timeout,
               Done<proto::ReadLacResponse> done);
  void GetBookieInfo(uint64_t requested, absl::Duration timeout,
                     Done<proto::GetBookieInfoResponse> done);
  // One page of the entry ids the bookie holds (GetListOfEntriesOfLedger).
  void ListEntries(const proto::GetListOfEntriesRequest& request,
                   absl::Duration timeout,
                   Done<proto::GetListOfEntriesResponse> done);

  // Streams entries request.first..last (ReadEntries): `on_entry` gets each
  // message as it comes, in order, on a gRPC thread; `done` runs once at
  // the end with the transport status (OK when the bookie ended the
  // stream, which it does at the first entry it lacks or at its byte
  // budget). Cancelled after `timeout`, and by Shutdown.
  void ReadEntries(
      const proto::ReadEntriesRequest& request, absl::Duration timeout,
      absl::AnyInvocable<void(proto::ReadEntryResponse&&)> on_entry,
      absl::AnyInvocable<void(absl::Status)> done);

  // Ends one streaming call early (TailEntries); callable from any thread,
  // any number of times, also after the call has ended.
  class StreamCanceller {
   public:
    void Cancel();

   private:
    friend class BookieClient;
    absl::Mutex mu_;
    grpc::ClientContext* ctx_ ABSL_GUARDED_BY(mu_) = nullptr;  // null: ended
  };
  // Tails a ledger (TailEntries): `on_entry` gets each message as the
  // bookie's LAC reaches its entries, in order, on a gRPC thread; `done`
  // runs once at the end with the transport status (OK when the bookie
  // ended the stream: a message whose status is not EOK, or idle). No
  // deadline: the stream lasts until the bookie ends it, the returned
  // canceller is used, or Shutdown.
  std::shared_ptr<StreamCanceller> TailEntries(
      const proto::TailEntriesRequest& request,
      absl::AnyInvocable<void(proto::ReadEntryResponse&&)> on_entry,
      absl::AnyInvocable<void(absl::Status)> done);

  // See Lifetime above. Idempotent; must not be called from a callback of
  // this connection.
  void Shutdown();

  // Ends the channel's reconnect backoff: it tries to connect at once
  // (a bookie that restarted and registered again is served now, not after
  // the backoff left from its downtime).
  void ResetConnectBackoff();

  // Adds sent and not answered yet.
  int64_t adds_in_flight() const {
    return adds_in_flight_.load(std::memory_order_relaxed);
  }

 private:
  class AddStream;
  template <typename Request>
  class StreamCall;
  struct Shared;
  // An add waiting for its answer: a callback, or a sink and its tag.
  struct Waiter {
    AddDone done;
    std::weak_ptr<AddSink> sink;
    int tag = 0;
    absl::Time sent;
  };

  struct Answered {
    int64_t entry_id;
    Waiter waiter;
    absl::Status status;
    bool stream_ended = false;
  };
  static void Deliver(const std::string& bookie,
                      std::vector<Answered>* answered);
  void AddWaiting(uint64_t ledger_id, int64_t entry_id,
                  absl::string_view master_key, uint32_t flags,
                  const EntryBytes& body, Waiter waiter);
  // What AddWaiting and AddAll share. Unless the client is closing: under
  // mu_, takes the add stream (StreamForAddsLocked), counts `count` adds in
  // flight and calls `enqueue(stream)`, which queues them (asserting
  // stream->AssertOwnerHeld() first) and returns whether a batch is ready
  // to write; then, outside the lock, starts a new stream and writes.
  // False when the client is closing: nothing was queued, and the caller
  // answers its adds with ClosingError().
  template <typename Enqueue>
  bool EnqueueAdds(int64_t count, Enqueue enqueue);
  absl::Status ClosingError() const;
  // The stream taking adds, made (and returned in *start, to be started
  // outside the lock) when there is none or it is broken.
  AddStream* StreamForAddsLocked(AddStream** start)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Starts a stream StreamForAddsLocked made, then writes what it queued.
  void StartStream(AddStream* start);

  // Called by a stream at the very end of its OnDone, once it is gone.
  void StreamDone();
  // The connection failed calls (see Unreachable above): reports the first
  // failure since the last answer, unless this client is closing.
  void Unreachable();
  // An answer came: the next failure is reported again.
  void Reachable() {
    if (unreachable_.load(std::memory_order_relaxed)) {
      unreachable_.store(false, std::memory_order_relaxed);
    }
  }
  bool IdleLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  template <typename Req, typename Resp, typename Method>
  void Unary(const Req& request, absl::Duration timeout, Method method,
             Done<Resp> done);

  // Constant after construction.
  const std::string id_;
  const std::string endpoint_;
  const int64_t max_batch_bytes_;
  const int64_t add_flush_interval_ns_;
  const std::function<void(const std::string&)> on_unreachable_;
  std::shared_ptr<Shared> shared_;  // channel and stub, kept by calls too

  mutable absl::Mutex mu_;
  AddStream* stream_ ABSL_GUARDED_BY(mu_) = nullptr;  // the one taking adds
  int live_streams_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<grpc::ClientContext*> live_calls_ ABSL_GUARDED_BY(mu_);
  // Unary callbacks past live_calls_ that have not finished yet.
  int unary_finishing_ ABSL_GUARDED_BY(mu_) = 0;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;

  // Own synchronisation.
  std::atomic<int64_t> adds_in_flight_{0};
  std::atomic<bool> unreachable_{false};  // reported; no answer since
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_BOOKIE_CLIENT_H_
