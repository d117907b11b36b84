#include "common/env.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "test/support/temp_dir.h"

namespace bk {
namespace {

TEST_CASE("posix env appends, syncs and reads back a file", "[common][env]") {
  testing::TempDir dir;
  Env* env = Env::Default();
  const std::string path = dir.Sub("f");
  auto w = env->NewWritableFile(path);
  REQUIRE(w.ok());
  REQUIRE((*w)->Append("hello ").ok());
  struct iovec iov[2] = {{const_cast<char*>("wor"), 3},
                         {const_cast<char*>("ld"), 2}};
  REQUIRE((*w)->AppendV(iov, 2).ok());
  REQUIRE((*w)->Sync().ok());
  CHECK((*w)->Size() == 11);
  REQUIRE((*w)->Close().ok());
  auto content = env->ReadFileToString(path);
  REQUIRE(content.ok());
  CHECK(*content == "hello world");
}

TEST_CASE(
    "a write-back, waited for or not, leaves a file's bytes as they were "
    "appended",
    "[common][env]") {
  testing::TempDir dir(testing::TempDir::Where::kDisk);
  Env* env = Env::Default();
  const std::string path = dir.Sub("f");
  auto w = env->NewWritableFile(path);
  REQUIRE(w.ok());
  std::string want;
  for (int chunk = 0; chunk < 3; ++chunk) {
    const std::string bytes(64 << 10, static_cast<char>('a' + chunk));
    REQUIRE((*w)->Append(bytes).ok());
    const uint64_t offset = want.size();
    want += bytes;
    REQUIRE((*w)->Writeback(offset, bytes.size(), /*wait=*/false).ok());
    if (chunk > 0) {
      REQUIRE((*w)->Writeback(offset - bytes.size(), bytes.size(),
                              /*wait=*/true)
                  .ok());
    }
  }
  CHECK((*w)->Writeback(want.size(), 0, /*wait=*/true).ok());
  REQUIRE((*w)->Sync().ok());
  REQUIRE((*w)->Close().ok());
  auto content = env->ReadFileToString(path);
  REQUIRE(content.ok());
  CHECK(*content == want);
}

// Descriptors of this process open on `path`.
size_t FdsOn(const std::string& path) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    std::error_code link_ec;
    const auto target = std::filesystem::read_symlink(e.path(), link_ec);
    if (!link_ec && target == path) ++n;
  }
  return n;
}

// Threads that each sync `file` `each` times, then go on syncing until
// Finish(), which joins them and returns how many syncs failed.
class Syncers {
 public:
  Syncers(WritableFile* file, int threads, int each) {
    for (int t = 0; t < threads; ++t) {
      threads_.emplace_back([this, file, each] {
        for (int i = 0; i < each; ++i) {
          if (!file->Sync().ok()) failed_.fetch_add(1);
        }
        while (more_.load()) {
          if (!file->Sync().ok()) failed_.fetch_add(1);
        }
      });
    }
  }
  int Finish() {
    more_.store(false);
    for (auto& t : threads_) t.join();
    threads_.clear();
    return failed_.load();
  }
  ~Syncers() {
    if (!threads_.empty()) Finish();
  }

 private:
  std::atomic<int> failed_{0};
  std::atomic<bool> more_{true};
  std::vector<std::thread> threads_;
};

TEST_CASE(
    "syncs of one file run at once beside its appends, and the descriptors "
    "they open close with the file",
    "[common][env]") {
  testing::TempDir dir;
  Env* env = Env::Default();
  const std::string path = dir.Sub("f");
  auto w = env->NewWritableFile(path);
  REQUIRE(w.ok());
  WritableFile* file = w->get();
  Syncers syncers(file, /*threads=*/3, /*each=*/40);
  std::string expected;
  for (int i = 0; i < 2000; ++i) {
    const std::string record = "record " + std::to_string(i) + "\n";
    REQUIRE(file->Append(record).ok());
    expected += record;
  }
  CHECK(syncers.Finish() == 0);
  REQUIRE(file->Sync().ok());
  const std::string real = std::filesystem::canonical(path).string();
  CHECK(FdsOn(real) >= 1);  // the writing descriptor, and any sync ones
  REQUIRE(file->Close().ok());
  CHECK(FdsOn(real) == 0);
  auto content = env->ReadFileToString(path);
  REQUIRE(content.ok());
  CHECK(*content == expected);
}

TEST_CASE(
    "concurrent syncs of a file renamed away never open the file now at its "
    "old path",
    "[common][env]") {
  testing::TempDir dir;
  Env* env = Env::Default();
  const std::string path = dir.Sub("f");
  auto w = env->NewWritableFile(path);
  REQUIRE(w.ok());
  WritableFile* file = w->get();
  REQUIRE(file->Append("original").ok());
  REQUIRE(env->RenameFile(path, dir.Sub("moved")).ok());
  auto other = env->NewWritableFile(path);  // a different file, same path
  REQUIRE(other.ok());
  const std::string replacement = std::filesystem::canonical(path).string();
  Syncers syncers(file, /*threads=*/3, /*each=*/30);
  CHECK(syncers.Finish() == 0);
  // Only the replacement's own writer has it open.
  CHECK(FdsOn(replacement) == 1);
  REQUIRE(file->Close().ok());
  REQUIRE((*other)->Close().ok());
}

TEST_CASE("appendable file continues at the end of an existing file",
          "[common][env]") {
  testing::TempDir dir;
  Env* env = Env::Default();
  const std::string path = dir.Sub("f");
  REQUIRE(env->WriteFileAtomic(path, "abc").ok());
  auto w = env->NewAppendableFile(path);
  REQUIRE(w.ok());
  CHECK((*w)->Size() == 3);
  REQUIRE((*w)->Append("def").ok());
  REQUIRE((*w)->Close().ok());
  CHECK(*env->ReadFileToString(path) == "abcdef");
}

TEST_CASE("atomic write replaces the whole file and leaves no temp file",
          "[common][env]") {
  testing::TempDir dir;
  Env* env = Env::Default();
  const std::string path = dir.Sub("cookie");
  REQUIRE(env->WriteFileAtomic(path, "first version").ok());
  REQUIRE(env->WriteFileAtomic(path, "v2").ok());
  CHECK(*env->ReadFileToString(path) == "v2");
  auto children = env->GetChildren(dir.path());
  REQUIRE(children.ok());
  CHECK(children->size() == 1);
}

TEST_CASE("missing files give NotFound naming the path", "[common][env]") {
  Env* env = Env::Default();
  auto r = env->NewRandomAccessFile("/nonexistent/dir/file");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(r.status().message()).find("/nonexistent/dir/file") !=
        std::string::npos);
}

TEST_CASE("directory helpers create, list, rename, truncate and remove",
          "[common][env]") {
  testing::TempDir dir;
  Env* env = Env::Default();
  REQUIRE(env->CreateDirRecursive(dir.Sub("a/b/c")).ok());
  REQUIRE(env->CreateDir(dir.Sub("a")).ok());  // exists: fine
  REQUIRE(env->WriteFileAtomic(dir.Sub("a/b/c/x"), "123456").ok());
  REQUIRE(env->RenameFile(dir.Sub("a/b/c/x"), dir.Sub("a/y")).ok());
  CHECK_FALSE(env->FileExists(dir.Sub("a/b/c/x")));
  REQUIRE(env->Truncate(dir.Sub("a/y"), 2).ok());
  CHECK(*env->GetFileSize(dir.Sub("a/y")) == 2);
  REQUIRE(env->SyncDir(dir.Sub("a")).ok());
  auto fs = env->GetFsStats(dir.path());
  REQUIRE(fs.ok());
  CHECK(fs->total_bytes >= fs->free_bytes);
  CHECK(fs->total_bytes > 0);
  REQUIRE(env->RemoveDirRecursive(dir.Sub("a")).ok());
  CHECK_FALSE(env->FileExists(dir.Sub("a")));
}

TEST_CASE("monotonic clock never goes backwards", "[common][env]") {
  Env* env = Env::Default();
  int64_t a = env->NowMonotonicNanos();
  int64_t b = env->NowMonotonicNanos();
  CHECK(b >= a);
}

}  // namespace
}  // namespace bk
