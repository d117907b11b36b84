#include "metadata/record_format.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "metadata/layout.h"

namespace bk::metadata {
namespace {

constexpr char kLedgerTag[] = "BKL1";
constexpr char kBookieTag[] = "BKB1";
constexpr char kCookieTag[] = "BKC1";
constexpr char kGroupsTag[] = "BKG1";
static_assert(sizeof(kGroupsTag) - 1 == kRecordTagSize);
static_assert(sizeof(kLedgerTag) - 1 == kRecordTagSize);
static_assert(sizeof(kBookieTag) - 1 == kRecordTagSize);
static_assert(sizeof(kCookieTag) - 1 == kRecordTagSize);

absl::StatusOr<std::string> Encode(const char* tag,
                                   const google::protobuf::Message& msg) {
  std::string out(tag, kRecordTagSize);
  if (!msg.AppendToString(&out)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot serialize ", msg.GetTypeName()));
  }
  return out;
}

absl::Status Decode(const char* tag, const std::string& bytes,
                    const std::string& where, google::protobuf::Message* msg) {
  if (bytes.size() < kRecordTagSize ||
      bytes.compare(0, kRecordTagSize, tag, kRecordTagSize) != 0) {
    return absl::DataLossError(
        absl::StrCat("malformed ", msg->GetTypeName(), " at ", where, ": ",
                     bytes.size(), " bytes without the '", tag, "' tag"));
  }
  if (!msg->ParseFromArray(bytes.data() + kRecordTagSize,
                           static_cast<int>(bytes.size() - kRecordTagSize))) {
    return absl::DataLossError(absl::StrCat("malformed ", msg->GetTypeName(),
                                            " at ", where, ": bad protobuf"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateLedgerMetadata(const proto::LedgerMetadata& md) {
  const int e = md.ensemble_size(), w = md.write_quorum_size(),
            a = md.ack_quorum_size();
  if (!(1 <= a && a <= w && w <= e)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ledger metadata needs 1 <= ack (", a, ") <= write (", w,
                     ") <= ensemble (", e, ")"));
  }
  if (md.segments_size() == 0) {
    return absl::InvalidArgumentError("ledger metadata has no segment");
  }
  int64_t prev = -1;
  for (const proto::Segment& seg : md.segments()) {
    if (seg.bookies_size() != e) {
      return absl::InvalidArgumentError(
          absl::StrCat("segment at entry ", seg.first_entry_id(), " has ",
                       seg.bookies_size(), " bookies, ensemble is ", e));
    }
    if (prev == -1 ? seg.first_entry_id() != 0 : seg.first_entry_id() < prev) {
      return absl::InvalidArgumentError(
          absl::StrCat("segments must start at entry 0 and ascend; found ",
                       seg.first_entry_id(), " after ", prev));
    }
    prev = seg.first_entry_id();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeLedger(const proto::LedgerMetadata& md) {
  if (absl::Status s = ValidateLedgerMetadata(md); !s.ok()) return s;
  return Encode(kLedgerTag, md);
}

absl::StatusOr<proto::LedgerMetadata> DecodeLedger(const std::string& bytes,
                                                   const std::string& where) {
  proto::LedgerMetadata md;
  if (absl::Status s = Decode(kLedgerTag, bytes, where, &md); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateLedgerMetadata(md); !s.ok()) {
    return absl::DataLossError(
        absl::StrCat("invalid ledger metadata at ", where, ": ", s.message()));
  }
  return md;
}

absl::StatusOr<std::string> EncodeBookie(const proto::BookieServiceInfo& info) {
  if (absl::Status s = ValidateBookieId(info.bookie_id()); !s.ok()) return s;
  return Encode(kBookieTag, info);
}

absl::StatusOr<proto::BookieServiceInfo> DecodeBookie(
    const std::string& bytes, const std::string& where) {
  proto::BookieServiceInfo info;
  if (absl::Status s = Decode(kBookieTag, bytes, where, &info); !s.ok()) {
    return s;
  }
  return info;
}

absl::StatusOr<std::string> EncodeCookie(const proto::Cookie& cookie) {
  if (absl::Status s = ValidateBookieId(cookie.bookie_id()); !s.ok()) return s;
  return Encode(kCookieTag, cookie);
}

absl::StatusOr<proto::Cookie> DecodeCookie(const std::string& bytes,
                                           const std::string& where) {
  proto::Cookie cookie;
  if (absl::Status s = Decode(kCookieTag, bytes, where, &cookie); !s.ok()) {
    return s;
  }
  return cookie;
}

absl::Status ValidateBookieGroups(const BookieGroups& groups) {
  if (absl::Status s = ValidateBookieId(groups.bookie_id); !s.ok()) return s;
  for (size_t i = 0; i < groups.groups.size(); ++i) {
    const std::string& name = groups.groups[i];
    bool bad = name.empty();
    for (char c : name) {
      bad = bad || c == '/' || c == ',' ||
            absl::ascii_isspace(static_cast<unsigned char>(c));
    }
    if (bad) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad group name \"", name, "\" for bookie ", groups.bookie_id,
          ": empty, or holds '/', ',' or a blank"));
    }
    if (i > 0 && groups.groups[i - 1] >= name) {
      return absl::InvalidArgumentError(
          absl::StrCat("groups of bookie ", groups.bookie_id,
                       " are not sorted and distinct"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeBookieGroups(const BookieGroups& groups) {
  if (absl::Status s = ValidateBookieGroups(groups); !s.ok()) return s;
  return absl::StrCat(kGroupsTag, groups.bookie_id, "\n",
                      absl::StrJoin(groups.groups, ","));
}

absl::StatusOr<BookieGroups> DecodeBookieGroups(const std::string& bytes,
                                                const std::string& where) {
  const size_t newline = bytes.find('\n');
  if (bytes.size() < kRecordTagSize ||
      bytes.compare(0, kRecordTagSize, kGroupsTag, kRecordTagSize) != 0 ||
      newline == std::string::npos) {
    return absl::DataLossError(absl::StrCat(
        "malformed bookie groups at ", where, ": ", bytes.size(),
        " bytes without the '", kGroupsTag, "' tag and an id line"));
  }
  BookieGroups groups;
  groups.bookie_id = bytes.substr(kRecordTagSize, newline - kRecordTagSize);
  const std::string list = bytes.substr(newline + 1);
  if (!list.empty()) groups.groups = absl::StrSplit(list, ',');
  if (absl::Status s = ValidateBookieGroups(groups); !s.ok()) {
    return absl::DataLossError(absl::StrCat(where, ": ", s.message()));
  }
  return groups;
}

}  // namespace bk::metadata
