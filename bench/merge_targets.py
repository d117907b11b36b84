#!/usr/bin/env python3
"""Merges the Markdown of single-seed `bkctl placement targets` runs into the
tables one run over all those seeds prints (rows in seed order, each
target's tally recounted). Seeds are independent in `targets` (every figure
of a seed comes from that seed's runs only), so the merged tables equal
those of one `--seeds 1-10` run; running seed by seed keeps each seed's
tables as soon as it is done on a loaded machine.

Usage: bench/merge_targets.py targets_seed1.md targets_seed2.md ...
"""

import re
import sys


def main():
    tallies = {}  # name -> [met, seeds, misses, need]
    order = []
    sections = {}  # heading -> (header lines, rows)
    section_order = []
    seeds = []
    runs = 0
    wall = 0.0
    name = None
    for path in sys.argv[1:]:
        heading = None
        for line in open(path):
            line = line.rstrip("\n")
            m = re.match(r"## Placement targets: (\S+), seeds (\S+) "
                         r"\((\d+) runs, (\d+) s wall time\)", line)
            if m:
                name = m.group(1)
                seeds.extend(m.group(2).split(","))
                runs += int(m.group(3))
                wall += float(m.group(4))
                continue
            m = re.match(r"- (.*): met on (\d+) of (\d+) seeds "
                         r"\((?:needs )?([^):]*)(?:: (?:NOT )?held)?\)"
                         r"(?:; misses: (.*))?$", line)
            if m:
                key = m.group(1)
                if key not in tallies:
                    tallies[key] = [0, 0, [], m.group(4)]
                    order.append(key)
                t = tallies[key]
                t[0] += int(m.group(2))
                t[1] += int(m.group(3))
                if m.group(5):
                    t[2].extend(s.strip() for s in m.group(5).split(","))
                continue
            if line.startswith("### "):
                heading = line
                if heading not in sections:
                    sections[heading] = ([], [])
                    section_order.append(heading)
                continue
            if heading and line.startswith("|"):
                header, rows = sections[heading]
                if line.startswith("| seed") or line.startswith("|---"):
                    if len(header) < 2:
                        header.append(line)
                else:
                    rows.append(line)
    print(f"## Placement targets: {name}, seeds {','.join(seeds)} ({runs} "
          f"runs, {wall:.0f} s wall time, summed over the single-seed "
          f"runs)\n")
    for key in order:
        met, n, misses, need = tallies[key]
        # Whether the requirement held over all the merged seeds.
        required = {"every seed": n, "a majority": n // 2 + 1,
                    "at least 8 in 10": -(-8 * n // 10)}.get(need)
        if required is None:
            line = f"- {key}: met on {met} of {n} seeds ({need})"
        else:
            held = "held" if met >= required else "NOT held"
            line = f"- {key}: met on {met} of {n} seeds (needs {need}: {held})"
        if misses:
            line += "; misses: " + ", ".join(misses)
        print(line)
    for heading in section_order:
        header, rows = sections[heading]
        print(f"\n{heading}\n")
        print("\n".join(header + rows))


if __name__ == "__main__":
    main()
