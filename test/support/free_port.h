// PickFreePort: a loopback TCP port that was free a moment ago, for tests
// that start servers on ports of their own choosing.

#ifndef BK_TEST_SUPPORT_FREE_PORT_H_
#define BK_TEST_SUPPORT_FREE_PORT_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/statusor.h"

namespace bk::testing {

// Binds port 0 on 127.0.0.1, reads the port the kernel chose, and closes
// the socket. Another process may take the port before the caller does.
inline absl::StatusOr<int> PickFreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError(std::strerror(errno));
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int e = errno;
    close(fd);
    return absl::InternalError(std::strerror(e));
  }
  close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_FREE_PORT_H_
