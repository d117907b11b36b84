// The iterator of LedgerReader::Read(first, last) (read_handle.h): entries
// in order, with up to a window of reads in flight ahead of the reader --
// readWindow entries, at most readWindowBytes of them at the mean entry
// size seen so far -- issued as streamed ranges (ReadHandle::
// ReadRangeAsync) of about half the window while that is possible, and
// entry by entry otherwise. A Read() that starts where the previous one
// of the same reader ended also streams ahead past its last entry (up to
// the LAC, within the window) and hands those reads to the next Read():
// a reader going through a ledger in batches keeps its pipeline full.
#ifndef BK_CLIENT_INTERNAL_RANGE_ITERATOR_H_
#define BK_CLIENT_INTERNAL_RANGE_ITERATOR_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "client/ledger_reader.h"

namespace bk::client::internal {

class ReadHandle;

// `initial`: a failure to report at the first Next() (a bad range, a
// range past the LAC); the iterator then reads nothing.
std::unique_ptr<EntryIterator> NewRangeIterator(
    std::shared_ptr<ReadHandle> handle, int64_t first, int64_t last,
    int max_window, int64_t window_bytes, absl::Status initial);

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_RANGE_ITERATOR_H_
