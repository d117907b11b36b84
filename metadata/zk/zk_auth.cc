#include "metadata/zk/zk_auth.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace bk::metadata {

absl::StatusOr<std::string> ReadZkDigestFile(const std::string& path) {
  auto bad = [&path](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("zkDigestFile ", path, ": ", why));
  };
  if (path.empty()) return bad("zkEnableSecurity=true needs a zkDigestFile");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return bad(std::strerror(errno));
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return bad(
        "the credentials file is open to group or others; make it "
        "readable by the bookie's user only (chmod 600)");
  }
  std::ifstream in(path);
  if (!in) return bad(std::strerror(errno));
  std::stringstream content;
  content << in.rdbuf();
  const std::string text(absl::StripAsciiWhitespace(content.str()));
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size() ||
      text.find_first_of("\n\r") != std::string::npos) {
    return bad("expected one line \"user:password\"");
  }
  return text;
}

}  // namespace bk::metadata
