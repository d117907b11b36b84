#include "proto/status_codes.h"

#include <grpcpp/support/status.h>

#include <catch2/catch.hpp>

namespace bk {
namespace {

TEST_CASE("every wire code survives the round trip through absl::Status",
          "[proto][status]") {
  for (int c = proto::StatusCode_MIN; c <= proto::StatusCode_MAX; ++c) {
    auto code = static_cast<proto::StatusCode>(c);
    absl::Status s = ToAbsl(code, "ledger 1 entry 2");
    CHECK(ToWire(s) == code);
    if (code != proto::BK_EOK) {
      CHECK(std::string(s.message()).find(WireCodeName(code)) == 0);
    }
  }
}

TEST_CASE("wire codes map to absl codes by the retry guide",
          "[proto][status]") {
  CHECK(ToAbsl(proto::BK_EFENCED, "").code() ==
        absl::StatusCode::kFailedPrecondition);
  CHECK(ToAbsl(proto::BK_EUA, "").code() ==
        absl::StatusCode::kPermissionDenied);
  CHECK(ToAbsl(proto::BK_ENOENTRY, "").code() == absl::StatusCode::kNotFound);
  CHECK(ToAbsl(proto::BK_ETOOMANYREQUESTS, "").code() ==
        absl::StatusCode::kResourceExhausted);
  CHECK(ToAbsl(proto::BK_EREADONLY, "").code() ==
        absl::StatusCode::kUnavailable);
}

TEST_CASE("plain absl statuses pick a wire code by their absl code",
          "[proto][status]") {
  CHECK(ToWire(absl::OkStatus()) == proto::BK_EOK);
  CHECK(ToWire(absl::DataLossError("crc")) == proto::BK_EIO);
  CHECK(ToWire(absl::InternalError("io")) == proto::BK_EIO);
  CHECK(ToWire(absl::InvalidArgumentError("x")) == proto::BK_EBADREQ);
  CHECK(ToWire(absl::ResourceExhaustedError("x")) ==
        proto::BK_ETOOMANYREQUESTS);
}

TEST_CASE(
    "only a fence is EFENCED: another failed precondition (a stopped "
    "journal) is EIO",
    "[proto][status]") {
  CHECK(ToWire(ToAbsl(proto::BK_EFENCED, "ledger 3")) == proto::BK_EFENCED);
  CHECK(ToWire(absl::FailedPreconditionError("journal /j is stopped")) ==
        proto::BK_EIO);
  CHECK(ToWire(absl::FailedPreconditionError("journal not started")) ==
        proto::BK_EIO);
}

TEST_CASE("grpc and absl statuses convert both ways keeping code and text",
          "[proto][status]") {
  absl::Status s = absl::UnavailableError("bookie down");
  grpc::Status g = ToGrpc(s);
  CHECK(g.error_code() == grpc::StatusCode::UNAVAILABLE);
  CHECK(g.error_message() == "bookie down");
  absl::Status back = FromGrpc(g);
  CHECK(back.code() == absl::StatusCode::kUnavailable);
  CHECK(back.message() == "bookie down");
  CHECK(FromGrpc(grpc::Status::OK).ok());
}

}  // namespace
}  // namespace bk
