#include "bench/background_writer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "common/env.h"

namespace bk::bench {

BackgroundWriter::BackgroundWriter(std::string path, int mb_per_s)
    : path_(std::move(path)), mb_per_s_(mb_per_s) {
  if (mb_per_s_ > 0) thread_ = std::thread([this] { Run(); });
}

BackgroundWriter::~BackgroundWriter() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  Env::Default()->RemoveFile(path_).IgnoreError();
}

void BackgroundWriter::Run() {
  using Clock = std::chrono::steady_clock;
  auto f = Env::Default()->NewWritableFile(path_);
  if (!f.ok()) {
    std::fprintf(stderr, "background writer: %s\n",
                 f.status().ToString().c_str());
    std::exit(1);
  }
  const std::string chunk(1 << 20, 'b');
  const auto start = Clock::now();
  uint64_t written = 0;
  while (!stop_.load()) {
    const auto due = std::chrono::duration<double>(
        static_cast<double>(written) / 1e6 / mb_per_s_);
    if (Clock::now() - start < due) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      continue;
    }
    if (!(*f)->Append(chunk).ok() || !(*f)->Sync().ok()) {
      std::fprintf(stderr, "background writer: write or sync failed\n");
      std::exit(1);
    }
    (*f)->DropCachedRange(written, chunk.size());
    written += chunk.size();
  }
  (*f)->Close().IgnoreError();
}

}  // namespace bk::bench
