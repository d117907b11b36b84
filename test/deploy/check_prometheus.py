#!/usr/bin/env python3
"""deploy/prometheus/ passes promtool, and every alert is unit-tested.

  1. promtool check config prometheus.yml (also checks the rule file and
     the file_sd target file pattern).
  2. promtool check rules bookie-alerts.yml, autorecovery-alerts.yml.
  3. promtool test rules tests/bookie-alerts-test.yml and
     tests/autorecovery-alerts-test.yml.
  4. Every alert has at least one test case in which it fires, and one in
     which it is expected silent.
  5. The disk alert's threshold is the bookie's diskUsageWarnThreshold
     default (read from the binary), so the two cannot drift.
usage: check_prometheus.py BOOKIE_BINARY DEPLOY_DIR
"""

import os
import re
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bookie_proc import clean_env  # noqa: E402

failures = []


def check(ok, what, detail=""):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print(detail)


def promtool(*args, cwd):
    r = subprocess.run(["promtool", *args], capture_output=True, text=True,
                       cwd=cwd)
    return r.returncode == 0, r.stdout + r.stderr


def main():
    binary, deploy = sys.argv[1], sys.argv[2]
    d = os.path.join(deploy, "prometheus")
    ok, out = promtool("check", "config", "prometheus.yml", cwd=d)
    check(ok, "promtool check config prometheus.yml", out)
    alerts = {}
    fired, silent = set(), set()
    for name in ("bookie-alerts", "autorecovery-alerts"):
        ok, out = promtool("check", "rules", f"{name}.yml", cwd=d)
        check(ok, f"promtool check rules {name}.yml", out)
        ok, out = promtool("test", "rules", f"tests/{name}-test.yml", cwd=d)
        check(ok, f"promtool test rules tests/{name}-test.yml", out)
        rules = yaml.safe_load(open(os.path.join(d, f"{name}.yml")))
        alerts.update({r["alert"]: r for g in rules["groups"]
                       for r in g["rules"] if "alert" in r})
        tests = yaml.safe_load(open(os.path.join(d, "tests",
                                                 f"{name}-test.yml")))
        for t in tests["tests"]:
            for c in t.get("alert_rule_test", []):
                (fired if c.get("exp_alerts") else silent).add(c["alertname"])
    for name in sorted(alerts):
        check(name in fired, f"{name} fires in a unit test")
        check(name in silent, f"{name} stays silent in a unit test")
    for required in ("BookieDown", "BookieReadOnly",
                     "BookieWritableBookiesLow", "BookieJournalSyncSlow",
                     "BookieDiskUsageHigh", "BookieLoadReportMissing",
                     "LedgersUnderReplicated", "AutoRecoveryNoAuditor"):
        check(required in alerts, f"alert {required} exists")

    cfg = subprocess.run([binary, "--print-config"], capture_output=True,
                         text=True, env=clean_env()).stdout
    warn = re.search(r"(?m)^diskUsageWarnThreshold=(.*)$", cfg).group(1)
    m = re.search(r">\s*([0-9.]+)\s*$", alerts["BookieDiskUsageHigh"]["expr"])
    check(m and float(m.group(1)) == float(warn),
          f"BookieDiskUsageHigh threshold equals diskUsageWarnThreshold "
          f"({warn})")

    print(f"prometheus: {0 if failures else 1} passed, "
          f"{1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
