#!/usr/bin/env bash
# Scaling with threads, HTTP/1.1: how the requests/s of the worker (as a load generator) and of
# the router (as a server) grow from 1 to N threads, and the efficiency at each count against
# one thread: rps(T) / (T x rps(1)), 1.0 being perfect.
#
#   - worker: 1..N threads (`threads` of one worker, through `orchestrator run`, 50 keep-alive
#     connections per thread) against nginx with N workers (an `external` system under test);
#   - router: 1..N threads (`--threads`, GET /bench/hello) under h2load with N threads and
#     50 connections per router thread.
#
#   bench/scaling.sh [ROUNDS (default 3)] [SECONDS per run (default 3)] [N (default below)]
#
# N defaults to half the online cores from 4 cores up (so that each side has cores of its
# own) and to the number of cores below that (2 cores: N = 1, 2). Thread counts run are 1, 2,
# 4, ... below N, and N. Pinning (taskset): the side measured with T threads on cores 0..T-1;
# its counterpart (nginx's N workers, h2load's N threads) on the last N cores when 2N cores
# are online, else on every core (the two sides then share cores, and the line says so: on a
# small machine the efficiency at N is then partly the counterpart's). Each round runs every
# thread count once, in an order that rotates from round to round; medians over ROUNDS.
# Goal (issue 19): efficiency at least 0.9 at 8 threads where the machine has the cores.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

ROUNDS="${1:-3}"
SECS="${2:-3}"
CORES="$(nproc)"
if ((CORES >= 4)); then DEFAULT_N=$((CORES / 2)); else DEFAULT_N="$CORES"; fi
N="${3:-$DEFAULT_N}"
((N >= 1)) || { echo "scaling: N must be at least 1" >&2; exit 2; }
PER_THREAD_CONNS=50
STEPS=()
for ((t = 1; t < N; t *= 2)); do STEPS+=("$t"); done
STEPS+=("$N")
bench_need h2load nginx taskset "$BIN/orchestrator" "$BIN/worker" "$BIN/router"
bench_init scaling $((ROUNDS * ${#STEPS[@]} * 2 * (SECS + 25) + 300))

# cores_for T: the measured side's cores; COUNTERPART: the other side's.
cores_for() { if (($1 == 1)); then echo 0; else echo "0-$(($1 - 1))"; fi; }
if ((2 * N <= CORES)); then
  COUNTERPART="$((CORES - N))"
  ((N > 1)) && COUNTERPART+="-$((CORES - 1))"
  SHARED=""
else
  COUNTERPART="0-$((CORES - 1))"
  SHARED=" (fewer than 2N cores: the counterpart runs on every core, sharing them)"
fi
BENCH_PINNING="measured side with T threads on cores 0..T-1; nginx / h2load on cores $COUNTERPART$SHARED"

echo "== scaling with threads: worker vs nginx ($N workers), router under h2load ($N threads) =="
print_environment
echo "workload:  HTTP/1.1 GET -> 200 'Hello, world', keep-alive, $PER_THREAD_CONNS connections per" \
  "measured thread, ${SECS}s per run, $ROUNDS rounds; thread counts: ${STEPS[*]}"
echo "anchors:   $(h2load --version 2>&1 | head -n1); $(nginx -v 2>&1)"

NPORT="$(free_port)"
NGINX_WORKERS="$N" start_nginx "$NPORT" "$COUNTERPART" $((PER_THREAD_CONNS * N + 64))
declare -A RPORT
for t in "${STEPS[@]}"; do
  RPORT[$t]="$(free_port)"
  start_router "$(cores_for "$t")" "${RPORT[$t]}" --threads "$t" --idle-timeout 300s
  echo "router $t:  $ROUTER_READY"
done

scenario() { # THREADS
  local t="$1"
  cat >"$BENCH_TMP/worker-$t.toml" <<TOML
name = "bench_scaling"
[router]
impl = "external"
address = "127.0.0.1:$NPORT"
[defaults]
warmup = "1s"
duration = "${SECS}s"
repetitions = 1
workers = 1
threads = $t
[[workloads]]
name = "nginx_hello_$t"
protocol = "http1"
target = "/"
connections = $((PER_THREAD_CONNS * t))
in_flight = 1
expect_body_bytes = 12
TOML
}
for t in "${STEPS[@]}"; do scenario "$t"; done

declare -A RPS
run_worker() { # THREADS ROUND
  local t="$1" i="$2" json="$BENCH_TMP/worker-$1-$2.json" rps n errs cpu wall flags
  timeout $((SECS + 60)) taskset -c "$(cores_for "$t")" "$BIN/orchestrator" run \
    "$BENCH_TMP/worker-$t.toml" --db "$BENCH_TMP/bench.db" --json "$json" \
    >"$BENCH_TMP/worker-$t-$i.out" 2>"$BENCH_TMP/worker-$t-$i.err" || {
    echo "orchestrator failed:" >&2
    tail -n 20 "$BENCH_TMP/worker-$t-$i.err" "$BENCH_TMP/worker-$t-$i.out" >&2
    exit 3
  }
  read -r rps n errs cpu wall flags < <("$PY" "$LIB/benchlib.py" worker-json "$json")
  RPS[worker:$t]+=" $rps"
  printf '  round %d worker %2d threads %10.0f req/s (%d requests, %d errors, flags %s)\n' \
    "$i" "$t" "$rps" "$n" "$errs" "$flags"
}
run_router() { # THREADS ROUND
  local t="$1" i="$2" out="$BENCH_TMP/router-$1-$2.out" rps n
  timeout $((SECS + 15)) taskset -c "$COUNTERPART" h2load --h1 -t"$N" \
    -c$((PER_THREAD_CONNS * t > N ? PER_THREAD_CONNS * t : N)) -D "$SECS" \
    "http://127.0.0.1:${RPORT[$t]}/bench/hello" >"$out" 2>&1
  read -r rps n < <("$PY" "$LIB/benchlib.py" h2load "$out")
  if [[ "$rps" == "-" ]]; then
    echo "h2load against the router ($t threads) failed:" >&2
    cat "$out" >&2
    exit 3
  fi
  RPS[router:$t]+=" $rps"
  printf '  round %d router %2d threads %10.0f req/s (%d requests)\n' "$i" "$t" "$rps" "$n"
}

# Warm every server (and the page cache of every binary) without measuring.
timeout 10 h2load --h1 -t1 -c10 -n 20000 "http://127.0.0.1:$NPORT/" >/dev/null 2>&1 || true
for t in "${STEPS[@]}"; do
  timeout 10 h2load --h1 -t1 -c10 -n 20000 "http://127.0.0.1:${RPORT[$t]}/bench/hello" \
    >/dev/null 2>&1 || true
done

for ((i = 1; i <= ROUNDS; i++)); do
  for ((k = 0; k < ${#STEPS[@]}; k++)); do
    t="${STEPS[$(((i - 1 + k) % ${#STEPS[@]}))]}"
    run_worker "$t" "$i"
    run_router "$t" "$i"
  done
done

echo
echo "== medians over $ROUNDS rounds (min-max); efficiency = rps(T) / (T x rps(1)) =="
for side in worker router; do
  read -r base _ _ < <(stats ${RPS[$side:1]})
  for t in "${STEPS[@]}"; do
    read -r m lo hi < <(stats ${RPS[$side:$t]})
    printf '  %-6s %2d threads %10.0f req/s (%.0f-%.0f)  %9.0f per thread  efficiency %s\n' \
      "$side" "$t" "$m" "$lo" "$hi" "$("$PY" -c "print($m / $t)")" \
      "$("$PY" "$LIB/benchlib.py" ratio "$m" "$("$PY" -c "print($t * $base)")")"
  done
done
echo "  (worker: the generator measured against nginx with $N workers; router: the server" \
  "measured under h2load with $N threads. Goal: efficiency >= 0.9 at 8 threads on a machine" \
  "with the cores.)"

echo
print_load_after
