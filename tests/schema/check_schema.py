#!/usr/bin/env python3
"""schema.taplo: runs an independent validator, Taplo (npm @taplo/cli), with
schemas/scenario.schema.json over every scenario the loader accepts (scenarios/,
tests/data/scenarios/valid/: the schema must accept them) and over the broken corpus
(tests/data/scenarios/invalid/: the schema must reject each, except the files in
ALLOWED_TO_PASS, whose fault a JSON Schema cannot express), and over a scenario per
[router] metrics URL of tests/schema/metrics_urls.txt (the schema must give each the
loader's verdict).

  check_schema.py SOURCE_DIR WORK_DIR
Exit 0: agree; 1: a disagreement (listed); 77: Taplo could not be installed (skipped).
"""
import glob
import os
import re
import subprocess
import sys

# Broken files the schema accepts, and why a schema cannot judge them.
ALLOWED_TO_PASS = {
    "compare_odd_repetitions.toml": "repetitions may come from [defaults] (a sum across tables)",
    "compare_workers_odd_repetitions.toml": "repetitions may come from [defaults]",
    "compare_workers_undefined.toml": "a compared worker against the [worker_impls] names",
    "connections_below_threads.toml": "compares connections with workers * threads",
    "duplicate_workload_name.toml": "uniqueness of a field across array items",
    "gate_confirm_in_comparison.toml": "a gate's key against the scenario's [compare] table",
    "gate_glob_matches_nothing.toml": "a gate's glob against the workload names",
    "gate_on_swept_base_name.toml": "a gate's workload against the swept workload names",
    "gate_unknown_workload.toml": "a gate's workload against the workload names",
    "rate_per_connection_too_high.toml": "rate divided by connections",
    "request_bytes_times_in_flight_too_large.toml": "a size after unit conversion times in_flight",
    "router_address_host_name.toml": "the address's host must be IPv4 only without key 'ready'",
    "router_tls.toml": "every workload's tls against [router] tls (a TLS router serves no cleartext)",
    "tls_ca_file_missing.toml": "whether a file exists at load time",
    "timeout_too_short.toml": "timeout against warmup + duration * repetitions",
    "unset_env_var.toml": "the environment at load time",
    "wamp_rawsocket_payload_too_large.toml": "a size after unit conversion and base64 growth",
    "wamp_websocket_json_payload_too_large.toml": "a size after unit conversion and base64 growth",
    "wamp_worker_callee_bench_echo.toml": "a procedure name reserved for callee = router",
    "workers_at_bad_port.toml": "a port's range inside a string",
    "worker_impl_undefined.toml": "a workload's worker against the [worker_impls] names",
    "worker_adapter_wrk_window.toml": "a window's length against the adapter its worker names",
    "wrong_type_count_float.toml": "JSON Schema counts 3.0 as an integer; TOML does not",
}


# A scenario around one [router] metrics URL of tests/schema/metrics_urls.txt; the loader's
# test builds the same text (tests/unit/orchestrator/scenario/scenario_metrics_url_test.cc).
METRICS_URL_SCENARIO = ('name = "metrics_url"\n[router]\nimpl = "external"\n'
                        'address = "127.0.0.1:18080"\nmetrics = "{url}"\n'
                        '[[workloads]]\nname = "get"\n')


def metrics_url_files(source, work):
    """(path, verdict, url) for each URL of metrics_urls.txt, written as a scenario."""
    folder = os.path.join(os.path.abspath(work), "metrics_urls")
    os.makedirs(folder, exist_ok=True)
    out = []
    with open(os.path.join(source, "tests", "schema", "metrics_urls.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            verdict, url = line.split("\t", 1)
            path = os.path.join(folder, f"url_{len(out):03d}.toml")
            with open(path, "w", encoding="utf-8") as scenario:
                scenario.write(METRICS_URL_SCENARIO.replace("{url}", url))
            out.append((path, verdict, url))
    return out


def main():
    source, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    taplo = os.path.join(work, "node_modules", ".bin", "taplo")
    if not os.path.exists(taplo):
        npm = subprocess.run(
            ["npm", "install", "--prefix", work, "--no-audit", "--no-fund", "@taplo/cli"],
            capture_output=True, text=True, timeout=300)
        if npm.returncode != 0 or not os.path.exists(taplo):
            print("schema.taplo: SKIP: could not install @taplo/cli with npm "
                  "(no network or no npm):\n" + npm.stderr[-2000:])
            return 77
    schema = "file://" + os.path.join(source, "schemas", "scenario.schema.json")
    valid = sorted(glob.glob(os.path.join(source, "scenarios", "*.toml")) +
                   glob.glob(os.path.join(source, "tests/data/scenarios/valid/*.toml")))
    invalid = sorted(glob.glob(os.path.join(source, "tests/data/scenarios/invalid/*.toml")))
    urls = metrics_url_files(source, work)
    # One Taplo run for every file: each start of the validator costs seconds.
    run = subprocess.run([taplo, "lint", "--colors", "never", "--no-auto-config",
                          "--schema", schema] + valid + invalid + [path for path, _, _ in urls],
                         capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, NO_COLOR="1", RUST_LOG="warn"))
    output = run.stdout + run.stderr
    rejected = set(re.findall(r'invalid file .*?path="([^"]+)"', output))
    problems = []
    for path in valid:
        if path in rejected:
            problems.append(f"schema rejects {path}, which the loader accepts")
    for path in invalid:
        name = os.path.basename(path)
        if path not in rejected and name not in ALLOWED_TO_PASS:
            problems.append(f"schema accepts {path}, which the loader rejects")
        if path in rejected and name in ALLOWED_TO_PASS:
            problems.append(f"{name} is on the allow-list but the schema rejects it: remove it")
    for path, verdict, url in urls:
        if (path in rejected) != (verdict == "refuse"):
            problems.append(f"the schema's [router] metrics pattern does not {verdict} "
                            f"\"{url}\" ({path}), as the loader does")
    names = {os.path.basename(path) for path in invalid}
    for name in sorted(set(ALLOWED_TO_PASS) - names):
        problems.append(f"{name} is on the allow-list but no longer in the corpus: remove it")
    print(f"schema.taplo: {len(valid)} valid and {len(invalid)} broken files, "
          f"{len(urls)} metrics URLs, "
          f"{len(rejected)} rejected by the schema")
    if problems:
        print(output[-6000:])
        print("\n".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
