// The admin API's ledger endpoints, BookKeeper's paths, against the
// metadata store (admin_api.h):
//
//   GET    /api/v1/ledger/list?print_metadata=<bool>&page=<n>
//          {"<ledger id>": null, ...}, or each ledger's metadata with
//          print_metadata=true; page n (from 1) holds ledgers
//          (n-1)*100 .. n*100-1 in id order, all of them without page
//   GET    /api/v1/ledger/metadata?ledger_id=<id>   {"<id>": {metadata}}
//   DELETE /api/v1/ledger/delete?ledger_id=<id>   deletes the ledger's
//          metadata; the bookies' GC then removes its entries
//
// BookKeeper's GET /api/v1/ledger/read is not served: reading entries
// needs the client library, which the bookie libraries never include
// (`bkctl ledger read` does it).

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bookie/daemon/admin_api.h"
#include "metadata/ledger_json.h"

namespace bk::bookie {
namespace {

using nlohmann::json;

// BookKeeper's page size for ledger listings.
constexpr int64_t kLedgersPerPage = 100;

HttpResponse StoreError(const absl::Status& s) {
  return JsonError(absl::IsNotFound(s) ? 404 : 503, std::string(s.message()));
}

// The one parameter `ledger_id`, a ledger id (>= 0); anything else is an
// error message for a 400.
absl::StatusOr<metadata::LedgerId> LedgerIdParam(const HttpRequest& req) {
  auto params = ParseQuery(req.query);
  if (!params.ok()) return params.status();
  metadata::LedgerId id = -1;
  for (const auto& [k, v] : *params) {
    if (k != "ledger_id") {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown parameter '", k, "' (ledger_id)"));
    }
    if (!absl::SimpleAtoi(v, &id) || id < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("ledger_id must be a ledger id, not '", v, "'"));
    }
  }
  if (id < 0) return absl::InvalidArgumentError("missing parameter ledger_id");
  return id;
}

HttpResponse ListLedgers(DaemonParts& p, const HttpRequest& req) {
  auto params = ParseQuery(req.query);
  if (!params.ok()) {
    return JsonError(400, std::string(params.status().message()));
  }
  int64_t page = 0;  // all
  for (const auto& [k, v] : *params) {
    if (k == "page") {
      if (!absl::SimpleAtoi(v, &page) || page < 1) {
        return JsonError(400,
                         absl::StrCat("page must be 1 or more, not '", v, "'"));
      }
    } else if (k != "print_metadata") {
      return JsonError(400, absl::StrCat("unknown parameter '", k,
                                         "' (print_metadata, page)"));
    }
  }
  auto print = QueryBool(*params, "print_metadata", false);
  if (!print.ok()) return JsonError(400, std::string(print.status().message()));
  const int64_t first = page == 0 ? 0 : (page - 1) * kLedgersPerPage;
  const int64_t end = page == 0 ? INT64_MAX : first + kLedgersPerPage;
  json out = json::object();
  auto it = p.metadata->ListLedgers();
  metadata::LedgerId id;
  for (int64_t i = 0; i < end && it->Next(&id); ++i) {
    if (i < first) continue;
    if (!*print) {
      out[absl::StrCat(id)] = nullptr;
      continue;
    }
    auto md = p.metadata->ReadLedger(id);
    if (absl::IsNotFound(md.status())) continue;  // deleted meanwhile
    if (!md.ok()) return StoreError(md.status());
    out[absl::StrCat(id)] = metadata::LedgerMetadataJson(id, *md);
  }
  if (!it->status().ok()) return StoreError(it->status());
  return JsonResponse(out);
}

HttpResponse LedgerMetadata(DaemonParts& p, const HttpRequest& req) {
  auto id = LedgerIdParam(req);
  if (!id.ok()) return JsonError(400, std::string(id.status().message()));
  auto md = p.metadata->ReadLedger(*id);
  if (!md.ok()) return StoreError(md.status());
  return JsonResponse(
      json{{absl::StrCat(*id), metadata::LedgerMetadataJson(*id, *md)}});
}

HttpResponse DeleteLedger(DaemonParts& p, const HttpRequest& req) {
  auto id = LedgerIdParam(req);
  if (!id.ok()) return JsonError(400, std::string(id.status().message()));
  absl::Status s = p.metadata->DeleteLedger(*id, metadata::kAnyVersion);
  if (!s.ok()) return StoreError(s);
  return JsonResponse(json{{"deleted", *id}});
}

}  // namespace

std::vector<HttpRoute> AdminLedgerRoutes(const DaemonOptions& /*options*/,
                                         DaemonParts& p) {
  DaemonParts* q = &p;
  return {
      {"GET", "/api/v1/ledger/list",
       [q](const HttpRequest& req) { return ListLedgers(*q, req); }},
      {"GET", "/api/v1/ledger/metadata",
       [q](const HttpRequest& req) { return LedgerMetadata(*q, req); }},
      {"DELETE", "/api/v1/ledger/delete",
       [q](const HttpRequest& req) { return DeleteLedger(*q, req); }},
  };
}

}  // namespace bk::bookie
