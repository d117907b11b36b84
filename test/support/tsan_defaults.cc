// ThreadSanitizer's defaults for the test binaries of the tsan preset (only
// linked there, see cmake/BkTargets.cmake), so that a binary run by hand
// behaves as under ctest. TSAN_OPTIONS still overrides the options.
//
// Suppressions are for third-party code only, each with its reason. None
// hides an access of ours: a suppression matches a report when one of its
// stacks has the named frame, and the frames named here touch only the
// library's own memory.

extern "C" const char* __tsan_default_options() {
  return "second_deadlock_stack=1";
}

extern "C" const char* __tsan_default_suppressions() {
  return
      // Abseil (instrumented): Mutex hides its internal synchronisation
      // from TSan (__tsan_mutex_pre_lock ignores it), but a waiter's
      // futex word lives in a per-thread identity that LowLevelAlloc got
      // from mmap, which TSan counts as a write by the allocating thread;
      // the waking thread's atomic increment then looks unordered with it.
      // Known false positive: google/sanitizers#953, abseil-cpp#1239 (the
      // usual workaround, report_atomic_races=0, would hide far more).
      "race:absl::*synchronization_internal::Waiter::Post\n"
      // RocksDB (not instrumented): its background purge frees version and
      // file metadata that readers released through reference counts kept
      // with atomics inside the library, which TSan does not see. The read
      // it is paired with is RocksDB's own (memcmp/memcpy of its keys in a
      // Get or Seek), never memory of ours. Seen in CI:
      // index_repair_test reading a reopened index while the shared
      // rocksdb:low thread purged the files of the open before.
      "race:rocksdb::DBImpl::PurgeObsoleteFiles\n";
}
