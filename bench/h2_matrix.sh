#!/usr/bin/env bash
# The HTTP/2 matrix of issue 15, side by side in one invocation: connections x streams per
# connection (h2load's -c x -m), cleartext h2c with prior knowledge, GET of a 12-byte file.
#  - generators: the bundled worker (through the orchestrator, nghttpd as an external system
#    under test) vs h2load, both against the same nghttpd;
#  - servers (when the bundled router serves HTTP/2, i.e. `router --help` mentions it): the
#    router vs nghttpd, both under h2load.
# Each cell runs every side ROUNDS times, the order rotating each round; servers are pinned to
# BENCH_SERVER_CORE, generators to BENCH_CLIENT_CORE. Prints each run, then per cell the
# medians, the effective streams the worker got (nghttpd caps at its
# --max-concurrent-streams, 100 by default) and the ratios. Needs an idle machine for figures
# worth writing down.
#
#   bench/h2_matrix.sh [SECONDS per run (default 2)] [ROUNDS (default 1)]
#   BENCH_CONNECTIONS="1 10 100 1000", BENCH_STREAMS="1 10 100": the matrix (defaults shown).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

SECS="${1:-2}"
ROUNDS="${2:-1}"
read -r -a CONNECTIONS <<<"${BENCH_CONNECTIONS:-1 10 100 1000}"
read -r -a STREAMS <<<"${BENCH_STREAMS:-1 10 100}"
CELLS=$((${#CONNECTIONS[@]} * ${#STREAMS[@]}))
bench_init h2-matrix $((CELLS * ROUNDS * 3 * (SECS + 25) + 120))
bench_need h2load nghttpd taskset "$BIN/orchestrator" "$BIN/worker" "$BIN/router"

ROUTER_H2=0
if "$BIN/router" --help 2>&1 | grep -qiE 'http/2|h2c'; then ROUTER_H2=1; fi

echo "== HTTP/2 matrix: connections x streams, h2c, 12-byte GET =="
print_environment
echo "anchors:   $(h2load --version 2>&1 | head -n1); nghttpd $(nghttpd --version 2>&1 | head -n1)"
echo "matrix:    connections ${CONNECTIONS[*]} x streams ${STREAMS[*]}; ${SECS}s per run," \
  "$ROUNDS round(s), order rotating"
if [[ "$ROUTER_H2" == 1 ]]; then
  echo "router:    serves HTTP/2 (router --help): router vs nghttpd under h2load"
else
  echo "router:    no HTTP/2 in router --help: its column is left out"
fi

WWW="$BENCH_TMP/www"
mkdir -p "$WWW"
printf 'Hello, world' >"$WWW/hello"
NGHTTPD_PORT="$(free_port)"
taskset -c "$SERVER_CORE" nghttpd --no-tls -a 127.0.0.1 -d "$WWW" "$NGHTTPD_PORT" \
  >"$BENCH_TMP/nghttpd.log" 2>&1 &
bench_track $!
wait_port "$NGHTTPD_PORT" 10
if [[ "$ROUTER_H2" == 1 ]]; then
  ROUTER_PORT="$(free_port)"
  taskset -c "$SERVER_CORE" "$BIN/router" --http "127.0.0.1:$ROUTER_PORT" --control 127.0.0.1:0 \
    --threads 1 >"$BENCH_TMP/router.log" 2>&1 &
  bench_track $!
  wait_port "$ROUTER_PORT" 10
fi

# h2load_rps PORT PATH C M: requests/s h2load reports (one thread, -D SECS).
h2load_rps() {
  local out="$BENCH_TMP/h2load.out"
  timeout $((SECS + 20)) taskset -c "$CLIENT_CORE" h2load -t1 -c"$3" -m"$4" -D "$SECS" \
    "http://127.0.0.1:$1$2" >"$out" 2>&1 || true
  read -r rps _ < <("$PY" "$LIB/benchlib.py" h2load "$out")
  echo "$rps"
}

# worker_run C M: "requests/s effective_streams errors" of the worker against nghttpd.
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
    echo "- - -"
    return
  fi
  "$PY" - "$json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))["scenarios"][0]["workloads"][0]["repetitions"][-1]
print(f"{rep['ops_per_second']:.1f} {rep.get('effective_streams') or '-'} {rep['errors']}")
PY
}

declare -A RESULT
for c in "${CONNECTIONS[@]}"; do
  for m in "${STREAMS[@]}"; do
    sides=(worker h2load)
    [[ "$ROUTER_H2" == 1 ]] && sides+=(router)
    for ((i = 1; i <= ROUNDS; i++)); do
      for ((k = 0; k < ${#sides[@]}; k++)); do
        side="${sides[$(((i - 1 + k) % ${#sides[@]}))]}"
        case "$side" in
          worker)
            read -r rps eff errs < <(worker_run "$c" "$m")
            RESULT[$c,$m,worker]+=" $rps"
            RESULT[$c,$m,effective]="$eff"
            printf '  c=%-4s m=%-3s round %d worker vs nghttpd  %10s req/s (effective streams %s, errors %s)\n' \
              "$c" "$m" "$i" "$rps" "$eff" "$errs"
            ;;
          h2load)
            rps="$(h2load_rps "$NGHTTPD_PORT" /hello "$c" "$m")"
            RESULT[$c,$m,h2load]+=" $rps"
            printf '  c=%-4s m=%-3s round %d h2load vs nghttpd  %10s req/s\n' "$c" "$m" "$i" "$rps"
            ;;
          router)
            rps="$(h2load_rps "$ROUTER_PORT" /bench/hello "$c" "$m")"
            RESULT[$c,$m,router]+=" $rps"
            printf '  c=%-4s m=%-3s round %d h2load vs router   %10s req/s\n' "$c" "$m" "$i" "$rps"
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
echo "== medians over $ROUNDS round(s): req/s =="
header="  conns streams | worker     h2load     worker/h2load effective"
[[ "$ROUTER_H2" == 1 ]] && header+=" | router     router/nghttpd (under h2load)"
echo "$header"
for c in "${CONNECTIONS[@]}"; do
  for m in "${STREAMS[@]}"; do
    w="$(median ${RESULT[$c,$m,worker]})"
    h="$(median ${RESULT[$c,$m,h2load]})"
    line="$(printf '  %5s %7s | %-10s %-10s %-13s %s' "$c" "$m" "$w" "$h" "$(ratio "$w" "$h")" \
      "${RESULT[$c,$m,effective]:--}")"
    if [[ "$ROUTER_H2" == 1 ]]; then
      r="$(median ${RESULT[$c,$m,router]})"
      line+="$(printf ' | %-10s %s' "$r" "$(ratio "$r" "$h")")"
    fi
    echo "$line"
  done
done
echo "  (worker/h2load: the generators against one nghttpd; router/nghttpd: the servers under"
echo "   h2load; a ratio above 1 is the benchgate side faster. effective: the streams per"
echo "   connection the worker could open, capped by nghttpd's SETTINGS_MAX_CONCURRENT_STREAMS)"
echo
print_load_after
