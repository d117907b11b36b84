// WriteHandle: the state machine behind a LedgerWriter (semantics in
// client/ledger_writer.h).
//
// Pending adds sit in `pending_`, in entry order, from Append until they are
// confirmed; all of them belong to the current (last) segment, because a
// new segment starts at LAC + 1 and the LAC only grows. An entry's
// acknowledgements are a bit set of ensemble slots; an answer counts only if
// the slot still holds the bookie that answered.
//
// Ensemble change: a failed slot is recorded in `failed_`; one change runs
// at a time on the client's worker thread. While it runs, confirmations are
// held back (as BookKeeper does), so the LAC -- and with it the new
// segment's first entry, LAC + 1 -- cannot move under it. Once the metadata
// is written, the replaced slots' acknowledgements of pending entries are
// cleared and those entries are sent to the replacements. When no bookie
// can replace a failed one but every write quorum still has AQ live slots,
// the writer goes on without it ("degraded") and retries the change on
// later ticks.
//
// Threads: Append and Close on callers' threads; answers on gRPC threads;
// ensemble changes on the worker; timeouts on the timer. All state is under
// mu_; user callbacks are queued in entry order under mu_ (outbox_) and
// posted to the completion executor, one drainer at a time, after mu_ is
// released.

#ifndef BK_CLIENT_INTERNAL_WRITE_HANDLE_H_
#define BK_CLIENT_INTERNAL_WRITE_HANDLE_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/internal/add_wire.h"
#include "client/internal/bookie_client.h"
#include "client/internal/client_context.h"
#include "client/internal/entry_slab.h"
#include "client/ledger_writer.h"
#include "metadata/metadata_store.h"
#include "placement/types.h"
#include "proto/entry_format.h"
#include "proto/metadata.pb.h"

namespace bk::client::internal {

class WriteHandle final : public std::enable_shared_from_this<WriteHandle>,
                          public AddSink {
 public:
  // `ctx` must outlive the handle. `expected_write_bytes_per_second` is the
  // creator's rate hint (< 0: none), passed on to replacements until the
  // ledger has written long enough for its own rate to be measured.
  WriteHandle(ClientContext* ctx, int64_t ledger_id,
              metadata::Versioned<proto::LedgerMetadata> metadata,
              std::string master_key,
              double expected_write_bytes_per_second = -1);
  ~WriteHandle();

  // Starts the metadata watch. Call once, right after construction.
  void Start();

  int64_t ledger_id() const { return ledger_id_; }
  void Append(absl::string_view payload, AddCallback done);
  void Append(std::string&& payload, AddCallback done);
  absl::Status Close();
  // Fails pending adds with kCancelled; the ledger stays as it is.
  void Abandon();
  int64_t LastAddConfirmed() const;
  int64_t Length() const;

  // From the maintenance tick: adds unanswered past addEntryTimeoutSec
  // fail their bookies (confirmed ones too, at AQ < WQ), as does the last
  // bookie of a write set the rest of which answered addEntryLagTimeoutMs ago;
  // a degraded ensemble retries its change.
  void CheckTimeouts(absl::Time now);

 private:
  enum class State { kOpen, kClosing, kClosed, kFailed };

  struct Pending {
    int64_t entry_id = 0;
    EntryBytes body;  // packaged; shared by every replica's request
    int64_t payload_bytes = 0;
    int64_t bytes = 0;   // packaged
    uint64_t acked = 0;  // bit per slot
    absl::Time appended;
    absl::Time sent;  // last (re)send
    // When all of the write set but one had answered (addEntryLagTimeoutMs
    // runs from here); InfiniteFuture while two or more have not.
    absl::Time lagging_since = absl::InfiniteFuture();
    AddCallback done;
  };
  struct Send {
    int slot;
    std::string bookie;
    int64_t entry_id;
    EntryBytes body;
  };
  // An entry goes to at most write_quorum bookies: no heap for the usual
  // three.
  using Sends = absl::InlinedVector<Send, 3>;
  struct Completion {
    AddCallback done;
    absl::StatusOr<int64_t> result;
  };

  // Append's work once the payload's size is known; `package` makes the
  // packaged entry from its header (called under mu_, once, if accepted).
  template <typename Packager>
  void AppendWith(size_t payload_size, Packager&& package, AddCallback done);
  void SendLocked(const Pending& p, Sends* out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Transmit(const Sends& sends);
  // The bookie's answers to adds this handle sent (AddSink): one lock and
  // one completion pass per message from the bookie.
  void OnAddAnswers(const std::string& bookie,
                    absl::Span<const AddAnswer> answers) override;
  void CompleteLocked(std::vector<Completion>* out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FailLocked(const absl::Status& status, std::vector<Completion>* out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Records a failed slot; starts an ensemble change unless one runs.
  void SlotFailedLocked(int slot, const std::string& bookie)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands decided completions to the completion executor; first, once the
  // writer has failed, reports the stop (ReportStopped).
  void DrainCompletions() ABSL_LOCKS_EXCLUDED(mu_);
  // The ledger's bookies take no more of its adds, closed or not: its slots
  // come off this client's placement estimates and other clients hear of it
  // through the placement feed, as for a close. At most once per writer;
  // false if it was reported already. A writer that failed (fenced,
  // deleted, broken, destroyed) would otherwise count on its bookies until
  // reports caught up, and in other clients' views for an announcement's
  // life.
  bool TakeStopLocked(std::vector<std::string>* ensemble,
                      placement::LedgerHints* hints)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReportStopped(const std::vector<std::string>& ensemble,
                     const placement::LedgerHints& hints)
      ABSL_LOCKS_EXCLUDED(mu_);
  void RunEnsembleChange();
  // One round: replaces the slots of `failed`. Returns the new ensemble
  // and metadata version, or an error (FailedPrecondition: the ledger is no
  // longer ours; NotEnoughBookies: nobody to replace).
  absl::Status ChangeEnsemble(const std::map<int, std::string>& failed,
                              std::vector<std::string>* new_ensemble);
  void OnMetadataChange(
      absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>> md);
  bool RoomLocked(int64_t bytes) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  ClientContext* const ctx_;
  const int64_t ledger_id_;
  const std::string master_key_;
  const entry::DigestType digest_;
  const int ensemble_size_;
  const int write_quorum_;
  const int ack_quorum_;
  const double expected_write_bytes_per_second_;
  // AQ == WQ >= 2 and addEntryLagTimeoutMs > 0: one silent bookie holds
  // up the ledger's adds, and is failed once it lags the rest by that.
  const bool watch_lag_;
  const absl::Time created_;

  mutable absl::Mutex mu_;
  State state_ ABSL_GUARDED_BY(mu_) = State::kOpen;
  absl::Status failure_ ABSL_GUARDED_BY(mu_);
  proto::LedgerMetadata metadata_ ABSL_GUARDED_BY(mu_);
  metadata::Version version_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> ensemble_ ABSL_GUARDED_BY(mu_);
  std::deque<Pending> pending_ ABSL_GUARDED_BY(mu_);
  // Completions decided but not yet handed to the completion executor, in
  // the order they were decided; see DrainCompletions.
  std::vector<Completion> outbox_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  int64_t next_entry_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t lac_ ABSL_GUARDED_BY(mu_) = -1;
  int64_t length_ ABSL_GUARDED_BY(mu_) = 0;           // confirmed payload
  int64_t assigned_length_ ABSL_GUARDED_BY(mu_) = 0;  // through next_entry_-1
  int64_t pending_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // Where this writer's packaged entries are carved from.
  EntrySlab slab_ ABSL_GUARDED_BY(mu_);
  // Slots whose bookie failed and await replacement (slot -> bookie).
  std::map<int, std::string> failed_ ABSL_GUARDED_BY(mu_);
  // Slots left without a live bookie (no replacement found).
  std::vector<bool> dead_ ABSL_GUARDED_BY(mu_);
  // AQ < WQ: per slot, the entries confirmed by the ack quorum before that
  // slot's bookie answered them (entry id, sent), oldest first, at most
  // kMaxUnanswered. A bookie silent past addEntryTimeoutSec is failed
  // from here even though it holds no confirmation up: otherwise it would
  // keep the ledger's new entries one replica short for good.
  static constexpr size_t kMaxUnanswered = size_t{1} << 16;
  std::vector<std::deque<std::pair<int64_t, absl::Time>>> unanswered_
      ABSL_GUARDED_BY(mu_);
  bool changing_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_reported_ ABSL_GUARDED_BY(mu_) = false;  // TakeStopLocked
  absl::Time next_retry_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  int64_t completions_in_queue_ ABSL_GUARDED_BY(mu_) = 0;

  // The hints a replacement passes to the placement policy: the ledger's
  // custom metadata and its rate, measured once it has written for a while.
  placement::LedgerHints HintsLocked(absl::Time now) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::unique_ptr<metadata::Subscription> watch_;  // set once in Start
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_WRITE_HANDLE_H_
