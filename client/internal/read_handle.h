// ReadHandle: the state behind a LedgerReader (semantics in
// client/ledger_reader.h): the ledger's metadata as opened, and the highest
// LAC learnt so far.
//
// Thread-safe: mu_ guards the metadata and the LAC; reads run as ReadOps.

#ifndef BK_CLIENT_INTERNAL_READ_HANDLE_H_
#define BK_CLIENT_INTERNAL_READ_HANDLE_H_

#include <cstdint>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "client/internal/client_context.h"
#include "client/internal/read_op.h"
#include "client/ledger_reader.h"
#include "metadata/metadata_store.h"
#include "proto/metadata.pb.h"

namespace bk::client::internal {

class ReadHandle : public std::enable_shared_from_this<ReadHandle> {
 public:
  // `ctx` must outlive the handle.
  ReadHandle(ClientContext* ctx, int64_t ledger_id,
             metadata::Versioned<proto::LedgerMetadata> metadata);

  int64_t ledger_id() const { return ledger_id_; }
  LedgerState state() const;
  int64_t LastAddConfirmed() const;
  int64_t Length() const;

  std::unique_ptr<EntryIterator> Read(int64_t first, int64_t last);
  void ReadAsync(int64_t entry_id, ReadDone done);
  absl::StatusOr<int64_t> ReadLac();
  absl::StatusOr<int64_t> WaitForLac(int64_t previous, absl::Duration timeout);

  ClientContext* ctx() const { return ctx_; }

 private:
  ReadOpOptions OptionsFor(int64_t entry_id) const;
  void LearnLac(int64_t lac);

  // Constant after construction.
  ClientContext* const ctx_;
  const int64_t ledger_id_;

  mutable absl::Mutex mu_;
  proto::LedgerMetadata metadata_ ABSL_GUARDED_BY(mu_);
  int64_t lac_ ABSL_GUARDED_BY(mu_) = -1;
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_READ_HANDLE_H_
