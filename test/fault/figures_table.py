#!/usr/bin/env python3
"""Prints the fault suite's figures as one table and fails if a promise
is not met.

Each fault test writes <figures dir>/<name>.tsv with one line per figure:
item, figure, measured, promise, met (1/0). See test/fault/figures.h.
Usage: figures_table.py <figures dir>
"""
import os
import sys
import time


def main():
    d = sys.argv[1]
    rows = []
    if os.path.isdir(d):
        for name in sorted(os.listdir(d)):
            if not name.endswith(".tsv"):
                continue
            path = os.path.join(d, name)
            age = time.time() - os.path.getmtime(path)
            with open(path) as f:
                for line in f:
                    parts = line.rstrip("\n").split("\t")
                    if len(parts) == 5:
                        rows.append(parts + [age])
    if not rows:
        print("no fault figures recorded in %s (run the faults tests first)" % d)
        return 1
    rows.sort(key=lambda r: r[0])
    heads = ["item", "figure", "measured", "promise", "met", "age"]
    # A test that could not run here (item 8 without root or `ip netns`)
    # writes one row: figure "skipped", measured = the reason.
    skipped = [r for r in rows if r[1] == "skipped"]
    rows = [r for r in rows if r[1] != "skipped"]
    table = [[r[0], r[1], r[2], r[3], "yes" if r[4] == "1" else "NO",
              "%dm" % (r[5] // 60) if r[5] >= 60 else "%ds" % r[5]]
             for r in rows]
    table += [[r[0], "SKIPPED", "skipped: " + r[2], "-", "skipped",
               "%dm" % (r[5] // 60) if r[5] >= 60 else "%ds" % r[5]]
              for r in skipped]
    widths = [max(len(h), *(len(t[i]) for t in table))
              for i, h in enumerate(heads)]
    line = "+".join("-" * (w + 2) for w in widths)
    print("FAULT SUITE FIGURES (%s)" % d)
    print(line)
    print("|".join(" %s " % h.ljust(w) for h, w in zip(heads, widths)))
    print(line)
    for t in table:
        print("|".join(" %s " % c.ljust(w) for c, w in zip(t, widths)))
    print(line)
    # Items of issue 11 with no figures: item 7's fuzz targets report
    # through their own CTest results (fuzz_corpus_* and fuzz_short_run).
    expected = {"1": "crash loop (fault_crash_loop)",
                "2": "writer crash and fencing race (fault_writer_crash)",
                "3": "torn journal (fault_torn_journal_store, fault_bookie)",
                "4": "fsync EIO (fault_bookie)",
                "5": "disk full (fault_bookie)",
                "6": "ZooKeeper session expiry (fault_session_expiry)",
                "8": "network partition (fault_network_partition)"}
    seen = {r[0].split(" ")[0] for r in rows + skipped}
    # A test that did not run (or ran nothing: a test name CTest split at a
    # ';' once "passed" that way) must not look like a kept promise.
    missing = [k for k in sorted(expected) if k not in seen]
    for k in missing:
        print("item %s %s: NO FIGURES RECORDED" % (k, expected[k]))
    for r in skipped:
        print("item %s: skipped: %s" % (r[0], r[2]))
    unmet = [t for t in table if t[4] not in ("yes", "skipped")]
    if unmet or missing:
        if unmet:
            print("%d promise(s) NOT met" % len(unmet))
        if missing:
            print("%d item(s) without figures: run the whole fault suite "
                  "(ctest -L faults -LE long)" % len(missing))
        return 1
    print("every promise met (%d figures)%s" %
          (len(rows), "; %d item(s) SKIPPED, see above" % len(skipped)
           if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
