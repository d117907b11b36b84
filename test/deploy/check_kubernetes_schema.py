#!/usr/bin/env python3
"""Validates deploy/kubernetes/*.yaml against the Kubernetes OpenAPI
schemas (npm package kubernetes-models, pinned in k8s-schema/package-lock.json,
installed with `npm ci` into WORK_DIR on first use). Exits 77 (skipped) when
node/npm are missing or the package cannot be installed (no registry).
usage: check_kubernetes_schema.py DEPLOY_DIR WORK_DIR
"""

import glob
import json
import os
import shutil
import subprocess
import sys

import yaml

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "k8s-schema")


def main():
    deploy, work = sys.argv[1], sys.argv[2]
    if not shutil.which("node") or not shutil.which("npm"):
        print("SKIP: node/npm not installed")
        sys.exit(77)
    os.makedirs(work, exist_ok=True)
    for f in ("package.json", "package-lock.json", "validate.mjs"):
        shutil.copy(os.path.join(HERE, f), work)
    marker = os.path.join(work, "node_modules", "kubernetes-models",
                          "package.json")
    if not os.path.exists(marker):
        r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund",
                            "--prefer-offline", "--loglevel=error"],
                           cwd=work, capture_output=True, text=True,
                           timeout=240)
        if r.returncode != 0 or not os.path.exists(marker):
            print("SKIP: npm ci failed:\n" + r.stdout + r.stderr)
            sys.exit(77)
    docs = []
    for f in sorted(glob.glob(os.path.join(deploy, "kubernetes", "*.yaml"))):
        for d in yaml.safe_load_all(open(f)):
            if d:
                docs.append({"file": os.path.basename(f), "doc": d})
    with open(os.path.join(work, "manifests.json"), "w") as f:
        json.dump(docs, f)
    r = subprocess.run(["node", "validate.mjs", "manifests.json"], cwd=work)
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
