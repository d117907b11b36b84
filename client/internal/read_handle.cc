#include "client/internal/read_handle.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "client/internal/errors.h"
#include "client/internal/quorum.h"
#include "client/internal/range_iterator.h"
#include "common/logging.h"
#include "proto/status_codes.h"

namespace bk::client::internal {

ReadHandle::ReadHandle(ClientContext* ctx, int64_t ledger_id,
                       metadata::Versioned<proto::LedgerMetadata> metadata)
    : ctx_(ctx),
      ledger_id_(ledger_id),
      metadata_(std::move(metadata.value)),
      version_(metadata.version) {
  if (metadata_.state() == proto::CLOSED) {
    lac_ = metadata_.last_entry_id();
  } else {
    // Entries before the last segment were confirmed when it began.
    lac_ =
        metadata_.segments(metadata_.segments_size() - 1).first_entry_id() - 1;
  }
}

ReadHandle::~ReadHandle() = default;

void ReadHandle::Start() {
  {
    absl::MutexLock l(&mu_);
    if (metadata_.state() == proto::CLOSED) return;
  }
  std::weak_ptr<ReadHandle> weak = weak_from_this();
  watch_ = ctx_->store()->WatchLedger(
      ledger_id_,
      [weak](absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>> md) {
        auto self = weak.lock();
        if (self != nullptr && md.ok()) self->Adopt(*md);
      });
}

void ReadHandle::Adopt(const metadata::Versioned<proto::LedgerMetadata>& md) {
  absl::MutexLock l(&mu_);
  AdoptLocked(md);
}

void ReadHandle::AdoptLocked(
    const metadata::Versioned<proto::LedgerMetadata>& md) {
  if (md.version <= version_ || md.value.segments_size() == 0) return;
  metadata_ = md.value;
  version_ = md.version;
  if (metadata_.state() == proto::CLOSED) {
    lac_ = metadata_.last_entry_id();
  } else {
    lac_ = std::max(
        lac_,
        metadata_.segments(metadata_.segments_size() - 1).first_entry_id() - 1);
  }
}

LedgerState ReadHandle::state() const {
  absl::MutexLock l(&mu_);
  switch (metadata_.state()) {
    case proto::CLOSED:
      return LedgerState::kClosed;
    case proto::IN_RECOVERY:
      return LedgerState::kInRecovery;
    default:
      return LedgerState::kOpen;
  }
}

int64_t ReadHandle::LastAddConfirmed() const {
  absl::MutexLock l(&mu_);
  return lac_;
}

int64_t ReadHandle::Length() const {
  absl::MutexLock l(&mu_);
  return metadata_.state() == proto::CLOSED ? metadata_.length() : -1;
}

void ReadHandle::LearnLac(int64_t lac) {
  absl::MutexLock l(&mu_);
  if (metadata_.state() != proto::CLOSED) lac_ = std::max(lac_, lac);
}

ReadOpOptions ReadHandle::OptionsFor(int64_t entry_id) const {
  absl::MutexLock l(&mu_);
  ReadOpOptions o;
  o.ledger_id = static_cast<uint64_t>(ledger_id_);
  o.entry_id = entry_id;
  o.digest = static_cast<entry::DigestType>(metadata_.digest_type());
  o.ensemble = Bookies(SegmentFor(metadata_, entry_id));
  o.write_quorum = metadata_.write_quorum_size();
  return o;
}

void ReadHandle::ReadAsync(int64_t entry_id, ReadDone done) {
  ReadOpOptions o = OptionsFor(entry_id);
  std::vector<std::string> ensemble = o.ensemble;
  std::weak_ptr<ReadHandle> weak = weak_from_this();
  StartRead(ctx_, std::move(o),
            [weak, entry_id, ensemble = std::move(ensemble),
             done = std::move(done)](absl::StatusOr<ReadResult> r) mutable {
              auto self = weak.lock();
              if (r.ok() || !absl::IsNotFound(r.status()) || self == nullptr ||
                  entry_id > self->LastAddConfirmed()) {
                done(std::move(r));
                return;
              }
              // Confirmed, yet on none of the replicas asked: the writer
              // may have changed the ensemble since our metadata.
              self->RetryWithFreshMetadata(entry_id, std::move(ensemble),
                                           std::move(r), std::move(done));
            });
}

bool ReadHandle::RangeStreamable() const {
  return ctx_->options().batch_read_enabled;
}

std::vector<ReadResult> DecodeStreamMessage(proto::ReadEntryResponse&& m,
                                            entry::DigestType digest,
                                            uint64_t ledger, int64_t stride,
                                            const std::string& bookie,
                                            const char* what, int64_t* next,
                                            bool* stopped) {
  std::vector<ReadResult> batch;
  if (m.status() != proto::BK_EOK || m.entry_id() != *next) {
    *stopped = true;
    return batch;
  }
  // The message's entries: body, then more_bodies (a bookie that packs
  // several), each the stream's next.
  const int n = 1 + m.more_bodies_size();
  batch.reserve(n);
  for (int i = 0; i < n; ++i) {
    std::string* body =
        i == 0 ? m.mutable_body() : m.mutable_more_bodies(i - 1);
    auto d = entry::Decode(*body, digest, ledger, *next);
    if (!d.ok()) {
      bk::log::Get("client")->warn("ledger={} entry={} bookie={} {}: {}",
                                   ledger, *next, bookie, what,
                                   d.status().ToString());
      *stopped = true;  // read again, from another replica
      break;
    }
    ReadResult& r = batch.emplace_back();
    r.entry_id = *next;
    r.header = d->header;
    // The payload is the body's tail: keep the message's buffer and drop
    // the header and digest in front, rather than copy.
    const size_t offset = static_cast<size_t>(d->payload.data() - body->data());
    const size_t size = d->payload.size();
    r.payload = std::move(*body);
    r.payload.erase(0, offset);
    r.payload.resize(size);
    *next += stride;
  }
  return batch;
}

bool ReadHandle::ReadRangeAsync(
    int64_t first, int64_t last,
    absl::AnyInvocable<void(std::vector<ReadResult>)> on_entries,
    RangeDone done) {
  if (!ctx_->options().batch_read_enabled || last < first) return false;
  std::vector<std::string> ensemble;
  int write_quorum;
  entry::DigestType digest;
  {
    absl::MutexLock l(&mu_);
    int i = metadata_.segments_size() - 1;
    while (i > 0 && metadata_.segments(i).first_entry_id() > first) --i;
    if (i + 1 < metadata_.segments_size() &&
        metadata_.segments(i + 1).first_entry_id() <= last) {
      return false;  // spans two segments
    }
    ensemble = Bookies(metadata_.segments(i));
    write_quorum = metadata_.write_quorum_size();
    digest = static_cast<entry::DigestType>(metadata_.digest_type());
  }
  const int e = static_cast<int>(ensemble.size());
  if (e == 0 || write_quorum <= 0) return false;
  // One stream when every bookie holds every entry; else one per stride.
  const int64_t stride = write_quorum >= e ? 1 : e;
  const int64_t streams = std::min<int64_t>(stride, last - first + 1);
  std::vector<std::shared_ptr<BookieClient>> clients;
  std::vector<std::string> names;
  for (int64_t k = 0; k < streams; ++k) {
    const std::vector<int> order = ctx_->cluster()->ReadOrder(
        ensemble, WriteSet(first + k, e, write_quorum));
    if (order.empty()) return false;
    names.push_back(ensemble[order.front()]);
    clients.push_back(ctx_->pool()->Get(names.back()));
    if (clients.back() == nullptr) return false;
  }
  // Shared by the streams; each stream's messages come one at a time, so
  // a stream's `next` needs no lock, and on_entries/done are the caller's
  // to make safe across streams.
  struct Shared {
    absl::AnyInvocable<void(std::vector<ReadResult>)> on_entries;
    RangeDone done;
  };
  auto shared = std::make_shared<Shared>();
  shared->on_entries = std::move(on_entries);
  shared->done = std::move(done);
  const uint64_t ledger = static_cast<uint64_t>(ledger_id_);
  for (int64_t k = 0; k < streams; ++k) {
    struct Range {
      int64_t next;
      bool stopped = false;
    };
    auto range = std::make_shared<Range>();
    range->next = first + k;
    proto::ReadEntriesRequest request;
    request.set_ledger_id(ledger);
    request.set_first_entry_id(first + k);
    request.set_last_entry_id(last);
    if (stride > 1) request.set_stride(static_cast<uint32_t>(stride));
    request.set_max_entries_per_message(kRangeReadEntriesPerMessage);
    clients[k]->ReadEntries(
        request, ctx_->options().read_entry_timeout,
        [range, shared, ledger, digest, stride,
         bookie = names[k]](proto::ReadEntryResponse&& m) {
          // A bookie that ignores `stride` (older) sends the next entry:
          // the id check stops the stream and the rest is read singly.
          if (range->stopped) return;
          std::vector<ReadResult> batch =
              DecodeStreamMessage(std::move(m), digest, ledger, stride, bookie,
                                  "range read", &range->next, &range->stopped);
          if (!batch.empty()) shared->on_entries(std::move(batch));
        },
        [range, shared, stride](absl::Status) {
          shared->done(range->next, stride);
        });
  }
  return true;
}

void ReadHandle::RetryWithFreshMetadata(int64_t entry_id,
                                        std::vector<std::string> ensemble,
                                        absl::StatusOr<ReadResult> result,
                                        ReadDone done) {
  std::weak_ptr<ReadHandle> weak = weak_from_this();
  ctx_->store()->ReadLedgerAsync(
      ledger_id_, [weak, entry_id, ensemble = std::move(ensemble),
                   result = std::move(result), done = std::move(done)](
                      absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>>
                          md) mutable {
        auto self = weak.lock();
        if (self == nullptr || !md.ok()) {
          done(std::move(result));
          return;
        }
        self->Adopt(*md);
        ReadOpOptions o = self->OptionsFor(entry_id);
        if (o.ensemble == ensemble) {
          done(std::move(result));
          return;
        }
        StartRead(self->ctx_, std::move(o), std::move(done));
      });
}

ReadHandle::ReadStart ReadHandle::BeginRead(int64_t first, int64_t last) {
  ReadStart start;
  std::optional<ReadAhead> dropped;  // released outside the lock
  absl::MutexLock l(&mu_);
  start.sequential = first == read_end_;
  read_end_ = last + 1;
  if (read_ahead_.has_value() && read_ahead_->first == first) {
    start.read_ahead = std::move(read_ahead_);
  } else {
    dropped = std::move(read_ahead_);
  }
  read_ahead_.reset();
  return start;
}

void ReadHandle::LeaveReadAhead(ReadAhead ahead) {
  absl::MutexLock l(&mu_);
  // Only the end of the latest Read() is worth keeping.
  if (ahead.first == read_end_) read_ahead_ = std::move(ahead);
}

int64_t ReadHandle::MeanEntryBytesRead() const {
  const int64_t n = read_entries_.load(std::memory_order_relaxed);
  return n > 0 ? read_bytes_.load(std::memory_order_relaxed) / n : 0;
}

void ReadHandle::NoteEntriesRead(int64_t bytes, int64_t entries) {
  if (entries == 0) return;
  read_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  read_entries_.fetch_add(entries, std::memory_order_relaxed);
}

std::unique_ptr<EntryIterator> ReadHandle::Read(int64_t first, int64_t last) {
  absl::Status initial;
  if (first < 0 || last < first) {
    initial = absl::InvalidArgumentError(
        absl::StrCat("bad range ", first, "..", last));
  } else if (last > LastAddConfirmed()) {
    auto lac = ReadLac();
    if (!lac.ok()) {
      initial = lac.status();
    } else if (last > *lac) {
      initial = absl::OutOfRangeError(absl::StrCat(
          "entry ", last, " is past the last add confirmed (", *lac, ")"));
    }
  }
  return NewRangeIterator(
      shared_from_this(), first, last, ctx_->options().read_window,
      ctx_->options().read_window_bytes, Annotate(initial, ledger_id_));
}

}  // namespace bk::client::internal
