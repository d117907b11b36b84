#include "tools/bkbench/bookie_sampler.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "metadata/metadata_store.h"
#include "tools/bkbench/cluster_store.h"

namespace bk::bkbench {

double SumMetric(const std::string& text, const std::string& name) {
  double sum = 0;
  bool found = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, name)) continue;
    const absl::string_view rest = line.substr(name.size());
    if (rest.empty() || (rest[0] != ' ' && rest[0] != '{')) continue;
    const size_t sp = line.rfind(' ');
    double v;
    if (sp == absl::string_view::npos ||
        !absl::SimpleAtod(line.substr(sp + 1), &v)) {
      continue;
    }
    sum += v;
    found = true;
  }
  return found ? sum : -1;
}

absl::StatusOr<std::string> HttpGetBody(const std::string& host_port,
                                        const std::string& path) {
  const size_t colon = host_port.rfind(':');
  int port = 0;
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(host_port.substr(colon + 1), &port)) {
    return absl::InvalidArgumentError("bad HTTP endpoint " + host_port);
  }
  const std::string host = host_port.substr(0, colon);
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError("socket");
  struct timeval tv {
    2, 0
  };
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // "localhost" and the like
  }
  const std::string req =
      absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: ", host,
                   "\r\nConnection: close\r\n\r\n");
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::send(fd, req.data(), req.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(req.size())) {
    char buf[8192];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, n);
  }
  ::close(fd);
  const size_t body = out.find("\r\n\r\n");
  if (!absl::StartsWith(out, "HTTP/1.1 200") || body == std::string::npos) {
    return absl::UnavailableError(
        absl::StrCat("GET http://", host_port, path, " failed"));
  }
  return out.substr(body + 4);
}

namespace {

CacheCounters Scrape(const std::string& http) {
  CacheCounters c;
  auto text = HttpGetBody(http, "/metrics");
  if (!text.ok()) return c;
  c.read_cache_hits =
      std::max(0.0, SumMetric(*text, "bookie_read_cache_hits_total"));
  c.read_cache_misses =
      std::max(0.0, SumMetric(*text, "bookie_read_cache_misses_total"));
  c.write_cache_hits =
      std::max(0.0, SumMetric(*text, "bookie_write_cache_hits_total"));
  c.scraped = true;
  return c;
}

}  // namespace

CacheCounters CacheDelta(const CacheCounters& before,
                         const CacheCounters& after) {
  CacheCounters d;
  d.read_cache_hits = after.read_cache_hits - before.read_cache_hits;
  d.read_cache_misses = after.read_cache_misses - before.read_cache_misses;
  d.write_cache_hits = after.write_cache_hits - before.write_cache_hits;
  d.scraped = before.scraped && after.scraped;
  return d;
}

CacheCounters BookieSampler::CacheTotals() const {
  CacheCounters sum;
  sum.scraped = !http_.empty();
  for (const std::string& http : http_) {
    const CacheCounters c = http.empty() ? CacheCounters() : Scrape(http);
    sum.read_cache_hits += c.read_cache_hits;
    sum.read_cache_misses += c.read_cache_misses;
    sum.write_cache_hits += c.write_cache_hits;
    sum.scraped = sum.scraped && c.scraped;
  }
  return sum;
}

absl::StatusOr<std::unique_ptr<BookieSampler>> BookieSampler::Create(
    const client::ClientOptions& client) {
  auto registered = RegisteredBookies(client);
  if (!registered.ok()) return registered.status();
  std::unique_ptr<BookieSampler> s(new BookieSampler());
  for (const proto::BookieServiceInfo& b : *registered) {
    BookieSeries bs;
    bs.id = b.bookie_id();
    bs.rack = b.network_location();
    bs.grpc = b.grpc_endpoint();
    bs.http = b.http_endpoint();
    auto admin = client::BookieAdmin::Connect(bs.id, bs.grpc, client.tls);
    if (!admin.ok()) return admin.status();
    s->http_.push_back(bs.http);
    s->bookies_.push_back(bs);
    s->admins_.push_back(std::move(*admin));
  }
  return s;
}

BookieSampler::~BookieSampler() { Stop(); }

void BookieSampler::Start(absl::Time run_start) {
  run_start_ = run_start;
  for (auto& b : bookies_) {
    if (!b.http.empty()) b.at_start = Scrape(b.http);
  }
  thread_ = std::thread([this] {
    absl::Time next = absl::Now() + absl::Seconds(1);
    while (!stop_.load()) {
      while (!stop_.load() && absl::Now() < next) {
        absl::SleepFor(std::min(absl::Milliseconds(50), next - absl::Now()));
      }
      if (stop_.load()) break;
      SampleOnce();
      next += absl::Seconds(1);
    }
  });
}

void BookieSampler::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  thread_.join();
  for (auto& b : bookies_) {
    if (!b.http.empty()) b.at_end = Scrape(b.http);
  }
}

void BookieSampler::SampleOnce() {
  const double t = absl::ToDoubleSeconds(absl::Now() - run_start_);
  for (size_t i = 0; i < bookies_.size(); ++i) {
    BookieLoadPoint p;
    p.t_s = t;
    auto info = admins_[i]->Info(absl::Milliseconds(500));
    if (info.ok()) {
      p.write_mb_per_s = info->write_bytes_per_second < 0
                             ? -1
                             : info->write_bytes_per_second / 1e6;
      p.journal_util = info->journal_io_util;
      p.adds_in_flight = info->adds_in_flight;
      p.add_p99_ms = info->add_latency_p99_ms;
    }
    bookies_[i].points.push_back(p);
  }
}

}  // namespace bk::bkbench
