// Add streams cancelled by their client while adds are in the store: the
// stream's reactor must outlive every add it handed to the store, whatever
// order gRPC delivers the cancel and the batch's read in.

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "bookie/service/bookie_service.h"
#include "test/support/forwarding_bookie_store.h"
#include "test/support/poll_until.h"
#include "test/unit/bookie/service_harness.h"

namespace bk::bookie {
namespace {

using testing::MakeAdd;
using testing::ServiceHarness;

// Holds every batch of adds the service hands over, unanswered, until
// Release; everything else goes to the real store.
class HoldingStore : public bk::testing::ForwardingBookieStore {
 public:
  explicit HoldingStore(BookieStore* target) : ForwardingBookieStore(target) {}

  void AddEntries(absl::Span<AddEntryRequest> adds,
                  AddBatchCallback done) override {
    Held h;
    for (const AddEntryRequest& a : adds) {
      h.outcomes.push_back(AddOutcome{a.args.ledger_id, a.args.entry_id,
                                      absl::UnavailableError("held")});
    }
    h.done = std::move(done);
    absl::MutexLock l(&mu_);
    held_.push_back(std::move(h));
  }

  size_t held() {
    absl::MutexLock l(&mu_);
    return held_.size();
  }

  // Answers every held batch (each add failed), as a store would.
  void Release() {
    std::vector<Held> held;
    {
      absl::MutexLock l(&mu_);
      held.swap(held_);
    }
    for (Held& h : held) h.done(h.outcomes);
  }

 private:
  struct Held {
    std::vector<AddOutcome> outcomes;
    AddBatchCallback done;
  };
  absl::Mutex mu_;
  std::vector<Held> held_ ABSL_GUARDED_BY(mu_);
};

TEST_CASE(
    "an add stream cancelled as its batch arrives stays open until every add "
    "it handed to the store has called back",
    "[bookie][service]") {
  HoldingStore* holding = nullptr;
  ServiceHarness h({}, Env::Default(), [&holding](BookieStore* real) {
    auto s = std::make_unique<HoldingStore>(real);
    holding = s.get();
    return s;
  });
  REQUIRE(holding != nullptr);

  // Each stream writes one batch and is cancelled at once: gRPC on the
  // bookie may run OnCancel before or after the read that carries the
  // batch, on different threads.
  constexpr int kStreams = 1000;
  constexpr int kEntries = 128;
  const std::string payload(1024, 'x');
  int cancelled = 0;
  for (int i = 0; i < kStreams; ++i) {
    grpc::ClientContext ctx;
    auto stream = h.stub()->AddEntries(&ctx);
    // A batch big enough to take a while to parse: the cancel has time to
    // arrive meanwhile.
    proto::AddRequest batch;
    for (int e = 0; e < kEntries; ++e) {
      *batch.add_entries() = MakeAdd(7, int64_t{i} * kEntries + e, payload);
    }
    stream->Write(batch);
    ctx.TryCancel();
    if (stream->Finish().error_code() == grpc::StatusCode::CANCELLED) {
      ++cancelled;
    }
  }
  // A stream whose batch reached the store waits for its adds; every other
  // one ends. A stream that ended with a batch still held would have had its
  // reactor deleted under the store's callback.
  auto* service = h.service();
  const bool settled = bk::testing::PollUntil([&] {
    return service->add_streams_open() == static_cast<int64_t>(holding->held());
  });
  const size_t held = holding->held();
  INFO("streams " << kStreams << ", cancelled " << cancelled
                  << ", batches held by the store " << held
                  << ", add streams open " << service->add_streams_open());
  CHECK(settled);
  CHECK(cancelled > 0);

  // Their answers come after the client went away: nothing is written, the
  // streams end.
  holding->Release();
  CHECK(
      bk::testing::PollUntil([&] { return service->add_streams_open() == 0; }));
  // No add permit is left taken by an add that was held.
  CHECK(service->add_permits().in_use() == 0);
}

}  // namespace
}  // namespace bk::bookie
