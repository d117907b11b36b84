// LedgerWriter: the one writer of a ledger.
//
// Semantics. Append hands a payload to the writer and assigns it the next
// entry id. The entry goes to the write set of its segment's ensemble,
// bookies (e + i) mod E for i < WQ; it is *confirmed* once AQ of them have
// acknowledged it (synced to their journals) and every earlier entry is
// confirmed. Completions are delivered in entry-id order, one at a time, on
// the client's completion thread -- never on the caller's thread and never
// while the client holds a lock -- so a callback may call Append again
// (with the callback form; the future form never blocks there either).
// LastAddConfirmed() is the id of the last confirmed entry.
//
// Failures. A bookie that errors or does not answer within
// addEntryTimeoutSec is replaced (ensemble change recorded in the ledger's
// metadata by compare-and-set; unconfirmed entries are sent again to the
// replacement). No confirmed entry is lost, none is written twice under two
// ids. When the ledger is fenced by a recovering reader (EFENCED) or is found
// closed or in recovery in the metadata store, every pending and later add
// fails with kFailedPrecondition and the writer stops. Other unrecoverable
// errors (no bookie can replace a failed one and the ack quorum is broken;
// the metadata store refuses the change) fail pending adds with that status.
//
// Errors name the ledger, the entry and, where one is involved, the bookie.
//
// Threads: every method may be called from any thread concurrently. Append
// is safe to call from a completion callback.
//
// Lifetime: the writer may be destroyed at any time; pending adds then fail
// with kCancelled. Destroying it without Close() leaves the ledger OPEN in
// the metadata store, as a crashed writer would: a reader recovers it. The
// writer must be destroyed before the Client that made it.

#ifndef BK_CLIENT_LEDGER_WRITER_H_
#define BK_CLIENT_LEDGER_WRITER_H_

#include <cstdint>
#include <future>
#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bk::client {

namespace internal {
class WriteHandle;
}  // namespace internal

// Called once per Append with the entry id or the error.
using AddCallback = absl::AnyInvocable<void(absl::StatusOr<int64_t>)>;

class LedgerWriter {
 public:
  explicit LedgerWriter(std::shared_ptr<internal::WriteHandle> handle);
  ~LedgerWriter();
  LedgerWriter(const LedgerWriter&) = delete;
  LedgerWriter& operator=(const LedgerWriter&) = delete;

  int64_t ledger_id() const;

  // Appends `payload` (copied). `done` runs on the completion thread.
  // When maxPendingAddsBytes are pending, waits for room up to
  // ClientOptions::pending_adds_wait (not on the completion thread: there it
  // fails at once) and then completes with kResourceExhausted.
  void Append(absl::string_view payload, AddCallback done);
  // The same, as a future of the entry id.
  std::future<absl::StatusOr<int64_t>> Append(absl::string_view payload);
  // Appends `payload` without copying it: the writer keeps the string's
  // buffer and puts it on the wire as it is, shared by every replica's
  // request (and by resends after an ensemble change), until the last of
  // them is done with it. For a broker that builds each entry in a string
  // of its own.
  void Append(std::string&& payload, AddCallback done);
  std::future<absl::StatusOr<int64_t>> Append(std::string&& payload);
  // C strings are copied, as views (the overloads above would be ambiguous).
  void Append(const char* payload, AddCallback done) {
    Append(absl::string_view(payload), std::move(done));
  }
  std::future<absl::StatusOr<int64_t>> Append(const char* payload) {
    return Append(absl::string_view(payload));
  }

  // Waits for every pending add, then closes the ledger in the metadata
  // store (state CLOSED, last entry = LastAddConfirmed(), length). Later
  // Appends fail with kFailedPrecondition. Idempotent. Must not be called
  // from the completion thread (it waits for completions).
  absl::Status Close();

  // Id of the last confirmed entry; -1 before the first.
  int64_t LastAddConfirmed() const;
  // Payload bytes of the confirmed entries.
  int64_t Length() const;

 private:
  std::shared_ptr<internal::WriteHandle> handle_;
};

}  // namespace bk::client

#endif  // BK_CLIENT_LEDGER_WRITER_H_
