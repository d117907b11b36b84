// EntryView: what an offline reader can tell of a packaged entry
// (proto/entry_format.h) found in a journal or an entry log, without the
// ledger's metadata: its header, its payload and whether its digest holds.
//
// The digest type is not stored with the entry (it is in the ledger's
// metadata), so the entry is checked as CRC32C and, when that fails, shown
// as a dummy-digest entry and marked unverified: never claimed intact.

#ifndef BK_BOOKIE_INSPECT_ENTRY_VIEW_H_
#define BK_BOOKIE_INSPECT_ENTRY_VIEW_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace bk::bookie::inspect {

struct EntryView {
  bool header_ok = false;  // false: too short for a header; nothing else set
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  int64_t last_add_confirmed = -1;
  uint64_t ledger_length = 0;  // the ledger's payload bytes up to here
  // "crc32c": the last 4 bytes are the CRC32C of the rest, so the entry
  // is intact and they are its digest. "unverified": they are not, which a
  // dummy-digest ledger's entries and a damaged CRC32C entry both look
  // like offline; the payload is then everything after the header.
  std::string digest;
  absl::string_view payload;  // points into the viewed bytes
};

// Views `packaged` (valid while the view is used).
EntryView ViewEntry(absl::string_view packaged);

// `payload` for a terminal: "hex" (lower-case pairs), "text" (printable
// ASCII as is, the rest as \xNN), at most `max_bytes` of it followed by
// "..." when cut. Unknown formats are the caller's to refuse.
std::string FormatPayload(absl::string_view payload, absl::string_view format,
                          size_t max_bytes);

}  // namespace bk::bookie::inspect

#endif  // BK_BOOKIE_INSPECT_ENTRY_VIEW_H_
