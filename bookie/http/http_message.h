// HttpRequest and HttpResponse: what the bookie's HTTP handlers see and
// answer, and the JSON helpers every admin endpoint shares (errors are
// always a JSON object {"error": "..."}, never a bare text line).
//
// Plain values; no locking. The server fills a request before calling a
// handler and never touches it afterwards.

#ifndef BK_BOOKIE_HTTP_HTTP_MESSAGE_H_
#define BK_BOOKIE_HTTP_HTTP_MESSAGE_H_

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/query_string.h"

namespace bk::bookie {

struct HttpRequest {
  std::string method;  // "GET", "PUT", ...
  std::string path;    // "/api/v1/bookie/state", decoded, no query
  std::string query;   // after '?', undecoded; empty if none
  // Header names lower-cased ("authorization"); the last of repeated ones.
  std::map<std::string, std::string> headers;
  std::string body;  // at most the server's max_body_bytes

  // The header's value; empty when absent. `name` in lower case.
  std::string Header(const std::string& name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Further headers ("Allow", "WWW-Authenticate").
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// 200 (or `status`) with `value` as pretty-printed JSON.
HttpResponse JsonResponse(const nlohmann::json& value, int status = 200);
// `status` with {"error": message}.
HttpResponse JsonError(int status, const std::string& message);

// The query's parameters (common/query_string.h).
using ::bk::ParseQuery;

// The body as a JSON object: an empty body is an empty object; anything
// else that is not a JSON object is InvalidArgument saying why.
absl::StatusOr<nlohmann::json> ParseJsonObjectBody(const HttpRequest& request);

// A boolean query parameter: absent -> `fallback`; "true"/"false" (any
// case) -> the value; anything else InvalidArgument naming the parameter.
absl::StatusOr<bool> QueryBool(const std::map<std::string, std::string>& params,
                               const std::string& name, bool fallback);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_HTTP_HTTP_MESSAGE_H_
