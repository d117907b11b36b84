// TuneMallocForClient: the malloc settings a bookie runs with, for the
// process that links the client library. Optional; call it once at
// start-up, before threads start, in a process that uses glibc's malloc
// (not needed with jemalloc or tcmalloc).
//
// Why: a range read (a catch-up) receives messages of up to 256 entries on
// gRPC's threads and the reader frees each entry once it is delivered.
// With glibc's defaults the freed memory at the top of a heap goes back to
// the kernel (madvise, which also flushes the other CPUs' TLBs) and is
// faulted in again for the next messages. On this project's 2-vCPU VM that
// was more than half of the client's CPU per entry read
// (bench/results/bkbench_read.md, 2026-12-05 21:15). The add path was not
// affected (its entry buffers are pooled).
//
// Process-wide: it sets glibc's trim threshold (512 MiB), top pad (64 MiB)
// and mmap threshold (32 MiB), so up to the process's busiest use of the
// heap stays mapped. Returns whether every setting was taken (false: not
// glibc, or glibc refused one). The client library never calls it itself.

#ifndef BK_CLIENT_MALLOC_TUNING_H_
#define BK_CLIENT_MALLOC_TUNING_H_

namespace bk::client {

bool TuneMallocForClient();

}  // namespace bk::client

#endif  // BK_CLIENT_MALLOC_TUNING_H_
