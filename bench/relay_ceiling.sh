#!/usr/bin/env bash
# How much of a direct loopback TCP stream survives one hop through a process that only
# forwards (issue 19, goal 4: 64 KiB WAMP calls at 0.8x iperf3). One iperf3 stream runs
# direct, then through bench/relay/tcp_relay with --mode copy (read() and write(), as every
# user-space relay and the router do) and with --mode splice (socket -> pipe -> socket: the
# payload never enters user space), taking turns, ROUNDS times in one invocation. Prints each
# rate, the relays' share of the direct rate and the relay's CPU per GB forwarded.
#
#   bench/relay_ceiling.sh [ROUNDS (default 3)] [SECONDS per run (default 3)]
#   iperf3's server runs on the server core and its client on the client core, as in
#   bench/wamp_echo.sh; the relay is not pinned (BENCH_RELAY_CORE=N pins it).
#
# A WAMP call through the router pays such a hop twice (caller -> router -> callee) on top of
# its own work, so the relays' share bounds what any router on this machine can reach.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

ROUNDS="${1:-3}"
SECS="${2:-3}"
bench_init relay_ceiling $((ROUNDS * 3 * (SECS + 15) + 120))
bench_need iperf3 taskset "$BIN/tcp_relay"

echo "== one TCP stream on loopback: direct vs one hop through a relay (copy, splice) =="
print_environment
echo "workload:  iperf3 -c 127.0.0.1 -t $SECS (one stream, client on core $CLIENT_CORE, server" \
  "on core $SERVER_CORE), $ROUNDS rounds (order rotates); relay ${BENCH_RELAY_CORE:+on core $BENCH_RELAY_CORE}${BENCH_RELAY_CORE:-not pinned}"
echo "anchors:   $(iperf3 --version 2>&1 | head -n1)"

IPORT="$(free_port)"
taskset -c "$SERVER_CORE" iperf3 -s -B 127.0.0.1 -p "$IPORT" >"$BENCH_TMP/iperf3-server.log" 2>&1 &
bench_track $!
wait_port "$IPORT" 10

declare -A PORT PID BPS CPG
PORT[direct]="$IPORT"
for mode in copy splice; do
  out="$BENCH_TMP/relay-$mode.out"
  pin=()
  [[ -n "${BENCH_RELAY_CORE:-}" ]] && pin=(taskset -c "$BENCH_RELAY_CORE")
  "${pin[@]}" "$BIN/tcp_relay" --to "$IPORT" --mode "$mode" \
    --seconds $((ROUNDS * 3 * (SECS + 15) + 60)) >"$out" 2>"$BENCH_TMP/relay-$mode.err" &
  PID[$mode]=$!
  bench_track "${PID[$mode]}"
  wait_ready "${PID[$mode]}" "$out" "$BENCH_TMP/relay-$mode.err" 50
  PORT[$mode]="$(sed -n 's/^READY port=//p' "$out")"
  [[ -n "${PORT[$mode]}" ]] || { echo "bench: tcp_relay --mode $mode did not print READY" >&2; exit 3; }
done

run_one() { # CASE ROUND
  local c="$1" i="$2" json="$BENCH_TMP/$1-$2.json" c0="" c1 bps cpg="-"
  [[ "$c" != direct ]] && c0="$(cpu_seconds "${PID[$c]}")"
  timeout $((SECS + 15)) taskset -c "$CLIENT_CORE" iperf3 -c 127.0.0.1 -p "${PORT[$c]}" \
    -t "$SECS" -J >"$json" 2>&1 || { echo "iperf3 ($c) failed:" >&2; cat "$json" >&2; exit 3; }
  read -r bps bytes < <("$PY" -c "import json,sys; e=json.load(open(sys.argv[1]))['end']
print(e['sum_received']['bits_per_second'], e['sum_received']['bytes'])" "$json")
  BPS[$c]+=" $bps"
  if [[ -n "$c0" ]]; then
    c1="$(cpu_seconds "${PID[$c]}")"
    cpg="$("$PY" -c "print(f'{($c1 - $c0) / ($bytes / 1e9):.3f}')")"
    CPG[$c]+=" $cpg"
  fi
  printf '  round %d %-7s %7.2f Gbit/s  relay CPU %s s per GB\n' "$i" "$c" \
    "$("$PY" -c "print($bps / 1e9)")" "$cpg"
}

CASES=(direct copy splice)
for ((i = 1; i <= ROUNDS; i++)); do
  for ((k = 0; k < 3; k++)); do run_one "${CASES[$(((i - 1 + k) % 3))]}" "$i"; done
done

echo
echo "== medians over $ROUNDS rounds (min-max) =="
read -r dm dmin dmax < <(stats ${BPS[direct]})
printf '  %-7s %7.2f Gbit/s (%.2f-%.2f)\n' direct "$("$PY" -c "print($dm / 1e9)")" \
  "$("$PY" -c "print($dmin / 1e9)")" "$("$PY" -c "print($dmax / 1e9)")"
for c in copy splice; do
  read -r m mn mx < <(stats ${BPS[$c]})
  read -r g gmin gmax < <(stats ${CPG[$c]})
  printf '  %-7s %7.2f Gbit/s (%.2f-%.2f) = %5.3f of direct; relay CPU %.3f s per GB (%.3f-%.3f)\n' \
    "$c" "$("$PY" -c "print($m / 1e9)")" "$("$PY" -c "print($mn / 1e9)")" \
    "$("$PY" -c "print($mx / 1e9)")" "$("$PY" "$LIB/benchlib.py" ratio "$m" "$dm")" "$g" "$gmin" "$gmax"
done
print_load_after
