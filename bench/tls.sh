#!/usr/bin/env bash
# TLS side by side in one invocation, the bundled worker vs h2load as generators against the
# same server (nginx with ssl when installed, else nghttpd for h2 only), both pinned, the order
# rotating each round:
#  1. new TLS 1.3 connections per second: the worker with new_connection_per_request = true
#     (CONNS connections, each request on a connection of its own, full handshakes) vs h2load -n N -c N (every client one connection, one request);
#     h2load reports the run's requests/s, which with one request per connection is its
#     connections/s;
#  2. keep-alive TLS throughput: CONNS connections kept for the run (HTTP/1.1 over TLS against
#     nginx; h2 against nghttpd), worker vs h2load.
# The server's certificate is a throwaway CA's, made here with openssl. The worker verifies it
# (ca_file); h2load never verifies certificates. Prints every run, the medians and the
# ratios, with the TLS version each generator reports the server chose. Figures worth writing
# down need an idle machine.
#
#   bench/tls.sh [SECONDS per run (default 2)] [ROUNDS (default 1)]
#   BENCH_CONNECTIONS (default 16), BENCH_HANDSHAKES (h2load's N, default 2000).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

SECS="${1:-2}"
ROUNDS="${2:-1}"
CONNS="${BENCH_CONNECTIONS:-16}"
HANDSHAKES="${BENCH_HANDSHAKES:-2000}"
bench_init tls $((ROUNDS * 5 * (SECS + 30) + 120))
bench_need h2load openssl taskset "$BIN/orchestrator" "$BIN/worker"

echo "== TLS: handshakes/s and keep-alive throughput, worker vs h2load =="
print_environment
echo "anchors:   $(h2load --version 2>&1 | head -n1); $(openssl version)"

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

PORT="$(free_port)"
if command -v nginx >/dev/null; then
  SERVER="nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), 1 worker, ssl, HTTP/1.1"
  PROTOCOL=http1
  TARGET=/
  H2LOAD_PROTO=(--h1)
  dir="$BENCH_TMP/nginx"
  write_nginx_conf "$dir" "$PORT" $((CONNS + HANDSHAKES))
  sed -i "s|listen 127.0.0.1:$PORT;|listen 127.0.0.1:$PORT ssl; ssl_certificate $BENCH_TMP/server.pem; ssl_certificate_key $BENCH_TMP/server.key; ssl_protocols TLSv1.2 TLSv1.3; ssl_session_tickets on;|" \
    "$dir/nginx.conf"
  taskset -c "$SERVER_CORE" nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" \
    >"$dir/logs/stdout.log" 2>&1 &
  bench_track $!
  BODY=12
else
  bench_need nghttpd
  SERVER="nghttpd (nginx is not installed), h2"
  PROTOCOL=http2
  TARGET=/hello
  H2LOAD_PROTO=()
  mkdir -p "$BENCH_TMP/www"
  printf 'Hello, world' >"$BENCH_TMP/www/hello"
  taskset -c "$SERVER_CORE" nghttpd -a 127.0.0.1 -d "$BENCH_TMP/www" "$PORT" \
    "$BENCH_TMP/server.key" "$BENCH_TMP/server.pem" >"$BENCH_TMP/nghttpd.log" 2>&1 &
  bench_track $!
  BODY=12
fi
wait_port "$PORT" 10
echo "server:    $SERVER on 127.0.0.1:$PORT (core $SERVER_CORE)"
echo "runs:      ${SECS}s each, $ROUNDS round(s); worker $CONNS connections; h2load -n $HANDSHAKES" \
  "-c $HANDSHAKES for handshakes, -c $CONNS for keep-alive"

# worker MODE: "requests/s handshakes/s resumed tls errors" from the worker's RESULT line.
worker() {
  local keys="" toml="$BENCH_TMP/w.toml"
  case "$1" in
    full) keys=$'new_connection_per_request = true\ntls_version = "1.3"' ;;
    keepalive) keys="" ;;
  esac
  cat >"$toml" <<TOML
name = "bench_tls"
[router]
impl = "external"
address = "127.0.0.1:$PORT"
[defaults]
warmup = "500ms"
duration = "${SECS}s"
repetitions = 1
workers = 1
threads = 1
[[workloads]]
name = "tls_$1"
protocol = "$PROTOCOL"
target = "$TARGET"
connections = $CONNS
expect_body_bytes = $BODY
tls = true
ca_file = "$BENCH_TMP/ca.pem"
$keys
TOML
  if ! timeout $((SECS + 60)) taskset -c "$CLIENT_CORE" "$BIN/orchestrator" run "$toml" \
    --db "$BENCH_TMP/bench.db" >"$BENCH_TMP/w.out" 2>&1; then
    tail -n 5 "$BENCH_TMP/w.out" >&2
    echo "- - - - -"
    return
  fi
  "$PY" - "$BENCH_TMP/w.out" <<'PY'
import sys
line = next(l for l in open(sys.argv[1]) if l.startswith("RESULT|"))
f = dict(kv.split("=", 1) for kv in line.strip().split("|")[1:])
print(f["rps"], f["handshakes_per_s"], f["resumed"], f["tls"], f["errors"])
PY
}

# h2load MODE: "requests/s tls" (handshakes: -n N -c N, one request per connection).
h2load_run() {
  local out="$BENCH_TMP/h.out" args
  if [[ "$1" == handshakes ]]; then
    args=(-n "$HANDSHAKES" -c "$HANDSHAKES")
  else
    args=(-c "$CONNS" -D "$SECS")
  fi
  timeout $((SECS + 60)) taskset -c "$CLIENT_CORE" h2load -t1 -m1 "${H2LOAD_PROTO[@]}" \
    "${args[@]}" "https://127.0.0.1:$PORT$TARGET" >"$out" 2>&1 || true
  read -r rps _ < <("$PY" "$LIB/benchlib.py" h2load "$out")
  echo "$rps $(sed -n 's/^TLS Protocol: //p' "$out" | head -n1)"
}

declare -A RPS
for ((i = 1; i <= ROUNDS; i++)); do
  order=(worker_full h2load_handshakes worker_keepalive h2load_keepalive)
  for ((k = 0; k < ${#order[@]}; k++)); do
    side="${order[$(((i - 1 + k) % ${#order[@]}))]}"
    case "$side" in
      worker_*)
        read -r rps hs resumed tls errs < <(worker "${side#worker_}")
        if [[ "$side" == worker_keepalive ]]; then
          RPS[$side]+=" $rps"
          printf '  round %d %-18s %10s req/s, %s, errors %s\n' "$i" "$side" "$rps" "$tls" "$errs"
        else
          RPS[$side]+=" $hs"
          printf '  round %d %-18s %10s handshakes/s (%s resumed), %s, errors %s\n' \
            "$i" "$side" "$hs" "$resumed" "$tls" "$errs"
        fi
        ;;
      h2load_*)
        read -r rps tls < <(h2load_run "${side#h2load_}")
        RPS[$side]+=" $rps"
        printf '  round %d %-18s %10s %s, %s\n' "$i" "$side" "$rps" \
          "$([[ "$side" == h2load_handshakes ]] && echo "connections/s" || echo "req/s")" "${tls:--}"
        ;;
    esac
  done
done

median() {
  if [[ " $* " == *" - "* || -z "$*" ]]; then echo "-"; else read -r m _ < <(stats "$@"); echo "$m"; fi
}
ratio() { if [[ "$1" == - || "$2" == - ]]; then echo "-"; else "$PY" "$LIB/benchlib.py" ratio "$1" "$2"; fi; }
echo
echo "== medians over $ROUNDS round(s) =="
for side in worker_full h2load_handshakes worker_keepalive h2load_keepalive; do
  printf '  %-18s %10s\n' "$side" "$(median ${RPS[$side]})"
done
echo "  handshakes/s worker (full) / h2load:      $(ratio "$(median ${RPS[worker_full]})" "$(median ${RPS[h2load_handshakes]})")"
echo "  keep-alive req/s worker / h2load:         $(ratio "$(median ${RPS[worker_keepalive]})" "$(median ${RPS[h2load_keepalive]})")"
echo "  (h2load opens its $HANDSHAKES connections at once and each makes one request; the worker"
echo "   keeps $CONNS connection slots busy, each request on a new connection: the same work per"
echo "   request, a different concurrency. h2load reuses no TLS sessions.)"
echo
print_load_after
