// bkctl bookiesanity: on each bookie in turn, a one-bookie ledger (E=W=A=1)
// is created in the metadata store, one entry is added and read back over
// the bookie's own wire protocol, and the ledger is deleted. The placement
// policy is bypassed on purpose: the point is to test *that* bookie.

#include <grpcpp/grpcpp.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "proto/bookie.grpc.pb.h"
#include "proto/entry_format.h"
#include "proto/status_codes.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"

namespace bk::bkctl {
namespace {

constexpr char kPassword[] = "bkctl-bookiesanity";

// Add entry 0 of ledger `id` on the bookie at `endpoint`, read it back.
absl::Status AddAndRead(const std::string& endpoint, int64_t id) {
  auto stub = proto::Bookie::NewStub(
      grpc::CreateChannel(endpoint, grpc::InsecureChannelCredentials()));
  const std::string payload = absl::StrCat("bookiesanity ledger ", id);
  entry::EntryHeader h{static_cast<uint64_t>(id), 0, -1, payload.size()};
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(10));
    auto stream = stub->AddEntries(&ctx);
    proto::AddRequest req;
    proto::AddEntry* e = req.add_entries();
    e->set_ledger_id(static_cast<uint64_t>(id));
    e->set_entry_id(0);
    e->set_master_key(client::MasterKey(kPassword));
    e->set_body(entry::Package(h, payload, entry::DigestType::kCrc32c));
    if (!stream->Write(req)) {
      return absl::UnavailableError(
          absl::StrCat("add: ", FromGrpc(stream->Finish()).message()));
    }
    stream->WritesDone();
    proto::AddResponse resp;
    bool got = false;
    while (!got && stream->Read(&resp)) got = resp.results_size() > 0;
    grpc::Status fin = stream->Finish();
    if (!got) {
      return absl::UnavailableError(absl::StrCat(
          "add: no answer: ", fin.ok() ? "stream ended" : fin.error_message()));
    }
    if (resp.results(0).status() != proto::BK_EOK) {
      return ToAbsl(resp.results(0).status(), "add");
    }
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  proto::ReadEntryRequest rq;
  rq.set_ledger_id(static_cast<uint64_t>(id));
  rq.set_entry_id(0);
  proto::ReadEntryResponse rr;
  grpc::Status s = stub->ReadEntry(&ctx, rq, &rr);
  if (!s.ok()) {
    return absl::UnavailableError(
        absl::StrCat("read: ", FromGrpc(s).message()));
  }
  if (rr.status() != proto::BK_EOK) return ToAbsl(rr.status(), "read");
  auto d = entry::Decode(rr.body(), entry::DigestType::kCrc32c,
                         static_cast<uint64_t>(id), 0);
  if (!d.ok()) return d.status();
  if (d->payload != payload) return absl::DataLossError("read: entry differs");
  return absl::OkStatus();
}

}  // namespace

int BookieSanity(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  auto f = ParseFlags(
      args, {{"metadata-uri", true, "metadata store"},
             {"json", false, "print JSON", true},
             {"bookies", false, "comma-separated ids (every writable one)"}});
  auto fail = [&](const absl::Status& s) {
    err << "bkctl bookiesanity: " << s.message() << "\n";
    return absl::IsInvalidArgument(s) ? kExitUsage : kExitFailure;
  };
  if (!f.ok()) return fail(f.status());
  auto wanted = f->GetList("bookies");
  if (!wanted.ok()) return fail(wanted.status());
  metadata::OpenOptions mo;
  mo.connect_timeout = absl::Seconds(5);
  auto store = metadata::Open(f->Get("metadata-uri"), mo);
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
    absl::Status s;
    auto id = (*store)->NewLedgerId();
    if (!id.ok()) return fail(id.status());
    proto::LedgerMetadata md;
    md.set_ensemble_size(1);
    md.set_write_quorum_size(1);
    md.set_ack_quorum_size(1);
    auto* seg = md.add_segments();
    seg->set_first_entry_id(0);
    seg->add_bookies(b.bookie_id());
    md.set_state(proto::OPEN);
    md.set_last_entry_id(-1);
    md.set_digest_type(proto::CRC32C);
    md.set_password_hash(client::PasswordHash(kPassword));
    md.set_ctime_ms(absl::ToUnixMillis(absl::Now()));
    (*md.mutable_custom_metadata())["application"] = "bkctl-bookiesanity";
    auto version = (*store)->CreateLedger(*id, md);
    if (!version.ok()) return fail(version.status());
    s = AddAndRead(b.grpc_endpoint(), *id);
    absl::Status del = (*store)->DeleteLedger(*id, *version);
    if (s.ok() && !del.ok()) s = del;
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
