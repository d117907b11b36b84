// The client's configuration keys (client_config.cc), each bound once to
// its ClientOptions field: the table behind ClientOptionsFromKeys,
// ClientConfigHelp and client/CONFIG.md. Not installed: library users call
// ClientOptionsFromKeys (client_options.h).

#ifndef BK_CLIENT_CLIENT_CONFIG_H_
#define BK_CLIENT_CLIENT_CONFIG_H_

#include "client/client_options.h"
#include "common/config_table.h"

namespace bk::client {

// Built on first use, never destroyed.
const ConfigTable<ClientOptions>& ClientConfigTable();

}  // namespace bk::client

#endif  // BK_CLIENT_CLIENT_CONFIG_H_
