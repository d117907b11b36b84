// A client that sends adds on one stream and never reads the answers,
// against a real bookie process: the bookie stops reading that stream once
// maxAddsInProgressPerStream adds are unanswered on it, instead of queueing
// answers without bound, and other streams go on.
//
// The figure (hidden test case, run by hand):
//   build/bin/integration_bookie_unread_answers "[figure]" -s
// prints the bookie's RSS after a million unread adds, once with the bound
// lifted (today's behaviour before the bound) and once with the default.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <thread>

#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

// Writes `batches` batches of `per_batch` adds to ledger `ledger` on
// `stream` from its own thread, never reading.
class SilentWriter {
 public:
  SilentWriter(
      grpc::ClientReaderWriter<proto::AddRequest, proto::AddResponse>* stream,
      uint64_t ledger, int batches, int per_batch, size_t size)
      : thread_([=, this] {
          for (int i = 0; i < batches; ++i) {
            proto::AddRequest req;
            for (int k = 0; k < per_batch; ++k) {
              *req.add_entries() =
                  MakeAdd(ledger, int64_t{i} * per_batch + k, "key", size);
            }
            if (!stream->Write(req)) break;
            written_.fetch_add(1);
          }
          done_ = true;
        }) {}
  ~SilentWriter() { Join(); }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  bool done() const { return done_.load(); }
  int written() const { return written_.load(); }

 private:
  std::atomic<int> written_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

TEST_CASE(
    "a stream whose client never reads answers stops being read at the "
    "bound, other streams go on, reading resumes it",
    "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-unread", FreshZkUri("unread")));
  constexpr int64_t kBound = 5000;  // maxAddsInProgressPerStream default
  constexpr int kBatches = 1000, kPerBatch = 100;
  constexpr int64_t kTotal = int64_t{kBatches} * kPerBatch;
  auto stub = ConnectNoBdp(b->grpc_target());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(120)));
  auto stream = stub->AddEntries(&ctx);
  SilentWriter writer(stream.get(), 7, kBatches, kPerBatch, 100);

  // Either the bookie pauses the stream (fixed) or it reads every batch
  // the client sends (unbounded).
  const bool settled = PollUntil(
      [&] {
        return writer.done() ||
               MetricValue(b->http_port(), "bookie_add_streams_paused") >= 1;
      },
      absl::Seconds(60));
  REQUIRE(settled);
  const double received =
      MetricValue(b->http_port(), "bookie_add_batch_entries_sum");
  std::printf(
      "unread answers: %d batches written, %.0f entries received, "
      "bookie RSS %lld KiB\n",
      writer.written(), received,
      static_cast<long long>(ResidentBytes(b->pid()) / 1024));
  CHECK_FALSE(writer.done());
  // The bound, plus what the client's 64 KiB receive window absorbed
  // (about 8,000 answers), plus one batch.
  CHECK(received <= 4 * kBound);

  // A well-behaved stream on another connection is served meanwhile.
  auto other = Connect(b->grpc_target());
  CHECK(AddOne(other.get(), MakeAdd(8, 0)) == proto::BK_EOK);
  CHECK(ReadsBackIntact(other.get(), 8, 0));

  // The client starts reading: the stream resumes and every add is
  // answered.
  int64_t ok = 0, answered = 0;
  proto::AddResponse resp;
  while (answered < kTotal && stream->Read(&resp)) {
    for (const auto& r : resp.results()) {
      ++answered;
      if (r.status() == proto::BK_EOK) ++ok;
    }
  }
  writer.Join();
  CHECK(writer.written() == kBatches);
  stream->WritesDone();
  while (stream->Read(&resp)) answered += resp.results_size();
  CHECK(stream->Finish().ok());
  CHECK(answered == kTotal);
  CHECK(ok == kTotal);
  CHECK(ReadsBackIntact(other.get(), 7, kTotal - 1));
}

// One run of the figure: `flags` for the bookie; returns RSS in KiB once
// the bookie has stopped taking the client's adds (or took all of them).
int64_t UnreadAnswersRss(const std::map<std::string, std::string>& flags,
                         int64_t* received_out) {
  TempDir dir;
  auto b = StartBookie(
      BookieOptions(dir, "bk-unread-fig", FreshZkUri("unread-fig"), flags));
  const int64_t rss_idle = ResidentBytes(b->pid()) / 1024;
  constexpr int kBatches = 1000, kPerBatch = 1000;  // a million adds
  auto stub = ConnectNoBdp(b->grpc_target());
  grpc::ClientContext ctx;
  auto stream = stub->AddEntries(&ctx);
  SilentWriter writer(stream.get(), 9, kBatches, kPerBatch, 16);
  double last = -1;
  PollUntil(
      [&] {
        const double now =
            MetricValue(b->http_port(), "bookie_add_batch_entries_sum");
        const bool still = now == last;
        last = now;
        return (writer.done() && now >= double{kBatches} * kPerBatch) ||
               (still &&
                MetricValue(b->http_port(), "bookie_add_streams_paused") >= 1);
      },
      absl::Seconds(300), absl::Seconds(1));
  *received_out = static_cast<int64_t>(last);
  const int64_t rss = ResidentBytes(b->pid()) / 1024;
  std::printf("  idle RSS %lld KiB\n", static_cast<long long>(rss_idle));
  ctx.TryCancel();
  writer.Join();
  return rss;
}

TEST_CASE("figure: bookie RSS under a client that never reads add answers",
          "[.][figure][integration][bookie]") {
  int64_t received = 0;
  const int64_t before = UnreadAnswersRss(
      {{"maxAddsInProgressPerStream", "100000000"}}, &received);
  std::printf(
      "unbounded (maxAddsInProgressPerStream=1e8): %lld entries "
      "taken, RSS %lld KiB\n",
      static_cast<long long>(received), static_cast<long long>(before));
  const int64_t after = UnreadAnswersRss({}, &received);
  std::printf(
      "default bound (maxAddsInProgressPerStream=5000): %lld "
      "entries taken, RSS %lld KiB\n",
      static_cast<long long>(received), static_cast<long long>(after));
}

}  // namespace
}  // namespace bk::it
