#!/usr/bin/env bash
# What bench/tls.sh's CPU figures come from, in counts that hold on a busy machine too:
# instructions (callgrind, user space), system calls (strace -c) and TLS calls, per request or
# per handshake, each the marginal figure of two runs of different sizes (the difference
# divided by the difference in requests, which removes start-up, connects and teardown).
#  1. generators, h2 over TLS 1.3 (CONNS connections x STREAMS streams, GET / from one nginx
#     worker with `ssl http2`): the worker (protocol = "http2", tls = true) vs h2load
#     (-t1 -c CONNS -m STREAMS), both verifying nothing else than they do in bench/tls.sh
#     (the worker checks the certificate against the throwaway CA; h2load checks nothing);
#  2. servers, new TLS 1.3 connections (one HTTP/1.1 request each, as h2load -n N -c N
#     --h1 makes them): the router (one thread, --tls-cert) vs nginx (one process,
#     master_process off, its TLS defaults: ssl_session_cache none, tickets on); with the
#     session tickets each server sends a new connection and the cipher suite it chose.
#
#   bench/tls_counts.sh [generators|servers|all (default)]
#   BENCH_CONNECTIONS (16), BENCH_STREAMS (10), BENCH_KEEP=1 keeps the callgrind files.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

PART="${1:-all}"
CONNS="${BENCH_CONNECTIONS:-16}"
STREAMS="${BENCH_STREAMS:-10}"
bench_init tls_counts 3600
bench_need h2load nginx openssl valgrind strace taskset "$BIN/orchestrator" "$BIN/worker" \
  "$BIN/router"

echo "== TLS counts: instructions, system calls and TLS calls per request / per handshake =="
print_environment
echo "anchors:   $(h2load --version 2>&1 | head -n1); $(nginx -v 2>&1); $(openssl version);" \
  "$(valgrind --version); $(strace -V | head -n1)"

(
  cd "$BENCH_TMP"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 1 \
    -subj "/CN=benchgate bench CA" >/dev/null 2>&1
  openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr \
    -subj "/CN=localhost" >/dev/null 2>&1
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >san.cnf
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
    -days 1 -extfile san.cnf >/dev/null 2>&1
)

# nginx_conf DIR PORT [EXTRA]: one worker, ssl and http2 on PORT, TLS 1.3 only.
nginx_conf() {
  NGINX_SERVER_LINES="${BENCH_NGINX_LINES:-}" write_nginx_conf "$1" "$2" 4096 "${3:-}"
  sed -i "s|listen 127.0.0.1:$2;|listen 127.0.0.1:$2 ssl http2; ssl_certificate $BENCH_TMP/server.pem; ssl_certificate_key $BENCH_TMP/server.key; ssl_protocols TLSv1.3;|" \
    "$1/nginx.conf"
}

# wait_exit PID SECONDS: a process under valgrind writes its profile on the way out.
wait_exit() {
  local pid="$1"
  for _ in $(seq $(($2 * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

ir() { "$PY" "$LIB/benchlib.py" callgrind-total "$1"; }
calls() { "$PY" "$LIB/benchlib.py" callgrind-calls "$@"; }
syscalls() { "$PY" "$LIB/benchlib.py" strace-calls "$@"; }
per() { "$PY" -c "print(f'{($2 - $1) / ($4 - $3):.{$5}f}')"; } # A1 A2 N1 N2 DECIMALS

generators() {
  local port dir
  port="$(free_port)"
  dir="$BENCH_TMP/nginx-gen"
  nginx_conf "$dir" "$port"
  taskset -c "$SERVER_CORE" nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" \
    >"$dir/logs/stdout.log" 2>&1 &
  bench_track $!
  wait_port "$port" 10
  local url="https://127.0.0.1:$port/"
  echo
  echo "== 1. generators: h2 over TLS 1.3, $CONNS connections x $STREAMS streams, GET / from" \
    "nginx (1 worker, ssl http2, core $SERVER_CORE) =="
  timeout 60 h2load -t1 -c"$CONNS" -m"$STREAMS" -n 20000 "$url" >"$BENCH_TMP/warm.out" 2>&1 || true
  sed -n 's/^\(TLS Protocol\|Cipher\|Server Temp Key\|Application protocol\): */  h2load: \1 /p' \
    "$BENCH_TMP/warm.out"

  # h2load: -n N1 and -n N2 requests.
  local n1=20000 n2=60000 n
  declare -A HIR HWR HRD HSYS HSEND HRECV
  for n in $n1 $n2; do
    timeout 600 taskset -c "$CLIENT_CORE" valgrind --tool=callgrind \
      --callgrind-out-file="$BENCH_TMP/cg.h2load.$n" h2load -t1 -c"$CONNS" -m"$STREAMS" -n "$n" \
      "$url" >"$BENCH_TMP/cg-h2load-$n.out" 2>&1
    HIR[$n]="$(ir "$BENCH_TMP/cg.h2load.$n")"
    read -r HWR[$n] HRD[$n] < <(calls "$BENCH_TMP/cg.h2load.$n" SSL_write SSL_read)
    timeout 300 taskset -c "$CLIENT_CORE" strace -f -c -o "$BENCH_TMP/st.h2load.$n" \
      h2load -t1 -c"$CONNS" -m"$STREAMS" -n "$n" "$url" >"$BENCH_TMP/st-h2load-$n.out" 2>&1
    read -r HSYS[$n] HSEND[$n] HRECV[$n] < <(syscalls "$BENCH_TMP/st.h2load.$n" write read)
  done

  # The worker: windows of D1 and D2 seconds (it has no fixed count), requests from its JSON.
  local d1=3 d2=12 d
  declare -A WOPS WIR WWR WRD WSYS WSEND WRECV
  wscenario() { # NAME DURATION
    cat >"$BENCH_TMP/$1.toml" <<TOML
name = "bench_tls_counts"
[router]
impl = "external"
address = "127.0.0.1:$port"
[defaults]
warmup = "1s"
duration = "$2"
repetitions = 1
workers = 1
threads = 1
[[workloads]]
name = "h2_tls"
protocol = "http2"
target = "/"
connections = $CONNS
streams = $STREAMS
expect_body_bytes = 12
tls = true
tls_version = "1.3"
ca_file = "$BENCH_TMP/ca.pem"
TOML
  }
  # worker_under TOOL-ARGS... -- TAG D: the worker under valgrind or strace for a D s window.
  worker_under() {
    local tag="$1" d="$2" wport wpid
    shift 2
    wscenario "w$d" "${d}s"
    wport="$(free_port)"
    taskset -c "$CLIENT_CORE" "$@" "$BIN/worker" --listen "127.0.0.1:$wport" \
      >"$BENCH_TMP/$tag-worker-$d.out" 2>"$BENCH_TMP/$tag-worker-$d.err" &
    wpid=$!
    bench_track "$wpid"
    wait_port "$wport" 60
    # Under strace the worker is strace's child: tracked too, so that an interrupted script
    # stops it (strace detaches on SIGTERM).
    local child
    child="$(ps -o pid= --ppid "$wpid" | head -n1 | tr -d ' ' || true)"
    if [[ -n "$child" ]]; then bench_track "$child"; fi
    timeout 300 taskset -c "$CLIENT_CORE" "$BIN/orchestrator" run "$BENCH_TMP/w$d.toml" \
      --workers-at "127.0.0.1:$wport" --db "$BENCH_TMP/bench.db" \
      --json "$BENCH_TMP/$tag-$d.json" >"$BENCH_TMP/$tag-orch-$d.out" 2>&1 || {
      tail -n 20 "$BENCH_TMP/$tag-orch-$d.out" >&2
      exit 3
    }
    # strace writes its summary once the worker (its child) is gone; valgrind runs the worker
    # in its own process.
    local target="$wpid"
    [[ "$tag" == st && -n "$child" ]] && target="$child"
    kill -TERM "$target" 2>/dev/null || true
    wait_exit "$wpid" 60
  }
  for d in $d1 $d2; do
    # Only what the load threads' event loops run (Asio's scheduler): not the gRPC threads,
    # which do more in a longer window whatever the load.
    worker_under cg "$d" valgrind --tool=callgrind --toggle-collect='*scheduler::run*' \
      --callgrind-out-file="$BENCH_TMP/cg.worker.$d"
    read -r _ WOPS[cg$d] errs _ < <("$PY" "$LIB/benchlib.py" worker-json "$BENCH_TMP/cg-$d.json")
    [[ "$errs" == 0 ]] || echo "  (the worker under callgrind counted $errs errors)"
    WIR[$d]="$(ir "$BENCH_TMP/cg.worker.$d")"
    # The worker's TLS stream calls the _ex forms; its HTTP/2 session also SSL_read.
    read -r w1 w2 r1 r2 < <(calls "$BENCH_TMP/cg.worker.$d" SSL_write SSL_write_ex SSL_read \
      SSL_read_ex)
    WWR[$d]=$((w1 + w2)) WRD[$d]=$((r1 + r2))
    worker_under st "$d" strace -f -c -o "$BENCH_TMP/st.worker.$d"
    read -r _ WOPS[st$d] errs _ < <("$PY" "$LIB/benchlib.py" worker-json "$BENCH_TMP/st-$d.json")
    # OpenSSL writes and reads the socket itself (write, read); Asio's own I/O is sendto
    # and recvfrom.
    read -r WSYS[$d] s1 s2 r1 r2 < <(syscalls "$BENCH_TMP/st.worker.$d" sendto write recvfrom read)
    WSEND[$d]=$((s1 + s2)) WRECV[$d]=$((r1 + r2))
  done

  printf '  %-34s %12s %12s %8s\n' "per request (marginal)" worker h2load ratio
  row() { # LABEL WORKER H2LOAD
    printf '  %-34s %12s %12s %8s\n' "$1" "$2" "$3" "$("$PY" "$LIB/benchlib.py" ratio "$2" "$3")"
  }
  row "instructions (callgrind)" \
    "$(per "${WIR[$d1]}" "${WIR[$d2]}" "${WOPS[cg$d1]}" "${WOPS[cg$d2]}" 0)" \
    "$(per "${HIR[$n1]}" "${HIR[$n2]}" $n1 $n2 0)"
  row "SSL_write calls (TLS records out)" \
    "$(per "${WWR[$d1]}" "${WWR[$d2]}" "${WOPS[cg$d1]}" "${WOPS[cg$d2]}" 3)" \
    "$(per "${HWR[$n1]}" "${HWR[$n2]}" $n1 $n2 3)"
  row "SSL_read calls" \
    "$(per "${WRD[$d1]}" "${WRD[$d2]}" "${WOPS[cg$d1]}" "${WOPS[cg$d2]}" 3)" \
    "$(per "${HRD[$n1]}" "${HRD[$n2]}" $n1 $n2 3)"
  row "system calls (strace -f -c)" \
    "$(per "${WSYS[$d1]}" "${WSYS[$d2]}" "${WOPS[st$d1]}" "${WOPS[st$d2]}" 3)" \
    "$(per "${HSYS[$n1]}" "${HSYS[$n2]}" $n1 $n2 3)"
  row "  sends (sendto, write)" \
    "$(per "${WSEND[$d1]}" "${WSEND[$d2]}" "${WOPS[st$d1]}" "${WOPS[st$d2]}" 3)" \
    "$(per "${HSEND[$n1]}" "${HSEND[$n2]}" $n1 $n2 3)"
  row "  receives (recvfrom, read)" \
    "$(per "${WRECV[$d1]}" "${WRECV[$d2]}" "${WOPS[st$d1]}" "${WOPS[st$d2]}" 3)" \
    "$(per "${HRECV[$n1]}" "${HRECV[$n2]}" $n1 $n2 3)"
  echo "  (worker: ${WOPS[cg$d1]} and ${WOPS[cg$d2]} requests in ${d1} s and ${d2} s windows under" \
    "callgrind (its load thread's event loop only), ${WOPS[st$d1]} and ${WOPS[st$d2]} under" \
    "strace (every thread). h2load: -n $n1 and -n $n2, the whole process)"
  if command -v callgrind_annotate >/dev/null; then
    for f in "worker.$d2" "h2load.$n2"; do
      echo "  top functions of $f (self instructions):"
      callgrind_top "$BENCH_TMP/cg.$f" 15
    done
  fi
}

servers() {
  echo
  echo "== 2. servers: new TLS 1.3 connections, one HTTP/1.1 request each (h2load --h1 -n 100" \
    "-c 100, repeated), router (1 thread) vs nginx (master_process off) =="
  local k1=2 k2=6 s
  declare -A SIR SSYS
  # serve SERVER TOOL-ARGS...: starts SERVER under the tool; sets SPID, SPORT and SURL.
  serve() {
    local s="$1" port
    shift
    port="$(free_port)"
    if [[ "$s" == nginx ]]; then
      local dir="$BENCH_TMP/nginx-$port"
      nginx_conf "$dir" "$port" "master_process off;"
      taskset -c "$SERVER_CORE" "$@" nginx -p "$dir" -c "$dir/nginx.conf" \
        -e "$dir/logs/error.log" >"$dir/logs/stdout.log" 2>&1 &
      SURL="https://127.0.0.1:$port/"
    else
      # shellcheck disable=SC2086 # BENCH_ROUTER_FLAGS: extra router flags, split on spaces
      taskset -c "$SERVER_CORE" "$@" "$BIN/router" ${BENCH_ROUTER_FLAGS:-} --http "127.0.0.1:$port" \
        --control 127.0.0.1:0 --threads 1 --tls-cert "$BENCH_TMP/server.pem" \
        --tls-key "$BENCH_TMP/server.key" >"$BENCH_TMP/router-$port.out" \
        2>"$BENCH_TMP/router-$port.err" &
      SURL="https://127.0.0.1:$port/bench/hello"
    fi
    SPID=$!
    SPORT="$port"
    bench_track "$SPID"
    wait_port "$port" 60
    local child
    child="$(ps -o pid= --ppid "$SPID" | head -n1 | tr -d ' ' || true)"
    if [[ -n "$child" ]]; then bench_track "$child"; fi
  }
  # handshakes K: K rounds of 100 new connections with one request each.
  handshakes() {
    local i
    for ((i = 0; i < $1; i++)); do
      timeout 120 taskset -c "$CLIENT_CORE" h2load --h1 -t1 -n 100 -c 100 "$SURL" \
        >"$BENCH_TMP/hs.out" 2>&1 || true
      grep -q "100 succeeded" "$BENCH_TMP/hs.out" || {
        echo "  h2load did not finish 100 handshakes:" >&2
        tail -n 5 "$BENCH_TMP/hs.out" >&2
      }
    done
  }
  for s in router nginx; do
    serve "$s"
    local tickets suite
    tickets="$(printf 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
      timeout 10 openssl s_client -connect "127.0.0.1:$SPORT" -tls1_3 -quiet -msg 2>&1 |
      grep -c 'NewSessionTicket' || true)"
    suite="$(h2load --h1 -n 1 -c 1 "$SURL" 2>&1 | sed -n 's/^Cipher: *//p')"
    echo "  $s: $tickets session ticket(s) per new connection (openssl s_client), suite chosen" \
      "for h2load: $suite"
    stop_pid "$SPID"
    for k in $k1 $k2; do
      serve "$s" valgrind --tool=callgrind --callgrind-out-file="$BENCH_TMP/cg.$s.$k"
      handshakes "$k"
      kill -TERM "$SPID" 2>/dev/null || true
      wait_exit "$SPID" 120
      SIR[$s$k]="$(ir "$BENCH_TMP/cg.$s.$k")"
      serve "$s" strace -f -c -o "$BENCH_TMP/st.$s.$k"
      handshakes "$k"
      local child
      child="$(ps -o pid= --ppid "$SPID" | head -n1 | tr -d ' ' || true)"
      kill -TERM "${child:-$SPID}" 2>/dev/null || true
      wait_exit "$SPID" 30
      read -r SSYS[$s$k] < <(syscalls "$BENCH_TMP/st.$s.$k")
    done
  done
  printf '  %-34s %12s %12s %8s\n' "per handshake (marginal)" router nginx ratio
  local a b
  a="$(per "${SIR[router$k1]}" "${SIR[router$k2]}" $((k1 * 100)) $((k2 * 100)) 0)"
  b="$(per "${SIR[nginx$k1]}" "${SIR[nginx$k2]}" $((k1 * 100)) $((k2 * 100)) 0)"
  printf '  %-34s %12s %12s %8s\n' "instructions (callgrind)" "$a" "$b" \
    "$("$PY" "$LIB/benchlib.py" ratio "$a" "$b")"
  a="$(per "${SSYS[router$k1]}" "${SSYS[router$k2]}" $((k1 * 100)) $((k2 * 100)) 2)"
  b="$(per "${SSYS[nginx$k1]}" "${SSYS[nginx$k2]}" $((k1 * 100)) $((k2 * 100)) 2)"
  printf '  %-34s %12s %12s %8s\n' "system calls (strace -f -c)" "$a" "$b" \
    "$("$PY" "$LIB/benchlib.py" ratio "$a" "$b")"
  if command -v callgrind_annotate >/dev/null; then
    for s in router nginx; do
      echo "  top functions of $s ($k2 x 100 handshakes, self instructions):"
      callgrind_top "$BENCH_TMP/cg.$s.$k2" 15
    done
  fi
}

case "$PART" in
  generators) generators ;;
  servers) servers ;;
  all)
    generators
    servers
    ;;
  *)
    echo "usage: bench/tls_counts.sh [generators|servers|all]" >&2
    exit 2
    ;;
esac
echo
print_load_after
