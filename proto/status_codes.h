// The one place where the wire's status codes (proto::StatusCode), Abseil's
// status codes and gRPC's status codes meet.
//
// Our code passes absl::Status everywhere. A Status made by ToAbsl carries
// its wire code as a payload, so the round trip wire -> absl -> wire is
// exact; for any other Status the code is chosen by Abseil's retry guide:
//
//   wire code            absl code             why
//   EOK                  kOk
//   ENOLEDGER            kNotFound             missing
//   ENOENTRY             kNotFound             missing
//   EBADREQ              kInvalidArgument      the caller's fault; don't retry
//   EIO                  kInternal             storage failure; try a replica
//   EUA                  kPermissionDenied     bad master key
//   EBADVERSION          kAborted              version conflict; retry higher
//   EFENCED              kFailedPrecondition   fenced; the writer must stop
//   EREADONLY            kUnavailable          go to another bookie
//   ETOOMANYREQUESTS     kResourceExhausted    overloaded; back off
//   EUNKNOWNLEDGERSTATE  kUnavailable          not ready yet; retry
//
// kDataLoss (a digest mismatch) maps to EIO on the wire. So does a plain
// kFailedPrecondition: EFENCED only ever comes from ToAbsl(BK_EFENCED, ...)
// (a fence), never from another unmet precondition such as a stopped
// journal, which must not tell a writer that its ledger is fenced.

#ifndef BK_PROTO_STATUS_CODES_H_
#define BK_PROTO_STATUS_CODES_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/bookie.pb.h"

namespace grpc {
class Status;
}  // namespace grpc

namespace bk {

// The wire code's name ("EFENCED"), for logs and errors.
const char* WireCodeName(proto::StatusCode code);

// Makes an absl::Status for a wire code; `message` says what failed (ledger,
// entry, bookie). EOK gives OkStatus().
absl::Status ToAbsl(proto::StatusCode code, absl::string_view message);

// The wire code for a Status: its payload if ToAbsl made it, else by the
// table above.
proto::StatusCode ToWire(const absl::Status& status);

// gRPC transport status <-> absl. A transport failure (UNAVAILABLE,
// DEADLINE_EXCEEDED, ...) keeps its meaning.
grpc::Status ToGrpc(const absl::Status& status);
absl::Status FromGrpc(const grpc::Status& status);

}  // namespace bk

#endif  // BK_PROTO_STATUS_CODES_H_
