#!/usr/bin/env bash
# System calls and user-space instructions per HTTP/1.1 request of the two load generators,
# the builtin worker (1 thread) and h2load (1 thread), each driving 50 keep-alive connections
# against one nginx worker (12-byte body). Counted with `perf stat` on the kernel's syscall
# tracepoints and the instructions:u counter (instructions:k too where the kernel lets perf
# count kernel instructions; otherwise it prints not_measured). Counts, not times: valid on a
# loaded machine too, though how many epoll_wait calls and empty reads a request costs depends
# on how generator and server interleave.
#
# Marginal figures: each generator runs a small and a large amount of work (h2load -n N1 and
# -n N2; the worker a 1 s and a 4 s window, served to the orchestrator over gRPC), and the
# difference in counts over the difference in requests removes start-up, connect and teardown.
# The worker's figures also hold what its gRPC threads did during the extra 3 s (a few calls).
# "EAGAIN" counts the reads that found nothing.
#
#   bench/loadgen_syscalls_per_request.sh [N1 (default 20000)] [N2 (default 80000)]
#   BENCH_WORKER_HTTP1_IO=asio|epoll|uring picks the worker's HTTP/1.1 I/O loop (worker --http1-io);
#   unset: the worker's default. BENCHGATE_BUILD=DIR picks the build.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

N1="${1:-20000}"
N2="${2:-80000}"
CONNS=50
bench_init loadgen-syscalls 600
bench_need h2load nginx perf taskset "$BIN/orchestrator" "$BIN/worker"
WORKER_ARGS=()
[[ -n "${BENCH_WORKER_HTTP1_IO:-}" ]] && WORKER_ARGS+=(--http1-io "$BENCH_WORKER_HTTP1_IO")

echo "== system calls and instructions per request of the generators: worker vs h2load =="
print_environment
echo "workload:  GET / -> 200 'Hello, world' from one nginx worker, keep-alive, 1 thread," \
  "$CONNS connections; worker --http1-io" \
  "${BENCH_WORKER_HTTP1_IO:-${BENCHGATE_WORKER_HTTP1_IO:-(default)}}"
echo "anchors:   $(h2load --version 2>&1 | head -n1); $(nginx -v 2>&1); $(perf version)"

EVENTS=(-e instructions:u)
KERNEL_COUNTS=0
if perf stat -x, -e instructions:k true 2>&1 | grep -q '^[0-9]'; then
  EVENTS+=(-e instructions:k)
  KERNEL_COUNTS=1
fi
EVENTS+=(-e raw_syscalls:sys_enter)
for c in epoll_ctl epoll_wait epoll_pwait recvfrom read readv recvmsg sendto write writev sendmsg \
  io_uring_enter; do
  EVENTS+=(-e "syscalls:sys_enter_$c")
done
EVENTS+=(-e syscalls:sys_exit_recvfrom --filter "ret == -11" -e syscalls:sys_exit_read --filter "ret == -11")

PORT="$(free_port)"
start_nginx "$PORT" "$SERVER_CORE" 1024
timeout 10 h2load --h1 -t1 -c"$CONNS" -n 20000 "http://127.0.0.1:$PORT/" >/dev/null 2>&1 || true

# report NAME FILE1 FILE2 REQUESTS1 REQUESTS2: the marginal counts per request.
report() {
  "$PY" - "$@" "$KERNEL_COUNTS" <<'PY'
import sys
name, f1, f2, n1, n2, kernel = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
def read(path):
    counts = {}
    for line in open(path):
        f = line.strip().split(",")
        if len(f) < 3 or not f[0].isdigit():
            continue
        counts[f[2]] = counts.get(f[2], 0) + int(f[0])
    return counts
a, b = read(f1), read(f2)
per = lambda key: (b.get(key, 0) - a.get(key, 0)) / (n2 - n1)
calls = {}
eagain = 0.0
for key in set(a) | set(b):
    if key.startswith("syscalls:sys_enter_"):
        calls[key[len("syscalls:sys_enter_"):]] = per(key)
    elif key.startswith("syscalls:sys_exit_"):
        eagain += per(key)
parts = "  ".join("%s %.3f" % (k, v) for k, v in sorted(calls.items()) if abs(v) >= 0.0005)
print("  %-7s syscalls/request: all %.3f; %s; EAGAIN reads %.3f" % (name, per("raw_syscalls:sys_enter"), parts, eagain))
def instructions(key):
    if key in a and key in b:
        return "%.0f" % per(key)
    return "not_measured (perf cannot count %s here)" % key
user = instructions("instructions:u")
kernel_text = instructions("instructions:k") if kernel else "not_measured (perf cannot count instructions:k here)"
print("  %-7s instructions/request: user %s, kernel %s   (%d and %d requests)" % (name, user, kernel_text, n1, n2))
PY
}

for n in "$N1" "$N2"; do
  timeout 300 taskset -c "$CLIENT_CORE" perf stat -x, -o "$BENCH_TMP/perf-h2load-$n.txt" \
    "${EVENTS[@]}" -- h2load --h1 -t1 -c"$CONNS" -n "$n" "http://127.0.0.1:$PORT/" \
    >"$BENCH_TMP/h2load-$n.out" 2>&1
  grep -q " $n succeeded, 0 failed" "$BENCH_TMP/h2load-$n.out" ||
    { echo "bench: h2load failed" >&2; cat "$BENCH_TMP/h2load-$n.out" >&2; exit 3; }
done
report h2load "$BENCH_TMP/perf-h2load-$N1.txt" "$BENCH_TMP/perf-h2load-$N2.txt" "$N1" "$N2"

WPORT="$(free_port)"
taskset -c "$CLIENT_CORE" "$BIN/worker" --listen "127.0.0.1:$WPORT" "${WORKER_ARGS[@]}" \
  >"$BENCH_TMP/worker.out" 2>"$BENCH_TMP/worker.err" &
WPID=$!
bench_track "$WPID"
wait_port "$WPORT" 30
declare -A WOPS
for d in 1 4; do
  nginx_hello_scenario "$BENCH_TMP/w$d.toml" bench_loadgen_syscalls "$PORT" "$CONNS" "${d}s" 0s
  perf stat -x, -o "$BENCH_TMP/perf-worker-$d.txt" "${EVENTS[@]}" -p "$WPID" 2>/dev/null &
  PPID_PERF=$!
  bench_track "$PPID_PERF"
  sleep 0.5
  timeout 120 taskset -c "$CLIENT_CORE" "$BIN/orchestrator" run "$BENCH_TMP/w$d.toml" \
    --workers-at "127.0.0.1:$WPORT" --db "$BENCH_TMP/bench.db" --json "$BENCH_TMP/w$d.json" \
    >"$BENCH_TMP/orch-$d.out" 2>&1 || { tail -n 20 "$BENCH_TMP/orch-$d.out" >&2; exit 3; }
  kill -INT "$PPID_PERF"
  wait "$PPID_PERF" 2>/dev/null || true
  read -r _ ops errs _ _ _ < <("$PY" "$LIB/benchlib.py" worker-json "$BENCH_TMP/w$d.json")
  [[ "$errs" == 0 ]] || { echo "bench: the worker counted $errs errors" >&2; exit 3; }
  WOPS[$d]="$ops"
done
stop_pid "$WPID"
report worker "$BENCH_TMP/perf-worker-1.txt" "$BENCH_TMP/perf-worker-4.txt" "${WOPS[1]}" "${WOPS[4]}"
print_load_after
