#!/usr/bin/env python3
"""deploy/kubernetes/: parses every manifest and checks what an operator
relies on (no cluster needed):

  - the kinds: StatefulSet, headless Service, PodDisruptionBudget,
    ConfigMap, ServiceAccount + ClusterRole + ClusterRoleBinding;
  - separate journal and ledger volumeClaimTemplates, mounted where the
    bookie's config puts journalDirectories and ledgerDirectories;
  - /health liveness and /ready readiness on the HTTP port that the config
    sets (httpServerPort);
  - required pod anti-affinity on kubernetes.io/hostname selecting the pods;
  - PDB and Service selectors match the pod labels; serviceName is the
    headless Service;
  - every configMapKeyRef and configMap volume item names an existing key;
  - the ConfigMap's bookie.conf and the pod's BK_ variables load in the real
    bookie (--print-config);
  - the rack: the init container's script, run with a fake kubectl, writes
    /region/zone (and the default without labels) to the file the bookie's
    command reads; RBAC lets the pod's ServiceAccount get nodes;
  - terminationGracePeriodSeconds exceeds shutdownTimeoutMs.
usage: check_kubernetes.py BOOKIE_BINARY DEPLOY_DIR
"""

import glob
import os
import re
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bookie_proc import clean_env, temp_dir  # noqa: E402

failures = []


def check(ok, what, detail=""):
    print(("ok:   " if ok else "FAIL: ") + what + (f" ({detail})" if
                                                    detail and not ok else ""))
    if not ok:
        failures.append(what)


def matches(selector, labels):
    return bool(selector) and all(labels.get(k) == v
                                  for k, v in selector.items())


def main():
    binary, deploy = sys.argv[1], sys.argv[2]
    docs = []
    for f in sorted(glob.glob(os.path.join(deploy, "kubernetes", "*.yaml"))):
        for d in yaml.safe_load_all(open(f)):
            if d:
                check({"apiVersion", "kind", "metadata"} <= set(d),
                      f"{os.path.basename(f)}: {d.get('kind')} has "
                      "apiVersion, kind, metadata")
                docs.append(d)
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    for kind in ("StatefulSet", "Service", "PodDisruptionBudget",
                 "ConfigMap", "ServiceAccount", "ClusterRole",
                 "ClusterRoleBinding"):
        check(kind in by_kind, f"a {kind} exists")
    if failures:
        sys.exit(1)

    sts = by_kind["StatefulSet"][0]
    spec = sts["spec"]
    pod = spec["template"]["spec"]
    pod_labels = spec["template"]["metadata"]["labels"]
    ns = sts["metadata"]["namespace"]
    check(matches(spec["selector"]["matchLabels"], pod_labels),
          "StatefulSet selector matches the pod labels")
    bookie = next(c for c in pod["containers"] if c["name"] == "bookie")

    # Config the pod runs with: the ConfigMap's bookie.conf + BK_ env.
    cms = {c["metadata"]["name"]: c for c in by_kind["ConfigMap"]}
    refs = []
    for c in pod["containers"] + pod.get("initContainers", []):
        for e in c.get("env", []):
            r = e.get("valueFrom", {}).get("configMapKeyRef")
            if r:
                refs.append((r["name"], r["key"]))
        for e in c.get("envFrom", []):
            if "configMapRef" in e:
                refs.append((e["configMapRef"]["name"], None))
    for v in pod.get("volumes", []):
        if "configMap" in v:
            for it in v["configMap"].get("items", [{"key": None}]):
                refs.append((v["configMap"]["name"], it["key"]))
    check(len(refs) >= 2, "the pod takes config from a ConfigMap")
    for name, key in refs:
        check(name in cms and (key is None or key in cms[name]["data"]),
              f"ConfigMap {name} key {key} exists")
    zk_ref = [e for e in bookie["env"] if e["name"] == "BK_metadataServiceUri"]
    check(bool(zk_ref) and "configMapKeyRef" in zk_ref[0].get("valueFrom", {}),
          "metadataServiceUri comes from a ConfigMap")
    cm = cms[zk_ref[0]["valueFrom"]["configMapKeyRef"]["name"]]
    zk = cm["data"][zk_ref[0]["valueFrom"]["configMapKeyRef"]["key"]]
    check(zk.startswith("zk://"), "the ZooKeeper URI is zk://", zk)

    conf_vol = next(v for v in pod["volumes"] if "configMap" in v)
    conf_mount = next(m for m in bookie["volumeMounts"]
                      if m["name"] == conf_vol["name"])
    conf_path = os.path.join(conf_mount["mountPath"],
                             conf_vol["configMap"]["items"][0]["path"])
    cmd = " ".join(bookie.get("command", []) + bookie.get("args", []))
    check(f"--conf={conf_path}" in cmd, f"the bookie reads {conf_path}")
    conf_text = cms[conf_vol["configMap"]["name"]]["data"][
        conf_vol["configMap"]["items"][0]["key"]]
    env = {}
    for e in bookie["env"]:
        if not e["name"].startswith("BK_"):
            continue
        if "value" in e:
            env[e["name"]] = re.sub(r"\$\((\w+)\)", "x", e["value"])
        else:
            r = e["valueFrom"]["configMapKeyRef"]
            env[e["name"]] = cms[r["name"]]["data"][r["key"]]
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write(conf_text)
    r = subprocess.run([binary, f"--conf={f.name}", "--print-config"],
                       capture_output=True, text=True, env=clean_env(env))
    os.unlink(f.name)
    check(r.returncode == 0, "the ConfigMap's bookie.conf and the BK_ env "
          "load in the bookie", r.stderr.strip())
    cfg = dict(ln.split("=", 1) for ln in r.stdout.splitlines()
               if "=" in ln and not ln.startswith("#"))

    # Volumes: separate journal and ledger claims, mounted where configured.
    vct = {t["metadata"]["name"]: t for t in spec["volumeClaimTemplates"]}
    check({"journal", "ledgers"} <= set(vct),
          "volumeClaimTemplates journal and ledgers")
    mounts = {m["name"]: m["mountPath"] for m in bookie["volumeMounts"]}
    check(mounts.get("journal") == cfg.get("journalDirectories"),
          "journal claim mounted at journalDirectories",
          f"{mounts.get('journal')} vs {cfg.get('journalDirectories')}")
    check(mounts.get("ledgers") == cfg.get("ledgerDirectories"),
          "ledgers claim mounted at ledgerDirectories",
          f"{mounts.get('ledgers')} vs {cfg.get('ledgerDirectories')}")
    check(mounts.get("journal") != mounts.get("ledgers"),
          "journal and ledgers on different volumes")

    # Probes on the HTTP port the bookie serves.
    ports = {p["name"]: p["containerPort"] for p in bookie["ports"]}
    check(str(ports.get("http")) == cfg.get("httpServerPort"),
          "container port http is httpServerPort")
    check(str(ports.get("grpc")) == cfg.get("bookiePort"),
          "container port grpc is bookiePort")
    for probe, path in (("livenessProbe", "/health"),
                        ("readinessProbe", "/ready")):
        g = bookie.get(probe, {}).get("httpGet", {})
        check(g.get("path") == path and
              ports.get(g.get("port"), g.get("port")) == ports.get("http"),
              f"{probe} GET {path} on the HTTP port")

    # Anti-affinity across nodes.
    terms = pod.get("affinity", {}).get("podAntiAffinity", {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution", [])
    check(any(t.get("topologyKey") == "kubernetes.io/hostname" and
              matches(t["labelSelector"]["matchLabels"], pod_labels)
              for t in terms),
          "required pod anti-affinity on kubernetes.io/hostname")

    # PDB and headless Service.
    pdb = by_kind["PodDisruptionBudget"][0]
    check(matches(pdb["spec"]["selector"]["matchLabels"], pod_labels),
          "PDB selector matches the pods")
    check(pdb["metadata"].get("namespace") == ns, "PDB in the same namespace")
    mu = pdb["spec"].get("maxUnavailable")
    check(mu == 1 or (pdb["spec"].get("minAvailable") or 0) >= 1,
          "PDB keeps bookies up")
    svc = next((s for s in by_kind["Service"]
                if s["metadata"]["name"] == spec["serviceName"]), None)
    check(svc is not None and svc["spec"].get("clusterIP") == "None",
          "serviceName is a headless Service")
    if svc:
        check(matches(svc["spec"]["selector"], pod_labels),
              "Service selector matches the pods")
        for p in svc["spec"]["ports"]:
            check(p["targetPort"] in ports and p["port"] ==
                  ports[p["targetPort"]], f"Service port {p['name']}")
    adv = next(e["value"] for e in bookie["env"]
               if e["name"] == "BK_advertisedAddress")
    check(adv == f"$(POD_NAME).{spec['serviceName']}.$(POD_NAMESPACE)"
          ".svc.cluster.local", "advertisedAddress is the pod's stable name")

    # Graceful stop.
    check(pod.get("terminationGracePeriodSeconds", 30) * 1000 >
          int(cfg["shutdownTimeoutMs"]),
          "terminationGracePeriodSeconds > shutdownTimeoutMs")

    # Rack from the node's topology labels.
    init = next(c for c in pod.get("initContainers", [])
                if c["name"] == "topology")
    check(any(e["name"] == "NODE_NAME" and e["valueFrom"]["fieldRef"]
              ["fieldPath"] == "spec.nodeName" for e in init["env"]),
          "init container knows its node (downward API spec.nodeName)")
    script = init["args"][0]
    tmp = temp_dir("bk-k8s-")
    topo = os.path.join(tmp, "topology")
    os.mkdir(topo)
    kubectl = os.path.join(tmp, "kubectl")
    with open(kubectl, "w") as f:
        f.write('#!/bin/sh\n'
                '[ "$3" = "node-7" ] || { echo "wrong node $3" >&2; exit 1; }\n'
                'case "$5" in\n'
                '  *region}) printf "%s" "$FAKE_REGION";;\n'
                '  *zone}) printf "%s" "$FAKE_ZONE";;\n'
                '  *) echo "unexpected $5" >&2; exit 1;;\n'
                'esac\n')
    os.chmod(kubectl, 0o755)
    init_mount = next(m["mountPath"] for m in init["volumeMounts"]
                      if m["name"] == "topology")
    main_mount = next(m["mountPath"] for m in bookie["volumeMounts"]
                      if m["name"] == "topology")
    check(init_mount == main_mount, "init and bookie share the topology dir")
    for region, zone, want in (("eu-west-1", "eu-west-1a",
                                "/eu-west-1/eu-west-1a"),
                               ("", "", "/default-region/default-rack")):
        r = subprocess.run(
            ["/bin/sh", "-c", script.replace(init_mount, topo)],
            capture_output=True, text=True,
            env={"PATH": f"{tmp}:/usr/bin:/bin", "NODE_NAME": "node-7",
                 "FAKE_REGION": region, "FAKE_ZONE": zone})
        got = open(os.path.join(topo, "networkLocation")).read().strip() \
            if r.returncode == 0 else r.stderr
        check(got == want, f"node labels '{region}','{zone}' give rack "
              f"{want}", got)
    check(f'--networkLocation="$(cat {main_mount}/networkLocation)"' in cmd,
          "the bookie starts with the rack the init container wrote")
    r = subprocess.run([binary, "--networkLocation=/eu-west-1/eu-west-1a",
                        "--print-config"], capture_output=True,
                       env=clean_env())
    check(r.returncode == 0, "the rack is a valid networkLocation")

    sa = pod.get("serviceAccountName")
    check(any(s["metadata"]["name"] == sa for s in by_kind["ServiceAccount"]),
          "the pod's ServiceAccount exists")
    role = by_kind["ClusterRole"][0]
    check(any("nodes" in r["resources"] and "get" in r["verbs"]
              for r in role["rules"]), "ClusterRole gets nodes")
    binding = by_kind["ClusterRoleBinding"][0]
    check(binding["roleRef"]["name"] == role["metadata"]["name"] and
          any(s["kind"] == "ServiceAccount" and s["name"] == sa and
              s["namespace"] == ns for s in binding["subjects"]),
          "ClusterRoleBinding binds the role to the pod's ServiceAccount")
    for d in docs:
        if d["kind"] not in ("ClusterRole", "ClusterRoleBinding",
                             "Namespace"):
            check(d["metadata"].get("namespace") == ns,
                  f"{d['kind']} {d['metadata']['name']} in namespace {ns}")

    print(f"kubernetes: {0 if failures else 1} passed, "
          f"{1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
