// ReadHandle: the state behind a LedgerReader (semantics in
// client/ledger_reader.h): the ledger's metadata, kept current, and the
// highest LAC learnt so far.
//
// Metadata. A reader of a ledger still open follows it as the writer does:
// Start() watches the ledger, and each newer version (an ensemble change,
// recovery, the close) replaces the one held, so reads and LAC requests go
// to the ensemble that holds the entries. A read that every replica answers
// NotFound for an entry at or below the LAC re-reads the metadata once
// (the watch may not have delivered yet) and, if the entry's ensemble
// changed, reads again from the new one. The metadata never goes back to
// an older version; a deleted ledger keeps the last one seen.
//
// Thread-safe: mu_ guards the metadata and the LAC; reads run as ReadOps.
// Watch and refresh callbacks run on the store's callback thread.

#ifndef BK_CLIENT_INTERNAL_READ_HANDLE_H_
#define BK_CLIENT_INTERNAL_READ_HANDLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/bookie_client.h"
#include "client/internal/client_context.h"
#include "client/internal/read_op.h"
#include "client/ledger_reader.h"
#include "metadata/metadata_store.h"
#include "proto/metadata.pb.h"

namespace bk::client::internal {

struct RangeReadState;  // range_iterator.cc

// The entries of one ReadEntries/TailEntries message, digest verified, if
// it continues its stream at *next (each stride apart); advances *next past
// them. Sets *stopped at a message that does not (a status other than EOK,
// another entry) and at a damaged entry, keeping the entries before it.
// The payloads are moved out of the message.
std::vector<ReadResult> DecodeStreamMessage(proto::ReadEntryResponse&& m,
                                            entry::DigestType digest,
                                            uint64_t ledger, int64_t stride,
                                            const std::string& bookie,
                                            const char* what, int64_t* next,
                                            bool* stopped);

class ReadHandle : public std::enable_shared_from_this<ReadHandle> {
 public:
  // `ctx` must outlive the handle.
  ReadHandle(ClientContext* ctx, int64_t ledger_id,
             metadata::Versioned<proto::LedgerMetadata> metadata);
  ~ReadHandle();

  // Watches the ledger's metadata unless it is closed (then it never
  // changes). Call once, after construction.
  void Start();

  int64_t ledger_id() const { return ledger_id_; }
  LedgerState state() const;
  int64_t LastAddConfirmed() const;
  int64_t Length() const;

  std::unique_ptr<EntryIterator> Read(int64_t first, int64_t last);
  void ReadAsync(int64_t entry_id, ReadDone done);
  // Entries first..last streamed with ReadEntries, when batchReadEnabled
  // and the range lies in one segment. With E == WQ every bookie holds
  // every entry: one stream from the read order's first bookie. With
  // E > WQ no bookie holds the whole range, so it is read as E strided
  // streams (entries first + k, first + k + E, ...), each from the read
  // order's first bookie of that stride's write set: read-ahead over the
  // ensemble. `on_entries` gets each message's entries (a bookie packs
  // several in one), digest verified, in order within its stream; each
  // result carries the payload only (moved out of the message, `body`
  // left empty); `done(next, stride)` is called once per stream when it has
  // ended for whatever reason -- an entry the bookie lacks, a damaged one,
  // the bookie failing -- with the stream's first entry not delivered
  // (past `last` when all were) and its stride, and the caller reads the
  // rest (next, next + stride, ... <= last) entry by entry. Both run on
  // gRPC threads, streams concurrently. Returns false, calling neither,
  // when the range cannot be read so.
  bool RangeStreamable() const;  // batchReadEnabled
  using RangeDone = absl::AnyInvocable<void(int64_t next, int64_t stride)>;
  bool ReadRangeAsync(
      int64_t first, int64_t last,
      absl::AnyInvocable<void(std::vector<ReadResult>)> on_entries,
      RangeDone done);
  absl::StatusOr<int64_t> ReadLac();

  // Sequential read-ahead across Read() calls (range_iterator.cc). A range
  // iterator that ends with reads issued past its last entry leaves them
  // here: entries from `first` on, issued up to `next_issue` - 1, arrive
  // into `state` (the iterator's, type known to range_iterator.cc only).
  struct ReadAhead {
    std::shared_ptr<RangeReadState> state;
    int64_t first = -1;
    int64_t next_issue = -1;
  };
  struct ReadStart {
    bool sequential = false;  // `first` is where the last Read() ended
    std::optional<ReadAhead> read_ahead;  // left by it, starting at `first`
  };
  // Called by each new range iterator of first..last: whether it continues
  // the previous one, and that one's read-ahead if it starts at `first`
  // (any other read-ahead is dropped).
  ReadStart BeginRead(int64_t first, int64_t last);
  void LeaveReadAhead(ReadAhead ahead);
  // The mean size of the entries range iterators returned so far, 0 before
  // any (each iterator adds its entries when it goes): a later Read() of
  // an open ledger starts with the window it needs.
  int64_t MeanEntryBytesRead() const;
  void NoteEntriesRead(int64_t bytes, int64_t entries);
  // Long-polls for a LAC above `previous`, asking for entry previous + 1
  // in the same call, as BookKeeper's readLastAddConfirmedAndEntry does:
  // one bookie of that entry's write set (its last member, which learns
  // the LAC first, unless the client's view ranks it behind), then the
  // rest of the write set (the whole last ensemble when the entry is not
  // in the last segment) if that bookie fails or has not answered within
  // speculativeReadTimeout (added to `timeout` when longer than it). A bookie
  // that confirms the entry answers with it, and the next Read() of it takes it
  // (TakePiggybacked) instead of asking again.
  absl::StatusOr<int64_t> WaitForLac(int64_t previous, absl::Duration timeout);
  // The entry a long poll brought back, if it is `entry_id` (once).
  std::optional<ReadResult> TakePiggybacked(int64_t entry_id);

  // Tailing streams (TailEntries, read_handle_tail.cc) from entry `first`
  // on, in the last segment: one per write set (E when E > WQ, else one),
  // each at the member that learns the LAC first (the write set's last)
  // unless the client's view ranks another ahead. `on_entries(k, batch,
  // lac)` gets stream k's messages, digest verified, in order within the
  // stream, with the bookie's LAC; `done(k)` runs once when stream k has
  // ended, whatever the reason. Both run on gRPC threads, streams
  // concurrently. Returns the streams' cancellers, or nothing (calling
  // neither) when the ledger is closed, `first` is before the last segment,
  // or a bookie has no connection.
  struct TailStreams {
    std::vector<std::shared_ptr<BookieClient::StreamCanceller>> cancellers;
    int64_t stride = 1;
  };
  std::optional<TailStreams> TailAsync(
      int64_t first,
      absl::AnyInvocable<void(int, std::vector<ReadResult>, int64_t)>
          on_entries,
      absl::AnyInvocable<void(int)> done);

  // Raises the LAC held to `lac` (a bookie's, or a stream's) unless the
  // ledger is closed.
  void LearnLac(int64_t lac);

  ClientContext* ctx() const { return ctx_; }

 private:
  ReadOpOptions OptionsFor(int64_t entry_id) const;
  // Takes `md` if it is newer than the metadata held.
  void Adopt(const metadata::Versioned<proto::LedgerMetadata>& md);
  void AdoptLocked(const metadata::Versioned<proto::LedgerMetadata>& md)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After a NotFound read of `entry_id` from `ensemble`: re-reads the
  // metadata and reads again if the entry's ensemble changed, else
  // answers `result`.
  void RetryWithFreshMetadata(int64_t entry_id,
                              std::vector<std::string> ensemble,
                              absl::StatusOr<ReadResult> result, ReadDone done);

  // Constant after construction.
  ClientContext* const ctx_;
  const int64_t ledger_id_;

  mutable absl::Mutex mu_;
  proto::LedgerMetadata metadata_ ABSL_GUARDED_BY(mu_);
  metadata::Version version_ ABSL_GUARDED_BY(mu_);
  int64_t lac_ ABSL_GUARDED_BY(mu_) = -1;

  std::unique_ptr<metadata::Subscription> watch_;  // set once in Start

  int64_t read_end_ ABSL_GUARDED_BY(mu_) = -1;  // last + 1 of the last Read()
  std::optional<ReadAhead> read_ahead_ ABSL_GUARDED_BY(mu_);
  // The confirmed entry the last long poll answered with, digest verified.
  std::optional<ReadResult> piggybacked_ ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> read_bytes_{0};
  std::atomic<int64_t> read_entries_{0};
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_READ_HANDLE_H_
