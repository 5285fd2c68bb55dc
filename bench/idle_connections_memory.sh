#!/usr/bin/env bash
# Memory per open idle connection at N (default 10,000) connections: the bundled router vs
# nginx (1 worker) as servers, and the builtin worker as a client holding N connections to
# nginx. Each round starts the servers fresh, so allocator caches of an earlier round do not
# hide growth.
#
# Server: RSS of the serving process after a warm-up (10 connections, one request each, closed),
# after N connections are open (nothing sent), and
# after each connection has made one keep-alive request (the state of a keep-alive connection
# between requests). Per connection = growth / N. Kernel socket memory is not in RSS and is
# the same for both.
# Worker: RSS while it holds N connections minus RSS while it holds 100 (same workload, an
# open loop at 1 request/s so the connections stay idle), divided by N - 100.
#
#   bench/idle_connections_memory.sh [ROUNDS (default 5)] [N (default 10000)]
#   BENCH_WORKER_MEMORY=0 skips the worker; BENCH_SERVER_MEMORY=0 skips the servers (router and
#   nginx; nginx still serves the worker); BENCH_ROUTER_FLAGS adds router flags (e.g.
#   "--http-io asio"), BENCH_WORKER_FLAGS worker flags (e.g. "--http1-io asio").
#   BENCH_WARM=0: the servers' baseline is taken before they have answered anything (the
#   method before 2026-12-05), so the first touch of their request code counts as growth.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

ROUNDS="${1:-5}"
N="${2:-10000}"
bench_init idle_memory $((ROUNDS * 150 + 60))
bench_need nginx taskset
[[ "${BENCH_SERVER_MEMORY:-1}" == 1 ]] && bench_need "$BIN/router"
[[ "${BENCH_WORKER_MEMORY:-1}" == 1 ]] && bench_need "$BIN/worker" "$BIN/orchestrator"
ulimit -n "$(ulimit -Hn)"
if (($(ulimit -n) < N + 200)); then
  echo "bench: open-file limit $(ulimit -n) is below $N connections + 200" >&2
  exit 2
fi

echo "== memory per idle connection at $N connections: router vs nginx, and the worker =="
print_environment
echo "anchors:   $(nginx -v 2>&1)"
echo "open files: $(ulimit -n)"

declare -A OPEN USED
# measure_server NAME ROUND PORT PID PATH
measure_server() {
  local name="$1" i="$2" port="$3" pid="$4" path="$5" r0 r1 r2 ready holder
  if [[ "${BENCH_WARM:-1}" == 1 ]]; then
    # One request on each of 10 connections first, closed again: the code that accepts and
    # answers is paged in before the baseline, so its first touch (about 356 KiB of the
    # router's text, 36 B "per connection" at 10,000) is not counted as connection memory.
    local fds0
    fds0="$("$PY" "$LIB/benchlib.py" fds "$pid")"
    taskset -c "$CLIENT_CORE" "$PY" "$LIB/benchlib.py" idle-conns "$port" 10 0 /dev/null \
      --request "$path" </dev/null
    for _ in $(seq 100); do
      (($("$PY" "$LIB/benchlib.py" fds "$pid") <= fds0)) && break
      sleep 0.1
    done
  fi
  r0="$("$PY" "$LIB/benchlib.py" rss "$pid")"
  for phase in open used; do
    ready="$BENCH_TMP/ready-$name-$i-$phase"
    local req=()
    [[ "$phase" == used ]] && req=(--request "$path")
    # The holder keeps its connections until its stdin (a fifo held by this script) closes.
    mkfifo "$BENCH_TMP/hold-$name-$i-$phase"
    taskset -c "$CLIENT_CORE" "$PY" "$LIB/benchlib.py" idle-conns "$port" "$N" 120 "$ready" \
      "${req[@]}" <"$BENCH_TMP/hold-$name-$i-$phase" &
    holder=$!
    bench_track "$holder"
    exec 7>"$BENCH_TMP/hold-$name-$i-$phase"
    for _ in $(seq 600); do
      [[ -s "$ready" ]] && (($("$PY" "$LIB/benchlib.py" fds "$pid") >= N)) && break
      kill -0 "$holder" 2>/dev/null || { echo "bench: the client failed" >&2; exit 3; }
      sleep 0.1
    done
    sleep 0.5
    if [[ "$phase" == open ]]; then r1="$("$PY" "$LIB/benchlib.py" rss "$pid")"
    else r2="$("$PY" "$LIB/benchlib.py" rss "$pid")"; fi
    exec 7>&-
    wait "$holder" 2>/dev/null || true
    # Wait until the server has closed them again.
    for _ in $(seq 100); do
      (($("$PY" "$LIB/benchlib.py" fds "$pid") < N / 10)) && break
      sleep 0.1
    done
  done
  OPEN[$name]+=" $(((r1 - r0) / N))"
  USED[$name]+=" $(((r2 - r0) / N))"
  printf '  round %d %-7s RSS %7.1f MiB idle -> +%5d B/conn opened, +%5d B/conn after one request\n' \
    "$i" "$name" "$("$PY" -c "print($r0 / 1048576)")" $(((r1 - r0) / N)) $(((r2 - r0) / N))
}

worker_scenario() { # FILE CONNECTIONS PORT
  cat >"$1" <<TOML
name = "bench_idle_memory"
[router]
impl = "external"
address = "127.0.0.1:$3"
[defaults]
warmup = "0s"
duration = "6s"
repetitions = 1
workers = 1
threads = 1
timeout = "60s"
[[workloads]]
name = "idle"
protocol = "http1"
target = "/"
connections = $2
rate = 1
expect_body_bytes = 12
TOML
}

declare -A WRSS
# measure_worker ROUND CONNECTIONS NGINX_PORT: sets W_RSS to the worker's RSS mid-window.
measure_worker() {
  local i="$1" c="$2" port="$3" wport wpid orch
  wport="$(free_port)"
  worker_scenario "$BENCH_TMP/idle-$c.toml" "$c" "$port"
  taskset -c "$CLIENT_CORE" "$BIN/worker" --listen "127.0.0.1:$wport" ${BENCH_WORKER_FLAGS:-} \
    >"$BENCH_TMP/worker-$i-$c.out" 2>"$BENCH_TMP/worker-$i-$c.err" &
  wpid=$!
  bench_track "$wpid"
  wait_port "$wport" 10
  taskset -c "$CLIENT_CORE" "$BIN/orchestrator" run "$BENCH_TMP/idle-$c.toml" \
    --workers-at "127.0.0.1:$wport" --db "$BENCH_TMP/bench.db" \
    >"$BENCH_TMP/orch-$i-$c.out" 2>&1 &
  orch=$!
  bench_track "$orch"
  for _ in $(seq 300); do
    (($("$PY" "$LIB/benchlib.py" fds "$wpid") >= c)) && break
    sleep 0.1
  done
  sleep 2 # inside the 6 s window
  W_RSS="$("$PY" "$LIB/benchlib.py" rss "$wpid")"
  wait "$orch" || { tail -n 20 "$BENCH_TMP/orch-$i-$c.out" >&2; exit 3; }
  stop_pid "$wpid"
}

for ((i = 1; i <= ROUNDS; i++)); do
  NPORT="$(free_port)"
  start_nginx "$NPORT" "$SERVER_CORE" $((N + 2000))
  if [[ "${BENCH_SERVER_MEMORY:-1}" == 1 ]]; then
    RPORT="$(free_port)"
    start_router "$SERVER_CORE" "$RPORT" --threads 1 --idle-timeout 300s ${BENCH_ROUTER_FLAGS:-}
    if ((i % 2)); then
      measure_server router "$i" "$RPORT" "$ROUTER_PID" /bench/hello
      measure_server nginx "$i" "$NPORT" "$NGINX_WORKER" /
    else
      measure_server nginx "$i" "$NPORT" "$NGINX_WORKER" /
      measure_server router "$i" "$RPORT" "$ROUTER_PID" /bench/hello
    fi
    stop_pid "$ROUTER_PID"
  fi
  if [[ "${BENCH_WORKER_MEMORY:-1}" == 1 ]]; then
    measure_worker "$i" 100 "$NPORT"
    small="$W_RSS"
    measure_worker "$i" "$N" "$NPORT"
    per=$(((W_RSS - small) / (N - 100)))
    WRSS[worker]+=" $per"
    printf '  round %d worker  RSS %7.1f MiB at 100 conns, %7.1f MiB at %d -> %5d B/conn\n' \
      "$i" "$("$PY" -c "print($small / 1048576)")" "$("$PY" -c "print($W_RSS / 1048576)")" \
      "$N" "$per"
  fi
  stop_pid "$NGINX_MASTER"
done

echo
echo "== medians over $ROUNDS rounds (min-max), bytes of RSS per connection =="
if [[ "${BENCH_SERVER_MEMORY:-1}" == 1 ]]; then
  for s in router nginx; do
    read -r om omin omax < <(stats ${OPEN[$s]})
    read -r um umin umax < <(stats ${USED[$s]})
    printf '  %-7s opened: %6.0f (%.0f-%.0f)   after one request: %6.0f (%.0f-%.0f)\n' \
      "$s" "$om" "$omin" "$omax" "$um" "$umin" "$umax"
    eval "MED_OPEN_$s=$om MED_USED_$s=$um"
  done
  echo "  router/nginx: opened $("$PY" "$LIB/benchlib.py" ratio "$MED_OPEN_router" "$MED_OPEN_nginx")," \
    "after one request $("$PY" "$LIB/benchlib.py" ratio "$MED_USED_router" "$MED_USED_nginx")"
fi
if [[ -n "${WRSS[worker]:-}" ]]; then
  read -r wm wmin wmax < <(stats ${WRSS[worker]})
  printf '  worker  client side, %d idle connections to nginx: %6.0f (%.0f-%.0f)\n' \
    "$N" "$wm" "$wmin" "$wmax"
fi
echo
print_load_after
