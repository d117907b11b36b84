#include "bookie/http/http_router.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace bk::bookie {

bool HttpRouter::IsMutation(const std::string& method) {
  return method == "PUT" || method == "POST" || method == "DELETE";
}

absl::Status HttpRouter::Add(HttpRoute route) {
  if (route.method != "GET" && !IsMutation(route.method)) {
    return absl::InvalidArgumentError(
        absl::StrCat("route ", route.path, ": method '", route.method,
                     "' is not GET, PUT, POST or DELETE"));
  }
  if (route.path.empty() || route.path[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("route path '", route.path, "' must start with '/'"));
  }
  if (!route.handler) {
    return absl::InvalidArgumentError(
        absl::StrCat("route ", route.method, " ", route.path, ": no handler"));
  }
  auto& methods = routes_[route.path];
  if (!methods.emplace(route.method, std::move(route.handler)).second) {
    return absl::AlreadyExistsError(absl::StrCat(
        "route ", route.method, " ", route.path, " is defined twice"));
  }
  return absl::OkStatus();
}

HttpResponse HttpRouter::Handle(const HttpRequest& request) const {
  auto path = routes_.find(request.path);
  if (path == routes_.end() && request.path.size() > 1 &&
      request.path.back() == '/') {
    // BookKeeper's documentation writes paths with a trailing slash
    // ("/api/v1/ledger/list/?print_metadata=true"); both forms are served.
    path = routes_.find(request.path.substr(0, request.path.size() - 1));
  }
  if (path == routes_.end()) {
    return JsonError(404, absl::StrCat("no such path: ", request.path));
  }
  const std::string method = request.method == "HEAD" ? "GET" : request.method;
  auto handler = path->second.find(method);
  if (handler == path->second.end()) {
    std::vector<std::string> allowed;
    for (const auto& [m, h] : path->second) allowed.push_back(m);
    if (path->second.count("GET")) allowed.push_back("HEAD");
    const std::string allow = absl::StrJoin(allowed, ", ");
    HttpResponse r =
        JsonError(405, absl::StrCat(request.path, " does not serve ",
                                    request.method, "; it serves ", allow));
    r.headers.emplace_back("Allow", allow);
    return r;
  }
  if (IsMutation(method)) {
    if (auto refusal = auth_.Refusal(request)) return *std::move(refusal);
  }
  return handler->second(request);
}

}  // namespace bk::bookie
