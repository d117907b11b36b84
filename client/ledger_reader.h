// LedgerReader: reads a ledger's entries back.
//
// A reader opened without recovery sees the ledger as its writer left it:
// it may read up to the last add confirmed (LAC) it knows, which it learns
// from the bookies (ReadLac, WaitForLac) unless the ledger is closed. It
// follows the ledger's metadata while the writer goes on (a watch, and a
// re-read when a confirmed entry is on none of the bookies asked), so it
// reads from and asks the LAC of the ensemble the writer changed to, and
// sees the close. A reader opened with recovery sees a closed ledger.
//
// Every entry's digest is verified. A replica that serves a damaged entry
// (kDataLoss) or fails is skipped and the next replica of the entry's write
// set is asked; the order comes from the placement policy's read reordering
// (healthy first). A replica that has not answered after
// speculativeReadTimeout gets company: the next replica is asked too, and
// the first valid answer wins.
//
// Errors name the ledger, the entry and the bookies tried: kNotFound when
// every replica says the entry does not exist, kDataLoss when the only
// answers were damaged, kUnavailable when replicas could not be reached,
// kOutOfRange for reads past the known end.
//
// Threads: every method may be called from any thread; an EntryIterator is
// used by one thread at a time.
// Lifetime: iterators must be destroyed before their reader, readers before
// the Client that made them.

#ifndef BK_CLIENT_LEDGER_READER_H_
#define BK_CLIENT_LEDGER_READER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace bk::client {

namespace internal {
class ReadHandle;
}  // namespace internal

struct LedgerEntry {
  int64_t entry_id = -1;
  std::string payload;
};

// A range being read, entries delivered in order while later ones are
// fetched (a window of readahead, ClientOptions::read_window).
class EntryIterator {
 public:
  virtual ~EntryIterator() = default;
  // Waits for the next entry and returns true; false at the end of the
  // range or at the first error, which status() then holds. The wait is
  // bounded by the read timeouts of the entry's replicas.
  virtual bool Next(LedgerEntry* entry) = 0;
  virtual absl::Status status() const = 0;
};

// A tailing read (LedgerReader::Tail): the ledger's entries in order, each
// as soon as the ledger's LAC passes it. Used by one thread at a time.
class TailIterator {
 public:
  virtual ~TailIterator() = default;
  // The next entry, waiting up to `timeout` for it to be confirmed:
  // kDeadlineExceeded when none was (call again), kOutOfRange once the
  // ledger is closed and its last entry has been returned. Other errors are
  // a read's (see above); the next call tries again from the same entry.
  virtual absl::StatusOr<LedgerEntry> Next(absl::Duration timeout) = 0;
};

enum class LedgerState { kOpen, kInRecovery, kClosed };

class LedgerReader {
 public:
  explicit LedgerReader(std::shared_ptr<internal::ReadHandle> handle);
  ~LedgerReader();
  LedgerReader(const LedgerReader&) = delete;
  LedgerReader& operator=(const LedgerReader&) = delete;

  int64_t ledger_id() const;
  // The ledger's state in the newest metadata the reader has seen.
  LedgerState state() const;
  // For a closed ledger its last entry (-1: empty); otherwise the highest
  // LAC the reader has learnt.
  int64_t LastAddConfirmed() const;
  // Payload bytes of a closed ledger; -1 when open.
  int64_t Length() const;

  // Entries first..last inclusive. REQUIRES 0 <= first <= last. When last
  // is past LastAddConfirmed() the reader first asks the bookies (ReadLac);
  // still past it: the iterator fails with kOutOfRange.
  std::unique_ptr<EntryIterator> Read(int64_t first, int64_t last);
  // One entry.
  absl::StatusOr<LedgerEntry> ReadEntry(int64_t entry_id);

  // Asks the bookies of the last segment for the LAC (the highest LAC any
  // of them holds, once every write quorum has answered enough to be sure
  // no confirmed entry is missed) and remembers it.
  absl::StatusOr<int64_t> ReadLac();
  // Long poll: returns once a bookie knows a LAC above `previous`, or with
  // the current LAC after `timeout`.
  absl::StatusOr<int64_t> WaitForLac(
      int64_t previous, absl::Duration timeout = absl::Seconds(10));

  // Tails the ledger from entry `first` on (REQUIRES first >= 0). Behind the
  // LAC it reads ranges, as Read does. Caught up, with tailStreamEnabled,
  // the bookies push each entry once it is confirmed: one TailEntries
  // stream per write set, at the member that learns the LAC first, so a
  // busy tail costs a stream message per entry rather than a long poll.
  // A stream that ends, fails or falls silent while the LAC passes its
  // next entry is dropped: the tail long-polls (WaitForLac) and reads that
  // entry from the rest of its write set, then streams again.
  std::unique_ptr<TailIterator> Tail(int64_t first);

 private:
  std::shared_ptr<internal::ReadHandle> handle_;
};

}  // namespace bk::client

#endif  // BK_CLIENT_LEDGER_READER_H_
