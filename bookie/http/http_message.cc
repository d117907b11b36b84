#include "bookie/http/http_message.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace bk::bookie {

std::string HttpRequest::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

HttpResponse JsonResponse(const nlohmann::json& value, int status) {
  return HttpResponse{
      status,
      "application/json",
      value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
          "\n",
      {}};
}

HttpResponse JsonError(int status, const std::string& message) {
  return JsonResponse(nlohmann::json{{"error", message}}, status);
}

absl::StatusOr<nlohmann::json> ParseJsonObjectBody(const HttpRequest& request) {
  if (absl::StripAsciiWhitespace(request.body).empty()) {
    return nlohmann::json::object();
  }
  nlohmann::json v = nlohmann::json::parse(request.body, nullptr,
                                           /*allow_exceptions=*/false);
  if (v.is_discarded()) {
    return absl::InvalidArgumentError("the request body is not valid JSON");
  }
  if (!v.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the request body must be a JSON object, not ", v.type_name()));
  }
  return v;
}

absl::StatusOr<bool> QueryBool(const std::map<std::string, std::string>& params,
                               const std::string& name, bool fallback) {
  auto it = params.find(name);
  if (it == params.end()) return fallback;
  const std::string v = absl::AsciiStrToLower(it->second);
  if (v == "true") return true;
  if (v == "false") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("query parameter '", name, "' must be true or false, not '",
                   it->second, "'"));
}

}  // namespace bk::bookie
