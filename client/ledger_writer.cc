#include "client/ledger_writer.h"

#include "client/internal/write_handle.h"

namespace bk::client {

LedgerWriter::LedgerWriter(std::shared_ptr<internal::WriteHandle> handle)
    : handle_(std::move(handle)) {}

LedgerWriter::~LedgerWriter() { handle_->Abandon(); }

int64_t LedgerWriter::ledger_id() const { return handle_->ledger_id(); }

void LedgerWriter::Append(absl::string_view payload, AddCallback done) {
  handle_->Append(payload, std::move(done));
}

std::future<absl::StatusOr<int64_t>> LedgerWriter::Append(
    absl::string_view payload) {
  auto promise = std::make_shared<std::promise<absl::StatusOr<int64_t>>>();
  auto future = promise->get_future();
  handle_->Append(payload, [promise](absl::StatusOr<int64_t> r) {
    promise->set_value(std::move(r));
  });
  return future;
}

void LedgerWriter::Append(std::string&& payload, AddCallback done) {
  handle_->Append(std::move(payload), std::move(done));
}

std::future<absl::StatusOr<int64_t>> LedgerWriter::Append(
    std::string&& payload) {
  auto promise = std::make_shared<std::promise<absl::StatusOr<int64_t>>>();
  auto future = promise->get_future();
  handle_->Append(std::move(payload), [promise](absl::StatusOr<int64_t> r) {
    promise->set_value(std::move(r));
  });
  return future;
}

absl::Status LedgerWriter::Close() { return handle_->Close(); }

int64_t LedgerWriter::LastAddConfirmed() const {
  return handle_->LastAddConfirmed();
}

int64_t LedgerWriter::Length() const { return handle_->Length(); }

}  // namespace bk::client
