#!/usr/bin/env python3
"""deploy/systemd/bookie.service passes `systemd-analyze verify` (with no
warning, and without man(1): minimal machines have no man-db), scores OK in `systemd-analyze security`, and holds what the
runbook relies on; the client env file is a valid EnvironmentFile.

usage: check_systemd.py BOOKIE_BINARY DEPLOY_DIR
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bookie_proc import clean_env  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def unit_entries(text):
    """[(section, key, value)], keeping repeated keys."""
    out, section = [], None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        k, _, v = line.partition("=")
        out.append((section, k.strip(), v.strip()))
    return out


def seconds(v):
    m = re.fullmatch(r"(\d+)(ms|s|min)?", v)
    n = int(m.group(1))
    return {"ms": n / 1000, None: n, "s": n, "min": 60 * n}[m.group(2)]


def main():
    binary, deploy = os.path.abspath(sys.argv[1]), sys.argv[2]
    unit_path = os.path.join(deploy, "systemd", "bookie.service")
    text = open(unit_path).read()

    # verify: the ExecStart binary must exist; point it at the built one.
    tmp = tempfile.mkdtemp(prefix="bk-systemd-")
    test_unit = os.path.join(tmp, "bookie.service")
    with open(test_unit, "w") as f:
        f.write(text.replace("/usr/bin/bookie", binary))
    # --man=no: the Documentation= pages are not looked up with man(1),
    # which minimal machines (containers, debootstrap: no man-db) lack. The
    # PATH holds systemd-analyze alone, as on such a machine, so that the
    # check cannot come to depend on man again unnoticed.
    bare = os.path.join(tmp, "bin")
    os.mkdir(bare)
    os.symlink(shutil.which("systemd-analyze"),
               os.path.join(bare, "systemd-analyze"))
    r = subprocess.run(["systemd-analyze", "verify", "--man=no", test_unit],
                       capture_output=True, text=True,
                       env=dict(os.environ, PATH=bare))
    check(r.returncode == 0 and not r.stderr.strip() and not r.stdout.strip(),
          f"systemd-analyze verify: rc={r.returncode} {r.stdout}{r.stderr}")
    r = subprocess.run(["systemd-analyze", "security", "--offline=yes",
                        "--threshold=25", test_unit],
                       capture_output=True, text=True)
    overall = [ln for ln in r.stdout.splitlines() if "Overall" in ln]
    check(r.returncode == 0, f"systemd-analyze security above 2.5: {overall}")
    print("security:", overall[0].strip() if overall else "?")
    shutil.rmtree(tmp)

    e = unit_entries(text)
    get = lambda s, k: [v for (sec, key, v) in e if sec == s and key == k]
    svc = lambda k: get("Service", k)
    check(svc("Type") == ["notify"], "Type=notify")
    check(svc("NotifyAccess") == ["main"], "NotifyAccess=main")
    check(svc("Restart") and svc("Restart")[0] in ("on-failure", "always"),
          "Restart= policy")
    check(svc("LimitNOFILE") and int(svc("LimitNOFILE")[0]) >= 65536,
          "LimitNOFILE >= 65536")
    check(bool(svc("User")) or svc("DynamicUser") == ["yes"],
          "a dedicated user")
    check(svc("User") != ["root"], "not root")
    state = " ".join(svc("StateDirectory")).split()
    check({"bookkeeper/journal", "bookkeeper/ledgers"} <= set(state),
          "StateDirectory holds journal and ledgers")
    env = dict(v.split("=", 1) for v in svc("Environment"))
    check(env.get("BK_journalDirectories") == "/var/lib/bookkeeper/journal",
          "journal dir is the journal state directory")
    check(env.get("BK_ledgerDirectories") == "/var/lib/bookkeeper/ledgers",
          "ledger dir is the ledgers state directory")
    check(any("--conf=/etc/bookkeeper/bookie.conf" in v
              for v in svc("ExecStart")), "ExecStart with --conf")
    mounts = " ".join(get("Unit", "RequiresMountsFor")).split()
    check(set(mounts) == {"/var/lib/bookkeeper/journal",
                          "/var/lib/bookkeeper/ledgers"},
          "RequiresMountsFor the two data dirs")

    # The unit's BK_ variables are real keys: the bookie loads with them.
    r = subprocess.run([binary, "--print-config"], capture_output=True,
                       text=True, env=clean_env(env))
    check(r.returncode == 0, f"bookie rejects the unit's environment: "
          f"{r.stderr}")
    cfg = dict(ln.split("=", 1) for ln in r.stdout.splitlines()
               if "=" in ln and not ln.startswith("#"))
    for k, v in env.items():
        check(cfg.get(k[3:]) == v, f"{k} reaches the bookie as {v}")

    # TimeoutStopSec covers the bookie's own drain limit, by at most 15 s.
    drain = int(cfg["shutdownTimeoutMs"]) / 1000
    stop = seconds(svc("TimeoutStopSec")[0])
    check(drain < stop <= drain + 15,
          f"TimeoutStopSec={stop}s vs shutdownTimeoutMs={drain}s")

    # Client env file: systemd EnvironmentFile syntax, no BK_ names.
    envfile = os.path.join(deploy, "systemd", "bookkeeper-client.env")
    names = []
    for n, line in enumerate(open(envfile), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith(("#", ";")):
            continue
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(\S*)", line)
        check(bool(m), f"bookkeeper-client.env:{n}: not KEY=VALUE: {line!r}")
        if m:
            names.append(m.group(1))
            check(not m.group(1).startswith("BK_"),
                  f"bookkeeper-client.env:{n}: BK_ names are the bookie's")
    check(len(names) == len(set(names)), "client env names are unique")
    check("BOOKKEEPER_CLIENT_metadataServiceUri" in names,
          "client env sets metadataServiceUri")

    print(f"systemd: {0 if failures else 1} passed, "
          f"{1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
