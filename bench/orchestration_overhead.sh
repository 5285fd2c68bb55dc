#!/usr/bin/env bash
# Wall time of a whole `orchestrator run` whose workload is as small as a scenario allows:
# 4 spawned workers, no warm-up, one 1 ms window, one repetition, 4 connections. What is
# left is the orchestration: validation, spawning and handshaking the router and 4 workers,
# connecting, the shared start instant (the orchestrator schedules a window 100 ms ahead so
# every worker starts together), the 1 ms window and the workers' drain, storing the run in
# SQLite, reports and teardown. Two systems under test:
#   builtin  - the bundled router, spawned and shut down by the orchestrator (the usual case)
#   external - an nginx already running (no router lifecycle)
# Nothing is subtracted: the figure is what a user waits for.
#
#   bench/orchestration_overhead.sh [RUNS per variant (default 10)]
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

RUNS="${1:-10}"
bench_init orchestration $((RUNS * 2 * 10 + 120))
bench_need nginx "$BIN/orchestrator" "$BIN/router" "$BIN/worker"

echo "== orchestration overhead: orchestrator run, 1 workload of 1 ms, 4 workers =="
print_environment
echo "pinning:   none here (the orchestrator, router and workers share the machine as usual)"

NPORT="$(free_port)"
start_nginx "$NPORT" "$SERVER_CORE"

tiny() { # FILE ROUTER-SECTION TARGET BODY-BYTES
  cat >"$1" <<TOML
name = "bench_overhead"
$2
[defaults]
warmup = "0s"
duration = "1ms"
repetitions = 1
workers = 4
threads = 1
[[workloads]]
name = "tiny"
protocol = "http1"
target = "$3"
connections = 4
expect_body_bytes = $4
TOML
}
tiny "$BENCH_TMP/builtin.toml" $'[router]\nimpl = "builtin"\nthreads = 1' /bench/hello 12
tiny "$BENCH_TMP/external.toml" \
  $'[router]\nimpl = "external"\naddress = "127.0.0.1:'"$NPORT"'"' / 12

for v in builtin external; do
  "$BIN/orchestrator" validate "$BENCH_TMP/$v.toml" >/dev/null
  # One run by hand first: it must succeed, and it says how long the window really was.
  "$BIN/orchestrator" run "$BENCH_TMP/$v.toml" --db "$BENCH_TMP/bench.db" \
    --json "$BENCH_TMP/$v.json" >"$BENCH_TMP/$v.first.out" 2>&1 || {
    cat "$BENCH_TMP/$v.first.out" >&2
    exit 3
  }
done
read -r _ ops _ _ window _ < <("$PY" "$LIB/benchlib.py" worker-json "$BENCH_TMP/builtin.json")
echo "window:    duration ${window}s per repetition, $ops requests in the check run"

if command -v hyperfine >/dev/null; then
  # Alternating is done by hyperfine running both commands in turn per run? It does not: it
  # runs each command's runs back to back, so the order is varied by running it twice.
  for round in 1 2; do
    for v in builtin external; do
      timeout 300 hyperfine -N --warmup 1 --runs "$((RUNS / 2 > 0 ? RUNS / 2 : 1))" \
        --export-json "$BENCH_TMP/hf-$v-$round.json" \
        "$BIN/orchestrator run $BENCH_TMP/$v.toml --db $BENCH_TMP/bench.db" \
        >"$BENCH_TMP/hf-$v-$round.out" 2>&1 || { cat "$BENCH_TMP/hf-$v-$round.out" >&2; exit 3; }
    done
  done
  for v in builtin external; do
    "$PY" - "$v" "$BENCH_TMP"/hf-"$v"-*.json <<'PY'
import json, statistics, sys
times = [t for f in sys.argv[2:] for t in json.load(open(f))["results"][0]["times"]]
print(f"  {sys.argv[1]:8s} median {statistics.median(times) * 1e3:7.1f} ms "
      f"(min {min(times) * 1e3:.1f}, max {max(times) * 1e3:.1f}, {len(times)} runs, hyperfine)")
PY
  done
else
  for v in builtin external; do
    T=""
    for ((i = 0; i < RUNS; i++)); do
      t0="$(date +%s%N)"
      "$BIN/orchestrator" run "$BENCH_TMP/$v.toml" --db "$BENCH_TMP/bench.db" >/dev/null 2>&1
      T+=" $((($(date +%s%N) - t0) / 1000))"
    done
    read -r m lo hi < <(stats $T)
    printf '  %-8s median %7.1f ms (min %.1f, max %.1f, %d runs)\n' "$v" \
      "$("$PY" -c "print($m / 1e3)")" "$("$PY" -c "print($lo / 1e3)")" \
      "$("$PY" -c "print($hi / 1e3)")" "$RUNS"
  done
fi
echo "  (includes the 100 ms start lead and the 1 ms window; goal: under 300 ms)"
echo
print_load_after
