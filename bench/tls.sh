#!/usr/bin/env bash
# TLS side by side in one invocation, every side pinned (servers on BENCH_SERVER_CORE,
# generators on BENCH_CLIENT_CORE), the order rotating each round:
#  servers under h2load (the bundled router, 1 thread, vs nginx, 1 worker, both with the same
#  certificate):
#   1. new TLS 1.3 connections per second: h2load -n N -c N, every client one connection and one
#      request (h2load's requests/s is then its connections/s);
#   2. keep-alive HTTP/1.1 over TLS: h2load --h1 -c CONNS -D SECS;
#   3. keep-alive h2 (ALPN) over TLS: h2load -c CONNS -m STREAMS -D SECS;
#  generators against nginx (the bundled worker through the orchestrator vs h2load):
#   4. handshakes/s: the worker with new_connection_per_request = true (CONNS connection
#      slots, each request on a new connection, a full TLS 1.3 handshake) vs h2load -n N -c N;
#   5. keep-alive HTTP/1.1 over TLS and 6. h2 over TLS, CONNS connections (x STREAMS for h2).
# Each row gives the figure, the CPU per request (a server's: its process's user + system time
# over the run / the requests h2load completed; a generator's: h2load's rusage, the worker's
# own worker_cpu_seconds over the window) and the TLS version the peer chose. The certificate
# is a throwaway CA's, made here with openssl; the worker verifies it (ca_file), h2load never
# verifies certificates. Figures worth writing down need an idle machine.
#
#   bench/tls.sh [SECONDS per run (default 2)] [ROUNDS (default 1)]
#   BENCH_CONNECTIONS (default 16), BENCH_HANDSHAKES (h2load's N, default 2000),
#   BENCH_STREAMS (h2 streams per connection, default 10), BENCH_WORKER_VERIFY=off (the worker
#   checks no certificate, as h2load), BENCH_SIDES (the rows to run, as
#   side names: e.g. "router_handshakes nginx_handshakes"; default all twelve),
#   BENCH_ROUTER_FLAGS (extra router flags, split on spaces), BENCH_ROUTER2_FLAGS (set: a second
#   router with these extra flags instead, sides router2_handshakes, router2_h1, router2_h2,
#   rows "router2/nginx": two router settings against nginx in one run), BENCH_ROUTER2_ENV
#   (NAME=VALUE words for the second router's environment), BENCH_NGINX_LINES (extra directives
#   for nginx's server block, e.g. "ssl_conf_command NumTickets 1;"), BENCH_TLS13_SUITE (the one
#   TLS 1.3 suite every client offers, default TLS_AES_128_GCM_SHA256: h2load's first choice;
#   OpenSSL's own first is TLS_AES_256_GCM_SHA384, 14 AES rounds to 10, so two generators
#   left at their defaults would not encrypt alike).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

SECS="${1:-2}"
ROUNDS="${2:-1}"
CONNS="${BENCH_CONNECTIONS:-16}"
SUITE="${BENCH_TLS13_SUITE:-TLS_AES_128_GCM_SHA256}"
HANDSHAKES="${BENCH_HANDSHAKES:-2000}"
STREAMS="${BENCH_STREAMS:-10}"
bench_init tls $((ROUNDS * 12 * (SECS + 30) + 180))
bench_need h2load openssl nginx taskset "$BIN/orchestrator" "$BIN/worker" "$BIN/router"

echo "== TLS: handshakes/s and keep-alive throughput; router vs nginx, worker vs h2load =="
print_environment
echo "anchors:   $(h2load --version 2>&1 | head -n1); $(nginx -v 2>&1); $(openssl version)"

# A throwaway CA and a certificate for 127.0.0.1 signed by it.
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

# nginx: one worker, TLS 1.2 and 1.3, HTTP/1.1 and h2 by ALPN, session tickets on; room for
# twice the handshake row's connections (with room for only those, nginx 1.22 closed 64 of
# every 2,000 as "worker_connections are not enough", and h2load counted them failed).
NGINX_PORT="$(free_port)"
NGINX_LISTEN="ssl http2" \
  NGINX_SERVER_LINES="ssl_certificate $BENCH_TMP/server.pem; ssl_certificate_key $BENCH_TMP/server.key; ssl_protocols TLSv1.2 TLSv1.3; ssl_session_tickets on; http2_max_concurrent_streams 128; ${BENCH_NGINX_LINES:-}" \
  start_nginx "$NGINX_PORT" "$SERVER_CORE" $((CONNS + 2 * HANDSHAKES))

# The router: one thread, TLS on its HTTP port (HTTP/1.1 and h2 by ALPN).
ROUTER_PORT="$(free_port)"
# shellcheck disable=SC2086 # extra flags, split on spaces
start_router "$SERVER_CORE" "$ROUTER_PORT" --threads 1 --tls-cert "$BENCH_TMP/server.pem" \
  --tls-key "$BENCH_TMP/server.key" ${BENCH_ROUTER_FLAGS:-}
if [[ -n "${BENCH_ROUTER2_FLAGS:-}${BENCH_ROUTER2_ENV:-}" ]]; then
  FIRST_ROUTER_PID="$ROUTER_PID"
  ROUTER2_PORT="$(free_port)"
  # shellcheck disable=SC2086 # extra flags, split on spaces
  ROUTER_ENV="${BENCH_ROUTER2_ENV:-}" start_router "$SERVER_CORE" "$ROUTER2_PORT" --threads 1 --tls-cert "$BENCH_TMP/server.pem" \
    --tls-key "$BENCH_TMP/server.key" $BENCH_ROUTER2_FLAGS
  ROUTER2_PID="$ROUTER_PID"
  ROUTER_PID="$FIRST_ROUTER_PID"
  echo "router2:   flags '${BENCH_ROUTER2_FLAGS:-}' environment '${BENCH_ROUTER2_ENV:-}' on :$ROUTER2_PORT, core $SERVER_CORE"
fi
echo "servers:   nginx 1 worker (pid $NGINX_WORKER) on :$NGINX_PORT, router 1 thread on" \
  ":$ROUTER_PORT, both on core $SERVER_CORE"
echo "runs:      ${SECS}s each, $ROUNDS round(s); $CONNS connections (h2: x $STREAMS streams);" \
  "handshakes: h2load -n $HANDSHAKES -c $HANDSHAKES, the worker $CONNS slots"
echo "clients:   TLS 1.3 offering $SUITE only (h2load and the worker alike)"

# h2load_run MODE PORT PATH: "requests/s CPU_us_per_request tls failed" of h2load, MODE handshakes,
# h1 or h2; SERVER_PID set: the CPU is that server's over the run, else h2load's own.
h2load_run() {
  local mode="$1" port="$2" path="$3" out="$BENCH_TMP/h.out" ru="$BENCH_TMP/h.ru" args
  case "$mode" in
    handshakes) args=(--h1 -n "$HANDSHAKES" -c "$HANDSHAKES") ;;
    h1) args=(--h1 -c "$CONNS" -D "$SECS") ;;
    h2) args=(-c "$CONNS" -m "$STREAMS" -D "$SECS") ;;
  esac
  local before=0
  [[ -n "${SERVER_PID:-}" ]] && before="$(cpu_seconds "$SERVER_PID")"
  timeout $((SECS + 60)) taskset -c "$CLIENT_CORE" "$PY" "$LIB/benchlib.py" rusage "$ru" -- \
    h2load -t1 --tls13-ciphers="$SUITE" "${args[@]}" "https://127.0.0.1:$port$path" >"$out" 2>&1 || true
  local rps n u s cpu
  read -r rps n < <("$PY" "$LIB/benchlib.py" h2load "$out")
  if [[ "$rps" == - ]]; then
    echo "- - - -"
    return
  fi
  if [[ -n "${SERVER_PID:-}" ]]; then
    cpu="$("$PY" -c "print($(cpu_seconds "$SERVER_PID") - $before)")"
  else
    read -r u s <"$ru"
    cpu="$("$PY" -c "print($u + $s)")"
  fi
  local tls failed
  tls="$(sed -n 's/^TLS Protocol: //p' "$out" | head -n1)"
  [[ -n "$tls" ]] && tls+="/$(sed -n 's/^Cipher: //p' "$out" | head -n1)"
  failed="$(sed -n 's/^requests: .* \([0-9]*\) failed.*/\1/p' "$out" | head -n1)"
  echo "$rps $("$PY" -c "print(f'{$cpu / $n * 1e6:.2f}')") ${tls:--} ${failed:-0}"
}

# The worker verifies nginx's certificate against the throwaway CA (ca_file) unless
# BENCH_WORKER_VERIFY=off (insecure = true: no verification, as h2load, which never verifies).
VERIFY_KEY="ca_file = \"$BENCH_TMP/ca.pem\""
[[ "${BENCH_WORKER_VERIFY:-on}" == off ]] && VERIFY_KEY="insecure = true"
echo "worker:    $([[ "$VERIFY_KEY" == insecure* ]] && echo "insecure = true (checks no certificate, as h2load)" || echo "verifies the certificate against the CA (ca_file); h2load checks none")"

# worker_run MODE: "figure CPU_us_per_request tls errors" of the worker against nginx, MODE
# handshakes (figure: handshakes/s), h1 or h2 (figure: requests/s).
worker_run() {
  local mode="$1" toml="$BENCH_TMP/w.toml" json="$BENCH_TMP/w.json" protocol=http1 keys=""
  case "$mode" in
    handshakes) keys=$'new_connection_per_request = true' ;;
    h2) protocol=http2 keys="streams = $STREAMS" ;;
  esac
  cat >"$toml" <<TOML
name = "bench_tls"
[router]
impl = "external"
address = "127.0.0.1:$NGINX_PORT"
[defaults]
warmup = "500ms"
duration = "${SECS}s"
repetitions = 1
workers = 1
threads = 1
[[workloads]]
name = "tls_$mode"
protocol = "$protocol"
target = "/"
connections = $CONNS
expect_body_bytes = 12
tls = true
tls_version = "1.3"
ciphers = "$SUITE"
$VERIFY_KEY
$keys
TOML
  if ! timeout $((SECS + 60)) taskset -c "$CLIENT_CORE" "$BIN/orchestrator" run "$toml" \
    --db "$BENCH_TMP/bench.db" --json "$json" >"$BENCH_TMP/w.out" 2>&1; then
    tail -n 5 "$BENCH_TMP/w.out" >&2
    echo "- - - -"
    return
  fi
  "$PY" - "$BENCH_TMP/w.out" "$json" "$mode" <<'PY'
import json, sys
line = next(l for l in open(sys.argv[1]) if l.startswith("RESULT|"))
f = dict(kv.split("=", 1) for kv in line.strip().split("|")[1:])
doc = json.load(open(sys.argv[2]))
rep = doc["scenarios"][0]["workloads"][0]["repetitions"][-1]
figure = f["handshakes_per_s"] if sys.argv[3] == "handshakes" else f["rps"]
cpu = rep["worker_cpu_seconds"] / rep["operations"] * 1e6 if rep["operations"] else float("nan")
tls = rep.get("tls") or {}
print(figure, f"{cpu:.2f}", f'{tls.get("version", "-")}/{tls.get("cipher", "-")}', f["errors"])
PY
}

SIDES=(router_handshakes nginx_handshakes router_h1 nginx_h1 router_h2 nginx_h2
  worker_handshakes h2load_handshakes worker_h1 h2load_h1 worker_h2 h2load_h2)
# shellcheck disable=SC2206 # a list of names
[[ -n "${BENCH_SIDES:-}" ]] && SIDES=($BENCH_SIDES)
declare -A FIG CPU
for ((i = 1; i <= ROUNDS; i++)); do
  for ((k = 0; k < ${#SIDES[@]}; k++)); do
    side="${SIDES[$(((i - 1 + k) % ${#SIDES[@]}))]}"
    mode="${side#*_}"
    errs=""
    case "$side" in
      router_*) read -r fig cpu tls errs < <(SERVER_PID="$ROUTER_PID" h2load_run "$mode" "$ROUTER_PORT" /bench/hello) ;;
      router2_*) read -r fig cpu tls errs < <(SERVER_PID="$ROUTER2_PID" h2load_run "$mode" "$ROUTER2_PORT" /bench/hello) ;;
      nginx_*) read -r fig cpu tls errs < <(SERVER_PID="$NGINX_WORKER" h2load_run "$mode" "$NGINX_PORT" /) ;;
      h2load_*) read -r fig cpu tls errs < <(SERVER_PID="" h2load_run "$mode" "$NGINX_PORT" /) ;;
      worker_*) read -r fig cpu tls errs < <(worker_run "$mode") ;;
    esac
    FIG[$side]+=" $fig"
    CPU[$side]+=" $cpu"
    unit="req/s"
    [[ "$mode" == handshakes ]] && unit="conn/s"
    printf '  round %d %-18s %10s %s  %8s us CPU/req  %s%s\n' "$i" "$side" "$fig" "$unit" \
      "$cpu" "$tls" "${errs:+, errors $errs}"
  done
done

median() {
  if [[ " $* " == *" - "* || -z "$*" ]]; then echo "-"; else read -r m _ < <(stats "$@"); echo "$m"; fi
}
ratio() { if [[ "$1" == - || "$2" == - ]]; then echo "-"; else "$PY" "$LIB/benchlib.py" ratio "$1" "$2"; fi; }
echo
echo "== medians over $ROUNDS round(s) =="
printf '  %-22s %12s %12s %12s %12s %10s %10s %10s %10s\n' "" "benchgate" "anchor" "ratio" \
  "CPU/req us" "anchor us" "CPU ratio" "round r" "round CPU"
row() { # LABEL OURS ANCHOR; a row whose sides BENCH_SIDES left out is not printed
  [[ -z "${FIG[$2]:-}${FIG[$3]:-}" ]] && return 0
  local f1 f2 c1 c2
  f1="$(median ${FIG[$2]:-})" f2="$(median ${FIG[$3]:-})"
  c1="$(median ${CPU[$2]:-})" c2="$(median ${CPU[$3]:-})"
  printf '  %-22s %12s %12s %12s %12s %10s %10s %10s %10s\n' "$1" "$f1" "$f2" \
    "$(ratio "$f1" "$f2")" "$c1" "$c2" "$(ratio "$c1" "$c2")" \
    "$(round_ratio "${FIG[$2]:-}" "${FIG[$3]:-}")" "$(round_ratio "${CPU[$2]:-}" "${CPU[$3]:-}")"
}
# round_ratio "A1 A2 .." "B1 B2 ..": the median over rounds of Ai / Bi (the two sides of one
# round ran seconds apart, so the VM's drift between rounds cancels).
round_ratio() {
  "$PY" - "$1" "$2" <<'PY'
import statistics, sys
a, b = sys.argv[1].split(), sys.argv[2].split()
r = [float(x) / float(y) for x, y in zip(a, b) if x != "-" and y != "-" and float(y) > 0]
print(f"{statistics.median(r):.3f}" if r and len(a) == len(b) else "-")
PY
}
row "router/nginx handshakes" router_handshakes nginx_handshakes
row "router/nginx h1 TLS" router_h1 nginx_h1
row "router/nginx h2 TLS" router_h2 nginx_h2
row "router2/nginx handshakes" router2_handshakes nginx_handshakes
row "router2/nginx h1 TLS" router2_h1 nginx_h1
row "router2/nginx h2 TLS" router2_h2 nginx_h2
row "worker/h2load handshakes" worker_handshakes h2load_handshakes
row "worker/h2load h1 TLS" worker_h1 h2load_h1
row "worker/h2load h2 TLS" worker_h2 h2load_h2
echo "  (servers: under h2load, CPU of the server process; generators: against nginx, CPU of the"
echo "   generator. ratio above 1: the benchgate side faster; CPU ratio below 1: it spends less."
echo "   h2load opens its $HANDSHAKES connections at once and each makes one request; the worker"
echo "   keeps $CONNS connection slots busy, each request on a new connection: the same work per"
echo "   request, a different concurrency. h2load reuses no TLS sessions; neither does the worker"
echo "   here: tls_resumption is off by default. round r, round CPU: the median over rounds of the"
echo "   ratio of the two sides within one round, which the VM's drift between rounds leaves out.)"
echo
print_load_after
