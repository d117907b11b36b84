// The channel settings of a connection to a bookie, from the client's TLS
// options: one place that turns TlsClientOptions into gRPC credentials, used
// by the Client's connection pool and by BookieAdmin alike.

#ifndef BK_CLIENT_INTERNAL_CHANNEL_CONFIG_H_
#define BK_CLIENT_INTERNAL_CHANNEL_CONFIG_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "client/client_options.h"
#include "client/internal/bookie_client.h"

namespace bk::client::internal {

// Plaintext when tls.ca_file is empty; otherwise TLS trusting tls.ca_file,
// with the client certificate and key for mutual TLS when tls.cert_file is
// set. kNotFound naming a PEM file that cannot be read.
absl::StatusOr<ChannelConfig> MakeChannelConfig(const TlsClientOptions& tls,
                                                int64_t max_batch_bytes);

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_CHANNEL_CONFIG_H_
