// Master key and password hash (declared in client.h).
//
// BookKeeper derives the master key as SHA-1("ledger" + password); we use
// SHA-256 with the same salt, and store SHA-256(master key) in the
// metadata, so that neither the password nor the key is ever stored.

#include <openssl/evp.h>

#include <string>

#include "client/client.h"

namespace bk::client {
namespace {

std::string Sha256(const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

constexpr char kSalt[] = "ledger";

}  // namespace

std::string MasterKey(const std::string& password) {
  return Sha256(kSalt + password);
}

std::string PasswordHash(const std::string& password) {
  return Sha256(MasterKey(password));
}

}  // namespace bk::client
