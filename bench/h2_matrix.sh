#!/usr/bin/env bash
# The HTTP/2 matrix of issue 15, side by side in one invocation: connections x streams per
# connection (h2load's -c x -m), cleartext h2c with prior knowledge, GET of a 12-byte file.
#  - generators: the bundled worker (through the orchestrator, nghttpd as an external system
#    under test) vs h2load, both against the same nghttpd;
#  - servers: the bundled router (1 thread) vs nghttpd, both under h2load.
# Each cell runs every side ROUNDS times, the order rotating each round; servers are pinned to
# BENCH_SERVER_CORE, generators to BENCH_CLIENT_CORE. Prints each run, then per cell the
# medians of requests/s and of CPU per request (a generator's: h2load's rusage, the worker's
# own worker_cpu_seconds over the window; a server's: its process's user + system time over
# the run), the effective streams the worker got (nghttpd caps at its
# --max-concurrent-streams, 100 by default) and the ratios. Needs an idle machine for figures
# worth writing down.
#
#   bench/h2_matrix.sh [SECONDS per run (default 2)] [ROUNDS (default 1)]
#   BENCH_CONNECTIONS="1 10 100 1000", BENCH_STREAMS="1 10 100": the matrix (defaults shown).
#   BENCH_SERVER_CPU=FRACTION: server-bound runs. Both servers are capped at FRACTION of their
#     core (cpu_cap in lib/common.sh: a cgroup each, 10 ms periods), below what h2load's one
#     thread can send, so that the servers, not the generator, decide requests/s; only the
#     server sides run (h2load vs nghttpd, h2load vs router). On two cores h2load's one thread
#     is otherwise the limit in the one-stream cells, where it spends more per request than
#     either server.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

SECS="${1:-2}"
ROUNDS="${2:-1}"
read -r -a CONNECTIONS <<<"${BENCH_CONNECTIONS:-1 10 100 1000}"
read -r -a STREAMS <<<"${BENCH_STREAMS:-1 10 100}"
CELLS=$((${#CONNECTIONS[@]} * ${#STREAMS[@]}))
bench_init h2-matrix $((CELLS * ROUNDS * 3 * (SECS + 25) + 120))
bench_need h2load nghttpd taskset "$BIN/orchestrator" "$BIN/worker" "$BIN/router"

echo "== HTTP/2 matrix: connections x streams, h2c, 12-byte GET =="
print_environment
echo "anchors:   $(h2load --version 2>&1 | head -n1); nghttpd $(nghttpd --version 2>&1 | head -n1)"
SERVER_CPU="${BENCH_SERVER_CPU:-}"
echo "matrix:    connections ${CONNECTIONS[*]} x streams ${STREAMS[*]}; ${SECS}s per run," \
  "$ROUNDS round(s), order rotating"
if [[ -n "$SERVER_CPU" ]]; then
  echo "servers:   capped at $SERVER_CPU of a core each (server-bound runs; generator sides left out)"
fi

WWW="$BENCH_TMP/www"
mkdir -p "$WWW"
printf 'Hello, world' >"$WWW/hello"
NGHTTPD_PORT="$(free_port)"
taskset -c "$SERVER_CORE" nghttpd --no-tls -a 127.0.0.1 -d "$WWW" "$NGHTTPD_PORT" \
  >"$BENCH_TMP/nghttpd.log" 2>&1 &
NGHTTPD_PID=$!
bench_track "$NGHTTPD_PID"
wait_port "$NGHTTPD_PORT" 10
ROUTER_PORT="$(free_port)"
start_router "$SERVER_CORE" "$ROUTER_PORT" --threads 1
if [[ -n "$SERVER_CPU" ]]; then
  cpu_cap "$NGHTTPD_PID" "$SERVER_CPU"
  cpu_cap "$ROUTER_PID" "$SERVER_CPU"
  SIDES=(h2load router)
else
  SIDES=(worker h2load router)
fi

# h2load_run PORT PATH C M SERVER_PID: "requests/s h2load_CPU_us/req server_CPU_us/req" (one
# thread, -D SECS; '-' where h2load reported nothing).
h2load_run() {
  local out="$BENCH_TMP/h2load.out" ru="$BENCH_TMP/h2load.ru" before rps n u s
  before="$(cpu_seconds "$5")"
  timeout $((SECS + 20)) taskset -c "$CLIENT_CORE" "$PY" "$LIB/benchlib.py" rusage "$ru" -- \
    h2load -t1 -c"$3" -m"$4" -D "$SECS" "http://127.0.0.1:$1$2" >"$out" 2>&1 || true
  read -r rps n < <("$PY" "$LIB/benchlib.py" h2load "$out")
  if [[ "$rps" == - ]]; then
    echo "- - -"
    return
  fi
  read -r u s <"$ru"
  "$PY" -c "print($rps, f'{($u + $s) / $n * 1e6:.3f}', f'{($(cpu_seconds "$5") - $before) / $n * 1e6:.3f}')"
}

# worker_run C M: "requests/s effective_streams errors CPU_us/req" of the worker against nghttpd.
worker_run() {
  local toml="$BENCH_TMP/w.toml" json="$BENCH_TMP/w.json"
  cat >"$toml" <<TOML
name = "bench_h2_matrix"
[router]
impl = "external"
address = "127.0.0.1:$NGHTTPD_PORT"
[defaults]
warmup = "500ms"
duration = "${SECS}s"
repetitions = 1
workers = 1
threads = 1
[[workloads]]
name = "h2c_${1}x${2}"
protocol = "http2"
target = "/hello"
connections = $1
streams = $2
expect_body_bytes = 12
TOML
  if ! timeout $((SECS + 60)) taskset -c "$CLIENT_CORE" "$BIN/orchestrator" run "$toml" \
    --db "$BENCH_TMP/bench.db" --json "$json" >"$BENCH_TMP/w.out" 2>&1; then
    echo "- - - -"
    return
  fi
  "$PY" - "$json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))["scenarios"][0]["workloads"][0]["repetitions"][-1]
cpu = f"{rep['worker_cpu_seconds'] / rep['operations'] * 1e6:.3f}" if rep["operations"] else "-"
print(f"{rep['ops_per_second']:.1f} {rep.get('effective_streams') or '-'} {rep['errors']} {cpu}")
PY
}

declare -A RESULT
for c in "${CONNECTIONS[@]}"; do
  for m in "${STREAMS[@]}"; do
    sides=("${SIDES[@]}")
    for ((i = 1; i <= ROUNDS; i++)); do
      for ((k = 0; k < ${#sides[@]}; k++)); do
        side="${sides[$(((i - 1 + k) % ${#sides[@]}))]}"
        case "$side" in
          worker)
            read -r rps eff errs cpu < <(worker_run "$c" "$m")
            RESULT[$c,$m,worker]+=" $rps"
            RESULT[$c,$m,worker_cpu]+=" $cpu"
            RESULT[$c,$m,effective]="$eff"
            printf '  c=%-4s m=%-3s round %d worker vs nghttpd  %10s req/s %7s us CPU/req (effective streams %s, errors %s)\n' \
              "$c" "$m" "$i" "$rps" "$cpu" "$eff" "$errs"
            ;;
          h2load)
            read -r rps cpu server_cpu < <(h2load_run "$NGHTTPD_PORT" /hello "$c" "$m" "$NGHTTPD_PID")
            RESULT[$c,$m,h2load]+=" $rps"
            RESULT[$c,$m,h2load_cpu]+=" $cpu"
            RESULT[$c,$m,nghttpd_cpu]+=" $server_cpu"
            printf '  c=%-4s m=%-3s round %d h2load vs nghttpd  %10s req/s %7s us CPU/req (nghttpd %s us/req)\n' \
              "$c" "$m" "$i" "$rps" "$cpu" "$server_cpu"
            ;;
          router)
            read -r rps _ server_cpu < <(h2load_run "$ROUTER_PORT" /bench/hello "$c" "$m" "$ROUTER_PID")
            RESULT[$c,$m,router]+=" $rps"
            RESULT[$c,$m,router_cpu]+=" $server_cpu"
            printf '  c=%-4s m=%-3s round %d h2load vs router   %10s req/s (router %s us CPU/req)\n' \
              "$c" "$m" "$i" "$rps" "$server_cpu"
            ;;
        esac
      done
    done
  done
done

median() { # a median over numbers, '-' when any run gave none
  if [[ " $* " == *" - "* || -z "$*" ]]; then echo "-"; else read -r m _ < <(stats "$@"); echo "$m"; fi
}
ratio() { if [[ "$1" == - || "$2" == - ]]; then echo "-"; else "$PY" "$LIB/benchlib.py" ratio "$1" "$2"; fi; }

echo
echo "== medians over $ROUNDS round(s): requests/s, CPU microseconds per request =="
if [[ -z "$SERVER_CPU" ]]; then
  echo "  generators against nghttpd:"
  echo "  conns streams | worker     h2load     ratio  | worker us  h2load us  ratio  | effective"
  for c in "${CONNECTIONS[@]}"; do
    for m in "${STREAMS[@]}"; do
      w="$(median ${RESULT[$c,$m,worker]})" h="$(median ${RESULT[$c,$m,h2load]})"
      wc="$(median ${RESULT[$c,$m,worker_cpu]})" hc="$(median ${RESULT[$c,$m,h2load_cpu]})"
      printf '  %5s %7s | %-10s %-10s %-6s | %-10s %-10s %-6s | %s\n' "$c" "$m" "$w" "$h" \
        "$(ratio "$w" "$h")" "$wc" "$hc" "$(ratio "$wc" "$hc")" "${RESULT[$c,$m,effective]:--}"
    done
  done
fi
echo "  servers under h2load${SERVER_CPU:+, each capped at $SERVER_CPU of a core}:"
echo "  conns streams | router     nghttpd    ratio  | router us  nghttpd us ratio"
for c in "${CONNECTIONS[@]}"; do
  for m in "${STREAMS[@]}"; do
    r="$(median ${RESULT[$c,$m,router]})" h="$(median ${RESULT[$c,$m,h2load]})"
    rc="$(median ${RESULT[$c,$m,router_cpu]})" nc="$(median ${RESULT[$c,$m,nghttpd_cpu]})"
    printf '  %5s %7s | %-10s %-10s %-6s | %-10s %-10s %s\n' "$c" "$m" "$r" "$h" \
      "$(ratio "$r" "$h")" "$rc" "$nc" "$(ratio "$rc" "$nc")"
  done
done
echo "  (req/s ratio above 1: the benchgate side faster; CPU ratio below 1: it spends less per"
echo "   request. effective: the streams per connection the worker could open, capped by"
echo "   nghttpd's SETTINGS_MAX_CONCURRENT_STREAMS. A server's CPU is its process's over the h2load"
echo "   run, start and end of the connections included.)"
echo
print_load_after
