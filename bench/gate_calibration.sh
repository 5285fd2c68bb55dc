#!/usr/bin/env bash
# How often the gates are wrong, measured on this machine in one run: the false-alarm rate of
# an A/A series (gated runs of the unchanged router against its own baseline) and the
# detection rate of slowdowns injected into the router (router --inject-work-ns N), for
# relative gates on throughput.rps, latency.p50 and latency.p99, with 5 baseline runs alone
# (t-test), with 5 baseline runs and with 1 baseline run pooled with the noise `orchestrator
# calibrate` measured first (calibrated-t).
#
# Every run is a real `orchestrator run`: it spawns the router as a command (so each run gets a
# fresh router process, as in CI), spawns the worker, measures, stores. N is calibrated so the
# injected work is the given fraction of the measured per-request time (1 / the baseline's
# median throughput: the router is one thread); the realized change of each figure is printed
# beside the nominal one, because the load generator shares the machine.
#
#   bench/gate_calibration.sh [A/A RUNS (default 20)] [RUNS per slowdown (default 10)]
#
# Levers against run-to-run noise, for trying what a testbed needs (each printed in the header):
#   BENCH_DURATION (default 1s), BENCH_REPETITIONS (3): the windows of every run;
#   BENCH_CONNECTIONS (32), BENCH_IN_FLIGHT (1): the load (32 x 1 keeps the router busy);
#   BENCH_ASLR=off: every process without address-space randomization (setarch -R), so that
#     each fresh router and worker has the same memory layout;
#   BENCH_STORED=off: only the baseline runs (for the per-request time) and the paired runs,
#     not the calibration and the gated runs against stored baselines;
#   BENCH_PIN=on: the router on BENCH_SERVER_CORE (its command under taskset), the orchestrator
#     and the worker it spawns on BENCH_CLIENT_CORE, so the scheduler never puts the load
#     generator and the server on one core for part of a run (default off: as users run it).
#
# Paired gates (docs/GATES.md, "Paired gates"): the same A/A and slowdown runs once more as
# comparisons in one run each ([compare] of the unchanged router and the candidate router, their
# windows alternating A B B A; BENCH_PAIRED_REPETITIONS pairs, default 12), judged by
# `against = "a"` gates with no baseline runs at all. BENCH_PAIRED=off leaves them out.
# BENCH_PAIRED_TEST: the paired gates' test, "signed-rank" (default, as a gate without `test`)
# or "t" (the paired t); the table's methods column names the one used. The signed-rank test
# needs at least 7 pairs at alpha 0.01 (2^-7 < 0.01): with fewer every paired verdict is
# underpowered; on a testbed whose speed steps within a run, 24 pairs of 500 ms
# (BENCH_PAIRED_REPETITIONS=24 BENCH_DURATION=500ms) survive two contrary wild pairs where 12
# survive none (docs/GATES.md, "Paired gates").
#
# Gates: max_regression 1%, alpha 0.01, Holm across the three gates of a run (as in any run).
# Windows (defaults): warm-up 200 ms, 3 repetitions of 1 s, 32 connections x 1 in flight, 1 worker.
# With 6 pairs per paired run (75 stored and 50 paired runs) it took 16 minutes on an idle
# 2-core machine (docs/GATES.md); 12 pairs make each paired run about twice as long.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

AA_RUNS="${1:-20}"
DETECT_RUNS="${2:-10}"
CALIBRATION_RUNS="${BENCH_CALIBRATION_RUNS:-10}"
BASELINE_RUNS=5
SLOWDOWNS=(0.02 0.05 0.10)
DURATION="${BENCH_DURATION:-1s}"
CONNECTIONS="${BENCH_CONNECTIONS:-32}"
IN_FLIGHT="${BENCH_IN_FLIGHT:-1}"
REPETITIONS="${BENCH_REPETITIONS:-3}"
ASLR="${BENCH_ASLR:-on}"
PIN="${BENCH_PIN:-off}"
STORED="${BENCH_STORED:-on}"
PAIRED="${BENCH_PAIRED:-on}"
PAIRED_REPETITIONS="${BENCH_PAIRED_REPETITIONS:-12}"
PAIRED_TEST="${BENCH_PAIRED_TEST:-signed-rank}"
case "$PAIRED_TEST" in
  signed-rank | t) ;;
  *) echo "BENCH_PAIRED_TEST=$PAIRED_TEST: must be signed-rank or t" >&2; exit 2 ;;
esac
TOTAL_RUNS=$((CALIBRATION_RUNS + BASELINE_RUNS + AA_RUNS + ${#SLOWDOWNS[@]} * DETECT_RUNS))
[[ "$STORED" == off ]] && TOTAL_RUNS=$BASELINE_RUNS
PAIRED_RUNS=0
[[ "$PAIRED" == on ]] && PAIRED_RUNS=$((AA_RUNS + ${#SLOWDOWNS[@]} * DETECT_RUNS))
bench_init gate-calibration $((TOTAL_RUNS * 20 + PAIRED_RUNS * (20 + 4 * PAIRED_REPETITIONS) + 120))
bench_need "$BIN/orchestrator" "$BIN/router" "$BIN/worker"

echo "== gate calibration: false alarms (A/A) and detection of injected slowdowns =="
BENCH_PINNING="none (the orchestrator spawns the router and the worker; they share the machine)"
[[ "$PIN" == on ]] && BENCH_PINNING="router on core $SERVER_CORE; orchestrator and worker on core $CLIENT_CORE (taskset)"
print_environment
NO_ASLR=()
[[ "$ASLR" == off ]] && NO_ASLR=(setarch "$(uname -m)" -R)
# The router's command prefix and the orchestrator's, as TOML array items and as words.
ROUTER_PIN=""
CLIENT_PIN=()
if [[ "$PIN" == on ]]; then
  ROUTER_PIN="\"$(command -v taskset)\", \"-c\", \"$SERVER_CORE\", "
  CLIENT_PIN=(taskset -c "$CLIENT_CORE")
fi
echo "windows:   warm-up 200ms, $REPETITIONS x $DURATION; $CONNECTIONS connections x $IN_FLIGHT in flight;" \
  "address-space randomization $ASLR"
[[ "$STORED" == off ]] && echo "stored:    off (no calibration, no gated runs against stored baselines)"
echo "runs:      $CALIBRATION_RUNS calibration, $BASELINE_RUNS baseline, $AA_RUNS A/A," \
  "$DETECT_RUNS per slowdown (${SLOWDOWNS[*]}); paired: $PAIRED" \
  "($PAIRED_REPETITIONS pairs of windows per run, test $PAIRED_TEST)"

DB="$BENCH_TMP/gates.db"
# scenario FILE INJECT_NS: the one workload, its three gates, and a router with that work.
scenario() {
  cat >"$1" <<TOML
name = "gate_calibration"
[router]
impl = "command"
command = [${ROUTER_PIN}"$BIN/router", "--http", "127.0.0.1:\${port:http}", "--control", "127.0.0.1:0",
           "--threads", "1", "--inject-work-ns", "$2"]
address = "127.0.0.1:\${port:http}"
[defaults]
warmup = "200ms"
duration = "$DURATION"
repetitions = $REPETITIONS
workers = 1
threads = 1
[[workloads]]
name = "hello"
target = "/bench/hello"
connections = $CONNECTIONS
in_flight = $IN_FLIGHT
[[gates]]
workload = "hello"
metric = "throughput.rps"
baseline = "main"
max_regression = "1%"
[[gates]]
workload = "hello"
metric = "latency.p50"
baseline = "main"
max_regression = "1%"
[[gates]]
workload = "hello"
metric = "latency.p99"
baseline = "main"
max_regression = "1%"
TOML
  "$BIN/orchestrator" validate "$1" >/dev/null
}

# paired_scenario FILE INJECT_NS: the unchanged router (a) and one with that work (b) compared in
# one run, windows alternating A B B A, and the three gates of b against a.
paired_scenario() {
  {
    echo 'name = "gate_calibration_paired"'
    for variant in a b; do
      local inject=0
      [[ "$variant" == b ]] && inject="$2"
      cat <<TOML
[routers.$variant]
impl = "command"
command = [${ROUTER_PIN}"$BIN/router", "--http", "127.0.0.1:\${port:http_$variant}", "--control", "127.0.0.1:0",
           "--threads", "1", "--inject-work-ns", "$inject"]
address = "127.0.0.1:\${port:http_$variant}"
TOML
    done
    cat <<TOML
[compare]
routers = ["a", "b"]
[defaults]
warmup = "200ms"
duration = "$DURATION"
repetitions = $PAIRED_REPETITIONS
workers = 1
threads = 1
[[workloads]]
name = "hello"
target = "/bench/hello"
connections = $CONNECTIONS
in_flight = $IN_FLIGHT
TOML
    for metric in throughput.rps latency.p50 latency.p99; do
      printf '[[gates]]\nworkload = "hello"\nmetric = "%s"\nvariant = "b"\nagainst = "a"\nmax_regression = "1%%"\ntest = "%s"\n' "$metric" "$PAIRED_TEST"
    done
  } >"$1"
  "$BIN/orchestrator" validate "$1" >/dev/null
}

# orch ARGS...: an orchestrator command whose output goes to a log; exit 0 and 1 (a gate
# failed) are expected, anything else ends the script with the log.
orch() {
  local log="$BENCH_TMP/orch.log" rc=0
  "${CLIENT_PIN[@]}" "${NO_ASLR[@]}" timeout 120 "$BIN/orchestrator" "$@" >"$log" 2>&1 || rc=$?
  if ((rc != 0 && rc != 1)); then
    echo "bench: orchestrator $* exited $rc" >&2
    tail -n 30 "$log" >&2
    exit 3
  fi
}

scenario "$BENCH_TMP/clean.toml" 0
if [[ "$STORED" == on ]]; then
  echo "-- calibrate ($CALIBRATION_RUNS runs of the unchanged router)"
  orch calibrate "$BENCH_TMP/clean.toml" --db "$DB" --runs "$CALIBRATION_RUNS"
  sed -n '/^calibration of/,$p' "$BENCH_TMP/orch.log"
fi

echo "-- baseline ($BASELINE_RUNS runs, the last one alone is the 1-run baseline)"
run_id() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["scenarios"][0]["run_id"])' "$1"; }
for i in $(seq "$BASELINE_RUNS"); do
  # Added by hand: --promote would skip a run whose gates failed against the runs before it.
  orch run "$BENCH_TMP/clean.toml" --db "$DB" --json "$BENCH_TMP/base-$i.json"
  last="$(run_id "$BENCH_TMP/base-$i.json")"
  orch baseline add main5 "$last" --db "$DB"
done
orch baseline add main1 "$last" --db "$DB"
per_request_ns="$("$PY" - "$DB" <<'PY'
import sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
rps = [r[0] for r in db.execute(
    "SELECT f.value FROM workload_figures f JOIN workloads w ON w.id = f.workload_id "
    "JOIN baselines b ON b.run_id = w.run_id AND b.name = 'main5' "
    "WHERE f.metric = 'throughput.rps'")]
print(round(1e9 / statistics.median(rps)))
PY
)"
echo "per-request time: ${per_request_ns} ns (1 / median throughput of the 5 baseline runs)"

# candidates LABEL INJECT_NS COUNT: gated runs against both baselines; verdicts to a file.
candidates() {
  local label="$1" inject="$2" count="$3" file="$BENCH_TMP/$1.toml" i run
  scenario "$file" "$inject"
  for i in $(seq "$count"); do
    orch run "$file" --db "$DB" --baseline main5 --json "$BENCH_TMP/$label-$i-5.json"
    run="$(run_id "$BENCH_TMP/$label-$i-5.json")"
    orch gate "$run" --db "$DB" --baseline main1 --json "$BENCH_TMP/$label-$i-1.json"
    echo "$label $inject $run" >>"$BENCH_TMP/candidates.txt"
  done
}

touch "$BENCH_TMP/candidates.txt"
if [[ "$STORED" == on ]]; then
  echo "-- A/A: $AA_RUNS gated runs of the unchanged router"
  candidates aa 0 "$AA_RUNS"
  for f in "${SLOWDOWNS[@]}"; do
    inject="$("$PY" -c "print(round($f * $per_request_ns))")"
    echo "-- slowdown $f: --inject-work-ns $inject, $DETECT_RUNS gated runs"
    candidates "slow$f" "$inject" "$DETECT_RUNS"
  done
fi

# paired LABEL INJECT_NS COUNT: gated comparisons in one run each, no baseline runs.
paired() {
  local label="$1" inject="$2" count="$3" file="$BENCH_TMP/paired-$1.toml" i
  paired_scenario "$file" "$inject"
  for i in $(seq "$count"); do
    orch run "$file" --db "$BENCH_TMP/paired.db" --json "$BENCH_TMP/$label-$i-p.json"
  done
}
if [[ "$PAIRED" == on ]]; then
  echo "-- paired: $AA_RUNS A/A comparisons, $DETECT_RUNS per slowdown, each in one run"
  paired aa 0 "$AA_RUNS"
  for f in "${SLOWDOWNS[@]}"; do
    paired "slow$f" "$("$PY" -c "print(round($f * $per_request_ns))")" "$DETECT_RUNS"
  done
fi

# The same candidates against the 5 baseline runs without the calibration (t-test on their
# own spread): a copy of the store without it, so the method of each row is the one it names.
cp "$DB" "$BENCH_TMP/uncalibrated.db"
"$PY" -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("DELETE FROM calibrations"); db.commit()' \
  "$BENCH_TMP/uncalibrated.db"
while read -r label _ run; do
  orch gate "$run" --db "$BENCH_TMP/uncalibrated.db" --baseline main5 \
    --json "$BENCH_TMP/$label-$run-t.json"
done <"$BENCH_TMP/candidates.txt"

echo
"$PY" - "$BENCH_TMP" "$DB" "${SLOWDOWNS[@]}" <<'PY'
import glob, json, os, sqlite3, statistics, sys
tmp, db_path, slowdowns = sys.argv[1], sys.argv[2], sys.argv[3:]
db = sqlite3.connect(db_path)
metrics = ["throughput.rps", "latency.p50", "latency.p99"]
labels = ["aa"] + ["slow" + s for s in slowdowns]

def verdicts(label, k):
    out = {m: [] for m in metrics}
    for path in sorted(glob.glob(os.path.join(tmp, f"{label}-*-{k}.json"))):
        for g in json.load(open(path))["scenarios"][0]["gates"]:
            out[g["metric"]].append(g)
    return out

def figure(run_ids, metric):
    rows = [db.execute("SELECT f.value FROM workload_figures f JOIN workloads w ON "
                       "w.id = f.workload_id WHERE w.run_id = ? AND f.metric = ?",
                       (r, metric)).fetchone()[0] for r in run_ids]
    return statistics.median(rows)

runs = {}
for line in open(os.path.join(tmp, "candidates.txt")):
    label, _, run = line.split()
    runs.setdefault(label, []).append(int(run))
base = [r[0] for r in db.execute("SELECT run_id FROM baselines WHERE name = 'main5'")]
stored = bool(runs)
if stored:
    print("realized change of the median figure against the 5 baseline runs:")
    print(f"  {'runs':10s} " + " ".join(f"{m:>16s}" for m in metrics))
for label in labels if stored else []:
    cells = []
    for m in metrics:
        change = figure(runs[label], m) / figure(base, m) - 1
        cells.append(f"{change * 100:+15.1f}%")
    print(f"  {label:10s} " + " ".join(cells))
print()
print("gate verdicts (fail / runs); max_regression 1%, alpha 0.01, Holm over 3 gates:")
header = f"  {'metric':16s} {'baseline':24s} {'false alarms A/A':>17s}"
for s in slowdowns:
    header += f" {'caught ' + str(round(float(s) * 100)) + '%':>12s}"
print(header + "  methods")
for m in metrics:
    designs = [("t", "5 runs"), ("5", "5 runs + calibration"), ("1", "1 run + calibration")]
    if not stored:
        designs = []
    if glob.glob(os.path.join(tmp, "aa-*-p.json")):
        designs.append(("p", "paired in one run"))
    for k, name in designs:
        row = f"  {m:16s} {name:24s}"
        methods = set()
        for i, label in enumerate(labels):
            gates = verdicts(label, k)[m]
            fails = sum(g["verdict"] == "fail" for g in gates)
            methods.update(g["method"] for g in gates)
            row += f" {f'{fails}/{len(gates)}':>17s}" if i == 0 else f" {f'{fails}/{len(gates)}':>12s}"
        print(row + "  " + ",".join(sorted(methods)))
under = sum(g["underpowered"] for label in labels for k in "t51"
            for m in metrics for g in verdicts(label, k)[m])
total = sum(len(verdicts(label, k)[m]) for label in labels for k in "t51" for m in metrics)
print(f"  underpowered verdicts: {under} of {total} (stored baselines)" if stored else
      "  underpowered verdicts:", end="")
paired = [g for label in labels for m in metrics for g in verdicts(label, "p")[m]]
if paired:
    print(f"{', ' if stored else ' '}{sum(g['underpowered'] for g in paired)} of {len(paired)} (paired)", end="")
    print()
    # What the pairs themselves say: the realized change, each gate's effect (paired-t: the
    # mean of the pairs' log ratios; paired-signed-rank: their Hodges-Lehmann estimate).
    print("realized change within the paired runs (median over runs of the gates' effect: mean "
          "pair change for paired-t, Hodges-Lehmann for paired-signed-rank):")
    print(f"  {'runs':10s} " + " ".join(f"{m:>16s}" for m in metrics))
    import math
    for label in labels:
        cells = []
        for m in metrics:
            gates = verdicts(label, "p")[m]
            sign = -1 if m.startswith("throughput") else 1
            effects = [math.expm1(sign * g["effect"]) for g in gates if g["effect"] is not None]
            cells.append(f"{statistics.median(effects) * 100:+15.1f}%" if effects else f"{'-':>16s}")
        print(f"  {label:10s} " + " ".join(cells))
else:
    print()
PY
print_load_after
