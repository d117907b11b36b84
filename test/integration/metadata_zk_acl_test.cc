// ZooKeeper digest authentication and ACLs (zkEnableSecurity, zkDigestFile)
// against a real ZooKeeper server: a store holding the cluster's
// credentials creates every znode creator-only, so a session without them
// (anyone who can reach ZooKeeper) can neither delete, rewrite nor read the
// cluster's ledgers, registrations, cookies, id counter or instance id.

#include <sys/stat.h>
#include <zookeeper/zookeeper.h>

#include <atomic>
#include <fstream>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "catch2/catch.hpp"
#include "metadata/layout.h"
#include "metadata/metadata_store.h"
#include "metadata/zk/zk_store.h"
#include "test/support/poll_until.h"
#include "test/support/temp_dir.h"
#include "test/support/zk_server.h"

namespace bk {
namespace {

using metadata::OpenOptions;

std::string UniqueRoot(const std::string& name) {
  static std::atomic<int> n{0};
  return "/acl/" + name + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(n++);
}

std::string WriteCredentials(const testing::TempDir& dir,
                             const std::string& text, mode_t mode = 0600) {
  const std::string path = dir.Sub("zk-digest");
  {
    std::ofstream out(path, std::ios::trunc);
    out << text << "\n";
  }
  REQUIRE(::chmod(path.c_str(), mode) == 0);
  return path;
}

OpenOptions Secured(const std::string& digest_file) {
  OpenOptions o;
  o.session_timeout = absl::Seconds(4);
  o.zk_enable_security = true;
  o.zk_digest_file = digest_file;
  return o;
}

proto::LedgerMetadata Md() {
  proto::LedgerMetadata md;
  md.set_ensemble_size(1);
  md.set_write_quorum_size(1);
  md.set_ack_quorum_size(1);
  proto::Segment* seg = md.add_segments();
  seg->set_first_entry_id(0);
  seg->add_bookies("b1");
  return md;
}

// A bare ZooKeeper C handle, as any program that reaches the server has,
// optionally with digest credentials of its own. Sync calls only.
class RawSession {
 public:
  explicit RawSession(const std::string& hosts,
                      const std::string& credentials = "") {
    zh_ = zookeeper_init(hosts.c_str(), &Watcher, 10000, nullptr, this, 0);
    REQUIRE(zh_ != nullptr);
    if (!credentials.empty()) {
      REQUIRE(zoo_add_auth(zh_, "digest", credentials.data(),
                           static_cast<int>(credentials.size()), nullptr,
                           nullptr) == ZOK);
    }
    absl::MutexLock l(&mu_);
    auto up = [this]()
                  ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return connected_; };
    REQUIRE(mu_.AwaitWithTimeout(absl::Condition(&up), absl::Seconds(30)));
  }
  ~RawSession() { zookeeper_close(zh_); }

  int Delete(const std::string& path) {
    return zoo_delete(zh_, path.c_str(), -1);
  }
  int Set(const std::string& path, const std::string& data) {
    return zoo_set(zh_, path.c_str(), data.data(),
                   static_cast<int>(data.size()), -1);
  }
  int Get(const std::string& path) {
    char buf[4096];
    int len = sizeof(buf);
    return zoo_get(zh_, path.c_str(), 0, buf, &len, nullptr);
  }
  int Create(const std::string& path) {
    return zoo_create(zh_, path.c_str(), "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                      nullptr, 0);
  }
  int SetAcl(const std::string& path) {
    return zoo_set_acl(zh_, path.c_str(), -1, &ZOO_OPEN_ACL_UNSAFE);
  }

 private:
  static void Watcher(zhandle_t*, int type, int state, const char*, void* ctx) {
    if (type != ZOO_SESSION_EVENT) return;
    auto* self = static_cast<RawSession*>(ctx);
    absl::MutexLock l(&self->mu_);
    self->connected_ = state == ZOO_CONNECTED_STATE;
  }

  zhandle_t* zh_ = nullptr;
  absl::Mutex mu_;
  bool connected_ ABSL_GUARDED_BY(mu_) = false;
};

// Every znode a running cluster has: ledger, registration, cookie, counter,
// instance id, and the layout's directories.
std::vector<std::string> ClusterZnodes(metadata::MetadataStore& store,
                                       const std::string& root) {
  REQUIRE(store.CreateLedger(1234, Md()).ok());
  proto::BookieServiceInfo b;
  b.set_bookie_id("b1");
  b.set_grpc_endpoint("127.0.0.1:3181");
  REQUIRE(store.RegisterBookie(b).ok());
  proto::Cookie cookie;
  cookie.set_bookie_id("b1");
  REQUIRE(store.WriteCookie("b1", cookie, metadata::kNotExists).ok());
  REQUIRE(store.InstanceId().ok());
  const metadata::Layout layout(root);
  return {layout.Ledger(1234),
          layout.Bookie("b1", /*read_only=*/false),
          layout.Cookie("b1"),
          layout.IdGen(),
          layout.InstanceId(),
          layout.Ledgers(),
          layout.Available(),
          layout.Cookies(),
          root};
}

TEST_CASE(
    "with zkEnableSecurity a session without the cluster's credentials "
    "cannot delete, rewrite or read anything",
    "[metadata][integration][security]") {
  test::ZkServer& zk = test::SharedZkServer();
  testing::TempDir dir;
  const std::string digest = WriteCredentials(dir, "bookkeeper:s3cret");
  const std::string root = UniqueRoot("deny");
  const std::string uri = "zk://" + zk.hosts() + root;
  auto store = metadata::Open(uri, Secured(digest));
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  const std::vector<std::string> znodes = ClusterZnodes(**store, root);

  for (const std::string& who :
       {std::string(), std::string("bookkeeper:guess")}) {
    INFO("credentials '" << who << "'");
    RawSession outsider(zk.hosts(), who);
    for (const std::string& path : znodes) {
      INFO(path);
      CHECK(outsider.Delete(path) == ZNOAUTH);
      CHECK(outsider.Set(path, "x") == ZNOAUTH);
      CHECK(outsider.Get(path) == ZNOAUTH);
      CHECK(outsider.SetAcl(path) == ZNOAUTH);
    }
    CHECK(outsider.Create(znodes[5] + "/999") == ZNOAUTH);  // under ledgers/
    CHECK(outsider.Create(znodes[6] + "/intruder") == ZNOAUTH);
  }

  // The store API without credentials is refused as well, saying so.
  OpenOptions plain;
  plain.connect_timeout = absl::Seconds(10);
  auto anonymous = metadata::Open(uri, plain);
  CHECK(absl::IsPermissionDenied(anonymous.status()));

  // Another holder of the credentials (a second bookie, a client) reads
  // and changes what the first created.
  auto other = metadata::Open(uri, Secured(digest));
  REQUIRE(other.ok());
  CHECK((*other)->ReadLedger(1234).ok());
  CHECK((*other)->DeleteLedger(1234, metadata::kAnyVersion).ok());
  CHECK(absl::IsNotFound((*store)->ReadLedger(1234).status()));
}

TEST_CASE("a secured store authenticates again after its session expires",
          "[metadata][integration][security]") {
  test::ZkServer& zk = test::SharedZkServer();
  testing::TempDir dir;
  const std::string digest = WriteCredentials(dir, "bookkeeper:s3cret");
  auto store = metadata::Open("zk://" + zk.hosts() + UniqueRoot("expiry"),
                              Secured(digest));
  REQUIRE(store.ok());
  REQUIRE((*store)->CreateLedger(1, Md()).ok());
  auto& session = static_cast<metadata::ZkStore*>(store->get())->session();
  const uint64_t before = session.generation();
  bool expired = false;
  for (int attempt = 0; attempt < 20 && !expired; ++attempt) {
    REQUIRE(test::ExpireZkSession(zk.hosts(), session.client_id(),
                                  absl::Seconds(10))
                .ok());
    expired = testing::PollUntil([&] { return session.generation() != before; },
                                 absl::Seconds(2), absl::Milliseconds(10));
  }
  REQUIRE(expired);
  // The new session carries the credentials: it may change the old nodes
  // and create new ones.
  CHECK((*store)->CreateLedger(2, Md()).ok());
  CHECK((*store)->DeleteLedger(1, metadata::kAnyVersion).ok());
}

TEST_CASE(
    "a credentials file that is missing, open to others or malformed is "
    "refused, naming it",
    "[metadata][integration][security]") {
  test::ZkServer& zk = test::SharedZkServer();
  testing::TempDir dir;
  const std::string uri = "zk://" + zk.hosts() + UniqueRoot("badfile");
  struct Case {
    std::string text;
    mode_t mode;
    std::string says;
  };
  for (const Case& c : {Case{"bookkeeper:s3cret", 0644, "chmod 600"},
                        Case{"no-colon", 0600, "user:password"},
                        Case{":password", 0600, "user:password"},
                        Case{"user:", 0600, "user:password"}}) {
    INFO(c.text << " mode " << c.mode);
    const std::string path = WriteCredentials(dir, c.text, c.mode);
    auto s = metadata::Open(uri, Secured(path));
    CHECK(absl::IsInvalidArgument(s.status()));
    CHECK(s.status().message().find(path) != absl::string_view::npos);
    CHECK(s.status().message().find(c.says) != absl::string_view::npos);
  }
  auto missing = metadata::Open(uri, Secured(dir.Sub("absent")));
  CHECK(absl::IsInvalidArgument(missing.status()));
  auto unset = metadata::Open(uri, Secured(""));
  CHECK(absl::IsInvalidArgument(unset.status()));
}

}  // namespace
}  // namespace bk
