#include "bookie/inspect/entry_view.h"

#include "absl/strings/str_format.h"
#include "proto/entry_format.h"

namespace bk::bookie::inspect {

EntryView ViewEntry(absl::string_view packaged) {
  EntryView view;
  auto header = entry::ParseHeader(packaged);
  if (!header.ok()) return view;
  view.header_ok = true;
  view.ledger_id = header->ledger_id;
  view.entry_id = header->entry_id;
  view.last_add_confirmed = header->last_add_confirmed;
  view.ledger_length = header->ledger_length;
  auto crc = entry::Decode(packaged, entry::DigestType::kCrc32c,
                           header->ledger_id, header->entry_id);
  if (crc.ok()) {
    view.digest = "crc32c";
    view.payload = crc->payload;
  } else {
    view.digest = "unverified";
    view.payload = packaged.substr(entry::kHeaderSize);
  }
  return view;
}

std::string FormatPayload(absl::string_view payload, absl::string_view format,
                          size_t max_bytes) {
  const absl::string_view shown = payload.substr(0, max_bytes);
  std::string out;
  for (unsigned char c : shown) {
    if (format == "hex") {
      absl::StrAppendFormat(&out, "%02x", c);
    } else if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    }
  }
  if (shown.size() < payload.size()) out += "...";
  return out;
}

}  // namespace bk::bookie::inspect
