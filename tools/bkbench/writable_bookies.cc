#include "tools/bkbench/writable_bookies.h"

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/bookie_admin.h"
#include "tools/bkbench/bookie_sampler.h"
#include "tools/bkbench/cluster_store.h"

namespace bk::bkbench {
namespace {

// The bookie's own reason, from its admin API's state (readOnlyReason);
// "" when it cannot be asked.
std::string AskReason(const std::string& http) {
  if (http.empty()) return "";
  auto body = HttpGetBody(http, "/api/v1/bookie/state");
  if (!body.ok()) return "";
  const nlohmann::json j = nlohmann::json::parse(*body, nullptr, false);
  if (!j.is_object() || !j.contains("readOnlyReason") ||
      !j["readOnlyReason"].is_string()) {
    return "";
  }
  return j["readOnlyReason"].get<std::string>();
}

}  // namespace

std::string DescribeReadOnly(const BookieWriteState& b) {
  // The store's wording is "EREADONLY: bookie is read-only: <why>": keep
  // the why.
  std::string why = b.reason;
  for (absl::string_view prefix : {"EREADONLY: ", "bookie is read-only: "}) {
    if (absl::StartsWith(why, prefix)) why = why.substr(prefix.size());
  }
  std::string disk;
  if (b.total_disk_bytes > 0 && b.free_disk_bytes >= 0) {
    const double total = static_cast<double>(b.total_disk_bytes);
    const double free = static_cast<double>(b.free_disk_bytes);
    disk = absl::StrFormat("disk %.1f%% used, %.1f GiB free of %.1f GiB",
                           100 * (1 - free / total), free / (1 << 30),
                           total / (1 << 30));
  }
  std::string out = absl::StrCat(b.id, " is read-only");
  if (!why.empty()) absl::StrAppend(&out, ": ", why);
  if (!disk.empty()) {
    absl::StrAppend(&out, why.empty() ? ": " : " (", disk,
                    why.empty() ? "" : ")");
  }
  if (why.empty() && disk.empty()) {
    absl::StrAppend(&out,
                    " (it gave no reason: see its log, or GET "
                    "/api/v1/bookie/state on its HTTP port)");
  }
  return out;
}

absl::Status CheckEnoughWritable(const std::vector<BookieWriteState>& bookies,
                                 int ensemble) {
  int writable = 0;
  std::string lines;
  for (const BookieWriteState& b : bookies) {
    if (!b.read_only) {
      ++writable;
      continue;
    }
    absl::StrAppend(&lines, "\n  ", DescribeReadOnly(b));
  }
  if (writable >= ensemble) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "not enough writable bookies for ensembles of ", ensemble, ": ",
      bookies.size(), " registered, ", writable, " writable", lines,
      bookies.size() == static_cast<size_t>(writable)
          ? "\n  (start more bookies)"
          : ""));
}

absl::StatusOr<std::vector<BookieWriteState>> ReadBookieStates(
    const client::ClientOptions& client) {
  auto registered = RegisteredBookies(client);
  if (!registered.ok()) return registered.status();
  std::vector<BookieWriteState> out;
  for (const proto::BookieServiceInfo& info : *registered) {
    BookieWriteState b;
    b.id = info.bookie_id();
    b.read_only = info.read_only();
    // Asked even when registered writable: a bookie turns read-only
    // before its new registration is seen.
    auto admin =
        client::BookieAdmin::Connect(b.id, info.grpc_endpoint(), client.tls);
    if (admin.ok()) {
      auto bi = (*admin)->Info(absl::Seconds(5));
      if (bi.ok()) {
        b.read_only = b.read_only || bi->read_only;
        b.total_disk_bytes = bi->total_disk_capacity;
        b.free_disk_bytes = bi->free_disk_space;
      }
    }
    if (b.read_only) b.reason = AskReason(info.http_endpoint());
    out.push_back(std::move(b));
  }
  return out;
}

absl::Status CheckWritableBookies(const client::ClientOptions& client,
                                  int ensemble,
                                  std::vector<std::string>* warnings) {
  auto bookies = ReadBookieStates(client);
  if (!bookies.ok()) {
    // A ZooKeeper secured with credentials refuses a session without them.
    const bool secured = absl::IsPermissionDenied(bookies.status());
    return absl::Status(
        bookies.status().code(),
        absl::StrCat("listing the bookies of ", client.metadata_service_uri,
                     ": ", bookies.status().message(),
                     secured && !client.zk_enable_security
                         ? " (the cluster's ZooKeeper wants credentials: give "
                           "--client-conf FILE with zkEnableSecurity=true and "
                           "zkDigestFile=PATH, as for bkctl)"
                         : ""));
  }
  if (absl::Status s = CheckEnoughWritable(*bookies, ensemble); !s.ok()) {
    return s;
  }
  if (warnings != nullptr) {
    for (const BookieWriteState& b : *bookies) {
      if (b.read_only) warnings->push_back(DescribeReadOnly(b));
    }
  }
  return absl::OkStatus();
}

}  // namespace bk::bkbench
