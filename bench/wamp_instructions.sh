#!/usr/bin/env bash
# The router's user-space instructions per payload byte of a WAMP bench.echo call, under
# callgrind: for each serializer x transport x payload size, the router runs fresh under
# callgrind twice, answering bench/lib/wamp_echo_client.py (one call in flight, so that every
# call the router handled is counted) for a short and a long window; (Ir2 - Ir1) / (calls2 -
# calls1) leaves out start-up, the handshakes and shutdown, and is divided by the payload size.
# Instruction counts do not depend on the machine's load, so this is valid on a busy machine.
#
#   bench/wamp_instructions.sh [SERIALIZERS (default "jsonbin json msgpack")]
#                              [TRANSPORTS (default "rawsocket websocket")]
#                              [SIZES in bytes (default "65536 1048576")]
# jsonbin: a binary payload in WAMP's JSON form ("\u0000" + base64); json: a JSON string of
# letters; msgpack: a bin value. BENCH_WINDOWS="S1 S2" sets the two windows in seconds
# (default "3 9"; a 1 MiB call takes the doubled windows).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

SERIALIZERS=(${1:-jsonbin json msgpack})
TRANSPORTS=(${2:-rawsocket websocket})
SIZES=(${3:-65536 1048576})
read -r W1 W2 <<<"${BENCH_WINDOWS:-3 9}"
bench_need valgrind taskset "$BIN/router"
CASES=$((${#SERIALIZERS[@]} * ${#TRANSPORTS[@]} * ${#SIZES[@]}))
bench_init wamp_instructions $((CASES * (3 * (W1 + W2) + 200) + 120))
BENCH_PINNING="router (under callgrind) on core $SERVER_CORE, caller on core $CLIENT_CORE (taskset)"

echo "== router instructions per payload byte of a bench.echo call (callgrind, marginal) =="
print_environment
echo "workload:  1 connection, 1 call in flight, windows ${W1}s and ${W2}s (doubled from 1 MiB);" \
  "serializers ${SERIALIZERS[*]}; transports ${TRANSPORTS[*]}; sizes ${SIZES[*]}"
echo "tools:     $(valgrind --version)"

run_window() { # SERIALIZER TRANSPORT SIZE SECONDS -> sets IR and CALLS
  local ser="$1" t="$2" size="$3" secs="$4" tag="$1-$2-$3-$4" cg out addr
  cg="$BENCH_TMP/cg.$tag"
  out="$BENCH_TMP/router-$tag.out"
  taskset -c "$SERVER_CORE" valgrind --tool=callgrind --callgrind-out-file="$cg" \
    "$BIN/router" --http "127.0.0.1:$(free_port)" --control 127.0.0.1:0 --threads 1 \
    --rawsocket 127.0.0.1:0 --websocket 127.0.0.1:0 >"$out" 2>"$BENCH_TMP/router-$tag.err" &
  local pid=$!
  bench_track "$pid"
  wait_ready "$pid" "$out" "$BENCH_TMP/router-$tag.err" 600
  if [[ "$t" == rawsocket ]]; then
    addr="$(sed -n 's/.* rawsocket=\([^ ]*\).*/\1/p' "$out")"
  else
    addr="$(sed -n 's/.* ws=\([^ ]*\).*/\1/p' "$out")"
  fi
  [[ -n "$addr" ]] || { echo "bench: the router printed no $t address" >&2; exit 3; }
  timeout $((secs + 120)) taskset -c "$CLIENT_CORE" "$PY" "$LIB/wamp_echo_client.py" \
    "$t" "$addr" "$size" "$secs" 1 "$ser" >"$BENCH_TMP/client-$tag.out" 2>&1 || {
    echo "wamp client failed ($tag):" >&2
    cat "$BENCH_TMP/client-$tag.out" >&2
    exit 3
  }
  stop_pid "$pid"
  CALLS="$(sed -n 's/.*calls=\([0-9]*\) .*/\1/p' "$BENCH_TMP/client-$tag.out")"
  IR="$(callgrind_total "$cg")"
}

RESULTS=()
for ser in "${SERIALIZERS[@]}"; do
  for t in "${TRANSPORTS[@]}"; do
    for size in "${SIZES[@]}"; do
      s1="$W1" s2="$W2"
      if ((size >= 1048576)); then s1=$((W1 * 2)) s2=$((W2 * 2)); fi
      run_window "$ser" "$t" "$size" "$s1"
      ir1="$IR" c1="$CALLS"
      run_window "$ser" "$t" "$size" "$s2"
      ir2="$IR" c2="$CALLS"
      if ((c2 <= c1)); then
        line="$(printf '%-8s %-10s %8d B: %d calls in %ss, %d in %ss: not measured (no more calls in the longer window)' \
          "$ser" "$t" "$size" "$c1" "$s1" "$c2" "$s2")"
      else
        per_call="$("$PY" -c "print(round(($ir2 - $ir1) / ($c2 - $c1)))")"
        line="$(printf '%-8s %-10s %8d B: %12d instructions/call = %6.2f per payload byte (%d and %d calls; %s and %s Ir)' \
          "$ser" "$t" "$size" "$per_call" "$("$PY" -c "print($per_call / $size)")" "$c1" "$c2" "$ir1" "$ir2")"
      fi
      echo "  $line"
      RESULTS+=("$line")
      echo "  top functions (self instructions, longer window):"
      callgrind_top "$BENCH_TMP/cg.$ser-$t-$size-$s2" 8
    done
  done
done

echo
echo "== summary =="
for line in "${RESULTS[@]}"; do echo "  $line"; done
echo
print_load_after
