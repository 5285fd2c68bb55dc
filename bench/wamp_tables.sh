#!/usr/bin/env bash
# The WAMP large-message tables: scenarios/wamp_fragmentation.toml (4 MiB calls to the
# router's bench.echo, 4 in flight; over WebSocket in 4 KiB continuation frames both ways,
# over RawSocket in one frame per message) run through `orchestrator run`, printed as
# transport and path x JSON / MessagePack / CBOR in Gbit/s (the RESULT lines' gbps: every byte
# the worker read, framing included, as docs/MEASUREMENT.md defines it), with iperf3's loopback
# bandwidth measured alongside when iperf3 is installed.
#
# The large-RPC lifecycle table: scenarios/wamp_large_rpc.toml (the same 4 MiB calls, each on a
# session of its own, 4 sessions at a time), each cell the data-window / lifecycle Gbit/s of the
# echoed payload.
#
# The transfer table: scenarios/wamp_transfer.toml and, over TLS, wamp_transfer_tls.toml (64 MiB
# from bench.transfer as progressive results in 4 MiB chunks, every byte verified by the worker),
# each cell the data-window / lifecycle Gbit/s of the RESULT lines (docs/MEASUREMENT.md
# "Transfer throughput").
#
#   bench/wamp_tables.sh [SECONDS per window (default 3)] [REPETITIONS (default 3)]
# Figures from a shared or busy machine are not valid; measure on an idle one.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

SECS="${1:-3}"
REPS="${2:-3}"
bench_need "$BIN/orchestrator" "$BIN/router" "$BIN/worker"
bench_init wamp_tables $((24 * REPS * (SECS + 3) + 24 * 30 + 600))

echo "== WAMP large-message tables through the bundled router =="
BENCH_PINNING="none (the orchestrator spawns the builtin router and the worker; iperf3 unpinned)"
print_environment

IPERF="not_measured (iperf3 not installed)"
if command -v iperf3 >/dev/null; then
  IPORT="$(free_port)"
  iperf3 -s -B 127.0.0.1 -p "$IPORT" >"$BENCH_TMP/iperf3-server.log" 2>&1 &
  bench_track $!
  wait_port "$IPORT" 10
  timeout $((SECS + 15)) iperf3 -c 127.0.0.1 -p "$IPORT" -t "$SECS" -J >"$BENCH_TMP/iperf3.json" 2>&1
  IPERF="$("$PY" -c "import json,sys; print('%.2f Gbit/s' % (json.load(open(sys.argv[1]))['end']['sum_received']['bits_per_second'] / 1e9))" "$BENCH_TMP/iperf3.json")"
fi

# The bundled scenario with this invocation's window and repetitions.
sed -e "s/^duration = .*/duration = \"${SECS}s\"/" -e "s/^repetitions = .*/repetitions = $REPS/" \
  "$REPO/scenarios/wamp_fragmentation.toml" >"$BENCH_TMP/wamp_fragmentation.toml"
timeout $((6 * REPS * (SECS + 3) + 6 * 30 + 120)) "$BIN/orchestrator" run \
  "$BENCH_TMP/wamp_fragmentation.toml" --db "$BENCH_TMP/bench.db" \
  --json "$BENCH_TMP/wamp_fragmentation.json" >"$BENCH_TMP/wamp_fragmentation.out" 2>&1 || true

# The transfer scenarios, the same way (a router of their own each: TLS is per router).
for scenario in wamp_large_rpc wamp_transfer wamp_transfer_tls; do
  sed -e "s/^duration = .*/duration = \"${SECS}s\"/" -e "s/^repetitions = .*/repetitions = $REPS/" \
    "$REPO/scenarios/$scenario.toml" >"$BENCH_TMP/$scenario.toml"
  timeout $((6 * REPS * (SECS + 3) + 6 * 30 + 120)) "$BIN/orchestrator" run \
    "$BENCH_TMP/$scenario.toml" --db "$BENCH_TMP/bench.db" \
    --json "$BENCH_TMP/$scenario.json" >"$BENCH_TMP/$scenario.out" 2>&1 || true
done

field() { # RESULT-LINE FIELD
  sed -n "s/.*|$2=\([^|]*\).*/\1/p" <<<"$1"
}
cell() { # WORKLOAD
  local line
  line="$(grep "^RESULT|.*workload=$1|" "$BENCH_TMP/wamp_fragmentation.out" || true)"
  if [[ -z "$line" ]]; then
    echo "failed"
  elif [[ "$(field "$line" errors)" != 0 ]]; then
    echo "errors=$(field "$line" errors)"
  else
    printf '%.3f' "$(field "$line" gbps)"
  fi
}

transfer_cell() { # SCENARIO WORKLOAD: "data / lifecycle" Gbit/s
  local line
  line="$(grep "^RESULT|.*workload=$2|" "$BENCH_TMP/$1.out" || true)"
  if [[ -z "$line" ]]; then
    echo "failed"
  elif [[ "$(field "$line" errors)" != 0 ]]; then
    echo "errors=$(field "$line" errors)"
  else
    echo "$(field "$line" data_window_gbps) / $(field "$line" lifecycle_gbps)"
  fi
}
transfer_row() { # LABEL SCENARIO PREFIX
  printf '| %-38s | %15s | %15s | %15s |\n' "$1" "$(transfer_cell "$2" "${3}_json_64m")" \
    "$(transfer_cell "$2" "${3}_msgpack_64m")" "$(transfer_cell "$2" "${3}_cbor_64m")"
}
large_rpc_row() { # LABEL PREFIX SUFFIX
  printf '| %-38s | %15s | %15s | %15s |\n' "$1" "$(transfer_cell wamp_large_rpc "${2}_json_4m_session$3")" \
    "$(transfer_cell wamp_large_rpc "${2}_msgpack_4m_session$3")" "$(transfer_cell wamp_large_rpc "${2}_cbor_4m_session$3")"
}

echo
echo "Large RPC: 4 MiB bench.echo calls, 4 in flight, Gbit/s (median of $REPS x ${SECS}s windows)"
printf '| %-38s | %9s | %11s | %9s |\n' "transport and path" JSON MessagePack CBOR
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..40})" "-----------" "-------------" "-----------"
printf '| %-38s | %9s | %11s | %9s |\n' "WebSocket, 4 KiB continuation frames" \
  "$(cell rpc_ws_json_4m_frag4k)" "$(cell rpc_ws_msgpack_4m_frag4k)" "$(cell rpc_ws_cbor_4m_frag4k)"
printf '| %-38s | %9s | %11s | %9s |\n' "RawSocket, one frame per message" \
  "$(cell rpc_rs_json_4m)" "$(cell rpc_rs_msgpack_4m)" "$(cell rpc_rs_cbor_4m)"
echo "iperf3 loopback, one stream: $IPERF"

echo
echo "Large RPC, each call on a session of its own: 4 MiB bench.echo calls, 4 sessions at a time,"
echo "data window / lifecycle Gbit/s of the echoed payload (median of $REPS x ${SECS}s windows)"
printf '| %-38s | %15s | %15s | %15s |\n' "transport and path" JSON MessagePack CBOR
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..40})" "-----------------" "-----------------" "-----------------"
large_rpc_row "WebSocket, 4 KiB continuation frames" rpc_ws _frag4k
large_rpc_row "RawSocket, one frame per message" rpc_rs ""

echo
echo "Transfer: 64 MiB as progressive results in 4 MiB chunks, data window / lifecycle Gbit/s (median of $REPS x ${SECS}s windows)"
printf '| %-38s | %15s | %15s | %15s |\n' "transport and path" JSON MessagePack CBOR
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..40})" "-----------------" "-----------------" "-----------------"
transfer_row "WebSocket, bench.transfer" wamp_transfer transfer_ws
transfer_row "RawSocket, bench.transfer" wamp_transfer transfer_rs
transfer_row "WebSocket over TLS (wss)" wamp_transfer_tls transfer_wss
transfer_row "RawSocket over TLS" wamp_transfer_tls transfer_rs_tls
for scenario in wamp_large_rpc wamp_transfer wamp_transfer_tls; do
  if ! grep -q '^RESULT|' "$BENCH_TMP/$scenario.out"; then
    echo "$scenario: no RESULT lines; the run said:"
    tail -n 20 "$BENCH_TMP/$scenario.out"
  fi
done
echo "iperf3 loopback, one stream: $IPERF"

if grep -q '^RESULT|' "$BENCH_TMP/wamp_fragmentation.out"; then
  echo
  echo "router frame counters of the last repetition of each workload:"
  "$PY" - "$BENCH_TMP/wamp_fragmentation.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for workload in report["scenarios"][0]["workloads"]:
    rep = workload["repetitions"][-1]
    c = rep["router"]["counters"]
    print("  %-26s calls=%d frames in=%d out=%d fragmented in=%d out=%d" % (
        workload["name"], rep["operations"],
        c.get("wamp_websocket_frames{direction=in}", 0),
        c.get("wamp_websocket_frames{direction=out}", 0),
        c.get("wamp_websocket_fragmented_messages{direction=in}", 0),
        c.get("wamp_websocket_fragmented_messages{direction=out}", 0)))
PY
else
  echo "no RESULT lines; the run said:"
  tail -n 20 "$BENCH_TMP/wamp_fragmentation.out"
fi
print_load_after
