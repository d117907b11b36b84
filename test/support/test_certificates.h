// Certificates for TLS tests, made with the openssl tool in a test's own
// directory: a CA (ca.pem, ca.key); a server certificate for 127.0.0.1 and
// localhost (server.pem, server.key; extendedKeyUsage serverAuth); a client
// certificate (client.pem, client.key; clientAuth). Both are signed by the
// CA and valid for two days; the keys are mode 0600.

#ifndef BK_TEST_SUPPORT_TEST_CERTIFICATES_H_
#define BK_TEST_SUPPORT_TEST_CERTIFICATES_H_

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"

namespace bk::testing {

// OK, or kInternal with openssl's output (dir/openssl.log).
inline absl::Status MakeTestCertificates(const std::string& dir) {
  std::ofstream(dir + "/san.ext")
      << "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
         "extendedKeyUsage=serverAuth\n";
  std::ofstream(dir + "/client.ext") << "extendedKeyUsage=clientAuth\n";
  const std::string script =
      "set -e; cd '" + dir +
      "'; "
      "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "
      "'/CN=bk-test-ca' -keyout ca.key -out ca.pem; "
      "openssl req -newkey rsa:2048 -nodes -subj '/CN=localhost' "
      "-keyout server.key -out server.csr; "
      "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key "
      "-CAcreateserial -days 2 -extfile san.ext -out server.pem; "
      "openssl req -newkey rsa:2048 -nodes -subj '/CN=bk-client' "
      "-keyout client.key -out client.csr; "
      "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key "
      "-CAcreateserial -days 2 -extfile client.ext -out client.pem; "
      "chmod 600 *.key";
  const std::string log = dir + "/openssl.log";
  const std::string cmd = "(" + script + ") >'" + log + "' 2>&1";
  if (std::system(cmd.c_str()) == 0) return absl::OkStatus();
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  return absl::InternalError("openssl failed: " + ss.str());
}

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_TEST_CERTIFICATES_H_
