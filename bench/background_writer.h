// BackgroundWriter: a thread that keeps a disk busy beside the code a
// benchmark measures, the way a bookie's entry-log flush does to a journal
// on the same disk: 1 MiB chunks appended to a file of its own at a fixed
// rate, each synced and then dropped from the page cache.

#ifndef BK_BENCH_BACKGROUND_WRITER_H_
#define BK_BENCH_BACKGROUND_WRITER_H_

#include <atomic>
#include <string>
#include <thread>

namespace bk::bench {

class BackgroundWriter {
 public:
  // Starts writing to `path` at `mb_per_s` (0: writes nothing). A failed
  // write or sync ends the process with a message: a benchmark beside a
  // broken disk measures nothing.
  BackgroundWriter(std::string path, int mb_per_s);
  // Stops, joins and removes the file.
  ~BackgroundWriter();
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

 private:
  void Run();

  const std::string path_;
  const int mb_per_s_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace bk::bench

#endif  // BK_BENCH_BACKGROUND_WRITER_H_
