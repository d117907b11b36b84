#!/usr/bin/env python3
"""Every metric the dashboard and the alert rules use is one a live bookie
exports, and every expression is valid PromQL.

  1. Collect the PromQL of every dashboard target and template query and of
     every alert rule.
  2. Parse each with promtool (as recording rules, Grafana variables
     substituted).
  3. Start a real bookie (mem:// metadata, in-process autorecovery on),
     scrape its /metrics and autorecovery's, and check
     each metric name (histograms: name_bucket/_sum/_count) and each label
     name used in a matcher or a by/without clause against what it exports.
     `up` is Prometheus' own per-target series; job/instance are target
     labels Prometheus adds.
usage: check_metric_names.py BOOKIE_BINARY DEPLOY_DIR
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bookie_proc import Bookie, free_port, http_get  # noqa: E402

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right",
            "and", "or", "unless", "bool", "offset", "inf", "nan"}
PROMETHEUS_SERIES = {"up"}  # made by Prometheus per target
TARGET_LABELS = {"job", "instance", "le"}  # le: histogram buckets


def grafana_vars(expr):
    expr = expr.replace("$__rate_interval", "1m").replace("$__interval", "1m")
    return re.sub(r"\$\{?(\w+)\}?", ".*", expr)


def strip_strings(expr):
    return re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)


def metric_names(expr):
    """(metric names, label names) used by one PromQL expression."""
    e = strip_strings(expr)
    labels = set()
    for m in re.finditer(r"\{([^}]*)\}", e):
        for lm in re.finditer(r"([a-zA-Z_]\w*)\s*(=~|!~|!=|=)", m.group(1)):
            labels.add(lm.group(1))
    for m in re.finditer(
            r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)",
            e):
        labels.update(x.strip() for x in m.group(1).split(",") if x.strip())
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    e = re.sub(
        r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)",
        " ", e)
    e = re.sub(r"\boffset\s+\w+", " ", e)
    names = set()
    for m in re.finditer(r"(?<![\w.])([a-zA-Z_:][\w:]*)(\s*\()?", e):
        word, call = m.group(1), m.group(2)
        if call or word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names, labels


def self_test():
    n, l = metric_names(
        'histogram_quantile(0.99, sum by (bookie, le) (rate('
        'bookie_journal_sync_seconds_bucket{job=~"$job", code="a b"}[5m]))) '
        '> 0.05 or vector(0) unless on (instance) up offset 5m')
    assert n == {"bookie_journal_sync_seconds_bucket", "up"}, n
    assert l == {"bookie", "le", "job", "code", "instance"}, l
    n, _ = metric_names('count(x == 1 and y == 1) or vector(0) < 3')
    assert n == {"x", "y"}, n


def collect(deploy):
    exprs = []  # (where, expr)
    dash = json.load(open(os.path.join(deploy, "grafana",
                                       "bookie-dashboard.json")))

    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                exprs.append((f"dashboard panel '{p['title']}' "
                              f"{t.get('refId')}", t["expr"]))
            walk(p.get("panels", []))
    walk(dash["panels"])
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        if v.get("type") == "query" and q:
            m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", q.strip())
            assert m, f"template {v['name']}: unexpected query {q}"
            exprs.append((f"dashboard variable ${v['name']}", m.group(1)))
    for name in ("bookie-alerts.yml", "autorecovery-alerts.yml"):
        rules = yaml.safe_load(open(os.path.join(deploy, "prometheus",
                                                 name)))
        for g in rules["groups"]:
            for r in g["rules"]:
                exprs.append((f"alert {r.get('alert') or r.get('record')}",
                              r["expr"]))
    return exprs


def promtool_parse(exprs):
    rules = {"groups": [{"name": "parse", "rules": [
        {"record": f"parse:expr{i}", "expr": grafana_vars(e)}
        for i, (_, e) in enumerate(exprs)]}]}
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        yaml.safe_dump(rules, f)
    r = subprocess.run(["promtool", "check", "rules", f.name],
                       capture_output=True, text=True)
    os.unlink(f.name)
    if r.returncode != 0:
        raise SystemExit("FAIL: an expression does not parse:\n" + r.stdout
                         + r.stderr)


def parse_exposition(text):
    """{name: set(label names)}, {family: type}."""
    series, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(None, 3)
            types[name] = typ
            continue
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][\w:]*)(\{(.*)\})?\s", line)
        if not m:
            continue
        labs = set(re.findall(r'([a-zA-Z_]\w*)="', m.group(3) or ""))
        series.setdefault(m.group(1), set()).update(labs)
    return series, types


def main():
    self_test()
    binary, deploy = sys.argv[1], sys.argv[2]
    exprs = collect(deploy)
    promtool_parse(exprs)

    # In-process autorecovery on: its metrics (bk_autorecovery_*) are
    # served on a port of their own, scraped too.
    ar_port = free_port()
    b = Bookie(binary, extra_flags=("--autoRecoveryDaemonEnabled=true",
                                    f"--prometheusStatsHttpPort={ar_port}"))
    try:
        b.wait_ready()
        # Directory usage appears after the first disk check.
        deadline = time.time() + 10
        while True:
            code, text = b.get("/metrics")
            if code == 200 and "bookie_disk_usage_ratio" in text:
                break
            if time.time() > deadline:
                raise SystemExit("FAIL: /metrics incomplete:\n" + text)
            time.sleep(0.1)
        # Autorecovery starts its own HTTP server after the bookie is up:
        # wait for it (nothing answering reads as status 0) within a bound.
        deadline = time.time() + 10
        while True:
            code, ar_text = http_get(ar_port, "/metrics")
            if code == 200 and "bk_autorecovery_auditor" in ar_text:
                break
            if time.time() > deadline:
                raise SystemExit(
                    f"FAIL: autorecovery /metrics (status {code}):\n"
                    + ar_text)
            time.sleep(0.1)
    finally:
        b.stop()
    series, types = parse_exposition(text + "\n" + ar_text)

    problems = []
    used = set()
    for where, expr in exprs:
        names, labels = metric_names(expr)
        if not names:
            problems.append(f"{where}: no metric in {expr!r}")
        known_labels = set(TARGET_LABELS)
        for n in names:
            used.add(n)
            if n in PROMETHEUS_SERIES:
                continue
            if n in series:
                known_labels |= series[n]
                continue
            base = re.sub(r"_(bucket|sum|count)$", "", n)
            if base != n and types.get(base) in ("histogram", "summary") \
                    and n in series:
                known_labels |= series[n]
                continue
            problems.append(f"{where}: metric {n} is not exported by the "
                            "bookie")
        for lab in labels - known_labels:
            problems.append(f"{where}: label {lab!r} is on none of "
                            f"{sorted(names)}")
    if problems:
        raise SystemExit("FAIL:\n  " + "\n  ".join(problems))
    print(f"{len(exprs)} expressions, {len(used)} metric names, all parse "
          f"and all exported by a live bookie ({len(series)} series names)")
    print("metric names: 1 passed, 0 failed")


if __name__ == "__main__":
    main()
