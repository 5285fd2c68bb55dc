#!/usr/bin/env bash
# System calls per HTTP/1.1 request of the bundled router (1 thread) and of nginx (1 worker),
# counted with `perf stat` on the kernel's syscall tracepoints (every thread of the serving
# process) while h2load sends N requests over 50 keep-alive connections (1 thread). The
# tracepoints count without stopping the process (strace would: its stops slow the server
# until the generator is always ahead, which changes how many reads find nothing). The router
# runs in its default --http-io epoll (its serving thread's own edge-triggered set, where
# --read-buffer-hold does not apply) and in --http-io asio twice: with its default
# --read-buffer-hold (a connection that has just read keeps its buffer and reads ahead) and with
# --read-buffer-hold 0s (it waits for readability between requests). Counts, not times: valid
# on a loaded machine too, though how many epoll_wait calls and empty reads a request costs
# depends on how server and generator interleave. "EAGAIN" counts the reads that found nothing.
# BENCH_ROUTER_HTTP_IO lists the router's --http-io modes to count (default "epoll asio": all
# three runs; "epoll" or "asio" alone).
#
#   bench/syscalls_per_request.sh [N (default 20000)]
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

N="${1:-20000}"
CONNS=50
bench_init syscalls 600
bench_need h2load nginx perf taskset "$BIN/router"

echo "== system calls per request under h2load (perf stat, syscall tracepoints): router (1 thread) vs nginx (1 worker) =="
print_environment
echo "workload:  h2load --h1 -t1 -c$CONNS -n $N; router GET /bench/hello, nginx GET /"
echo "anchors:   $(h2load --version 2>&1 | head -n1); $(nginx -v 2>&1); $(perf version)"

EVENTS=()
for c in epoll_ctl epoll_wait epoll_pwait recvfrom read sendto write writev; do
  EVENTS+=(-e "syscalls:sys_enter_$c")
done
EVENTS+=(-e syscalls:sys_exit_recvfrom --filter "ret == -11" -e syscalls:sys_exit_read --filter "ret == -11")

# count NAME PID URL: perf stat on every thread of PID while h2load runs; prints calls per
# request of each system call.
count() {
  local name="$1" pid="$2" url="$3" out="$BENCH_TMP/perf-$1.txt" ppid
  timeout 60 taskset -c "$CLIENT_CORE" h2load --h1 -t1 -c"$CONNS" -n 2000 "$url" >/dev/null 2>&1
  perf stat -x, -o "$out" "${EVENTS[@]}" -p "$pid" 2>/dev/null &
  ppid=$!
  bench_track "$ppid"
  sleep 1
  timeout 300 taskset -c "$CLIENT_CORE" h2load --h1 -t1 -c"$CONNS" -n "$N" "$url" \
    >"$BENCH_TMP/h2load-$name.out" 2>&1
  kill -INT "$ppid"
  wait "$ppid" 2>/dev/null || true
  grep -q " $N succeeded, 0 failed" "$BENCH_TMP/h2load-$name.out" ||
    { echo "bench: h2load against $name failed" >&2; cat "$BENCH_TMP/h2load-$name.out" >&2; exit 3; }
  "$PY" - "$out" "$N" "$name" <<'PY'
import sys
path, n, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
calls, eagain = {}, 0
for line in open(path):
    f = line.strip().split(",")
    if len(f) < 3 or not f[2].startswith("syscalls:") or not f[0].isdigit():
        continue
    event = f[2].split(":", 1)[1]
    if event.startswith("sys_exit_"):
        eagain += int(f[0])
    else:
        calls[event[len("sys_enter_"):]] = int(f[0])
total = sum(calls.values())
parts = ["%s %.3f" % (k, c / n) for k, c in sorted(calls.items()) if c]
print("  %-25s per request: %s; EAGAIN reads %.3f; all %.3f" % (name, "  ".join(parts), eagain / n, total / n))
PY
}

NPORT="$(free_port)"
start_nginx "$NPORT" "$SERVER_CORE" 1024
count nginx "$NGINX_WORKER" "http://127.0.0.1:$NPORT/"

for io in ${BENCH_ROUTER_HTTP_IO:-epoll asio}; do
  case "$io" in
    asio)
      RPORT="$(free_port)"
      start_router "$SERVER_CORE" "$RPORT" --threads 1 --idle-timeout 300s --http-io asio
      count "router (asio)" "$ROUTER_PID" "http://127.0.0.1:$RPORT/bench/hello"
      stop_pid "$ROUTER_PID"

      RPORT="$(free_port)"
      start_router "$SERVER_CORE" "$RPORT" --threads 1 --idle-timeout 300s --http-io asio \
        --read-buffer-hold 0s
      count "router (asio, hold 0s)" "$ROUTER_PID" "http://127.0.0.1:$RPORT/bench/hello"
      stop_pid "$ROUTER_PID"
      ;;
    epoll)
      RPORT="$(free_port)"
      start_router "$SERVER_CORE" "$RPORT" --threads 1 --idle-timeout 300s --http-io epoll
      count "router (epoll, default)" "$ROUTER_PID" "http://127.0.0.1:$RPORT/bench/hello"
      stop_pid "$ROUTER_PID"
      ;;
    *) echo "bench: BENCH_ROUTER_HTTP_IO: '$io' is neither asio nor epoll" >&2; exit 2 ;;
  esac
done
print_load_after
