#!/usr/bin/env python3
"""deploy/config/bookie.conf is exactly what the bookie's schema generates,
and it loads.

  1. `bookie --print-config-template` equals the committed file (a missing,
     stale or changed key fails, with the diff and the command to refresh).
  2. Its keys are exactly the keys `bookie --print-config` knows.
  3. `bookie --conf=bookie.conf --print-config` exits 0.
  4. With every key uncommented it still loads, and every value is the
     built-in default (the documented defaults are the real ones).
usage: check_config.py BOOKIE_BINARY DEPLOY_DIR
"""

import difflib
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bookie_proc import clean_env  # noqa: E402


def run(args):
    return subprocess.run(args, capture_output=True, text=True,
                          env=clean_env())


def keys_values(text, commented):
    prefix = "#" if commented else ""
    out = {}
    for line in text.splitlines():
        m = re.fullmatch(prefix + r"([A-Za-z_]\w*)=(.*)", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def main():
    binary, deploy = sys.argv[1], sys.argv[2]
    conf = os.path.join(deploy, "config", "bookie.conf")
    committed = open(conf).read()
    failures = 0

    gen = run([binary, "--print-config-template"])
    if gen.returncode != 0:
        raise SystemExit("FAIL: --print-config-template: " + gen.stderr)
    if gen.stdout != committed:
        failures += 1
        print("FAIL: deploy/config/bookie.conf is not what the schema "
              "generates; refresh it with\n  build/bin/bookie "
              "--print-config-template > deploy/config/bookie.conf")
        sys.stdout.writelines(difflib.unified_diff(
            committed.splitlines(True), gen.stdout.splitlines(True),
            "deploy/config/bookie.conf", "bookie --print-config-template"))

    defaults = run([binary, "--print-config"])
    assert defaults.returncode == 0, defaults.stderr
    schema = keys_values(defaults.stdout, commented=False)
    documented = keys_values(committed, commented=True)
    missing = sorted(set(schema) - set(documented))
    stale = sorted(set(documented) - set(schema))
    if missing or stale:
        failures += 1
        print(f"FAIL: keys missing from bookie.conf: {missing}; "
              f"stale keys: {stale}")
    for key in documented:
        if f"\n# {key}: " not in committed:
            failures += 1
            print(f"FAIL: {key} has no meaning line")

    loaded = run([binary, f"--conf={conf}", "--print-config"])
    if loaded.returncode != 0:
        failures += 1
        print("FAIL: bookie.conf does not load: " + loaded.stderr)

    with tempfile.NamedTemporaryFile("w", suffix=".conf",
                                     delete=False) as f:
        f.write(re.sub(r"(?m)^#([A-Za-z_]\w*=)", r"\1", committed))
    active = run([binary, f"--conf={f.name}", "--print-config"])
    os.unlink(f.name)
    if active.returncode != 0:
        failures += 1
        print("FAIL: bookie.conf with every key set does not load: "
              + active.stderr)
    else:
        values = keys_values(active.stdout, commented=False)
        differ = {k: (v, schema[k]) for k, v in values.items()
                  if schema.get(k) != v}
        if differ:
            failures += 1
            print(f"FAIL: documented defaults differ from the real ones: "
                  f"{differ}")

    print(f"bookie.conf: {len(documented)} keys; "
          f"{4 - min(failures, 4)} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
