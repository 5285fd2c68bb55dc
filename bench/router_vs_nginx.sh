#!/usr/bin/env bash
# The bundled router (1 thread) side by side with nginx (1 worker) as HTTP/1.1 servers: the
# same fixed generator, h2load with 1 thread and 50 keep-alive connections, drives each in
# turn, PAIRS times in one invocation. Prints requests/s and the server's CPU per request
# (user+system time of the serving process from /proc/PID/stat around each run), split into
# user and system time, and the router's system time alone against nginx's whole CPU per
# request: the ratio a router with no user-space work at all would reach (issue 19, goal 1).
#
#   bench/router_vs_nginx.sh [PAIRS (default 5)] [SECONDS per run (default 3)]
#   Then instructions per request of each server under callgrind (BENCH_CALLGRIND=0 skips).
#   BENCH_ROUTER_FLAGS adds router flags (e.g. "--http-io asio --read-buffer-hold 0s").
#   BENCH_ROUTER_HTTP_IO=asio|epoll passes --http-io to the router (also under callgrind);
#   unset: the router's default.
#   BENCH_SERVER_CPU=FRACTION: server-bound runs (issue 19, goal 1: at least nginx's requests/s
#     when the server is the limit). Both servers are capped at FRACTION of their core
#     (cpu_cap in lib/common.sh: a cgroup each, 10 ms periods), below what h2load's one thread
#     can send, so the server decides requests/s and the two compare their CPU per request
#     under the same cap. Without it h2load's one thread is the limit on two cores.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
ROUTER_IO_FLAGS=()
[[ -n "${BENCH_ROUTER_HTTP_IO:-}" ]] && ROUTER_IO_FLAGS=(--http-io "$BENCH_ROUTER_HTTP_IO")

PAIRS="${1:-5}"
SECS="${2:-3}"
CONNS=50
bench_init router_vs_nginx $((PAIRS * (2 * SECS + 20) + 600))
bench_need h2load nginx taskset "$BIN/router"

echo "== HTTP/1.1 servers under h2load: bundled router (1 thread) vs nginx (1 worker) =="
print_environment
echo "workload:  h2load --h1 -t1 -c$CONNS -D $SECS; router GET /bench/hello, nginx GET / (both" \
  "200 'Hello, world'), $PAIRS pairs (order alternates)"
echo "anchors:   $(h2load --version 2>&1 | head -n1); $(nginx -v 2>&1)"

NPORT="$(free_port)"
start_nginx "$NPORT" "$SERVER_CORE"
RPORT="$(free_port)"
start_router "$SERVER_CORE" "$RPORT" --threads 1 --idle-timeout 300s ${BENCH_ROUTER_FLAGS:-} \
  "${ROUTER_IO_FLAGS[@]}"
echo "router:    $ROUTER_READY${BENCH_ROUTER_FLAGS:+ (flags: $BENCH_ROUTER_FLAGS)}${BENCH_ROUTER_HTTP_IO:+ (--http-io $BENCH_ROUTER_HTTP_IO)}"
if [[ -n "${BENCH_SERVER_CPU:-}" ]]; then
  cpu_cap "$NGINX_WORKER" "$BENCH_SERVER_CPU"
  cpu_cap "$ROUTER_PID" "$BENCH_SERVER_CPU"
  echo "servers:   capped at $BENCH_SERVER_CPU of a core each (server-bound runs)"
fi

declare -A URL PID RPS CPU USR SYS BYTES
URL[router]="http://127.0.0.1:$RPORT/bench/hello"
URL[nginx]="http://127.0.0.1:$NPORT/"
PID[router]="$ROUTER_PID"
PID[nginx]="$NGINX_WORKER"

run_one() { # SERVER ROUND
  local s="$1" i="$2" out="$BENCH_TMP/$1-$2.out" u0 s0 u1 s1 rps n cpr upr spr
  read -r u0 s0 < <("$PY" "$LIB/benchlib.py" cpu-split "${PID[$s]}")
  timeout $((SECS + 15)) taskset -c "$CLIENT_CORE" h2load --h1 -t1 -c"$CONNS" -D "$SECS" \
    "${URL[$s]}" >"$out" 2>&1
  read -r u1 s1 < <("$PY" "$LIB/benchlib.py" cpu-split "${PID[$s]}")
  read -r rps n < <("$PY" "$LIB/benchlib.py" h2load "$out")
  if [[ "$rps" == "-" ]]; then
    echo "h2load against $s failed:" >&2
    cat "$out" >&2
    exit 3
  fi
  read -r cpr upr spr < <("$PY" -c "print(*((v / $n * 1e6) for v in
    ($u1 - $u0 + $s1 - $s0, $u1 - $u0, $s1 - $s0)))")
  RPS[$s]+=" $rps"
  CPU[$s]+=" $cpr"
  USR[$s]+=" $upr"
  SYS[$s]+=" $spr"
  # Response bytes per request (headers included), from h2load's traffic line.
  BYTES[$s]="$(sed -n 's/.*traffic: [^(]*(\([0-9]*\)) total, [^(]*(\([0-9]*\)) headers.*/\2/p' "$out")"
  BYTES[$s]="$(("${BYTES[$s]:-0}" / n))"
  printf '  round %d %-6s %10.0f req/s  server %6.2f us CPU/req (user %.2f, system %.2f; %d req)\n' \
    "$i" "$s" "$rps" "$cpr" "$upr" "$spr" "$n"
}

# Warm both servers (and h2load's page cache) without measuring.
for s in router nginx; do
  timeout 10 h2load --h1 -t1 -c"$CONNS" -n 20000 "${URL[$s]}" >/dev/null 2>&1 || true
done

for ((i = 1; i <= PAIRS; i++)); do
  if ((i % 2)); then run_one router "$i"; run_one nginx "$i"
  else run_one nginx "$i"; run_one router "$i"; fi
done

echo
echo "== medians over $PAIRS pairs (min-max) =="
for s in router nginx; do
  read -r rm rmin rmax < <(stats ${RPS[$s]})
  read -r cm cmin cmax < <(stats ${CPU[$s]})
  read -r um umin umax < <(stats ${USR[$s]})
  read -r sm smin smax < <(stats ${SYS[$s]})
  printf '  %-6s %10.0f req/s (%.0f-%.0f)   server %6.2f us CPU/req (%.2f-%.2f):' \
    "$s" "$rm" "$rmin" "$rmax" "$cm" "$cmin" "$cmax"
  printf ' user %.2f (%.2f-%.2f), system %.2f (%.2f-%.2f)\n' \
    "$um" "$umin" "$umax" "$sm" "$smin" "$smax"
  eval "MED_RPS_$s=$rm MED_CPU_$s=$cm MED_SYS_$s=$sm"
done
echo "  router/nginx req/s ratio: $("$PY" "$LIB/benchlib.py" ratio "$MED_RPS_router" "$MED_RPS_nginx")" \
  "  server CPU/req ratio: $("$PY" "$LIB/benchlib.py" ratio "$MED_CPU_router" "$MED_CPU_nginx") (lower is better)"
echo "  router system time alone / nginx CPU/req: $("$PY" "$LIB/benchlib.py" ratio "$MED_SYS_router" \
  "$MED_CPU_nginx") (the ratio with no user-space work at all; user/system split at clock ticks)"
echo "  response header bytes per answer (h2load): router ${BYTES[router]:-?}, nginx ${BYTES[nginx]:-?}"

if [[ "${BENCH_CALLGRIND:-1}" == 1 ]] && command -v valgrind >/dev/null; then
  echo
  echo "== server instructions per request under callgrind (user space only, marginal) =="
  # Each server runs under callgrind twice, fresh, serving h2load -n N1 and -n N2 requests;
  # (Ir(N2) - Ir(N1)) / (N2 - N1) leaves out start-up, connects and shutdown. nginx runs as a
  # single process (master_process off) so that the serving code is the profiled process.
  N1=20000 N2=80000
  declare -A IPR
  for s in router nginx; do
    declare -A IR=()
    for n in $N1 $N2; do
      port="$(free_port)"
      cg="$BENCH_TMP/cg.$s.$n"
      if [[ "$s" == router ]]; then
        taskset -c "$SERVER_CORE" valgrind --tool=callgrind --callgrind-out-file="$cg" \
          "$BIN/router" --http "127.0.0.1:$port" --control 127.0.0.1:0 --threads 1 \
          "${ROUTER_IO_FLAGS[@]}" >"$BENCH_TMP/cg-$s-$n.out" 2>"$BENCH_TMP/cg-$s-$n.err" &
        url="http://127.0.0.1:$port/bench/hello"
      else
        write_nginx_conf "$BENCH_TMP/cg-nginx-$n" "$port" 1024 "master_process off;"
        taskset -c "$SERVER_CORE" valgrind --tool=callgrind --callgrind-out-file="$cg" \
          nginx -p "$BENCH_TMP/cg-nginx-$n" -c "$BENCH_TMP/cg-nginx-$n/nginx.conf" \
          -e "$BENCH_TMP/cg-nginx-$n/logs/error.log" \
          >"$BENCH_TMP/cg-$s-$n.out" 2>"$BENCH_TMP/cg-$s-$n.err" &
        url="http://127.0.0.1:$port/"
      fi
      cgpid=$!
      bench_track "$cgpid"
      wait_port "$port" 60
      timeout 300 taskset -c "$CLIENT_CORE" h2load --h1 -t1 -c"$CONNS" -n "$n" "$url" \
        >"$BENCH_TMP/cg-h2load-$s-$n.out" 2>&1
      stop_pid "$cgpid"
      IR[$n]="$(callgrind_total "$cg")"
    done
    IPR[$s]="$("$PY" -c "print(round((${IR[$N2]} - ${IR[$N1]}) / ($N2 - $N1)))")"
    echo "  $s: ${IR[$N1]} Ir for $N1 requests, ${IR[$N2]} for $N2 -> ${IPR[$s]} instructions/request"
  done
  echo "  router/nginx instructions per request: $("$PY" "$LIB/benchlib.py" ratio "${IPR[router]}" "${IPR[nginx]}")"
  for s in router nginx; do
    echo
    echo "  top functions of $s ($N2 requests, self instructions):"
    callgrind_top "$BENCH_TMP/cg.$s.$N2" 15
  done
fi

echo
print_load_after
