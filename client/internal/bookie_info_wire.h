// A bookie's GetBookieInfo answer read off the wire, for the operator API
// (client::BookieInfo) and for placement (placement::BookieInfo).
//
// Every figure a bookie cannot measure is -1 on the wire. A figure it did
// not send at all (a bookie from before that field existed: the fields are
// `optional` in proto/bookie.proto, so absence is seen) is read as -1 too,
// never as proto3's 0, which would make an older bookie look idle to
// placement and show 0 MiB/s to an operator.

#ifndef BK_CLIENT_INTERNAL_BOOKIE_INFO_WIRE_H_
#define BK_CLIENT_INTERNAL_BOOKIE_INFO_WIRE_H_

#include "client/bookie_admin.h"
#include "placement/types.h"
#include "proto/bookie.pb.h"

namespace bk::client::internal {

BookieInfo BookieInfoFromWire(const proto::GetBookieInfoResponse& r);

// The placement module's view of a load report.
placement::BookieInfo ToPlacementInfo(const proto::GetBookieInfoResponse& r);

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_BOOKIE_INFO_WIRE_H_
