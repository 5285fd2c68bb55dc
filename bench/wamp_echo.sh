#!/usr/bin/env bash
# WAMP RPC through the bundled router: calls to its built-in `bench.echo` with a 64 B and a
# 64 KiB argument, over RawSocket and WebSocket (MessagePack, binary argument; JSON too with
# BENCH_WAMP_JSON=1), side by side with the raw TCP loopback bandwidth that iperf3 measures in
# the same invocation (one stream, server on the router's core, client on the caller's core).
# Rounds alternate iperf3 and the WAMP runs, PAIRS times.
#
# The caller is bench/lib/wamp_echo_client.py (Python, one connection, DEPTH calls in
# flight). For 64 B calls it is the bottleneck, not the router: that row measures the
# client. For 64 KiB calls the client only copies bytes, and the router's CPU per call
# (from /proc) says how much of a core the router needed.
#
#   bench/wamp_echo.sh [PAIRS (default 5)] [SECONDS per run (default 3)] [DEPTH (default 8)]
# Then the same 64 KiB calls made by the worker through `orchestrator run` (BENCH_WAMP_WORKER=0
# skips), with 64 B calls from 4 sessions x 32 in flight beside them (the router's cost per
# small call: its CPU per call in the table's router/op column), the same again over TLS 1.3
# (BENCH_WAMP_TLS=0 skips), and the router's instructions per 64 KiB call under callgrind
# (BENCH_CALLGRIND=0 skips).
# Skips (exit 0) when the router has no --rawsocket flag (no WAMP support).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

PAIRS="${1:-5}"
SECS="${2:-3}"
DEPTH="${3:-8}"
bench_need iperf3 taskset "$BIN/router"
# The help captured first: `grep -q` stops reading at the first match, and under pipefail the
# router's SIGPIPE would then read as "no WAMP support".
ROUTER_HELP="$("$BIN/router" --help 2>&1 || true)"
if ! grep -q -- --rawsocket <<<"$ROUTER_HELP"; then
  echo "wamp_echo: skipped, $BIN/router has no --rawsocket flag (no WAMP support in this build)"
  exit 0
fi
SERIALIZERS=(msgpack)
[[ "${BENCH_WAMP_JSON:-0}" == 1 ]] && SERIALIZERS+=(json)
CASES=()
for ser in "${SERIALIZERS[@]}"; do
  for t in rawsocket websocket; do
    for size in 64 65536; do CASES+=("$t:$ser:$size"); done
  done
done
bench_init wamp_echo $((PAIRS * (${#CASES[@]} + 9) * (SECS + 10) + 500))

echo "== WAMP bench.echo through the bundled router vs iperf3 loopback bandwidth =="
print_environment
echo "workload:  1 connection, $DEPTH calls in flight, ${SECS}s per run, $PAIRS rounds;" \
  "cases: ${CASES[*]}"
echo "anchors:   $(iperf3 --version 2>&1 | head -n1)"

RPORT="$(free_port)"
start_router "$SERVER_CORE" "$RPORT" --threads 1 --rawsocket 127.0.0.1:0 --websocket 127.0.0.1:0
echo "router:    $ROUTER_READY"
RAW="$(sed -n 's/.* rawsocket=\([^ ]*\).*/\1/p' <<<"$ROUTER_READY")"
WS="$(sed -n 's/.* ws=\([^ ]*\).*/\1/p' <<<"$ROUTER_READY")"

IPORT="$(free_port)"
taskset -c "$SERVER_CORE" iperf3 -s -B 127.0.0.1 -p "$IPORT" >"$BENCH_TMP/iperf3-server.log" 2>&1 &
bench_track $!
wait_port "$IPORT" 10

declare -A BPS CPS CPU
run_iperf() {
  local i="$1" bps
  timeout $((SECS + 15)) taskset -c "$CLIENT_CORE" iperf3 -c 127.0.0.1 -p "$IPORT" \
    -t "$SECS" -J >"$BENCH_TMP/iperf3-$i.json" 2>&1
  bps="$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['end']['sum_received']['bits_per_second'] / 8)" "$BENCH_TMP/iperf3-$i.json")"
  BPS[iperf3]+=" $bps"
  printf '  round %d iperf3                 %8.2f Gbit/s\n' "$i" "$("$PY" -c "print($bps * 8 / 1e9)")"
}
run_case() { # ROUND TRANSPORT:SERIALIZER:SIZE
  local i="$1" c="$2" t ser size addr out c0 c1 calls secs cps bps
  IFS=: read -r t ser size <<<"$c"
  addr="$RAW"
  [[ "$t" == websocket ]] && addr="$WS"
  out="$BENCH_TMP/wamp-$i-$t-$ser-$size.out"
  c0="$(cpu_seconds "$ROUTER_PID")"
  timeout $((SECS + 20)) taskset -c "$CLIENT_CORE" "$PY" "$LIB/wamp_echo_client.py" \
    "$t" "$addr" "$size" "$SECS" "$DEPTH" "$ser" >"$out" 2>&1 || {
    echo "wamp client failed ($c):" >&2
    cat "$out" >&2
    exit 3
  }
  c1="$(cpu_seconds "$ROUTER_PID")"
  calls="$(sed -n 's/.*calls=\([0-9]*\) .*/\1/p' "$out")"
  cps="$(sed -n 's/.*calls_per_s=\([0-9.]*\).*/\1/p' "$out")"
  bps="$(sed -n 's/.*payload_bytes_per_s=\([0-9]*\).*/\1/p' "$out")"
  CPS[$c]+=" $cps"
  BPS[$c]+=" $bps"
  CPU[$c]+=" $("$PY" -c "print(($c1 - $c0) / max($calls, 1) * 1e6)")"
  printf '  round %d %-26s %9.0f calls/s %8.3f Gbit/s payload each way, router %7.2f us CPU/call\n' \
    "$i" "$c" "$cps" "$("$PY" -c "print($bps * 8 / 1e9)")" \
    "$("$PY" -c "print(($c1 - $c0) / max($calls, 1) * 1e6)")"
}

for ((i = 1; i <= PAIRS; i++)); do
  run_iperf "$i"
  for c in "${CASES[@]}"; do run_case "$i" "$c"; done
done

echo
echo "== medians over $PAIRS rounds (min-max) =="
read -r im imin imax < <(stats ${BPS[iperf3]})
printf '  iperf3 loopback, one stream        %8.2f Gbit/s (%.2f-%.2f)\n' \
  "$("$PY" -c "print($im * 8 / 1e9)")" "$("$PY" -c "print($imin * 8 / 1e9)")" \
  "$("$PY" -c "print($imax * 8 / 1e9)")"
for c in "${CASES[@]}"; do
  read -r cm _ _ < <(stats ${CPS[$c]})
  read -r bm _ _ < <(stats ${BPS[$c]})
  read -r um _ _ < <(stats ${CPU[$c]})
  printf '  %-26s %9.0f calls/s %8.3f Gbit/s payload = %5.3f of iperf3, router %7.2f us CPU/call\n' \
    "$c" "$cm" "$("$PY" -c "print($bm * 8 / 1e9)")" "$("$PY" "$LIB/benchlib.py" ratio "$bm" "$im")" "$um"
done
echo "  (payload each way: the echo moves every byte to the router and back; iperf3 one way)"

# The same calls made by the worker (C++, the orchestrator's wamp_rpc workload) instead of the
# Python caller, which cannot keep the router busy with 64 KiB calls. The orchestrator spawns a
# fresh router and one worker (not pinned: both share the two cores); PAIRS repetitions of
# SECS each, and the median's payload rate one way against the iperf3 median above.
# The worker's scenario: 64 KiB and 64 B calls over both transports; with TLS ("tls") a router
# of its own with `[router] tls = true` (every port of it speaks TLS only) and wss and
# RawSocket over TLS 1.3.
worker_scenario() { # FILE [tls]
  local file="$1" tls="${2:-}" t name
  cat >"$file" <<TOML
name = "bench_wamp_worker${tls:+_tls}"
[router]
impl = "builtin"
threads = 1
${tls:+tls = true}
[defaults]
warmup = "1s"
duration = "${SECS}s"
repetitions = $PAIRS
workers = 1
threads = 1
timeout = "120s"
TOML
  for t in rawsocket websocket; do
    name="${t}${tls:+_tls}_msgpack"
    cat >>"$file" <<TOML
[[workloads]]
name = "${name}_65536"
protocol = "wamp_rpc"
transport = "$t"
serializer = "msgpack"
request_bytes = "64KiB"
connections = 1
in_flight = $DEPTH
${tls:+tls = true}
[[workloads]]
name = "${name}_64"
protocol = "wamp_rpc"
transport = "$t"
serializer = "msgpack"
request_bytes = "64B"
connections = 4
in_flight = 32
${tls:+tls = true}
TOML
  done
}
# The rows of one worker run: OUT [tls]
worker_rows() {
  local out="$1" tls="${2:-}" t name line rps gbps
  for t in rawsocket websocket; do
    name="${t}${tls:+_tls}_msgpack"
    line="$(grep "^RESULT|.*workload=${name}_65536|" "$out" || true)"
    if [[ -z "$line" ]]; then
      echo "  $t${tls:+ over TLS}: no result (see below)"
      tail -n 5 "$out"
      continue
    fi
    rps="$(sed -n 's/.*|rps=\([0-9.]*\)|.*/\1/p' <<<"$line")"
    gbps="$(sed -n 's/.*|gbps=\([0-9.]*\).*/\1/p' <<<"$line")"
    printf '  %-26s %9.0f calls/s %8.3f Gbit/s payload = %5.3f of iperf3 (median of %d)\n' \
      "$t${tls:+-tls}:msgpack:65536" "$rps" "$gbps" "$("$PY" "$LIB/benchlib.py" ratio "$gbps" \
      "$("$PY" -c "print($im * 8 / 1e9)")")" "$PAIRS"
    line="$(grep "^RESULT|.*workload=${name}_64|" "$out" || true)"
    [[ -n "$line" ]] || { echo "  $t${tls:+ over TLS}: no result for 64 B calls (see below)"; continue; }
    printf '  %-26s %9.0f calls/s (median of %d; router CPU per call: router/op below)\n' \
      "$t${tls:+-tls}:msgpack:64" "$(sed -n 's/.*|rps=\([0-9.]*\)|.*/\1/p' <<<"$line")" "$PAIRS"
  done
  grep -E '^[a-z_0-9]+: wamp_rpc|^ +(rep|all reps) ' "$out" | sed 's/^/  /' || true
}

# The same calls made by the worker (C++, the orchestrator's wamp_rpc workload) instead of the
# Python caller, which cannot keep the router busy with 64 KiB calls. The orchestrator spawns a
# fresh router and one worker (not pinned: both share the two cores); PAIRS repetitions of
# SECS each, and the median's payload rate one way against the iperf3 median above. Then the
# same over TLS (BENCH_WAMP_TLS=0 skips).
if [[ "${BENCH_WAMP_WORKER:-1}" == 1 && -x "$BIN/orchestrator" && -x "$BIN/worker" ]]; then
  for tls in "" tls; do
    [[ -n "$tls" && "${BENCH_WAMP_TLS:-1}" != 1 ]] && continue
    echo
    echo "== the same 64 KiB calls from the worker (C++ caller, orchestrator run, not pinned)," \
      "and 64 B calls from 4 sessions x 32 in flight${tls:+, over TLS 1.3 (wss, RawSocket-TLS)} =="
    toml="$BENCH_TMP/wamp_worker${tls:+_tls}.toml"
    out="$BENCH_TMP/wamp_worker${tls:+_tls}.out"
    worker_scenario "$toml" "$tls"
    # A failure after the windows (storing the run) still leaves the RESULT lines to read.
    timeout $((PAIRS * 4 * (SECS + 5) + 120)) "$BIN/orchestrator" run "$toml" \
      --db "$BENCH_TMP/bench.db" >"$out" 2>&1 || true
    worker_rows "$out" "$tls"
  done
fi

if [[ "${BENCH_CALLGRIND:-1}" == 1 ]] && command -v valgrind >/dev/null; then
  echo
  echo "== router instructions per 64 KiB bench.echo call under callgrind (RawSocket, marginal) =="
  # The router runs under callgrind, fresh, for a short and a long run of calls; the
  # difference in instructions over the difference in calls leaves out start-up and shutdown.
  for ser in msgpack json; do
    declare -A IR=() CALLS=()
    for secs in 3 9; do
      cg="$BENCH_TMP/cg.router.$ser.$secs"
      hport="$(free_port)"
      taskset -c "$SERVER_CORE" valgrind --tool=callgrind --callgrind-out-file="$cg" \
        "$BIN/router" --http "127.0.0.1:$hport" --control 127.0.0.1:0 --threads 1 \
        --rawsocket 127.0.0.1:0 --websocket 127.0.0.1:0 \
        >"$BENCH_TMP/cg-router-$ser-$secs.out" 2>"$BENCH_TMP/cg-router-$ser-$secs.err" &
      cgpid=$!
      bench_track "$cgpid"
      # A router that exited is named at once (its stderr), not after the 30 s.
      wait_ready "$cgpid" "$BENCH_TMP/cg-router-$ser-$secs.out" \
        "$BENCH_TMP/cg-router-$ser-$secs.err" 300
      raw="$(sed -n 's/.* rawsocket=\([^ ]*\).*/\1/p' "$BENCH_TMP/cg-router-$ser-$secs.out")"
      if [[ -z "$raw" ]]; then
        echo "bench: the router under callgrind announced no rawsocket= address in 30 s" >&2
        exit 3
      fi
      timeout $((secs + 60)) taskset -c "$CLIENT_CORE" "$PY" "$LIB/wamp_echo_client.py" \
        rawsocket "$raw" 65536 "$secs" "$DEPTH" "$ser" >"$BENCH_TMP/cg-client-$ser-$secs.out"
      stop_pid "$cgpid"
      CALLS[$secs]="$(sed -n 's/.*calls=\([0-9]*\) .*/\1/p' "$BENCH_TMP/cg-client-$ser-$secs.out")"
      IR[$secs]="$(callgrind_total "$cg")"
    done
    ipc="$("$PY" -c "print(round((${IR[9]} - ${IR[3]}) / max(${CALLS[9]} - ${CALLS[3]}, 1)))")"
    echo "  $ser: ${IR[3]} Ir for ${CALLS[3]} calls, ${IR[9]} for ${CALLS[9]} ->" \
      "$ipc instructions/call = $("$PY" -c "print(round($ipc / 65536, 1))") per payload byte"
    echo "  top functions ($ser, self instructions):"
    callgrind_top "$BENCH_TMP/cg.router.$ser.9" 8
  done
fi

echo
print_load_after
