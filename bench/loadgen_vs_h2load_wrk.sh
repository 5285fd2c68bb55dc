#!/usr/bin/env bash
# The builtin worker as a load generator, side by side with h2load and wrk: all three drive the
# same single nginx worker (12-byte body, keep-alive) with 1 thread and 50 connections, taking
# turns, PAIRS times in one invocation. Prints requests/s and the generator's CPU per request
# (median, min-max), then instructions per request of the worker and of h2load under callgrind.
#
#   bench/loadgen_vs_h2load_wrk.sh [PAIRS (default 5)] [SECONDS per run (default 3)]
#   BENCH_CALLGRIND=0 skips the callgrind part. BENCHGATE_BUILD=DIR picks the build.
#   BENCH_WORKER_HTTP1_IO=asio|epoll|uring picks how the worker's HTTP/1.1 connections wait for
#   answers (worker --http1-io, passed as BENCHGATE_WORKER_HTTP1_IO to every worker this
#   script starts, through the orchestrator too); unset: the worker's default.
#
# Why the orchestrator and not a bare worker: it is how the worker is used; the orchestrator is
# idle during the window, and the worker's own figures (operations, worker_cpu_seconds over
# the window) come from its --json output.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

PAIRS="${1:-5}"
SECS="${2:-3}"
CONNS=50
bench_init loadgen $((PAIRS * (3 * SECS + 20) + 400))
bench_need h2load wrk nginx taskset "$BIN/orchestrator" "$BIN/worker"
if [[ -n "${BENCH_WORKER_HTTP1_IO:-}" ]]; then
  export BENCHGATE_WORKER_HTTP1_IO="$BENCH_WORKER_HTTP1_IO"
fi

echo "== load generators against one nginx worker: worker vs h2load vs wrk =="
print_environment
echo "workload:  GET / -> 200 'Hello, world', keep-alive, 1 thread, $CONNS connections," \
  "${SECS}s per run, $PAIRS rounds (order rotates each round);" \
  "worker --http1-io ${BENCHGATE_WORKER_HTTP1_IO:-(default)}"
echo "anchors:   $(h2load --version 2>&1 | head -n1); $(wrk -v 2>&1 | head -n1 | cut -c1-40);" \
  "$(nginx -v 2>&1)"

PORT="$(free_port)"
start_nginx "$PORT" "$SERVER_CORE"

# The worker through the orchestrator: nginx as an external system under test.
scenario() { # NAME DURATION WARMUP
  nginx_hello_scenario "$BENCH_TMP/$1.toml" bench_loadgen "$PORT" "$CONNS" "$2" "$3"
}
scenario loadgen "${SECS}s" "1s"

declare -A RPS CPU MED_RPS MED_CPU
run_h2load() {
  local i="$1" out="$BENCH_TMP/h2load-$1.out"
  timeout $((SECS + 15)) taskset -c "$CLIENT_CORE" "$PY" "$LIB/benchlib.py" rusage \
    "$BENCH_TMP/h2load-$i.ru" -- h2load --h1 -t1 -c"$CONNS" -D "$SECS" \
    "http://127.0.0.1:$PORT/" >"$out" 2>&1
  read -r rps n < <("$PY" "$LIB/benchlib.py" h2load "$out")
  read -r u s <"$BENCH_TMP/h2load-$i.ru"
  RPS[h2load]+=" $rps"
  CPU[h2load]+=" $("$PY" -c "print(($u + $s) / $n * 1e6)")"
  printf '  round %d h2load  %10.0f req/s  %6.2f us CPU/req (user %.2fs sys %.2fs, %d req)\n' \
    "$i" "$rps" "$("$PY" -c "print(($u + $s) / $n * 1e6)")" "$u" "$s" "$n"
}
run_wrk() {
  local i="$1" out="$BENCH_TMP/wrk-$1.out"
  timeout $((SECS + 15)) taskset -c "$CLIENT_CORE" "$PY" "$LIB/benchlib.py" rusage \
    "$BENCH_TMP/wrk-$i.ru" -- wrk -t1 -c"$CONNS" -d"${SECS}s" "http://127.0.0.1:$PORT/" \
    >"$out" 2>&1
  read -r rps n < <("$PY" "$LIB/benchlib.py" wrk "$out")
  read -r u s <"$BENCH_TMP/wrk-$i.ru"
  RPS[wrk]+=" $rps"
  CPU[wrk]+=" $("$PY" -c "print(($u + $s) / $n * 1e6)")"
  printf '  round %d wrk     %10.0f req/s  %6.2f us CPU/req (user %.2fs sys %.2fs, %d req)\n' \
    "$i" "$rps" "$("$PY" -c "print(($u + $s) / $n * 1e6)")" "$u" "$s" "$n"
}
run_worker() {
  local i="$1" json="$BENCH_TMP/worker-$1.json"
  timeout $((SECS + 60)) taskset -c "$CLIENT_CORE" "$BIN/orchestrator" run \
    "$BENCH_TMP/loadgen.toml" --db "$BENCH_TMP/bench.db" --json "$json" \
    >"$BENCH_TMP/worker-$i.out" 2>"$BENCH_TMP/worker-$i.err" || {
    echo "orchestrator failed:" >&2
    tail -n 20 "$BENCH_TMP/worker-$i.err" "$BENCH_TMP/worker-$i.out" >&2
    exit 3
  }
  read -r rps n errs cpu _wall flags < <("$PY" "$LIB/benchlib.py" worker-json "$json")
  RPS[worker]+=" $rps"
  CPU[worker]+=" $("$PY" -c "print($cpu / $n * 1e6)")"
  printf '  round %d worker  %10.0f req/s  %6.2f us CPU/req (cpu %.2fs, %d req, %d errors, flags %s)\n' \
    "$i" "$rps" "$("$PY" -c "print($cpu / $n * 1e6)")" "$cpu" "$n" "$errs" "$flags"
}

# A short untimed warm-up of nginx and the page cache of every binary.
timeout 10 h2load --h1 -t1 -c"$CONNS" -n 20000 "http://127.0.0.1:$PORT/" >/dev/null 2>&1 || true

ORDER=(worker h2load wrk)
for ((i = 1; i <= PAIRS; i++)); do
  for ((k = 0; k < 3; k++)); do
    "run_${ORDER[$(((i - 1 + k) % 3))]}" "$i"
  done
done

echo
echo "== medians over $PAIRS rounds (min-max) =="
for g in worker h2load wrk; do
  read -r rm rmin rmax < <(stats ${RPS[$g]})
  read -r cm cmin cmax < <(stats ${CPU[$g]})
  printf '  %-7s %10.0f req/s (%.0f-%.0f)   %6.2f us CPU/req (%.2f-%.2f)\n' \
    "$g" "$rm" "$rmin" "$rmax" "$cm" "$cmin" "$cmax"
  MED_RPS[$g]="$rm" MED_CPU[$g]="$cm"
done
echo "  worker/h2load req/s ratio: $("$PY" "$LIB/benchlib.py" ratio "${MED_RPS[worker]}" "${MED_RPS[h2load]}")" \
  "  CPU/req ratio: $("$PY" "$LIB/benchlib.py" ratio "${MED_CPU[worker]}" "${MED_CPU[h2load]}")"
echo "  worker/wrk    req/s ratio: $("$PY" "$LIB/benchlib.py" ratio "${MED_RPS[worker]}" "${MED_RPS[wrk]}")" \
  "  CPU/req ratio: $("$PY" "$LIB/benchlib.py" ratio "${MED_CPU[worker]}" "${MED_CPU[wrk]}")"
echo "  (CPU/req: user+system time of the generator process / requests it completed; lower" \
  "is better. The worker's is over its measured window, h2load's and wrk's over their whole run.)"

if [[ "${BENCH_CALLGRIND:-1}" == 1 ]] && command -v valgrind >/dev/null; then
  echo
  echo "== instructions per request under callgrind (user space only, marginal) =="
  # Each generator runs twice, with a small and a large amount of work; the difference in
  # instructions divided by the difference in requests removes start-up, connect and teardown.
  N1=20000 N2=80000
  for n in $N1 $N2; do
    timeout 300 taskset -c "$CLIENT_CORE" valgrind --tool=callgrind \
      --callgrind-out-file="$BENCH_TMP/cg.h2load.$n" h2load --h1 -t1 -c"$CONNS" -n "$n" \
      "http://127.0.0.1:$PORT/" >"$BENCH_TMP/cg-h2load-$n.out" 2>"$BENCH_TMP/cg-h2load-$n.err"
  done
  ir1="$(callgrind_total "$BENCH_TMP/cg.h2load.$N1")"
  ir2="$(callgrind_total "$BENCH_TMP/cg.h2load.$N2")"
  H2_IPR="$("$PY" -c "print(round(($ir2 - $ir1) / ($N2 - $N1)))")"
  echo "  h2load: $ir1 Ir for $N1 requests, $ir2 Ir for $N2 -> $H2_IPR instructions/request"

  # The worker has no fixed-count mode: it runs a window of D seconds under callgrind (serving
  # the orchestrator over gRPC, started by this script and reached with --workers-at), and
  # the requests counted in each window give the denominator.
  declare -A WOPS WIR
  for d in 2 6; do
    scenario "cg$d" "${d}s" "0s"
    WPORT="$(free_port)"
    taskset -c "$CLIENT_CORE" valgrind --tool=callgrind \
      --callgrind-out-file="$BENCH_TMP/cg.worker.$d" "$BIN/worker" --listen "127.0.0.1:$WPORT" \
      >"$BENCH_TMP/cg-worker-$d.out" 2>"$BENCH_TMP/cg-worker-$d.err" &
    WPID=$!
    bench_track "$WPID"
    wait_port "$WPORT" 60
    timeout 120 taskset -c "$CLIENT_CORE" "$BIN/orchestrator" run "$BENCH_TMP/cg$d.toml" \
      --workers-at "127.0.0.1:$WPORT" --db "$BENCH_TMP/bench.db" \
      --json "$BENCH_TMP/cg-$d.json" >"$BENCH_TMP/cg-orch-$d.out" 2>&1 || {
      tail -n 20 "$BENCH_TMP/cg-orch-$d.out" >&2
      exit 3
    }
    stop_pid "$WPID"
    read -r _ ops _ _ _ _ < <("$PY" "$LIB/benchlib.py" worker-json "$BENCH_TMP/cg-$d.json")
    WOPS[$d]="$ops"
    WIR[$d]="$(callgrind_total "$BENCH_TMP/cg.worker.$d")"
  done
  W_IPR="$("$PY" -c "print(round((${WIR[6]} - ${WIR[2]}) / (${WOPS[6]} - ${WOPS[2]})))")"
  echo "  worker: ${WIR[2]} Ir for ${WOPS[2]} requests (2 s window), ${WIR[6]} Ir for" \
    "${WOPS[6]} (6 s) -> $W_IPR instructions/request"
  echo "  worker/h2load instructions per request: $("$PY" "$LIB/benchlib.py" ratio "$W_IPR" "$H2_IPR")"
  echo "  (the worker's figure also holds whatever its gRPC threads did during the extra 4 s)"
  if command -v callgrind_annotate >/dev/null; then
    for f in worker.6 "h2load.$N2"; do
      echo
      echo "  top functions of $f (self instructions):"
      callgrind_top "$BENCH_TMP/cg.$f" 15
    done
  fi
fi

echo
print_load_after
