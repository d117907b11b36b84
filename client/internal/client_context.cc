#include "client/internal/client_context.h"

#include <prometheus/registry.h>

#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "client/internal/channel_config.h"
#include "client/internal/write_handle.h"
#include "common/env.h"
#include "common/logging.h"
#include "common/thread_name.h"

namespace bk::client::internal {
namespace {

constexpr absl::Duration kTickPeriod = absl::Milliseconds(100);
// A tick this late says the process was paused (pause_guard.h); timeouts
// then wait kPauseHold for the answers that arrived meanwhile to be read.
constexpr absl::Duration kLateTick = absl::Seconds(1);
constexpr absl::Duration kPauseHold = absl::Seconds(1);

}  // namespace

std::shared_ptr<BookieClient> BookiePool::Get(const std::string& id) {
  auto endpoint = cluster_->Endpoint(id);
  absl::MutexLock l(&mu_);
  if (closed_ || !endpoint.has_value()) return nullptr;
  auto& slot = clients_[id];
  if (slot == nullptr || slot->endpoint() != *endpoint) {
    if (slot != nullptr) retired_.push_back(slot);
    slot = std::make_shared<BookieClient>(id, *endpoint, config_);
  }
  return slot;
}

std::map<std::string, int64_t> BookiePool::AddsInFlight() const {
  absl::MutexLock l(&mu_);
  std::map<std::string, int64_t> out;
  for (const auto& [id, c] : clients_) out[id] = c->adds_in_flight();
  return out;
}

void BookiePool::ResetConnectBackoff(const std::vector<std::string>& ids) {
  std::vector<std::shared_ptr<BookieClient>> found;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return;
    for (const std::string& id : ids) {
      auto it = clients_.find(id);
      if (it != clients_.end()) found.push_back(it->second);
    }
  }
  for (const auto& c : found) c->ResetConnectBackoff();
}

void BookiePool::Close() {
  std::vector<std::shared_ptr<BookieClient>> all;
  {
    absl::MutexLock l(&mu_);
    closed_ = true;
    for (const auto& [id, c] : clients_) all.push_back(c);
    all.insert(all.end(), retired_.begin(), retired_.end());
  }
  // Cancels and waits for every callback. The connections themselves stay
  // in the pool until it is destroyed: an op in progress may still hold one
  // for a moment, and if its reference were the last, the connection (and
  // its gRPC channel) would be destroyed wherever that op runs -- possibly
  // a gRPC thread, where destroying the last channel frees the completion
  // queue the thread is serving.
  for (const auto& c : all) c->Shutdown();
}

BookiePool::~BookiePool() {
  Close();
  // Destroyed here, on the thread destroying the client, after every
  // callback (and every op holding a connection from one) has finished.
  std::map<std::string, std::shared_ptr<BookieClient>> clients;
  std::vector<std::shared_ptr<BookieClient>> retired;
  {
    absl::MutexLock l(&mu_);
    clients.swap(clients_);
    retired.swap(retired_);
  }
}

ClientContext::ClientContext(ClientOptions options)
    : options_(std::move(options)), pause_guard_(kLateTick, kPauseHold) {
  if (options_.env == nullptr) options_.env = Env::Default();
}

absl::Time ClientContext::Now() const { return options_.env->Now(); }

absl::StatusOr<std::shared_ptr<ClientContext>> ClientContext::Create(
    ClientOptions options) {
  if (absl::Status s = Validate(options); !s.ok()) return s;
  auto channel = MakeChannelConfig(options.tls, options.max_add_batch_bytes);
  if (!channel.ok()) return channel.status();
  channel->add_flush_interval = options.add_flush_interval;
  std::shared_ptr<ClientContext> ctx(new ClientContext(std::move(options)));
  ClientContext& c = *ctx;
  c.seed_ = c.options_.seed != 0 ? c.options_.seed : std::random_device()();
  auto log = bk::log::Get("client");
  log->info(
      "client starting: metadata={} seed={} weighting={}",
      c.options_.metadata_service_uri, c.seed_,
      std::string(placement::WeightingName(c.options_.placement.weighting)));
  metadata::OpenOptions mo;
  mo.zk_enable_security = c.options_.zk_enable_security;
  mo.zk_digest_file = c.options_.zk_digest_file;
  auto store = metadata::Open(c.options_.metadata_service_uri, mo);
  if (!store.ok()) return store.status();
  c.store_ = std::move(*store);
  if (c.options_.wrap_metadata_store) {
    c.store_ = c.options_.wrap_metadata_store(std::move(c.store_));
    if (c.store_ == nullptr) {
      return absl::InvalidArgumentError("wrap_metadata_store returned null");
    }
  }
  auto registry = c.options_.registry
                      ? c.options_.registry
                      : std::make_shared<prometheus::Registry>();
  c.probe_ = std::make_unique<ClientProbe>(registry);
  c.cluster_ =
      std::make_unique<ClusterView>(c.options_, c.seed_, c.probe_.get());
  // A connection that fails is one error of its bookie, however many
  // calls it failed. The pool closes before the view and `c` go.
  channel->on_unreachable = [cluster = c.cluster_.get(),
                             self = &c](const std::string& id) {
    cluster->OnBookieUnreachable(id, self->Now());
  };
  c.pool_ = std::make_unique<BookiePool>(*channel, c.cluster_.get());
  auto bookies = c.store_->ListBookies();
  if (!bookies.ok()) return bookies.status();
  c.cluster_->SetBookies(*bookies);
  c.RefreshBookieGroups();
  ClusterView* cluster = c.cluster_.get();
  ClientContext* self = &c;
  // Runs on the store's callback thread, where blocking reads are allowed;
  // the watch is cancelled in Shutdown, before `self` goes.
  c.bookie_watch_ = c.store_->WatchBookies(
      [cluster, self](absl::StatusOr<metadata::BookieSet> set) {
        if (!set.ok()) return;
        cluster->SetBookies(*set);
        self->RefreshBookieGroups();
        // A bookie registers once it serves: one that restarted may still
        // be in its connection's reconnect backoff from its downtime, and
        // every add sent to it until then fails at once (adds replaced
        // away, writers stopped where no other bookie is left). Connect now.
        std::vector<std::string> ids;
        for (const auto& b : set->writable) ids.push_back(b.bookie_id());
        for (const auto& b : set->readonly) ids.push_back(b.bookie_id());
        self->pool()->ResetConnectBackoff(ids);
      });
  if (placement::SharesNewLedgers(c.options_.placement,
                                  c.options_.get_bookie_info_interval,
                                  c.options_.get_bookie_info_jitter)) {
    c.feed_ = std::make_unique<PlacementFeed>(c.store_.get(), cluster,
                                              c.probe_.get(), c.options_.env);
    log->info("placement feed on: new ledgers shared with other clients");
  }
  std::weak_ptr<ClientContext> weak = ctx;
  c.timer_.PostAfter(kTickPeriod, [weak] {
    if (auto self = weak.lock()) self->Tick();
  });
  c.poller_ = std::thread([&c] {
    SetThreadName("bk-client-poll");
    c.PollLoop();
  });
  return ctx;
}

ClientContext::~ClientContext() { Shutdown(); }

void ClientContext::Shutdown() {
  {
    absl::MutexLock l(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    stop_poller_ = true;
  }
  closing_ = true;
  if (poller_.joinable()) poller_.join();
  bookie_watch_.reset();
  if (pool_) pool_->Close();
  timer_.Shutdown();
  worker_.Shutdown();
  completions_.Shutdown();
  // After the threads that announce (an ensemble change on the worker, a
  // writer's stop reported from a callback), before the store it writes to.
  feed_.reset();
  store_.reset();
}

void ClientContext::RegisterWriter(const std::shared_ptr<WriteHandle>& writer) {
  absl::MutexLock l(&mu_);
  writers_.erase(std::remove_if(writers_.begin(), writers_.end(),
                                [](const auto& w) { return w.expired(); }),
                 writers_.end());
  writers_.push_back(writer);
}

void ClientContext::Tick() {
  if (closing_) return;
  const absl::Time now = Now();
  // The timer's clock, not the client's: only a real stall makes a tick late.
  const PauseGuard::Verdict verdict = pause_guard_.OnTick(absl::Now());
  if (verdict.paused > absl::ZeroDuration()) {
    probe_->Paused();
    bk::log::Get("client")->warn(
        "the client was paused for {} (its maintenance tick ran that late); "
        "add timeouts are judged again in {}, once the answers that arrived "
        "meanwhile are read",
        absl::FormatDuration(verdict.paused), absl::FormatDuration(kPauseHold));
  }
  std::vector<std::shared_ptr<WriteHandle>> writers;
  {
    absl::MutexLock l(&mu_);
    for (const auto& w : writers_) {
      if (auto s = w.lock()) writers.push_back(std::move(s));
    }
  }
  if (verdict.judge) {
    for (const auto& w : writers) w->CheckTimeouts(now);
  }
  writers.clear();
  cluster_->Tick(now, pool_->AddsInFlight());
  // Tick is only ever run by the timer; `this` outlives the timer.
  timer_.PostAfter(kTickPeriod, [this] { Tick(); });
}

void ClientContext::RefreshBookieGroups() {
  absl::StatusOr<std::vector<metadata::BookieGroups>> groups =
      store_->ListBookieGroups();
  if (!groups.ok()) {
    // Keep the groups known so far: isolated ledgers then stay where they
    // were allowed, rather than spreading to every bookie.
    bk::log::Get("client")->warn("cannot read bookie groups: {}",
                                 std::string(groups.status().message()));
    return;
  }
  cluster_->SetBookieGroups(*groups);
}

void ClientContext::PollLoop() {
  std::mt19937_64 gen(seed_ ^ 0x9e3779b97f4a7c15ull);
  std::uniform_real_distribution<double> jitter(
      1 - options_.get_bookie_info_jitter, 1 + options_.get_bookie_info_jitter);
  const uint64_t requested =
      proto::TOTAL_DISK_CAPACITY | proto::FREE_DISK_SPACE | proto::LOAD;
  while (true) {
    // Operators tag bookies at any time; a poll period is soon enough.
    RefreshBookieGroups();
    for (const std::string& id : cluster_->Members()) {
      auto client = pool_->Get(id);
      if (client == nullptr) continue;
      ClusterView* cluster = cluster_.get();
      Env* clock = options_.env;
      client->GetBookieInfo(
          requested, options_.get_bookie_info_timeout,
          [cluster, clock, id](absl::StatusOr<proto::GetBookieInfoResponse> r) {
            if (r.ok() && r->status() == proto::BK_EOK) {
              cluster->OnBookieInfo(id, *r, clock->Now());
            } else {
              cluster->OnBookieInfoFailed(
                  id, clock->Now(), !r.ok() && absl::IsUnavailable(r.status()));
            }
          });
    }
    const absl::Duration period =
        options_.get_bookie_info_interval * jitter(gen);
    absl::MutexLock l(&mu_);
    if (mu_.AwaitWithTimeout(absl::Condition(&stop_poller_), period)) break;
  }
}

}  // namespace bk::client::internal
