#include "client/client.h"

#include <prometheus/registry.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/internal/client_context.h"
#include "client/internal/errors.h"
#include "client/internal/placement_probe.h"
#include "client/internal/read_handle.h"
#include "client/internal/recovery.h"
#include "client/internal/write_handle.h"
#include "common/logging.h"

namespace bk::client {

using internal::Annotate;

namespace {

// What the placement policy is told of a ledger created with `o`.
placement::LedgerHints HintsOf(const CreateLedgerOptions& o) {
  placement::LedgerHints hints;
  hints.custom_metadata = o.custom_metadata;
  hints.expected_write_bytes_per_second = o.expected_write_bytes_per_second;
  return hints;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Client>> Client::Create(ClientOptions options) {
  auto ctx = internal::ClientContext::Create(std::move(options));
  if (!ctx.ok()) return ctx.status();
  return std::unique_ptr<Client>(new Client(std::move(*ctx)));
}

Client::Client(std::shared_ptr<internal::ClientContext> ctx)
    : ctx_(std::move(ctx)) {}

Client::~Client() { ctx_->Shutdown(); }

absl::StatusOr<std::unique_ptr<LedgerWriter>> Client::CreateLedger(
    const CreateLedgerOptions& o) {
  if (!(1 <= o.ack_quorum && o.ack_quorum <= o.write_quorum &&
        o.write_quorum <= o.ensemble_size && o.ensemble_size <= 64)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "need 1 <= ack quorum <= write quorum <= ensemble size <= 64, got E=",
        o.ensemble_size, " WQ=", o.write_quorum, " AQ=", o.ack_quorum));
  }
  const placement::LedgerHints hints = HintsOf(o);
  // Probe on placement: fresh reports from a few candidates (none unless
  // the adaptive weighting has probe candidates), at most
  // placement_probe_timeout.
  const std::vector<std::string> candidates =
      ctx_->cluster()->ProbeCandidates(o.ensemble_size, o.write_quorum, hints);
  const std::vector<internal::ProbeAnswer> answers =
      internal::ProbeForPlacement(ctx_.get(), candidates,
                                  ctx_->options().placement_probe_timeout);
  auto placement = ctx_->cluster()->NewEnsemble(o.ensemble_size, o.write_quorum,
                                                o.ack_quorum, hints, answers);
  if (!placement.ok()) return placement.status();
  // The policy counts the new ledger on its bookies from here; a ledger
  // that is never created must not keep counting until reports catch up.
  auto withdraw = [&] {
    ctx_->cluster()->OnLedgerClosed(placement->ensemble, o.write_quorum, hints);
  };
  auto id = ctx_->store()->NewLedgerId();
  if (!id.ok()) {
    withdraw();
    return id.status();
  }
  proto::LedgerMetadata md;
  md.set_ensemble_size(o.ensemble_size);
  md.set_write_quorum_size(o.write_quorum);
  md.set_ack_quorum_size(o.ack_quorum);
  proto::Segment* seg = md.add_segments();
  seg->set_first_entry_id(0);
  for (const auto& b : placement->ensemble) seg->add_bookies(b);
  md.set_state(proto::OPEN);
  md.set_last_entry_id(-1);
  md.set_digest_type(static_cast<proto::DigestType>(o.digest));
  md.set_password_hash(PasswordHash(o.password));
  md.set_ctime_ms(absl::ToUnixMillis(ctx_->Now()));
  for (const auto& [k, v] : o.custom_metadata) {
    (*md.mutable_custom_metadata())[k] = v;
  }
  for (const auto& [bookie, note] : placement->notes) {
    (*md.mutable_placement_notes())[bookie] = note;
  }
  md.set_metadata_format_version(1);
  auto version = ctx_->store()->CreateLedger(*id, md);
  if (!version.ok()) {
    withdraw();
    return Annotate(version.status(), *id);
  }
  if (ctx_->feed() != nullptr) {
    ctx_->feed()->Announce(*id, placement->ensemble, o.write_quorum,
                           o.expected_write_bytes_per_second);
  }
  bk::log::Get("client")->info("ledger={} created on [{}] E={} WQ={} AQ={}",
                               *id, absl::StrJoin(placement->ensemble, ","),
                               o.ensemble_size, o.write_quorum, o.ack_quorum);
  auto handle = std::make_shared<internal::WriteHandle>(
      ctx_.get(), *id,
      metadata::Versioned<proto::LedgerMetadata>{std::move(md), *version},
      MasterKey(o.password), o.expected_write_bytes_per_second);
  handle->Start();
  ctx_->RegisterWriter(handle);
  return std::make_unique<LedgerWriter>(std::move(handle));
}

absl::StatusOr<std::unique_ptr<LedgerReader>> Client::OpenLedger(
    int64_t id, const std::string& password, bool recover) {
  auto md = ctx_->store()->ReadLedger(id);
  if (!md.ok()) return Annotate(md.status(), id);
  if (md->value.password_hash() != PasswordHash(password)) {
    return Annotate(absl::PermissionDeniedError("wrong password"), id);
  }
  if (recover && md->value.state() != proto::CLOSED) {
    auto recovered = internal::RecoverLedger(ctx_.get(), id, std::move(*md),
                                             MasterKey(password));
    if (!recovered.ok()) return recovered.status();
    md = std::move(recovered);
  }
  auto handle =
      std::make_shared<internal::ReadHandle>(ctx_.get(), id, std::move(*md));
  handle->Start();
  return std::make_unique<LedgerReader>(std::move(handle));
}

absl::StatusOr<std::unique_ptr<LedgerReader>> Client::OpenLedgerForAdmin(
    int64_t id) {
  auto md = ctx_->store()->ReadLedger(id);
  if (!md.ok()) return Annotate(md.status(), id);
  auto handle =
      std::make_shared<internal::ReadHandle>(ctx_.get(), id, std::move(*md));
  handle->Start();
  return std::make_unique<LedgerReader>(std::move(handle));
}

absl::Status Client::DeleteLedger(int64_t id) {
  return Annotate(ctx_->store()->DeleteLedger(id, metadata::kAnyVersion), id);
}

absl::StatusOr<std::vector<int64_t>> Client::ListLedgers() {
  auto it = ctx_->store()->ListLedgers();
  std::vector<int64_t> out;
  metadata::LedgerId id;
  while (it->Next(&id)) out.push_back(id);
  if (!it->status().ok()) return it->status();
  return out;
}

std::vector<std::string> Client::QuarantinedBookies() const {
  return ctx_->cluster()->Quarantined();
}

std::map<std::string, double> Client::PlacementLoadEstimates() const {
  return ctx_->cluster()->EstimatedLoads();
}

std::map<std::string, std::string> Client::PlacementLeftOut(
    const CreateLedgerOptions& options) const {
  return ctx_->cluster()->PlacementLeftOut(
      HintsOf(options), options.ensemble_size, options.write_quorum);
}

std::shared_ptr<prometheus::Registry> Client::metrics_registry() const {
  return ctx_->probe()->registry();
}

uint64_t Client::seed() const { return ctx_->seed(); }

}  // namespace bk::client
