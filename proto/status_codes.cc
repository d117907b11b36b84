#include "proto/status_codes.h"

#include <grpcpp/support/status.h>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace bk {
namespace {

constexpr char kWireCodeUrl[] = "bk.proto.StatusCode";

absl::StatusCode AbslCodeFor(proto::StatusCode code) {
  switch (code) {
    case proto::BK_EOK:
      return absl::StatusCode::kOk;
    case proto::BK_ENOLEDGER:
    case proto::BK_ENOENTRY:
      return absl::StatusCode::kNotFound;
    case proto::BK_EBADREQ:
      return absl::StatusCode::kInvalidArgument;
    case proto::BK_EIO:
      return absl::StatusCode::kInternal;
    case proto::BK_EUA:
      return absl::StatusCode::kPermissionDenied;
    case proto::BK_EBADVERSION:
      return absl::StatusCode::kAborted;
    case proto::BK_EFENCED:
      return absl::StatusCode::kFailedPrecondition;
    case proto::BK_EREADONLY:
    case proto::BK_EUNKNOWNLEDGERSTATE:
      return absl::StatusCode::kUnavailable;
    case proto::BK_ETOOMANYREQUESTS:
      return absl::StatusCode::kResourceExhausted;
    default:
      return absl::StatusCode::kUnknown;
  }
}

}  // namespace

const char* WireCodeName(proto::StatusCode code) {
  switch (code) {
    case proto::BK_EOK:
      return "EOK";
    case proto::BK_ENOLEDGER:
      return "ENOLEDGER";
    case proto::BK_ENOENTRY:
      return "ENOENTRY";
    case proto::BK_EBADREQ:
      return "EBADREQ";
    case proto::BK_EIO:
      return "EIO";
    case proto::BK_EUA:
      return "EUA";
    case proto::BK_EBADVERSION:
      return "EBADVERSION";
    case proto::BK_EFENCED:
      return "EFENCED";
    case proto::BK_EREADONLY:
      return "EREADONLY";
    case proto::BK_ETOOMANYREQUESTS:
      return "ETOOMANYREQUESTS";
    case proto::BK_EUNKNOWNLEDGERSTATE:
      return "EUNKNOWNLEDGERSTATE";
    default:
      return "EUNKNOWN";
  }
}

absl::Status ToAbsl(proto::StatusCode code, absl::string_view message) {
  if (code == proto::BK_EOK) return absl::OkStatus();
  absl::Status s(AbslCodeFor(code),
                 absl::StrCat(WireCodeName(code), ": ", message));
  s.SetPayload(kWireCodeUrl, absl::Cord(absl::StrCat(static_cast<int>(code))));
  return s;
}

proto::StatusCode ToWire(const absl::Status& status) {
  if (status.ok()) return proto::BK_EOK;
  if (auto p = status.GetPayload(kWireCodeUrl); p.has_value()) {
    int v = 0;
    for (char c : std::string(*p)) v = v * 10 + (c - '0');
    if (proto::StatusCode_IsValid(v)) return static_cast<proto::StatusCode>(v);
  }
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      return proto::BK_ENOENTRY;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return proto::BK_EBADREQ;
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
      return proto::BK_EUA;
    case absl::StatusCode::kAborted:
      return proto::BK_EBADVERSION;
    // kFailedPrecondition: only a fence is EFENCED, and fences carry
    // their wire code; any other (a stopped journal) is a storage failure.
    case absl::StatusCode::kUnavailable:
      return proto::BK_EREADONLY;
    case absl::StatusCode::kResourceExhausted:
      return proto::BK_ETOOMANYREQUESTS;
    default:
      return proto::BK_EIO;  // kInternal, kDataLoss, kUnknown, ...
  }
}

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  // gRPC and Abseil share the canonical code numbering.
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

}  // namespace bk
