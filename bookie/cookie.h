// Cookies: the bookie's proof that its disks are its own.
//
// A cookie (proto::Cookie) names the bookie id, the cluster's instance id
// and the journal and ledger directories, in order. A copy lives in every
// journal and ledger directory (file "COOKIE", protobuf text format, written
// atomically) and, later, in the metadata store. At start-up:
//  - every directory empty (no cookie, nothing else): first start; the
//    cookie is written to each directory;
//  - otherwise every directory must hold a cookie equal to the expected one.
//    A missing cookie in a directory (a new or wiped disk beside used ones),
//    a foreign one (other bookie id or instance id) or a mismatched one
//    (directories differ) refuses start with FailedPrecondition, naming the
//    directory, what differs, and how to repair.
// The only way to replace cookies on used disks is FormatDirectories, which
// is what an explicit operator format command calls.
//
// CookieDifferences compares any two cookies, so the daemon can compare the
// metadata store's copy the same way.

#ifndef BK_BOOKIE_COOKIE_H_
#define BK_BOOKIE_COOKIE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/env.h"
#include "proto/metadata.pb.h"

namespace bk::bookie {

inline constexpr char kCookieFileName[] = "COOKIE";
inline constexpr int kCookieLayoutVersion = 1;

proto::Cookie MakeCookie(const std::string& bookie_id,
                         const std::string& instance_id,
                         const std::vector<std::string>& journal_dirs,
                         const std::vector<std::string>& ledger_dirs);

// Human-readable differences of `found` from `expected`, one per field;
// empty when they match.
std::vector<std::string> CookieDifferences(const proto::Cookie& found,
                                           const proto::Cookie& expected);

std::string SerializeCookie(const proto::Cookie& cookie);
// DataLoss when `text` is not a cookie.
absl::StatusOr<proto::Cookie> ParseCookie(const std::string& text);

// NotFound when `dir` holds no cookie.
absl::StatusOr<proto::Cookie> ReadCookie(Env* env, const std::string& dir);
absl::Status WriteCookie(Env* env, const std::string& dir,
                         const proto::Cookie& cookie);

// The start-up check described above, over expected.journal_dirs() and
// expected.ledger_dirs(). Creates missing directories. OK means every
// directory now holds `expected`.
absl::Status VerifyOrCreateCookies(Env* env, const proto::Cookie& expected);

// The format command: DESTROYS every journal and ledger directory's
// content, then writes `cookie` to each.
absl::Status FormatDirectories(Env* env, const proto::Cookie& cookie);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_COOKIE_H_
