#include "bookie/http/http_auth.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bk::bookie {

std::optional<HttpResponse> AdminAuth::Refusal(
    const HttpRequest& request) const {
  if (!options_.enabled) {
    return JsonError(
        403, absl::StrCat(request.method, " ", request.path,
                          " changes the bookie and the admin API is off: set "
                          "httpServerAdminEnabled=true and "
                          "httpServerAdminTokenFile (bookie/CONFIG.md)"));
  }
  const std::string auth = request.Header("authorization");
  constexpr absl::string_view kBearer = "Bearer ";
  std::optional<HttpResponse> refused;
  if (auth.empty()) {
    refused = JsonError(401,
                        "missing Authorization header: send "
                        "'Authorization: Bearer <the token in "
                        "httpServerAdminTokenFile>'");
  } else if (!absl::StartsWithIgnoreCase(auth, kBearer) ||
             !ConstantTimeEquals(
                 absl::StripAsciiWhitespace(
                     absl::string_view(auth).substr(kBearer.size())),
                 options_.token)) {
    refused = JsonError(401, "wrong bearer token");
  }
  if (refused) refused->headers.emplace_back("WWW-Authenticate", "Bearer");
  return refused;
}

absl::StatusOr<std::string> LoadAdminToken(const std::string& path) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        "httpServerAdminEnabled=true needs httpServerAdminTokenFile: a file "
        "holding the admin bearer token, mode 0600");
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat("httpServerAdminTokenFile ", path,
                     " cannot be read: ", std::strerror(errno),
                     " (create it holding the admin bearer token, mode 0600)"));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "httpServerAdminTokenFile ", path, " is not a regular file"));
  }
  if ((st.st_mode & 077) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "httpServerAdminTokenFile %s has mode %04o: group and others may "
        "read or write it; run `chmod 600 %s`",
        path, st.st_mode & 07777, path));
  }
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) line.clear();
  std::string token(absl::StripAsciiWhitespace(line));
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("httpServerAdminTokenFile ", path,
                     " holds no token (its first line is empty)"));
  }
  return token;
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  // Every byte of the longer string is looked at, whatever differs first.
  const size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? a[i] : 0;
    const unsigned char y = i < b.size() ? b[i] : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

}  // namespace bk::bookie
