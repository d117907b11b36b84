#include "client/ledger_reader.h"

#include <algorithm>
#include <future>

#include "client/internal/read_handle.h"
#include "client/internal/tail_iterator.h"

namespace bk::client {

LedgerReader::LedgerReader(std::shared_ptr<internal::ReadHandle> handle)
    : handle_(std::move(handle)) {}

LedgerReader::~LedgerReader() = default;

int64_t LedgerReader::ledger_id() const { return handle_->ledger_id(); }
LedgerState LedgerReader::state() const { return handle_->state(); }
int64_t LedgerReader::LastAddConfirmed() const {
  return handle_->LastAddConfirmed();
}
int64_t LedgerReader::Length() const { return handle_->Length(); }

std::unique_ptr<EntryIterator> LedgerReader::Read(int64_t first, int64_t last) {
  return handle_->Read(first, last);
}

absl::StatusOr<LedgerEntry> LedgerReader::ReadEntry(int64_t entry_id) {
  auto it = handle_->Read(entry_id, entry_id);
  LedgerEntry e;
  if (!it->Next(&e)) return it->status();
  return e;
}

absl::StatusOr<int64_t> LedgerReader::ReadLac() { return handle_->ReadLac(); }

absl::StatusOr<int64_t> LedgerReader::WaitForLac(int64_t previous,
                                                 absl::Duration timeout) {
  return handle_->WaitForLac(previous, timeout);
}

std::unique_ptr<TailIterator> LedgerReader::Tail(int64_t first) {
  return std::make_unique<internal::TailIteratorImpl>(
      handle_, std::max<int64_t>(first, 0));
}

}  // namespace bk::client
