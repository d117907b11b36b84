#include "client/bookie_admin.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "client/internal/bookie_client.h"
#include "client/internal/bookie_info_wire.h"
#include "client/internal/channel_config.h"
#include "metadata/metadata_store.h"
#include "proto/bookie.pb.h"
#include "proto/entry_format.h"
#include "proto/enum_names.h"
#include "proto/status_codes.h"

namespace bk::client {
namespace {

// The sanity check's ledger: its password and what its metadata says it
// is (the names `bkctl bookiesanity` has always used).
constexpr char kSanityPassword[] = "bkctl-bookiesanity";
constexpr char kSanityApplication[] = "bkctl-bookiesanity";

// One asynchronous call's answer, shared by the waiting caller and the
// callback, which may run after the caller stopped waiting. `result` is
// written before `done` is notified and read only after.
template <typename T>
struct Answer {
  absl::Notification done;
  T result;
};

// `s` with "<what>: " in front, code kept.
absl::Status Prefixed(const absl::Status& s, const std::string& what) {
  return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<BookieAdmin>> BookieAdmin::Connect(
    std::string bookie_id, std::string endpoint, const TlsClientOptions& tls) {
  auto config =
      internal::MakeChannelConfig(tls, ClientOptions().max_add_batch_bytes);
  if (!config.ok()) return config.status();
  auto connection =
      std::make_unique<internal::BookieClient>(bookie_id, endpoint, *config);
  return std::unique_ptr<BookieAdmin>(new BookieAdmin(
      std::move(bookie_id), std::move(endpoint), std::move(connection)));
}

BookieAdmin::BookieAdmin(std::string bookie_id, std::string endpoint,
                         std::unique_ptr<internal::BookieClient> connection)
    : bookie_id_(std::move(bookie_id)),
      endpoint_(std::move(endpoint)),
      connection_(std::move(connection)) {}

// The connection's destructor waits for every callback (see
// internal/bookie_client.h, Lifetime).
BookieAdmin::~BookieAdmin() = default;

absl::StatusOr<BookieInfo> BookieAdmin::Info(absl::Duration timeout) {
  auto answer =
      std::make_shared<Answer<absl::StatusOr<proto::GetBookieInfoResponse>>>();
  connection_->GetBookieInfo(
      proto::TOTAL_DISK_CAPACITY | proto::FREE_DISK_SPACE | proto::LOAD,
      timeout, [answer](absl::StatusOr<proto::GetBookieInfoResponse> r) {
        answer->result = std::move(r);
        answer->done.Notify();
      });
  // The call carries `timeout` as its deadline: the callback always runs.
  answer->done.WaitForNotification();
  const std::string what = absl::StrCat("bookie ", bookie_id_, " info");
  const auto& r = answer->result;
  if (!r.ok()) return Prefixed(r.status(), what);
  if (r->status() != proto::BK_EOK) return ToAbsl(r->status(), what);
  return internal::BookieInfoFromWire(*r);
}

absl::StatusOr<BookieEntry> BookieAdmin::ReadEntry(int64_t ledger_id,
                                                   int64_t entry_id,
                                                   DigestType digest,
                                                   absl::Duration timeout) {
  proto::ReadEntryRequest request;
  request.set_ledger_id(static_cast<uint64_t>(ledger_id));
  request.set_entry_id(entry_id);
  auto answer =
      std::make_shared<Answer<absl::StatusOr<proto::ReadEntryResponse>>>();
  connection_->ReadEntry(request, timeout,
                         [answer](absl::StatusOr<proto::ReadEntryResponse> r) {
                           answer->result = std::move(r);
                           answer->done.Notify();
                         });
  answer->done.WaitForNotification();  // the call's deadline bounds it
  const std::string what =
      absl::StrCat("bookie ", bookie_id_, " read of ledger ", ledger_id,
                   " entry ", entry_id);
  const auto& r = answer->result;
  if (!r.ok()) return Prefixed(r.status(), what);
  if (r->status() != proto::BK_EOK) return ToAbsl(r->status(), what);
  auto decoded =
      entry::Decode(r->body(), static_cast<entry::DigestType>(digest),
                    static_cast<uint64_t>(ledger_id), entry_id);
  if (!decoded.ok()) return Prefixed(decoded.status(), what);
  return BookieEntry{decoded->header.last_add_confirmed,
                     std::string(decoded->payload)};
}

absl::StatusOr<BookieAdmin::StreamedRange> BookieAdmin::StreamEntries(
    int64_t ledger_id, int64_t first, int64_t last, int64_t stride,
    absl::Duration timeout, uint32_t per_message) {
  if (first < 0 || last < first || stride < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad range ", first, "..", last, " stride ", stride));
  }
  proto::ReadEntriesRequest request;
  request.set_ledger_id(static_cast<uint64_t>(ledger_id));
  request.set_first_entry_id(first);
  request.set_last_entry_id(last);
  if (stride > 1) request.set_stride(static_cast<uint32_t>(stride));
  if (per_message > 1) request.set_max_entries_per_message(per_message);
  // One stream's messages come one at a time: `range` needs no lock, and
  // `done` is its last use before the notification.
  struct State {
    StreamedRange range;
    bool stopped = false;
    absl::Status status;
    absl::Notification done;
  };
  auto state = std::make_shared<State>();
  state->range.next = first;
  connection_->ReadEntries(
      request, timeout,
      [state, stride](proto::ReadEntryResponse&& m) {
        if (state->stopped) return;
        if (m.status() != proto::BK_EOK || m.entry_id() != state->range.next) {
          state->stopped = true;
          return;
        }
        const int n = 1 + m.more_bodies_size();
        for (int i = 0; i < n; ++i) {
          ++state->range.entries;
          state->range.bytes += static_cast<int64_t>(
              i == 0 ? m.body().size() : m.more_bodies(i - 1).size());
          state->range.next += stride;
        }
      },
      [state](absl::Status s) {
        state->status = std::move(s);
        state->done.Notify();
      });
  state->done.WaitForNotification();  // the call's deadline bounds it
  if (!state->status.ok() && state->range.entries == 0) {
    return Prefixed(state->status,
                    absl::StrCat("bookie ", bookie_id_,
                                 " range read of ledger ", ledger_id));
  }
  return state->range;
}

absl::Status BookieAdmin::AddEntry(int64_t ledger_id, int64_t entry_id,
                                   const std::string& password,
                                   absl::string_view payload,
                                   absl::Duration timeout) {
  const entry::EntryHeader header{static_cast<uint64_t>(ledger_id), entry_id,
                                  -1, payload.size()};
  auto answer = std::make_shared<Answer<absl::Status>>();
  connection_->Add(static_cast<uint64_t>(ledger_id), entry_id,
                   MasterKey(password), /*flags=*/0,
                   entry::Package(header, payload, entry::DigestType::kCrc32c),
                   [answer](absl::Status s) {
                     answer->result = std::move(s);
                     answer->done.Notify();
                   });
  // An add has no deadline of its own: a bookie that never answers is
  // given up on here (the callback then runs when the connection goes).
  const std::string what = absl::StrCat(
      "bookie ", bookie_id_, " add of ledger ", ledger_id, " entry ", entry_id);
  if (!answer->done.WaitForNotificationWithTimeout(timeout)) {
    return absl::DeadlineExceededError(absl::StrCat(
        what, ": no answer within ", absl::FormatDuration(timeout)));
  }
  return answer->result;
}

absl::Status BookieAdmin::SanityCheck(metadata::MetadataStore* store,
                                      absl::Duration timeout) {
  auto id = store->NewLedgerId();
  if (!id.ok()) return id.status();
  proto::LedgerMetadata md;
  md.set_ensemble_size(1);
  md.set_write_quorum_size(1);
  md.set_ack_quorum_size(1);
  auto* segment = md.add_segments();
  segment->set_first_entry_id(0);
  segment->add_bookies(bookie_id_);
  md.set_state(proto::OPEN);
  md.set_last_entry_id(-1);
  md.set_digest_type(proto::CRC32C);
  md.set_password_hash(PasswordHash(kSanityPassword));
  md.set_ctime_ms(absl::ToUnixMillis(absl::Now()));
  (*md.mutable_custom_metadata())["application"] = kSanityApplication;
  auto version = store->CreateLedger(*id, md);
  if (!version.ok()) return version.status();

  const std::string payload = absl::StrCat("bookiesanity ledger ", *id);
  absl::Status s = AddEntry(*id, 0, kSanityPassword, payload, timeout);
  if (s.ok()) {
    auto e = ReadEntry(*id, 0, DigestType::kCrc32c, timeout);
    if (!e.ok()) {
      s = e.status();
    } else if (e->payload != payload) {
      s = absl::DataLossError(absl::StrCat("bookie ", bookie_id_,
                                           " read of ledger ", *id,
                                           " entry 0: entry differs"));
    }
  }
  absl::Status deleted = store->DeleteLedger(*id, *version);
  return s.ok() ? deleted : s;
}

}  // namespace bk::client
