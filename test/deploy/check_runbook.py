#!/usr/bin/env python3
"""The runbook's procedures (deploy/README.md) do what it says, on a real
bookie with a real ZooKeeper (cookies must outlive the bookie process):

  - drain: with forceReadOnlyBookie=true the bookie is ready but read-only
    (/ready says so, bookie_server_status is 0);
  - replaced disk: a ledger directory without its cookie while the journal
    has one refuses start with exit code 1 and a message naming the cookie
    and `bookie format`;
  - `bookie format --yes` then makes the directories usable and the bookie
    starts; `bookie format` without --yes refuses.
usage: check_runbook.py BOOKIE_BINARY
"""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bookie_proc import Bookie, ZooKeeper, clean_env  # noqa: E402

failures = []


def check(ok, what, detail=""):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print(detail)


def main():
    binary = sys.argv[1]

    b = Bookie(binary, extra_flags=["--forceReadOnlyBookie=true"])
    try:
        b.wait_ready()
        code, body = b.get("/ready")
        check(code == 200 and "read-only" in body,
              "forceReadOnlyBookie: ready and read-only", body)
        _, metrics = b.get("/metrics")
        status = [ln for ln in metrics.splitlines()
                  if ln.startswith("bookie_server_status{")]
        check(status and status[0].rstrip().endswith(" 0"),
              "bookie_server_status is 0 while draining", str(status))
    finally:
        check(b.stop() == 0, "SIGTERM ends the drained bookie with exit 0")

    zk = ZooKeeper()
    try:
        replaced_disk(binary, zk)
    finally:
        zk.stop()

    print(f"runbook: {0 if failures else 1} passed, "
          f"{1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


def replaced_disk(binary, zk):
    # A first start writes the cookies; a restart is accepted; then the
    # ledger disk is "replaced".
    b = Bookie(binary, metadata=zk.uri())
    try:
        b.wait_ready()
    finally:
        b.stop()
    b = Bookie(binary, metadata=zk.uri(), directory=b.dir)
    try:
        b.wait_ready()
        check(True, "a restart over its own directories starts")
    except RuntimeError as e:
        check(False, "a restart over its own directories starts", str(e))
    finally:
        b.stop()
    ledgers = os.path.join(b.dir, "ledgers")
    shutil.rmtree(ledgers)
    os.mkdir(ledgers)
    r = subprocess.run(b.args, capture_output=True, text=True, timeout=30,
                       env=clean_env())
    check(r.returncode == 1 and "cookie" in r.stderr and
          "format" in r.stderr,
          "start over a wiped ledger disk is refused (exit 1, says why)",
          f"rc={r.returncode} {r.stderr}")
    print("  refusal:", r.stderr.strip()[:300])

    fmt = [binary, "format"] + b.args[1:]
    r = subprocess.run(fmt, capture_output=True, text=True, timeout=30,
                       env=clean_env())
    check(r.returncode == 1 and "--yes" in r.stderr,
          "format without --yes refuses", r.stderr)
    r = subprocess.run(fmt + ["--yes"], capture_output=True, text=True,
                       timeout=30, env=clean_env())
    check(r.returncode == 0, "bookie format ... --yes succeeds",
          r.stdout + r.stderr)
    b2 = Bookie(binary, metadata=zk.uri(), directory=b.dir)
    try:
        b2.wait_ready()
        check(True, "the formatted bookie starts")
    except RuntimeError as e:
        check(False, "the formatted bookie starts", str(e))
    finally:
        b2.stop()


if __name__ == "__main__":
    main()
