// The AddEntries stream: batches in, answers out as journal groups sync.
// Registered raw (bytes both ways) so that an undecodable message is told
// from the client's half-close: it ends the stream with INVALID_ARGUMENT.

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "bookie/service/bookie_service.h"
#include "bookie/storage/entry_arena.h"
#include "proto/entry_format.h"
#include "proto/status_codes.h"

namespace bk::bookie {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// Lifecycle: created by gRPC per stream; reads one batch at a time and hands
// each entry to the store; answers accumulate in `outgoing_` and go out one
// write at a time. Every entry read counts in `in_progress_` until the write
// carrying its answer completes; at the service's per-stream limit the
// stream stops reading (`read_paused_`) and the write that brings it down
// to half the limit reads again, so answers the client does not take
// cannot pile up. Finish is called once the client has half-closed (or the
// stream is cancelled), no read is in flight (a cancel does not wait for
// one; a read's reaction holds the stream open from its first step, see
// OnReadDone), every add handed to the store has called back, the answers
// are written (or writing failed), and no thread is between
// releasing mu_ and its last use of the reactor (`busy_`). gRPC then calls
// OnDone, which deletes the reactor. Whoever finishes calls Finish as its
// very last use of `this`.
class AddStreamReactor final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  explicit AddStreamReactor(BookieServiceImpl* service)
      : service_(service), arena_(service->options().entry_blocks) {
    service_->AddStreamOpen(true);
    {
      absl::MutexLock l(&mu_);
      read_in_flight_ = true;
    }
    StartRead(&request_bytes_);
  }

  void OnReadDone(bool ok) override {
    bool cancelled;
    {
      // In the same step as the read stops counting: from here until its
      // Release this thread holds the stream open (busy_). Taking it any
      // later lets a cancel, and the write of the last answers, finish the
      // stream while this read's batch is parsed, and the batch then reaches
      // the store with a deleted reactor to call back.
      absl::MutexLock l(&mu_);
      read_in_flight_ = false;
      ++busy_;
      cancelled = reads_done_;
    }
    if (!ok || cancelled) {
      // The client half-closed or went away, or the stream was cancelled
      // while this read was in flight (gRPC may run OnCancel before the
      // read's reaction): nobody takes the answers to a batch now.
      {
        absl::MutexLock l(&mu_);
        reads_done_ = true;
      }
      Release();
      return;
    }
    message_bytes_ = request_bytes_.Length();
    grpc::Status parsed =
        grpc::SerializationTraits<proto::AddRequest>::Deserialize(
            &request_bytes_, &request_);
    if (!parsed.ok()) {
      // Undecodable or cut short: no more reads; the stream ends with an
      // error once what was handed out is answered.
      {
        absl::MutexLock l(&mu_);
        reads_done_ = true;
        final_status_ = grpc::Status(
            grpc::StatusCode::INVALID_ARGUMENT,
            "undecodable AddRequest message: " + parsed.error_message());
      }
      if (auto* p = service_->probe()) p->Rejected(proto::BK_EBADREQ);
      Release();
      return;
    }
    HandleBatch();
    request_.Clear();
    bool read = true;
    {
      absl::MutexLock l(&mu_);
      if (in_progress_ >= service_->options().max_adds_in_progress_per_stream &&
          !write_failed_) {
        read = false;
        read_paused_ = true;
        service_->AddStreamPaused(true);
      } else if (reads_done_) {
        read = false;  // cancelled while the batch was handed out
      }
      read_in_flight_ = read;
    }
    if (read) StartRead(&request_bytes_);
    Release();
  }

  void OnWriteDone(bool ok) override {
    bool start = false;
    bool resume = false;
    {
      absl::MutexLock l(&mu_);
      write_in_flight_ = false;
      if (!ok) write_failed_ = true;
      in_progress_ -= writing_.results_size();
      start = TakeOutgoingLocked();
      // A failed write ends the stream: read on so that the read fails and
      // the stream can finish.
      if (read_paused_ && !reads_done_ &&
          (write_failed_ ||
           in_progress_ <=
               service_->options().max_adds_in_progress_per_stream / 2)) {
        read_paused_ = false;
        resume = true;
        read_in_flight_ = true;
        service_->AddStreamPaused(false);
      }
      ++busy_;
    }
    if (start) WriteAnswers();
    // No read is in flight while paused: request_bytes_ is free.
    if (resume) StartRead(&request_bytes_);
    Release();
  }

  void OnCancel() override {
    {
      absl::MutexLock l(&mu_);
      reads_done_ = true;
      if (read_paused_) {
        read_paused_ = false;
        service_->AddStreamPaused(false);
      }
      ++busy_;
    }
    Release();
  }

  void OnDone() override {
    service_->AddStreamOpen(false);
    delete this;
  }

 private:
  void HandleBatch() {
    const size_t entries = request_.entries_size();
    size_t bytes = 0;
    for (const auto& e : request_.entries()) bytes += e.body().size();
    if (auto* p = service_->probe()) p->AddBatchReceived(entries, bytes);
    {
      // Before any answer to the batch can be written (which decrements).
      absl::MutexLock l(&mu_);
      in_progress_ += static_cast<int64_t>(entries);
    }
    if (message_bytes_ > service_->options().max_message_bytes) {
      for (const auto& e : request_.entries()) {
        Reject(e.ledger_id(), e.entry_id(), proto::BK_EBADREQ);
      }
      return;
    }
    // One clock read, one store call and one answer per batch; the store
    // journals the batch's records in one hand-off.
    const auto start = std::chrono::steady_clock::now();
    adds_.clear();
    for (auto& e : *request_.mutable_entries()) {
      if (!service_->add_permits().TryAcquire()) {
        Reject(e.ledger_id(), e.entry_id(), proto::BK_ETOOMANYREQUESTS);
        continue;
      }
      AddEntryRequest& add = adds_.emplace_back();
      add.args.ledger_id = e.ledger_id();
      add.args.entry_id = e.entry_id();
      add.args.master_key = std::move(*e.mutable_master_key());
      add.args.recovery = (e.flags() & proto::RECOVERY_ADD) != 0;
      // One copy, while hot, into the stream's arena; the request keeps
      // its string for the next message (entry_arena.h says why).
      add.body = arena_.Copy(e.body());
    }
    if (adds_.empty()) return;
    {
      // Before the callback can run (it decrements it).
      absl::MutexLock l(&mu_);
      pending_ += static_cast<int64_t>(adds_.size());
    }
    service_->store()->AddEntries(
        absl::MakeSpan(adds_), [this, start](absl::Span<const AddOutcome> out) {
          AnswerBatch(out, SecondsSince(start));
        });
    adds_.clear();
  }

  // The store's answer for a batch handed to it: all its results in one
  // go (one lock, at most one write started).
  void AnswerBatch(absl::Span<const AddOutcome> out, double seconds) {
    ServiceProbe* probe = service_->probe();
    for (const AddOutcome& o : out) {
      service_->add_permits().Release();
      const proto::StatusCode code = ToWire(o.status);
      if (code == proto::BK_EOK) service_->RecordAddLatency(seconds);
      if (probe != nullptr) probe->AddDone(seconds, code);
    }
    bool start = false;
    {
      absl::MutexLock l(&mu_);
      if (!write_failed_) {
        for (const AddOutcome& o : out) {
          auto* r = outgoing_.add_results();
          r->set_ledger_id(o.ledger_id);
          r->set_entry_id(o.entry_id);
          r->set_status(ToWire(o.status));
        }
      }
      pending_ -= static_cast<int64_t>(out.size());
      start = TakeOutgoingLocked();
      ++busy_;  // this thread uses the reactor after unlocking
    }
    if (start) WriteAnswers();
    Release();
  }

  void Reject(uint64_t ledger, int64_t entry, proto::StatusCode code) {
    if (auto* p = service_->probe()) p->Rejected(code);
    Answer(ledger, entry, code);
  }

  // Answers one add that never reached the store.
  void Answer(uint64_t ledger, int64_t entry, proto::StatusCode code) {
    bool start = false;
    {
      absl::MutexLock l(&mu_);
      if (!write_failed_) {
        auto* r = outgoing_.add_results();
        r->set_ledger_id(ledger);
        r->set_entry_id(entry);
        r->set_status(code);
      }
      start = TakeOutgoingLocked();
      ++busy_;  // this thread uses the reactor after unlocking
    }
    if (start) WriteAnswers();
    Release();
  }

  // Serializes the answers taken into writing_ and starts their write.
  // REQUIRES: TakeOutgoingLocked returned true (writing_ is ours).
  void WriteAnswers() {
    bool own_buffer;
    writing_bytes_.Clear();  // the writer wants an empty buffer
    grpc::SerializationTraits<proto::AddResponse>::Serialize(
        writing_, &writing_bytes_, &own_buffer)
        .IgnoreError();  // an AddResponse always serializes
    StartWrite(&writing_bytes_);
  }

  // Ends this thread's use of the reactor (see busy_); finishes the stream
  // if nothing else is left. REQUIRES: the caller incremented busy_.
  void Release() {
    grpc::Status status;
    {
      absl::MutexLock l(&mu_);
      --busy_;
      if (finished_ || busy_ > 0 || !reads_done_ || read_in_flight_ ||
          pending_ > 0 || write_in_flight_) {
        return;
      }
      if (!write_failed_ && outgoing_.results_size() > 0) return;
      finished_ = true;
      status = final_status_;
    }
    Finish(status);  // the last use of `this` on this thread
  }

  // Moves accumulated answers into `writing_` if no write is in flight.
  // Returns true when the caller must StartWrite (outside the lock).
  bool TakeOutgoingLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (write_in_flight_ || write_failed_ || outgoing_.results_size() == 0) {
      return false;
    }
    writing_.Clear();
    writing_.Swap(&outgoing_);
    write_in_flight_ = true;
    return true;
  }

  BookieServiceImpl* const service_;
  grpc::ByteBuffer request_bytes_;     // owned by the read in flight
  size_t message_bytes_ = 0;           // of the message read last
  proto::AddRequest request_;          // owned by the read in flight
  std::vector<AddEntryRequest> adds_;  // owned by the read in flight
  EntryArena arena_;                   // owned by the read in flight
  proto::AddResponse writing_;         // owned by the write in flight
  grpc::ByteBuffer writing_bytes_;     // writing_, serialized

  absl::Mutex mu_;
  proto::AddResponse outgoing_ ABSL_GUARDED_BY(mu_);
  int64_t pending_ ABSL_GUARDED_BY(mu_) = 0;
  // Entries read whose answer is not yet written (in the store, queued in
  // outgoing_ or in the write in flight).
  int64_t in_progress_ ABSL_GUARDED_BY(mu_) = 0;
  // No read is in flight because in_progress_ reached the limit.
  bool read_paused_ ABSL_GUARDED_BY(mu_) = false;
  // Threads that released mu_ but will still use the reactor (StartWrite,
  // Finish); the stream is never finished while one is.
  int busy_ ABSL_GUARDED_BY(mu_) = 0;
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;
  // A read was started and its OnReadDone has not run yet. The stream is
  // finished after that reaction, never beside it.
  bool read_in_flight_ ABSL_GUARDED_BY(mu_) = false;
  bool write_in_flight_ ABSL_GUARDED_BY(mu_) = false;
  bool write_failed_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status final_status_ ABSL_GUARDED_BY(mu_);  // OK unless undecodable
};

}  // namespace

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
BookieServiceImpl::AddEntries(grpc::CallbackServerContext* /*ctx*/) {
  return new AddStreamReactor(this);
}

}  // namespace bk::bookie
