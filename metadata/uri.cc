#include "metadata/uri.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace bk::metadata {
namespace {

absl::Status Bad(const std::string& uri, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("bad metadata store URI '", uri, "': ", why,
                   " (expected zk://host:port[,host:port...]/root or "
                   "mem://[name])"));
}

bool ValidPathSegment(absl::string_view s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<StoreUri> ParseStoreUri(const std::string& uri) {
  const size_t sep = uri.find("://");
  if (sep == std::string::npos) return Bad(uri, "no scheme");
  StoreUri out;
  out.scheme = uri.substr(0, sep);
  const std::string rest = uri.substr(sep + 3);
  if (out.scheme == "mem") {
    if (!rest.empty() && !ValidPathSegment(rest)) {
      return Bad(uri, "mem cluster name must be [A-Za-z0-9._-]+");
    }
    out.name = rest;
    return out;
  }
  if (out.scheme != "zk") {
    return Bad(uri, absl::StrCat("unknown scheme '", out.scheme, "'"));
  }
  const size_t slash = rest.find('/');
  if (slash == std::string::npos) return Bad(uri, "no root path");
  for (absl::string_view host : absl::StrSplit(rest.substr(0, slash), ',')) {
    const size_t colon = host.rfind(':');
    int port = 0;
    if (host.empty() || colon == absl::string_view::npos || colon == 0 ||
        !absl::SimpleAtoi(host.substr(colon + 1), &port) || port <= 0 ||
        port > 65535) {
      return Bad(uri, absl::StrCat("bad host:port '", host, "'"));
    }
    out.hosts.emplace_back(host);
  }
  std::string root = rest.substr(slash);
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (root == "/") return Bad(uri, "the root path must not be '/'");
  for (absl::string_view seg : absl::StrSplit(root.substr(1), '/')) {
    if (!ValidPathSegment(seg)) {
      return Bad(uri, absl::StrCat("bad root path segment '", seg, "'"));
    }
  }
  out.root = root;
  return out;
}

}  // namespace bk::metadata
