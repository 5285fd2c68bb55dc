"""The Kubernetes manifests (docker/kubernetes) against the code they deploy.

Every overlay is rendered with `kubectl kustomize` in a temporary copy of the folder holding a
generated token file (the repository never holds one). The rendered objects are then checked
against the real binaries: every flag a container passes is one its binary's --help lists, each
listener binds a port the container declares, selectors match the pods' labels, the worker
Service is headless, the token Secret is mounted 0440 for the container's own group (the one
wider mode the token check accepts). Finally each container is started for real with its
manifest's command line, its listeners moved from 0.0.0.0 to free loopback ports and its mounts
to temporary folders, and its probes and scrape annotation are called against it.

This is rendering and local processes only: no cluster is involved (docs/KUBERNETES.md).
"""
import base64
import os
import re
import shutil
import socket
import stat
import subprocess
import tempfile
import time
import unittest
import urllib.request

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
MANIFESTS = os.path.join(ROOT, "docker/kubernetes")
BIN = os.environ.get("BENCHGATE_BIN", os.path.join(ROOT, "build/bin"))
BINARIES = {"/usr/local/bin/orchestrator": "orchestrator", "/usr/local/bin/worker": "worker",
            "/usr/local/bin/router": "router"}
# The flags of each binary that open a listener (HOST:PORT).
LISTEN_FLAGS = {"worker": ["--listen"], "orchestrator": ["--listen", "--metrics-listen"],
                "router": ["--http", "--websocket", "--rawsocket", "--metrics-listen",
                           "--control"]}
TOKEN_FLAGS = {"worker": "--token-file", "orchestrator": "--worker-token-file"}


def help_flags(binary, subcommand):
    """The long options a binary's real --help lists."""
    argv = [os.path.join(BIN, binary)] + ([subcommand] if subcommand else []) + ["--help"]
    text = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=30).stdout
    return set(re.findall(r"^\s+(?:-\w,)?(--[a-z0-9-]+)", text, re.M))


def flag_values(args):
    """{flag: [values]} of an argument vector of `--flag value` pairs and bare flags."""
    values = {}
    i = 0
    while i < len(args):
        if args[i].startswith("--"):
            value = args[i + 1] if i + 1 < len(args) and not args[i + 1].startswith("--") else None
            values.setdefault(args[i], []).append(value)
            i += 2 if value is not None else 1
        else:
            i += 1
    return values


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pods(objects):
    return [o for o in objects if o["kind"] in ("Deployment", "StatefulSet")]


def selects(selector, labels):
    """Whether a label selector (matchLabels only: the manifests use nothing else) picks labels."""
    assert set(selector) <= {"matchLabels"}, selector
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def admitting(objects, workload, port):
    """The `from` entries of every ingress rule that admits TCP connections to a container port
    (a dict of the pod spec's ports list) of a workload's pods, or None for a rule that admits
    them from everywhere. An empty list: the pods are isolated and nothing may connect."""
    labels = workload["spec"]["template"]["metadata"]["labels"]
    sources = []
    for policy in (o for o in objects if o["kind"] == "NetworkPolicy"
                   and o["metadata"].get("namespace") == workload["metadata"].get("namespace")
                   and "Ingress" in o["spec"].get("policyTypes", ["Ingress"])
                   and selects(o["spec"]["podSelector"], labels)):
        for rule in policy["spec"].get("ingress", []):
            ports = rule.get("ports")
            if ports is not None and not any(
                    p.get("protocol", "TCP") == "TCP" and p.get("port") in (
                        port["containerPort"], port.get("name")) for p in ports):
                continue
            sources.append(rule.get("from"))
    return sources


def isolated(objects, workload):
    """Whether some NetworkPolicy selects the workload's pods for ingress: then only what a
    policy admits reaches them."""
    labels = workload["spec"]["template"]["metadata"]["labels"]
    return any(o["kind"] == "NetworkPolicy"
               and o["metadata"].get("namespace") == workload["metadata"].get("namespace")
               and "Ingress" in o["spec"].get("policyTypes", ["Ingress"])
               and selects(o["spec"]["podSelector"], labels) for o in objects)


class Rendered:
    """One overlay rendered in a temporary copy with a fresh token file."""

    def __init__(self, overlay):
        self.tmp = tempfile.mkdtemp(prefix="benchgate-k8s-")
        copy = os.path.join(self.tmp, "kubernetes")
        shutil.copytree(MANIFESTS, copy, ignore=shutil.ignore_patterns("worker-token"))
        self.token = "k8s-test-" + os.urandom(8).hex()
        token_path = os.path.join(copy, "base/worker-token")
        with open(token_path, "w") as f:
            f.write(self.token + "\n")
        os.chmod(token_path, 0o600)
        out = subprocess.run(["kubectl", "kustomize", os.path.join(copy, "overlays", overlay)],
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise AssertionError(f"kubectl kustomize overlays/{overlay}: {out.stderr}")
        self.objects = [o for o in yaml.safe_load_all(out.stdout) if o]

    def one(self, kind, name):
        found = [o for o in self.objects if o["kind"] == kind and o["metadata"]["name"] == name]
        assert len(found) == 1, f"{kind}/{name}: {len(found)} found"
        return found[0]

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


OVERLAYS = sorted(os.listdir(os.path.join(MANIFESTS, "overlays")))


class ManifestTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.help = {"worker": help_flags("worker", None), "router": help_flags("router", None),
                    "orchestrator": help_flags("orchestrator", "serve")}
        cls.rendered = {o: Rendered(o) for o in OVERLAYS}

    @classmethod
    def tearDownClass(cls):
        for r in cls.rendered.values():
            r.cleanup()

    def each(self):
        for overlay, r in self.rendered.items():
            with self.subTest(overlay=overlay):
                yield overlay, r

    def test_overlays_exist_and_render_the_three_parts(self):
        self.assertGreaterEqual(len(OVERLAYS), 2, OVERLAYS)
        for _, r in self.each():
            r.one("StatefulSet", "benchgate-worker")
            r.one("Deployment", "benchgate-orchestrator")
            r.one("Deployment", "benchgate-router")
            r.one("PersistentVolumeClaim", "benchgate-orchestrator-data")

    def test_without_the_token_file_rendering_fails_as_the_docs_show(self):
        # The token is the user's to create (docs/KUBERNETES.md, "Apply"); without it kustomize
        # fails with a message of its own, which the docs quote at the command so that a user
        # recognises it. Each fragment is in the real message and in the docs.
        fragments = ["loading KV pairs: file sources: [token=worker-token]:",
                     "evalsymlink failure on '", "base/worker-token' : lstat",
                     "base/worker-token: no such file or directory"]
        with open(os.path.join(ROOT, "docs/KUBERNETES.md")) as f:
            docs = " ".join(f.read().split())
        tmp = tempfile.mkdtemp(prefix="benchgate-k8s-")
        try:
            copy = os.path.join(tmp, "kubernetes")
            shutil.copytree(MANIFESTS, copy, ignore=shutil.ignore_patterns("worker-token"))
            for overlay in OVERLAYS:
                with self.subTest(overlay=overlay):
                    out = subprocess.run(
                        ["kubectl", "kustomize", os.path.join(copy, "overlays", overlay)],
                        capture_output=True, text=True, timeout=120)
                    self.assertNotEqual(out.returncode, 0)
                    self.assertEqual(out.stdout, "")
                    for fragment in fragments:
                        self.assertIn(fragment, out.stderr)
                        self.assertIn(fragment, docs)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_every_object_is_labelled_part_of_benchgate(self):
        # `kubectl get all -l app.kubernetes.io/part-of=benchgate` finds the whole deployment,
        # the optional router's objects included (a component does not get its base's labels).
        for _, r in self.each():
            for o in r.objects:
                self.assertEqual(o["metadata"].get("labels", {}).get("app.kubernetes.io/part-of"),
                                 "benchgate", f"{o['kind']}/{o['metadata']['name']}")

    def test_selectors_match_the_pods_labels(self):
        for _, r in self.each():
            for w in pods(r.objects):
                labels = w["spec"]["template"]["metadata"]["labels"]
                for k, v in w["spec"]["selector"]["matchLabels"].items():
                    self.assertEqual(labels.get(k), v, w["metadata"]["name"])
            for svc in (o for o in r.objects if o["kind"] == "Service"):
                selected = [w for w in pods(r.objects)
                            if all(w["spec"]["template"]["metadata"]["labels"].get(k) == v
                                   for k, v in svc["spec"]["selector"].items())]
                self.assertEqual(len(selected), 1, svc["metadata"]["name"])
                names = {p["name"] for c in selected[0]["spec"]["template"]["spec"]["containers"]
                         for p in c.get("ports", [])}
                for port in svc["spec"]["ports"]:
                    self.assertIn(port["targetPort"], names, svc["metadata"]["name"])

    def test_the_worker_service_is_headless_and_names_the_statefulset(self):
        for _, r in self.each():
            svc = r.one("Service", "benchgate-worker")
            self.assertEqual(svc["spec"]["clusterIP"], "None")
            self.assertEqual(r.one("StatefulSet", "benchgate-worker")["spec"]["serviceName"],
                             "benchgate-worker")

    def test_flags_are_the_binaries_own_and_listeners_bind_the_declared_ports(self):
        for _, r in self.each():
            for w in pods(r.objects):
                for c in w["spec"]["template"]["spec"]["containers"]:
                    binary = BINARIES[c["command"][0]]
                    args = c["args"]
                    if binary == "orchestrator":
                        self.assertEqual(args[0], "serve")
                        args = args[1:]
                    flags = flag_values(args)
                    for flag in flags:
                        self.assertIn(flag, self.help[binary], f"{binary} has no {flag}")
                    declared = {p["containerPort"] for p in c["ports"]}
                    bound = set()
                    for flag in LISTEN_FLAGS[binary]:
                        for value in flags.get(flag, []):
                            host, port = value.rsplit(":", 1)
                            if host == "127.0.0.1":   # deliberately pod-local (RouterControl)
                                self.assertNotIn(int(port), declared)
                                continue
                            self.assertEqual(host, "0.0.0.0", f"{binary} {flag} {value}")
                            bound.add(int(port))
                    self.assertEqual(bound, declared, f"{binary}: listeners vs containerPorts")

    def test_the_orchestrator_finds_the_workers_through_the_headless_service(self):
        for _, r in self.each():
            svc = r.one("Service", "benchgate-worker")
            grpc = [p for p in svc["spec"]["ports"] if p["name"] == "grpc"][0]["port"]
            args = r.one("Deployment", "benchgate-orchestrator")["spec"]["template"]["spec"][
                "containers"][0]["args"]
            self.assertEqual(flag_values(args[1:])["--workers-at"],
                             [f"dns:{svc['metadata']['name']}:{grpc}"])
            # The scenario asks for no more workers than the StatefulSet runs.
            replicas = r.one("StatefulSet", "benchgate-worker")["spec"]["replicas"]
            scenarios = [o for o in r.objects if o["kind"] == "ConfigMap"][0]["data"]
            for name, text in scenarios.items():
                wanted = int(re.search(r"^workers = (\d+)", text, re.M).group(1))
                self.assertLessEqual(wanted, replicas, name)

    def test_the_token_secret_is_mounted_0440_for_the_containers_own_group(self):
        for _, r in self.each():
            secret_names = [o["metadata"]["name"] for o in r.objects if o["kind"] == "Secret"]
            self.assertEqual(len(secret_names), 1, secret_names)
            secret = r.one("Secret", secret_names[0])
            self.assertEqual(base64.b64decode(secret["data"]["token"]).decode().strip(), r.token)
            for name in ("benchgate-worker", "benchgate-orchestrator"):
                w = [o for o in pods(r.objects) if o["metadata"]["name"] == name][0]
                spec = w["spec"]["template"]["spec"]
                ctx = spec["securityContext"]
                self.assertEqual(ctx["fsGroup"], ctx["runAsGroup"], name)
                volume = [v for v in spec["volumes"] if "secret" in v][0]
                self.assertEqual(volume["secret"]["secretName"], secret_names[0])
                self.assertEqual(volume["secret"]["defaultMode"], 0o440, name)
                c = spec["containers"][0]
                mount = [m for m in c["volumeMounts"] if m["name"] == volume["name"]][0]
                self.assertTrue(mount["readOnly"])
                binary = BINARIES[c["command"][0]]
                self.assertEqual(flag_values(c["args"])[TOKEN_FLAGS[binary]],
                                 [mount["mountPath"] + "/token"])

    def test_containers_are_non_root_read_only_and_guaranteed(self):
        for _, r in self.each():
            for w in pods(r.objects):
                spec = w["spec"]["template"]["spec"]
                self.assertTrue(spec["securityContext"]["runAsNonRoot"])
                self.assertNotEqual(spec["securityContext"]["runAsUser"], 0)
                for c in spec["containers"]:
                    self.assertTrue(c["securityContext"]["readOnlyRootFilesystem"])
                    self.assertFalse(c["securityContext"]["allowPrivilegeEscalation"])
                    self.assertEqual(c["resources"]["requests"], c["resources"]["limits"])

    def test_only_the_orchestrator_may_reach_the_workers_port(self):
        for _, r in self.each():
            policies = [o for o in r.objects if o["kind"] == "NetworkPolicy"
                        and o["spec"]["podSelector"]["matchLabels"].get(
                            "app.kubernetes.io/name") == "benchgate-worker"]
            self.assertEqual(len(policies), 1)
            ingress = policies[0]["spec"]["ingress"]
            self.assertEqual(len(ingress), 1)
            self.assertEqual(ingress[0]["from"], [{"podSelector": {"matchLabels": {
                "app.kubernetes.io/name": "benchgate-orchestrator"}}}])
            self.assertEqual([p["port"] for p in ingress[0]["ports"]], [7800])

    def test_every_listening_port_is_admitted_only_to_named_pods(self):
        # Every port a container listens on (the listeners are its declared ports, checked
        # above) is behind a NetworkPolicy: its pods are isolated, some rule admits the port,
        # and every rule that does names the pods it admits by their labels, never the whole
        # cluster, a whole namespace or an address block.
        for _, r in self.each():
            for w in pods(r.objects):
                name = w["metadata"]["name"]
                self.assertTrue(isolated(r.objects, w), f"{name}: no NetworkPolicy selects it")
                for c in w["spec"]["template"]["spec"]["containers"]:
                    for port in c["ports"]:
                        where = f"{name} port {port['containerPort']}"
                        sources = admitting(r.objects, w, port)
                        self.assertTrue(sources, f"{where}: no rule admits it")
                        for entries in sources:
                            self.assertTrue(entries, f"{where}: admitted from everywhere")
                            for entry in entries:
                                self.assertNotIn("ipBlock", entry, where)
                                self.assertTrue(entry.get("podSelector", {}).get("matchLabels"),
                                                f"{where}: admitted from every pod of {entry}")

    def test_serve_is_reached_only_by_labelled_clients_and_scrapers(self):
        # serve has no authentication: its gRPC port (submit, cancel, promote) admits only
        # benchgate/client pods of benchgate/client namespaces, its /metrics and the router's
        # only benchgate/scraper ones (the router's also the orchestrator, which scrapes it);
        # the overlays' namespace carries both labels and docs/KUBERNETES.md names them.
        def labelled(key):
            return {"namespaceSelector": {"matchLabels": {key: "true"}},
                    "podSelector": {"matchLabels": {key: "true"}}}
        wanted = {"grpc": [[labelled("benchgate/client")]],
                  "metrics": [[labelled("benchgate/scraper")]]}
        for _, r in self.each():
            w = r.one("Deployment", "benchgate-orchestrator")
            ports = {p["name"]: p for p in w["spec"]["template"]["spec"]["containers"][0]["ports"]}
            self.assertEqual(set(ports), set(wanted))
            for name, sources in wanted.items():
                self.assertEqual(admitting(r.objects, w, ports[name]), sources, name)
            router = r.one("Deployment", "benchgate-router")
            metrics = [p for p in router["spec"]["template"]["spec"]["containers"][0]["ports"]
                       if p["name"] == "metrics"][0]
            scrapers = [e for entries in admitting(r.objects, router, metrics) for e in entries]
            self.assertIn(labelled("benchgate/scraper"), scrapers)
            namespace = [o for o in r.objects if o["kind"] == "Namespace"]
            self.assertEqual(len(namespace), 1)
            self.assertEqual(namespace[0]["metadata"]["name"], w["metadata"]["namespace"])
            self.assertEqual({k: v for k, v in namespace[0]["metadata"].get("labels", {}).items()
                              if k.startswith("benchgate/")},
                             {"benchgate/client": "true", "benchgate/scraper": "true"})
        with open(os.path.join(ROOT, "docs/KUBERNETES.md")) as f:
            docs = f.read()
        for key in ("benchgate/client", "benchgate/scraper"):
            self.assertIn(f"{key}=true", docs)

    def test_the_router_takes_connections_from_the_workers_and_the_orchestrators_probe(self):
        for _, r in self.each():
            policy = r.one("NetworkPolicy", "benchgate-router-ingress")
            svc = r.one("Service", "benchgate-router")
            http = [p for p in svc["spec"]["ports"] if p["name"] == "http"][0]["targetPort"]
            pod = r.one("Deployment", "benchgate-router")["spec"]["template"]["spec"]
            port = [p for p in pod["containers"][0]["ports"] if p["name"] == http][0]
            rule = [i for i in policy["spec"]["ingress"]
                    if {"protocol": "TCP", "port": port["containerPort"]} in i["ports"]][0]
            sources = {f["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
                       for f in rule["from"]}
            self.assertEqual(sources, {"benchgate-worker", "benchgate-orchestrator"})

    def test_workers_are_spread_across_nodes(self):
        for _, r in self.each():
            sts = r.one("StatefulSet", "benchgate-worker")
            anti = sts["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"]
            terms = [t.get("podAffinityTerm", t) for rule in anti.values() for t in rule]
            self.assertTrue(terms)
            for t in terms:
                self.assertEqual(t["topologyKey"], "kubernetes.io/hostname")
                self.assertEqual(t["labelSelector"]["matchLabels"],
                                 sts["spec"]["selector"]["matchLabels"])

    def test_the_scenario_reaches_the_router_service_and_is_allowed_and_valid(self):
        for _, r in self.each():
            scenarios = r.one("ConfigMap", [o["metadata"]["name"] for o in r.objects
                                            if o["kind"] == "ConfigMap"][0])["data"]
            svc = r.one("Service", "benchgate-router")
            http = [p for p in svc["spec"]["ports"] if p["name"] == "http"][0]["port"]
            address = f"{svc['spec']['clusterIP']}:{http}"
            self.assertIn(f'address = "{address}"', scenarios["cluster_http.toml"])
            orchestrator = r.one("Deployment", "benchgate-orchestrator")
            args = orchestrator["spec"]["template"]["spec"]["containers"][0]["args"]
            self.assertIn(address, flag_values(args[1:])["--allow-address"])
            # The router's /metrics, at its Service's metrics port and scrape path, is the
            # scenario's `metrics`: allowed on serve, and its pod's policy admits the
            # orchestrator there.
            router = r.one("Deployment", "benchgate-router")
            path = router["spec"]["template"]["metadata"]["annotations"]["prometheus.io/path"]
            service_port = [p for p in svc["spec"]["ports"] if p["name"] == "metrics"][0]
            scrape = f"{svc['spec']['clusterIP']}:{service_port['port']}"
            self.assertIn(f'metrics = "http://{scrape}{path}"', scenarios["cluster_http.toml"])
            self.assertIn(scrape, flag_values(args[1:])["--allow-address"])
            container_port = [p for p in router["spec"]["template"]["spec"]["containers"][0][
                "ports"] if p["name"] == service_port["targetPort"]][0]
            orchestrator_labels = orchestrator["spec"]["template"]["metadata"]["labels"]
            self.assertTrue(any(
                entries and any(set(e) == {"podSelector"}
                                and selects(e["podSelector"], orchestrator_labels)
                                for e in entries)
                for entries in admitting(r.objects, router, container_port)),
                "the router's policy keeps the orchestrator from its /metrics")
            folder = tempfile.mkdtemp(dir=r.tmp)
            for name, text in scenarios.items():
                with open(os.path.join(folder, name), "w") as f:
                    f.write(text)
                out = subprocess.run([os.path.join(BIN, "orchestrator"), "validate",
                                      os.path.join(folder, name)],
                                     capture_output=True, text=True, timeout=30)
                self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_each_container_starts_with_its_command_line_and_answers_its_probes(self):
        r = self.rendered[OVERLAYS[0]]
        for w in pods(r.objects):
            with self.subTest(workload=w["metadata"]["name"]):
                self.start_and_probe(r, w)

    def start_and_probe(self, r, w):
        spec = w["spec"]["template"]["spec"]
        c = spec["containers"][0]
        root = tempfile.mkdtemp(dir=r.tmp)
        # The pod's mounts as local folders, filled as the kubelet would.
        paths = {}
        for m in c.get("volumeMounts", []):
            local = os.path.join(root, m["name"])
            os.makedirs(local)
            volume = [v for v in spec["volumes"] if v["name"] == m["name"]][0]
            if "secret" in volume:
                with open(os.path.join(local, "token"), "w") as f:
                    f.write(r.token + "\n")
                # The mode the kubelet gives it (defaultMode; fsGroup as the group, which is this
                # process's own here as there).
                os.chmod(os.path.join(local, "token"), volume["secret"]["defaultMode"])
            if "configMap" in volume:
                cm = r.one("ConfigMap", volume["configMap"]["name"])
                for name, text in cm["data"].items():
                    with open(os.path.join(local, name), "w") as f:
                        f.write(text)
            paths[m["mountPath"]] = local
        ports = {}
        args = []
        for a in c["args"]:
            m = re.fullmatch(r"0\.0\.0\.0:(\d+)", a)
            if m:
                ports[int(m.group(1))] = free_port()
                a = f"127.0.0.1:{ports[int(m.group(1))]}"
            elif re.fullmatch(r"127\.0\.0\.1:\d+", a):
                a = "127.0.0.1:0"
            for mount in sorted(paths, key=len, reverse=True):
                if a == mount or a.startswith(mount + "/"):
                    a = paths[mount] + a[len(mount):]
                    break
            args.append(a)
        by_name = {p["name"]: ports[p["containerPort"]] for p in c["ports"]}
        binary = os.path.join(BIN, BINARIES[c["command"][0]])
        proc = subprocess.Popen([binary] + args, cwd=root, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        try:
            probes = [c[k] for k in ("readinessProbe", "livenessProbe") if k in c]
            self.assertTrue(probes)
            annotations = w["spec"]["template"]["metadata"].get("annotations", {})
            if annotations.get("prometheus.io/scrape") == "true":
                probes.append({"httpGet": {"path": annotations["prometheus.io/path"],
                                           "port": int(annotations["prometheus.io/port"])}})
            for probe in probes:
                kind = "tcpSocket" if "tcpSocket" in probe else "httpGet"
                port = probe[kind]["port"]
                local = by_name[port] if isinstance(port, str) else ports[port]
                self.wait_until_answers(proc, kind, local, probe[kind].get("path"))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def wait_until_answers(self, proc, kind, port, path):
        last = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.fail(f"exited {proc.returncode}: {proc.stderr.read()}")
            try:
                if kind == "tcpSocket":
                    socket.create_connection(("127.0.0.1", port), timeout=2).close()
                    return
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as resp:
                    self.assertEqual(resp.status, 200)
                    return
            except OSError as e:  # refused until it listens; an HTTP error status fails below
                if isinstance(e, urllib.error.HTTPError):
                    self.fail(f"GET {path}: HTTP {e.code}")
                last = e
            time.sleep(0.05)
        self.fail(f"{kind} {port} {path}: never answered ({last})")


if __name__ == "__main__":
    unittest.main()
