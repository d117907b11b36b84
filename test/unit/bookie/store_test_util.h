// Helpers for tests of the bookie store and service: a store on temp dirs
// over a fault-injecting Env, packaged entries, and a bounded wait on a
// StatusCallback.

#ifndef BK_TEST_UNIT_BOOKIE_STORE_TEST_UTIL_H_
#define BK_TEST_UNIT_BOOKIE_STORE_TEST_UTIL_H_

#include <future>
#include <memory>
#include <string>

#include "bookie/engine/bookie_store_impl.h"
#include "common/fault_env.h"
#include "proto/entry_format.h"
#include "test/support/temp_dir.h"

namespace bk::bookie::testing {

inline StoreOptions OptionsIn(const bk::testing::TempDir& dir) {
  StoreOptions o;
  o.journal.dirs = {dir.Sub("journal")};
  o.journal.preallocate_bytes = 1 << 20;
  o.storage.ledger_dirs = {dir.Sub("ledgers")};
  o.storage.write_cache_bytes = 8 << 20;
  o.storage.read_cache_bytes = 8 << 20;
  o.storage.gc_wait_time = absl::ZeroDuration();
  return o;
}

inline EntryBuffer Entry(uint64_t ledger, int64_t entry, int64_t lac,
                         const std::string& payload) {
  entry::EntryHeader h;
  h.ledger_id = ledger;
  h.entry_id = entry;
  h.last_add_confirmed = lac;
  h.ledger_length = payload.size();
  return MakeEntryBuffer(
      entry::Package(h, payload, entry::DigestType::kCrc32c));
}

inline std::string PayloadOf(const EntryBuffer& body) {
  auto d = entry::Decode(*body, entry::DigestType::kCrc32c,
                         entry::ParseHeader(*body)->ledger_id, -1);
  return d.ok() ? std::string(d->payload) : "<corrupt>";
}

// Calls an async store method and waits (bounded) for its status.
template <typename Fn>
absl::Status Await(Fn fn) {
  auto p = std::make_shared<std::promise<absl::Status>>();
  auto f = p->get_future();
  fn([p](absl::Status s) { p->set_value(s); });
  if (f.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    return absl::DeadlineExceededError("callback not called within 30 s");
  }
  return f.get();
}

inline absl::Status Add(BookieStore* store, uint64_t ledger, int64_t entry,
                        int64_t lac, const std::string& payload,
                        const std::string& key = "key", bool recovery = false) {
  AddArgs a;
  a.ledger_id = ledger;
  a.entry_id = entry;
  a.master_key = key;
  a.recovery = recovery;
  return Await([&](StatusCallback cb) {
    store->AddEntry(a, Entry(ledger, entry, lac, payload), std::move(cb));
  });
}

}  // namespace bk::bookie::testing

#endif  // BK_TEST_UNIT_BOOKIE_STORE_TEST_UTIL_H_
