// Errors of the client carry the ledger, entry and bookie they concern: in
// the message ("ledger 7 entry 42 bookie b1: ...") and as payloads
// (type URLs bk.client/ledger, bk.client/entry, bk.client/bookie) so that a
// program can read them without parsing. The code is kept.

#ifndef BK_CLIENT_INTERNAL_ERRORS_H_
#define BK_CLIENT_INTERNAL_ERRORS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace bk::client::internal {

inline constexpr char kLedgerPayload[] = "bk.client/ledger";
inline constexpr char kEntryPayload[] = "bk.client/entry";
inline constexpr char kBookiePayload[] = "bk.client/bookie";

// `entry` < -1 and an empty `bookie` are left out.
inline absl::Status Annotate(const absl::Status& s, int64_t ledger,
                             int64_t entry = -2,
                             const std::string& bookie = "") {
  if (s.ok()) return s;
  std::string prefix = absl::StrCat("ledger ", ledger);
  if (entry >= -1) absl::StrAppend(&prefix, " entry ", entry);
  if (!bookie.empty()) absl::StrAppend(&prefix, " bookie ", bookie);
  absl::Status out(s.code(), absl::StrCat(prefix, ": ", s.message()));
  s.ForEachPayload([&out](absl::string_view url, const absl::Cord& payload) {
    out.SetPayload(url, payload);
  });
  out.SetPayload(kLedgerPayload, absl::Cord(absl::StrCat(ledger)));
  if (entry >= -1)
    out.SetPayload(kEntryPayload, absl::Cord(absl::StrCat(entry)));
  if (!bookie.empty()) out.SetPayload(kBookiePayload, absl::Cord(bookie));
  return out;
}

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_ERRORS_H_
