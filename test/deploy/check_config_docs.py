#!/usr/bin/env python3
"""The configuration docs agree with the key tables.

  1. bookie/CONFIG.md, client/CONFIG.md and autorecovery/CONFIG.md are
     exactly what `config_reference bookie|client|autorecovery` prints
     from the key tables.
  2. Wherever a README or a header comment states a key's default, it is
     the table's: "`diskUsageThreshold` (0.95)", "`journalReuseFiles=true`,
     the default", "// journalMaxSizeMB (2048): ..." (units converted:
     "10 s" for a key in ms, "512 KiB" for a size).
  3. Every BOOKKEEPER_CLIENT_<key> of deploy/systemd/bookkeeper-client.env
     is a key of the client's table.
Dated measurements (bench/results/) are history and are not checked.
usage: check_config_docs.py CONFIG_REFERENCE_BINARY SOURCE_DIR
"""

import difflib
import os
import re
import subprocess
import sys

PROGRAMS = ("bookie", "client", "autorecovery")
SKIP_DIRS = {".git", ".cache", "build", "node_modules", "__pycache__",
             "results"}
HEADER_DIRS = ("bookie", "client", "common", "monitor", "placement")

UNIT_FACTORS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "MB": 1 << 20,
                "GiB": 1 << 30, "TiB": 1 << 40,
                "ms": 1e-3, "s": 1, "min": 60, "h": 3600}
VALUE = re.compile(r"^(-?\d+(?:\.\d+)?)(?:\s?(B|KiB|MiB|MB|GiB|TiB|ms|s|min|h))?$"
                   r"|^(true|false)$")


def parse_reference(text):
    """{key: (type, unit, default)} from a CONFIG.md table."""
    keys = {}
    for line in text.splitlines():
        cells = [c.strip().replace("\\|", "|")
                 for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) != 6 or not cells[0].startswith("`"):
            continue
        default = cells[3]
        default = "" if default == "(empty)" else default.strip("`")
        keys[cells[0].strip("`")] = (cells[1], cells[2], default)
    return keys


def as_number(text, unit):
    """A stated value in the key's unit, or None if it is not a value."""
    m = VALUE.match(text.strip())
    if not m:
        return None
    if m.group(3):
        return m.group(3)
    number, stated = float(m.group(1)), m.group(2)
    if stated is None:
        return number
    if unit in ("bytes", "bytes/s", "MiB"):
        if stated not in ("B", "KiB", "MiB", "MB", "GiB", "TiB"):
            return None
        bytes_ = number * UNIT_FACTORS[stated]
        return bytes_ / (1 << 20) if unit == "MiB" else bytes_
    if unit in ("ms", "s"):
        if stated not in ("ms", "s", "min", "h"):
            return None
        seconds = number * UNIT_FACTORS[stated]
        return seconds * 1000 if unit == "ms" else seconds
    return None


def same(stated, key_type, unit, default):
    value = as_number(stated, unit)
    if value is None:
        return None  # not a statement of a value
    if isinstance(value, str):
        return value == default
    want = as_number(default, unit)
    return want is not None and not isinstance(want, str) and \
        abs(value - want) <= 1e-9 * max(1, abs(want))


def table_for(path, key, tables):
    """The table a mention in `path` refers to: the only one with the key,
    else the client's under client/ and placement/, else the bookie's."""
    having = [p for p in PROGRAMS if key in tables[p]]
    if len(having) == 1:
        return tables[having[0]]
    if not having:
        return None
    client_side = path.startswith(("client/", "placement/"))
    return tables["client" if client_side else "bookie"]


def stated_defaults(path, text):
    """(line, key, stated value) for every statement of a default."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if path.endswith(".md"):
            for m in re.finditer(r"`(\w+)` \(([^)]*)\)", line):
                out.append((n, m.group(1), m.group(2)))
            for m in re.finditer(
                    r"`(\w+)=([^`]*)`(?=\s*[(,]\s*(?:ours, )?the default)",
                    line):
                out.append((n, m.group(1), m.group(2)))
        else:
            m = re.match(r"\s*//\s+(\w+) \(([^)]*)\)", line)
            if m:
                out.append((n, m.group(1), m.group(2)))
    # "(ours, true; with sync_data)" and "(0 = off)" state "true" and "0".
    return [(n, k, re.split(r"[;,]| = ", re.sub(r"^ours, ", "", v))[0])
            for n, k, v in out]


def files(src):
    for root, dirs, names in os.walk(src):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS
                   and not d.startswith("build")]
        rel_root = os.path.relpath(root, src)
        for name in names:
            rel = os.path.normpath(os.path.join(rel_root, name))
            if name.endswith(".md") and name != "CONFIG.md":
                yield rel
            elif name.endswith(".h") and rel.startswith(HEADER_DIRS):
                yield rel


def main():
    binary, src = sys.argv[1], sys.argv[2]
    failures = 0
    tables = {}
    for program in PROGRAMS:
        gen = subprocess.run([binary, program], capture_output=True,
                             text=True)
        if gen.returncode != 0:
            raise SystemExit(f"FAIL: config_reference {program}: "
                             + gen.stderr)
        committed_path = os.path.join(src, program, "CONFIG.md")
        committed = open(committed_path).read() \
            if os.path.exists(committed_path) else ""
        if gen.stdout != committed:
            failures += 1
            print(f"FAIL: {program}/CONFIG.md is not what the key table "
                  f"generates; refresh it with\n  build/bin/config_reference "
                  f"{program} > {program}/CONFIG.md")
            sys.stdout.writelines(difflib.unified_diff(
                committed.splitlines(True), gen.stdout.splitlines(True),
                f"{program}/CONFIG.md", f"config_reference {program}"))
        tables[program] = parse_reference(gen.stdout)
        if len(tables[program]) < 10:
            raise SystemExit(f"FAIL: no key table in config_reference "
                             f"{program}")

    checked = 0
    for rel in sorted(files(src)):
        text = open(os.path.join(src, rel), errors="replace").read()
        for n, key, stated in stated_defaults(rel, text):
            table = table_for(rel, key, tables)
            if table is None:
                continue
            key_type, unit, default = table[key]
            verdict = same(stated, key_type, unit, default)
            if verdict is None:
                continue
            checked += 1
            if not verdict:
                failures += 1
                print(f"FAIL: {rel}:{n}: says {key} defaults to {stated!r}; "
                      f"the key table says {default!r} ({unit})")

    envfile = os.path.join(src, "deploy", "systemd", "bookkeeper-client.env")
    for n, line in enumerate(open(envfile).read().splitlines(), 1):
        m = re.match(r"BOOKKEEPER_CLIENT_(\w+)=", line)
        if m and m.group(1) not in tables["client"]:
            failures += 1
            print(f"FAIL: bookkeeper-client.env:{n}: {m.group(1)} is not a "
                  f"client key (client/CONFIG.md)")

    print(f"config docs: {sum(len(t) for t in tables.values())} keys, "
          f"{checked} stated defaults checked, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
