#!/usr/bin/env bash
# Instructions per payload byte of WAMP bench.echo calls made by the worker, on both sides:
# the router (the whole process) and the worker (its load thread's event loop, Asio's
# scheduler), each under callgrind, for each serializer x transport x payload size. Every cell
# runs twice, with a short and a long window; (Ir2 - Ir1) / (calls2 - calls1) leaves out
# start-up, the handshakes and shutdown, and is divided by the payload size. Calls are counted
# by callgrind itself (the messages each side's WAMP session handled), so the figure does not
# depend on the machine's load and is valid on a busy machine. Timed figures: bench/wamp_echo.sh.
#
#   bench/wamp_worker_instructions.sh [SERIALIZERS (default "msgpack cbor json")]
#                                     [TRANSPORTS (default "rawsocket websocket")]
#                                     [SIZES in bytes (default "65536")]
# BENCH_WINDOWS="S1 S2" sets the two windows in seconds (default "2 6"); BENCH_IN_FLIGHT the
# calls in flight (default 8); BENCH_KEEP=1 keeps the callgrind files.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

SERIALIZERS=(${1:-msgpack cbor json})
TRANSPORTS=(${2:-rawsocket websocket})
SIZES=(${3:-65536})
read -r W1 W2 <<<"${BENCH_WINDOWS:-2 6}"
DEPTH="${BENCH_IN_FLIGHT:-8}"
bench_need valgrind taskset "$BIN/router" "$BIN/worker" "$BIN/orchestrator"
CASES=$((${#SERIALIZERS[@]} * ${#TRANSPORTS[@]} * ${#SIZES[@]}))
bench_init wamp_worker_instructions $((CASES * (2 * (W1 + W2) + 400) + 120))
BENCH_PINNING="router (under callgrind) on core $SERVER_CORE, worker (under callgrind) on core $CLIENT_CORE (taskset)"

echo "== router and worker instructions per payload byte of bench.echo calls from the worker (callgrind, marginal) =="
print_environment
echo "workload:  1 connection, $DEPTH calls in flight, windows ${W1}s and ${W2}s;" \
  "serializers ${SERIALIZERS[*]}; transports ${TRANSPORTS[*]}; sizes ${SIZES[*]}"
echo "tools:     $(valgrind --version)"

# wait_exit PID SECONDS: a process under valgrind writes its profile on the way out.
wait_exit() {
  local pid="$1"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq $(($2 * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
ir() { "$PY" "$LIB/benchlib.py" callgrind-total "$1"; }
calls() { "$PY" "$LIB/benchlib.py" callgrind-calls-prefix "$1" "$2"; }

run_window() { # SERIALIZER TRANSPORT SIZE SECONDS -> sets RIR RCALLS WIR WCALLS
  local ser="$1" t="$2" size="$3" secs="$4" tag="$1-$2-$3-$4" rport wport rpid wpid
  rport="$(free_port)"
  wport="$(free_port)"
  local flag=--rawsocket
  [[ "$t" == websocket ]] && flag=--websocket
  taskset -c "$SERVER_CORE" valgrind --tool=callgrind --callgrind-out-file="$BENCH_TMP/cg.router.$tag" \
    "$BIN/router" --http "127.0.0.1:$(free_port)" --control 127.0.0.1:0 --threads 1 \
    "$flag" "127.0.0.1:$rport" >"$BENCH_TMP/router-$tag.out" 2>"$BENCH_TMP/router-$tag.err" &
  rpid=$!
  bench_track "$rpid"
  taskset -c "$CLIENT_CORE" valgrind --tool=callgrind --toggle-collect='*scheduler::run*' \
    --callgrind-out-file="$BENCH_TMP/cg.worker.$tag" "$BIN/worker" --listen "127.0.0.1:$wport" \
    >"$BENCH_TMP/worker-$tag.out" 2>"$BENCH_TMP/worker-$tag.err" &
  wpid=$!
  bench_track "$wpid"
  wait_port "$rport" 60
  wait_port "$wport" 60
  cat >"$BENCH_TMP/$tag.toml" <<TOML
name = "bench_wamp_worker_instructions"
[router]
impl = "external"
address = "127.0.0.1:$rport"
[defaults]
warmup = "1s"
duration = "${secs}s"
repetitions = 1
workers = 1
threads = 1
timeout = "300s"
[[workloads]]
name = "echo"
protocol = "wamp_rpc"
transport = "$t"
serializer = "$ser"
request_bytes = $size
connections = 1
in_flight = $DEPTH
TOML
  timeout $((secs + 300)) "$BIN/orchestrator" run "$BENCH_TMP/$tag.toml" \
    --workers-at "127.0.0.1:$wport" --db "$BENCH_TMP/bench.db" \
    --json "$BENCH_TMP/$tag.json" >"$BENCH_TMP/orch-$tag.out" 2>&1 || {
    tail -n 20 "$BENCH_TMP/orch-$tag.out" >&2
    exit 3
  }
  read -r _ ops errs _ < <("$PY" "$LIB/benchlib.py" worker-json "$BENCH_TMP/$tag.json")
  [[ "$errs" == 0 ]] || echo "  ($tag: the worker counted $errs errors)"
  wait_exit "$wpid" 60
  wait_exit "$rpid" 60
  RIR="$(ir "$BENCH_TMP/cg.router.$tag")"
  RCALLS="$(calls "$BENCH_TMP/cg.router.$tag" 'benchgate::router::wamp::Session::on_message(')"
  WIR="$(ir "$BENCH_TMP/cg.worker.$tag")"
  WCALLS="$(calls "$BENCH_TMP/cg.worker.$tag" 'benchgate::worker::wamp::Session::on_message(')"
}

per_byte() { # IR1 IR2 N1 N2 SIZE
  "$PY" -c "n = $4 - $3; print(f'{($2 - $1) / n / $5:7.2f}' if n > 0 else '      -')"
}

RESULTS=()
for ser in "${SERIALIZERS[@]}"; do
  for t in "${TRANSPORTS[@]}"; do
    for size in "${SIZES[@]}"; do
      run_window "$ser" "$t" "$size" "$W1"
      r1="$RIR" rc1="$RCALLS" w1="$WIR" wc1="$WCALLS"
      run_window "$ser" "$t" "$size" "$W2"
      line="$(printf '%-8s %-10s %8d B: router %s, worker %s instructions per payload byte (router %d/%d messages, worker %d/%d)' \
        "$ser" "$t" "$size" "$(per_byte "$r1" "$RIR" "$rc1" "$RCALLS" "$size")" \
        "$(per_byte "$w1" "$WIR" "$wc1" "$WCALLS" "$size")" "$rc1" "$RCALLS" "$wc1" "$WCALLS")"
      echo "  $line"
      RESULTS+=("$line")
      for side in router worker; do
        echo "  top functions of the $side (self instructions, longer window):"
        callgrind_top "$BENCH_TMP/cg.$side.$ser-$t-$size-$W2" 10
      done
    done
  done
done

echo
echo "== summary =="
for line in "${RESULTS[@]}"; do echo "  $line"; done
echo
print_load_after
