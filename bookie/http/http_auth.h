// AdminAuth: who may call the admin HTTP API's mutating endpoints (PUT,
// POST, DELETE). Reads (GET, HEAD) are never checked here.
//
//   admin off (httpServerAdminEnabled=false, the default)  -> 403, naming
//                                                              the key
//   admin on, no or wrong "Authorization: Bearer <token>"  -> 401
//   admin on, the token of httpServerAdminTokenFile        -> allowed
//
// The token is compared in constant time (its length aside). The HTTP port
// has no TLS, so the token crosses the network in clear: bind the HTTP
// port to a trusted interface or put it behind a TLS proxy.
//
// Immutable after construction; thread-safe.

#ifndef BK_BOOKIE_HTTP_HTTP_AUTH_H_
#define BK_BOOKIE_HTTP_HTTP_AUTH_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bookie/http/http_message.h"

namespace bk::bookie {

struct AdminAuthOptions {
  bool enabled = false;  // httpServerAdminEnabled
  std::string token;     // the contents of httpServerAdminTokenFile
};

class AdminAuth {
 public:
  AdminAuth() = default;  // admin off: every mutation refused with 403
  // REQUIRES: options.token non-empty when options.enabled.
  explicit AdminAuth(AdminAuthOptions options) : options_(std::move(options)) {}

  // Empty when `request` may mutate; else the refusal to send (403 or 401,
  // a JSON error saying what to do).
  std::optional<HttpResponse> Refusal(const HttpRequest& request) const;

  bool enabled() const { return options_.enabled; }

 private:
  AdminAuthOptions options_;
};

// The admin token from `path`: the file's first line, surrounding
// whitespace stripped. Refused (FailedPrecondition / NotFound /
// InvalidArgument, naming the file and httpServerAdminTokenFile) when the
// file is missing, not a regular file, readable or writable by group or
// others (it must be mode 0600 or 0400), or holds no token.
absl::StatusOr<std::string> LoadAdminToken(const std::string& path);

// a == b, taking time that depends on the lengths only.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_HTTP_HTTP_AUTH_H_
