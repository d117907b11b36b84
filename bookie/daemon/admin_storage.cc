// The admin API's view of the bookie's files and its garbage collection
// (admin_api.h).

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bookie/daemon/admin_api.h"
#include "bookie/journal/journal_checkpoint.h"

namespace bk::bookie {
namespace {

using nlohmann::json;

// Per journal directory, the persisted checkpoint (BookKeeper's "last log
// mark"): replay after a crash starts there.
HttpResponse LastLogMark(const DaemonOptions& options, DaemonParts& p) {
  json out = json::object();
  for (const std::string& dir : options.store.journal.dirs) {
    auto mark = ReadCheckpoint(p.env, dir);
    if (!mark.ok()) {
      out[dir] = json{{"error", mark.status().ToString()}};
      continue;
    }
    out[dir] = json{{"logFileId", mark->file_id},
                    {"logFileOffset", mark->offset},
                    {"logFile", absl::StrFormat("%016x.jnl", mark->file_id)}};
  }
  return JsonResponse(out);
}

// The names in `dir` ending in `suffix`, as "dir/name", sorted.
void ListFiles(Env* env, const std::string& dir, const std::string& suffix,
               json* out) {
  auto names = env->GetChildren(dir);
  if (!names.ok()) return;
  std::sort(names->begin(), names->end());
  for (const std::string& n : *names) {
    if (absl::EndsWith(n, suffix)) out->push_back(absl::StrCat(dir, "/", n));
  }
}

// BookKeeper's file_type=journal|entrylog|index (absent: all); answers
// {"journal files": [...], "entrylog files": [...], "index files": [...]}.
HttpResponse ListDiskFiles(const DaemonOptions& options, DaemonParts& p,
                           const HttpRequest& req) {
  auto params = ParseQuery(req.query);
  if (!params.ok())
    return JsonError(400, std::string(params.status().message()));
  std::string type = "all";
  if (auto it = params->find("file_type"); it != params->end()) {
    type = it->second;
  }
  if (type != "journal" && type != "entrylog" && type != "index" &&
      type != "all") {
    return JsonError(400,
                     "file_type must be journal, entrylog, index or absent "
                     "(all)");
  }
  json out = json::object();
  if (type == "journal" || type == "all") {
    json files = json::array();
    for (const std::string& dir : options.store.journal.dirs) {
      ListFiles(p.env, dir, ".jnl", &files);
    }
    out["journal files"] = files;
  }
  if (type == "entrylog" || type == "all") {
    json files = json::array();
    for (const std::string& dir : options.store.storage.ledger_dirs) {
      ListFiles(p.env, dir, ".log", &files);
    }
    out["entrylog files"] = files;
  }
  if (type == "index" || type == "all") {
    json files = json::array();
    for (const std::string& dir : options.store.storage.ledger_dirs) {
      ListFiles(p.env, dir + "/index", "", &files);
    }
    out["index files"] = files;
  }
  return JsonResponse(out);
}

json GcState(DaemonParts& p) {
  return json{
      {"is_in_force_gc",
       p.store->storage()->GetGcStatus().force_requested ? "true" : "false"}};
}

// Body (optional): {"forceMajor": bool, "forceMinor": bool}.
HttpResponse PutGc(DaemonParts& p, const HttpRequest& req) {
  auto body = ParseJsonObjectBody(req);
  if (!body.ok()) return JsonError(400, std::string(body.status().message()));
  bool flags[2] = {false, false};
  const char* names[2] = {"forceMajor", "forceMinor"};
  for (int i = 0; i < 2; ++i) {
    auto it = body->find(names[i]);
    if (it == body->end()) continue;
    if (!it->is_boolean()) {
      return JsonError(400, absl::StrCat(names[i], " must be true or false"));
    }
    flags[i] = it->get<bool>();
  }
  for (const auto& [key, value] : body->items()) {
    if (key != names[0] && key != names[1]) {
      return JsonError(400, absl::StrCat("unknown field '", key,
                                         "' (forceMajor, forceMinor)"));
    }
  }
  p.store->storage()->RequestGc(flags[0], flags[1]);
  p.log->info("admin API: GC requested (forceMajor={}, forceMinor={})",
              flags[0], flags[1]);
  return JsonResponse(GcState(p));
}

// BookKeeper's list of one status per GC thread (we have one), plus ours.
HttpResponse GcDetails(DaemonParts& p) {
  const GcStatus s = p.store->storage()->GetGcStatus();
  return JsonResponse(
      json::array({json{{"forceCompacting", s.force_requested},
                        {"majorCompacting", s.major_compacting},
                        {"minorCompacting", s.minor_compacting},
                        {"lastMajorCompactionTime", s.last_major_compaction_ms},
                        {"lastMinorCompactionTime", s.last_minor_compaction_ms},
                        {"majorCompactionCounter", s.major_compactions},
                        {"minorCompactionCounter", s.minor_compactions},
                        {"running", s.running},
                        {"passes", s.passes},
                        {"forcedPasses", s.forced_passes}}}));
}

}  // namespace

std::vector<HttpRoute> AdminStorageRoutes(const DaemonOptions& options,
                                          DaemonParts& p) {
  const DaemonOptions* o = &options;
  DaemonParts* q = &p;
  return {
      {"GET", "/api/v1/bookie/last_log_mark",
       [o, q](const HttpRequest&) { return LastLogMark(*o, *q); }},
      {"GET", "/api/v1/bookie/list_disk_file",
       [o, q](const HttpRequest& req) { return ListDiskFiles(*o, *q, req); }},
      {"GET", "/api/v1/bookie/gc",
       [q](const HttpRequest&) { return JsonResponse(GcState(*q)); }},
      {"PUT", "/api/v1/bookie/gc",
       [q](const HttpRequest& req) { return PutGc(*q, req); }},
      {"GET", "/api/v1/bookie/gc_details",
       [q](const HttpRequest&) { return GcDetails(*q); }},
  };
}

}  // namespace bk::bookie
