// bkctl bookiesanity: on each bookie in turn, a one-bookie ledger (E=W=A=1)
// is created in the metadata store, one entry is added and read back over
// the bookie's own wire protocol, and the ledger is deleted
// (client::BookieAdmin::SanityCheck). The placement policy is bypassed on
// purpose: the point is to test *that* bookie.

#include <nlohmann/json.hpp>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "client/bookie_admin.h"
#include "metadata/metadata_store.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/store_flags.h"
#include "tools/bkctl/tls_flags.h"

namespace bk::bkctl {

int BookieSanity(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  std::vector<FlagSpec> specs = {
      {"metadata-uri", true, "metadata store"},
      {"json", false, "print JSON", true},
      {"bookies", false, "comma-separated ids (every writable one)"}};
  for (FlagSpec& s : TlsFlags()) specs.push_back(std::move(s));
  auto f = ParseFlags(args, specs);
  auto fail = [&](const absl::Status& s) {
    err << "bkctl bookiesanity: " << s.message() << "\n";
    return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
  };
  if (!f.ok()) return fail(f.status());
  auto tls = TlsOptionsOf(*f);
  if (!tls.ok()) return fail(tls.status());
  auto wanted = f->GetList("bookies");
  if (!wanted.ok()) return fail(wanted.status());
  auto store = OpenStoreFromFlags(*f);
  if (!store.ok()) return fail(store.status());
  auto set = (*store)->ListBookies();
  if (!set.ok()) return fail(set.status());
  std::vector<proto::BookieServiceInfo> targets;
  for (const auto& b : set->writable) {
    bool take = wanted->empty();
    for (const auto& w : *wanted) take = take || w == b.bookie_id();
    if (take) targets.push_back(b);
  }
  if (targets.empty()) {
    return fail(absl::NotFoundError("no writable bookie to check"));
  }
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::string> bad;
  for (const auto& b : targets) {
    const absl::Time start = absl::Now();
    auto admin =
        client::BookieAdmin::Connect(b.bookie_id(), b.grpc_endpoint(), *tls);
    if (!admin.ok()) return fail(admin.status());
    const absl::Status s =
        (*admin)->SanityCheck(store->get(), absl::Seconds(10));
    const double ms = absl::ToDoubleMilliseconds(absl::Now() - start);
    rows.push_back({{"bookie", b.bookie_id()},
                    {"ok", s.ok()},
                    {"ms", ms},
                    {"error", std::string(s.message())}});
    if (!f->GetBool("json")) {
      out << b.bookie_id() << "\t" << (s.ok() ? "OK" : "FAILED") << "\t" << ms
          << " ms" << (s.ok() ? "" : absl::StrCat("\t", s.message())) << "\n";
    }
    if (!s.ok()) bad.push_back(b.bookie_id() + ": " + std::string(s.message()));
  }
  if (f->GetBool("json")) out << rows.dump(2) << "\n";
  if (!bad.empty()) {
    err << "bkctl bookiesanity: " << bad.size() << " bad: " << bad[0];
    for (size_t i = 1; i < bad.size(); ++i) err << "; " << bad[i];
    err << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace bk::bkctl
