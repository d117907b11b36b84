// A minimal blocking HTTP/1.1 client for tests: GET a path on 127.0.0.1
// (or another IPv4 address), send any method with headers and a body
// (HttpCall), or send raw bytes to a port, with a bounded timeout.

#ifndef BK_TEST_SUPPORT_HTTP_GET_H_
#define BK_TEST_SUPPORT_HTTP_GET_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

namespace bk::testing {

struct HttpReply {
  int status = 0;  // 0: no HTTP answer
  std::string body;
  std::string head;  // status line and headers, as sent
};

// Sends `bytes` to host:port (an IPv4 address, default 127.0.0.1) and
// returns all bytes answered until the peer closes or `timeout_ms` passes. With
// `half_close` the write side is shut after sending; Go servers (Prometheus)
// take that as the client going away and cancel the request, so pass false for
// them.
inline std::string SendRaw(int port, const std::string& bytes,
                           int timeout_ms = 5000, bool half_close = true,
                           const std::string& host = "127.0.0.1") {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  struct timeval tv {
    timeout_ms / 1000, (timeout_ms % 1000) * 1000
  };
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  std::string out;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    close(fd);
    return out;
  }
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n =
          send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    if (half_close) shutdown(fd, SHUT_WR);
    char buf[4096];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, n);
  }
  close(fd);
  return out;
}

inline HttpReply ParseHttpReply(const std::string& raw) {
  HttpReply r;
  if (raw.rfind("HTTP/1.", 0) != 0 || raw.size() < 12) return r;
  r.status = std::stoi(raw.substr(9, 3));
  size_t body = raw.find("\r\n\r\n");
  if (body != std::string::npos) {
    r.head = raw.substr(0, body);
    r.body = raw.substr(body + 4);
  }
  return r;
}

inline HttpReply HttpGet(int port, const std::string& path,
                         bool half_close = true,
                         const std::string& host = "127.0.0.1") {
  return ParseHttpReply(SendRaw(port,
                                "GET " + path +
                                    " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    "Connection: close\r\n\r\n",
                                5000, half_close, host));
}

// `method` `path` with `headers` ("Name" -> value) and `body` (sent with its
// Content-Length) to 127.0.0.1:port.
inline HttpReply HttpCall(
    int port, const std::string& method, const std::string& path,
    const std::map<std::string, std::string>& headers = {},
    const std::string& body = "") {
  std::string req = method + " " + path +
                    " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& [name, value] : headers) req += name + ": " + value + "\r\n";
  req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  req += body;
  return ParseHttpReply(SendRaw(port, req));
}

// The value of the first sample of metric `name` (any labels) on the
// /metrics page served at `port`, or -1 when the page or the metric is
// missing.
inline double MetricValue(int port, const std::string& name) {
  HttpReply r = HttpGet(port, "/metrics");
  if (r.status != 200) return -1;
  size_t at = 0;
  while (at < r.body.size()) {
    size_t end = r.body.find('\n', at);
    if (end == std::string::npos) end = r.body.size();
    const std::string line = r.body.substr(at, end - at);
    at = end + 1;
    if (line.size() <= name.size() || line.compare(0, name.size(), name) != 0) {
      continue;
    }
    const char next = line[name.size()];
    if (next != '{' && next != ' ') continue;
    char* parsed_end = nullptr;
    const std::string value = line.substr(line.rfind(' ') + 1);
    const double v = std::strtod(value.c_str(), &parsed_end);
    if (parsed_end != value.c_str()) return v;
  }
  return -1;
}

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_HTTP_GET_H_
