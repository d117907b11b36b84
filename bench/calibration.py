#!/usr/bin/env python3
"""Calibration sweep: how BP-65's direction (load vs none) moves with what
BP-65's text is silent on -- the topic rates' Pareto shape, their cap, the
ledger bursts.

For each variant of the scenario (one knob at a time changed from the
file's traffic: Pareto shape, rate cap, burst sigma; then the file's own)
and each seed it runs `bkctl placement simulate
--json` with policies [none, load] and prints one Markdown row per variant:
the seeds on which load's peak stddev is >= 10 % below none's, its range
below none's, and none's p99 >= 10 s while load's is < 1 s (BP-65's three
rows), with the medians of the changes. Stddev and range are taken across
journal disks, as BP-65 measured them (a disk shared by three bookies
carries their sum: the JSON's disk_throughput_*); the last column gives the
first two rows across bookies (throughput_*), as the sweep counted them
before 2026-12-04. Deterministic: the same scenario, seeds and bkctl give
the same table.

Usage:
  bench/calibration.py [--bkctl build/bin/bkctl]
      [--scenario bench/scenarios/bp65.yaml] [--seeds 1-10] [--jobs 1]
      [--shapes 1.1,1.6] [--caps 20,200] [--sigmas 0.25,1.0]
      [--from-log STDERR_FILE]
"""

import argparse
import concurrent.futures
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import yaml


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            seeds.extend(range(int(lo), int(hi) + 1))
        else:
            seeds.append(int(part))
    return seeds


def floats(text):
    return [float(v) for v in text.split(",") if v]


def run_one(bkctl, scenario_path, seed):
    out = subprocess.run(
        [bkctl, "placement", "simulate", "--scenario", scenario_path,
         "--seed", str(seed), "--json"],
        check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def direction(result):
    """(disk stddev change, disk range change, p99 row met, bookie stddev
    change, bookie range change, none, load)."""
    none = result["policies"]["none"]
    load = result["policies"]["load"]

    def change(key):
        return load[key] / none[key] - 1

    p99 = none["p99_write_latency"] >= 10 and load["p99_write_latency"] < 1
    return (change("disk_throughput_stddev"), change("disk_throughput_range"),
            p99, change("throughput_stddev"), change("throughput_range"),
            none, load)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bkctl", default="build/bin/bkctl")
    ap.add_argument("--scenario", default="bench/scenarios/bp65.yaml")
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--shapes", default="1.1,1.6")
    ap.add_argument("--caps", default="20,200")
    ap.add_argument("--sigmas", default="0.25,1.0")
    ap.add_argument("--from-log", help="rebuild the table from the stderr "
                    "lines of a sweep stopped before its end")
    args = ap.parse_args()
    if args.from_log:
        from_log(args.from_log, args.scenario, args.seeds)
        return
    seeds = parse_seeds(args.seeds)
    with open(args.scenario) as f:
        base = yaml.safe_load(f)
    base["policies"] = ["none", "load"]
    traffic = base["traffic"]

    def label(t):
        return (f"shape {t['pareto_shape']:g}, cap "
                f"{t['max_mib_per_second']:g} MiB/s, burst sigma "
                f"{t['burst_sigma']:g}")

    variants = []
    for key, values in (("pareto_shape", floats(args.shapes)),
                        ("max_mib_per_second", floats(args.caps)),
                        ("burst_sigma", floats(args.sigmas))):
        for v in values:
            if v == traffic[key]:
                continue
            t = dict(traffic)
            t[key] = v
            variants.append((label(t), {key: v}))
    variants.append((label(traffic) + " (the file's)", {}))

    tmp = tempfile.mkdtemp(prefix="bk_calibration_")
    jobs = []
    for v, (label, overrides) in enumerate(variants):
        s = json.loads(json.dumps(base))
        s["traffic"].update(overrides)
        s["name"] = f"{base['name']}-calibration-{v}"
        path = os.path.join(tmp, f"variant{v}.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(s, f, default_flow_style=None, sort_keys=False)
        for seed in seeds:
            jobs.append((v, seed, path))

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futures = {ex.submit(run_one, args.bkctl, p, seed): (v, seed)
                   for v, seed, p in jobs}
        for fut in concurrent.futures.as_completed(futures):
            results[futures[fut]] = fut.result()
            v, seed = futures[fut]
            sd, rg, _, bsd, brg, none, load = direction(results[(v, seed)])
            print(f"{variants[v][0]} | seed {seed} | stddev {sd:+.3f} | "
                  f"range {rg:+.3f} | p99 none {none['p99_write_latency']:.2f}"
                  f" load {load['p99_write_latency']:.2f} | bookie stddev "
                  f"{bsd:+.3f} | bookie range {brg:+.3f}",
                  file=sys.stderr, flush=True)

    rows = {}
    for (v, seed), result in results.items():
        sd, rg, p99, bsd, brg, _, _ = direction(result)
        rows.setdefault(variants[v][0], {})[seed] = (sd, rg, p99, bsd, brg)
    print_table(args.scenario, args.seeds, [label for label, _ in variants],
                rows)


def print_table(scenario, seeds_text, labels, rows):
    """rows: label -> seed -> (disk stddev change, disk range change, p99 row
    met, bookie stddev change, bookie range change)."""
    print(f"Scenario {scenario}, policies none and load, seeds {seeds_text};"
          f" a cell counts the seeds meeting BP-65's row; stddev and range "
          f"across journal disks, as BP-65 measured, and in the last column "
          f"across bookies.\n")
    print("| traffic | seeds | stddev >= 10 % down | range down | p99 >= 10 s "
          "-> < 1 s | median stddev change | median range change | per "
          "bookie: stddev >= 10 % down, range down |")
    print("|---|---|---|---|---|---|---|---|")
    for label in labels:
        if label not in rows:
            continue
        r = list(rows[label].values())
        n = len(r)
        print(f"| {label} | {n} | {sum(1 for x in r if x[0] <= -0.10)}/{n} "
              f"| {sum(1 for x in r if x[1] < 0)}/{n} "
              f"| {sum(1 for x in r if x[2])}/{n} "
              f"| {100 * statistics.median(x[0] for x in r):+.0f} % "
              f"| {100 * statistics.median(x[1] for x in r):+.0f} % "
              f"| {sum(1 for x in r if x[3] <= -0.10)}/{n}, "
              f"{sum(1 for x in r if x[4] < 0)}/{n} |")


def from_log(path, scenario, seeds_text):
    """Rebuilds the table from the per-run lines this script writes to
    stderr (for a sweep stopped before its end)."""
    rows, labels = {}, []
    pat = re.compile(r"(.*) \| seed (\d+) \| stddev ([-+.\d]+) \| range "
                     r"([-+.\d]+) \| p99 none ([.\d]+) load ([.\d]+) \| "
                     r"bookie stddev ([-+.\d]+) \| bookie range ([-+.\d]+)")
    for line in open(path):
        m = pat.match(line.strip())
        if not m:
            continue
        label = m.group(1)
        if label not in rows:
            rows[label] = {}
            labels.append(label)
        p99 = float(m.group(5)) >= 10 and float(m.group(6)) < 1
        rows[label][int(m.group(2))] = (float(m.group(3)), float(m.group(4)),
                                        p99, float(m.group(7)),
                                        float(m.group(8)))
    print_table(scenario, seeds_text, labels, rows)


if __name__ == "__main__":
    main()
