#include "common/env.h"

#include <cerrno>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"

namespace bk {

absl::Status PosixError(absl::string_view op, absl::string_view path,
                        int error_number) {
  std::string msg =
      absl::StrCat(op, " ", path, ": ", std::strerror(error_number));
  switch (error_number) {
    case ENOENT:
      return absl::NotFoundError(msg);
    case EEXIST:
      return absl::AlreadyExistsError(msg);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(msg);
    case ENOSPC:
    case EDQUOT:
      return absl::ResourceExhaustedError(msg);
    default:
      return absl::InternalError(msg);
  }
}

absl::StatusOr<std::unique_ptr<WritableFile>> Env::NewDirectWritableFile(
    const std::string& path) {
  return absl::UnimplementedError(
      absl::StrCat("direct writes are not offered for ", path));
}

absl::StatusOr<std::unique_ptr<WritableFile>> Env::ReopenWritableFile(
    const std::string& path, bool /*direct*/) {
  return absl::UnimplementedError(
      absl::StrCat("this Env cannot reopen ", path, " for overwriting"));
}

absl::Status Env::WriteFileAtomic(const std::string& path,
                                  absl::string_view data) {
  const std::string tmp = absl::StrCat(path, ".tmp");
  auto file = NewWritableFile(tmp);
  if (!file.ok()) return file.status();
  absl::Status s = (*file)->Append(data);
  if (s.ok()) s = (*file)->Sync(/*metadata=*/true);
  absl::Status c = (*file)->Close();
  if (s.ok()) s = c;
  if (!s.ok()) {
    RemoveFile(tmp).IgnoreError();  // best effort; the target is untouched
    return s;
  }
  s = RenameFile(tmp, path);
  if (!s.ok()) return s;
  const size_t slash = path.find_last_of('/');
  return SyncDir(slash == std::string::npos ? "." : path.substr(0, slash));
}

absl::StatusOr<std::string> Env::ReadFileToString(const std::string& path) {
  auto file = NewRandomAccessFile(path);
  if (!file.ok()) return file.status();
  auto size = (*file)->Size();
  if (!size.ok()) return size.status();
  std::string out(*size, '\0');
  size_t done = 0;
  while (done < out.size()) {
    auto n = (*file)->Read(done, out.size() - done, out.data() + done);
    if (!n.ok()) return n.status();
    if (*n == 0) break;  // shrank underneath us
    done += *n;
  }
  out.resize(done);
  return out;
}

}  // namespace bk
