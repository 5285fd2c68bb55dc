# Shared by the bench/*.sh side-by-side scripts: build paths, environment header, a scratch
# folder, process bookkeeping with cleanup on exit, a watchdog that bounds the whole script,
# free loopback ports, a one-worker nginx, and /proc readings. Source it; do not run it.
#
# Environment: BENCHGATE_BUILD (default <repo>/build) names the Release build whose bin/ holds
# orchestrator, router and worker; BENCH_KEEP=1 keeps the scratch folder (logs, JSON, profiles).

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(cd "$BENCH_DIR/.." && pwd)"
BUILD="${BENCHGATE_BUILD:-$REPO/build}"
BIN="$BUILD/bin"
PY=/usr/bin/python3
LIB="$BENCH_DIR/lib"
SERVER_CORE="${BENCH_SERVER_CORE:-0}"
CLIENT_CORE="${BENCH_CLIENT_CORE:-1}"
BENCH_PIDS=()
BENCH_CGROUPS=()
BENCH_WATCHDOG=""
BENCH_TMP=""

# bench_init NAME LIMIT_SECONDS: scratch folder, cleanup trap, watchdog.
bench_init() {
  local name="$1" limit="$2"
  BENCH_TMP="$(mktemp -d "/tmp/bench-$name.XXXXXX")"
  trap bench_cleanup EXIT
  trap 'echo "interrupted" >&2; exit 130' INT TERM
  # The watchdog ends the script (and so, through the trap, everything it started) if it runs
  # past its bound, whatever hangs.
  "$PY" "$LIB/benchlib.py" watchdog "$$" "$limit" &
  BENCH_WATCHDOG=$!
}

bench_track() { BENCH_PIDS+=("$1"); }

# Stops every process this script started, newest first: SIGTERM, then SIGKILL after 3 s.
bench_cleanup() {
  local rc=$? pid i dir
  for ((i = ${#BENCH_PIDS[@]} - 1; i >= 0; i--)); do
    pid="${BENCH_PIDS[$i]}"
    kill -TERM "$pid" 2>/dev/null || true
  done
  for ((i = ${#BENCH_PIDS[@]} - 1; i >= 0; i--)); do
    pid="${BENCH_PIDS[$i]}"
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  for dir in "${BENCH_CGROUPS[@]}"; do rmdir "$dir" 2>/dev/null || true; done
  if [[ -n "$BENCH_WATCHDOG" ]]; then
    kill -TERM "$BENCH_WATCHDOG" 2>/dev/null || true
    wait "$BENCH_WATCHDOG" 2>/dev/null || true
  fi
  if [[ -n "$BENCH_TMP" ]]; then
    if [[ "${BENCH_KEEP:-0}" == 1 ]]; then
      echo "scratch folder kept: $BENCH_TMP" >&2
    else
      rm -rf "$BENCH_TMP"
    fi
  fi
  exit "$rc"
}

bench_need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || [[ -x "$tool" ]] || {
      echo "bench: '$tool' is missing (bench/install-bench-deps.sh installs the anchors," \
        "scripts/build.sh builds benchgate)" >&2
      exit 2
    }
  done
}

# A CMake cache entry of the build, e.g. cache_value CMAKE_CXX_FLAGS_RELEASE.
cache_value() {
  sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt" 2>/dev/null | head -n1
}

# The header every script prints: what was measured, on what, built how, under what load.
# BENCH_PINNING replaces the pinning line for a script that pins nothing.
print_environment() {
  local compiler build_type commit dirty
  compiler="$(cache_value CMAKE_CXX_COMPILER)"
  build_type="$(cache_value CMAKE_BUILD_TYPE)"
  # The commit of the sources the build was configured from: a git work tree, or a snapshot
  # (git archive) with the commit in a COMMIT file.
  local src
  src="$(cache_value CMAKE_HOME_DIRECTORY)"
  src="${src:-$REPO}"
  dirty=""
  if commit="$(git -C "$src" rev-parse HEAD 2>/dev/null)"; then
    git -C "$src" diff --quiet HEAD -- router worker orchestrator common proto 2>/dev/null ||
      dirty=" (work tree differs from it in router/ worker/ orchestrator/ common/ proto/)"
  elif [[ -f "$src/COMMIT" ]]; then
    commit="$(cat "$src/COMMIT") (snapshot in $src)"
  else
    commit=unknown
  fi
  echo "host:      $(hostname)"
  echo "cpu:       $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)," \
    "$(nproc) cores online; governor" \
    "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo n/a)"
  echo "kernel:    $(uname -srm)"
  # Loopback TCP figures depend on these: with BBR (paced by a timer per socket when the
  # device has no fq qdisc) iperf3 and large WAMP messages ran 2.0-3.5x slower than with
  # CUBIC on the same machine (docs/PERFORMANCE.md, section 3).
  echo "tcp:       congestion control $(sysctl -n net.ipv4.tcp_congestion_control 2>/dev/null ||
    echo unknown), lo mtu $(cat /sys/class/net/lo/mtu 2>/dev/null || echo unknown)," \
    "lo qdisc $(tc qdisc show dev lo 2>/dev/null | awk 'NR == 1 {print $2}' || echo unknown)"
  echo "commit:    $commit$dirty"
  echo "compiler:  $compiler ($("${compiler:-c++}" --version 2>/dev/null | head -n1))"
  echo "build:     $BUILD, CMAKE_BUILD_TYPE=$build_type," \
    "flags: $(cache_value CMAKE_CXX_FLAGS) $(cache_value "CMAKE_CXX_FLAGS_${build_type^^}")"
  echo "pinning:   ${BENCH_PINNING:-server on core $SERVER_CORE, load generator on core $CLIENT_CORE (taskset)}"
  echo "load:      $(uptime)"
}

print_load_after() { echo "load after: $(uptime)"; }

free_port() { "$PY" "$LIB/benchlib.py" free-port; }

# wait_port PORT [SECONDS]: until something accepts on 127.0.0.1:PORT.
wait_port() { "$PY" "$LIB/benchlib.py" wait-port "$1" "${2:-10}"; }

# nginx_hello_scenario FILE NAME PORT CONNS DURATION WARMUP: a scenario in which one worker
# (1 thread, CONNS connections, 1 in flight) asks GET / of nginx on 127.0.0.1:PORT, an
# external system under test, checking the 12-byte body, one repetition.
nginx_hello_scenario() {
  cat >"$1" <<TOML
name = "$2"
[router]
impl = "external"
address = "127.0.0.1:$3"
[defaults]
warmup = "$6"
duration = "$5"
repetitions = 1
workers = 1
threads = 1
[[workloads]]
name = "nginx_hello"
protocol = "http1"
target = "/"
connections = $4
in_flight = 1
expect_body_bytes = 12
TOML
}

# write_nginx_conf DIR PORT CONNECTIONS [EXTRA TOP-LEVEL LINES]: an nginx.conf for one worker
# (NGINX_WORKERS of them when set) answering every request with 200 "Hello, world" (12 bytes)
# on keep-alive connections, with its pid, logs and temp files in DIR. NGINX_LISTEN adds listen
# parameters (e.g. "ssl http2"), NGINX_SERVER_LINES directives to the server block (e.g. the
# certificate).
write_nginx_conf() {
  local dir="$1" port="$2" conns="$3" extra="${4:-}"
  mkdir -p "$dir/logs"
  cat >"$dir/nginx.conf" <<CONF
worker_processes ${NGINX_WORKERS:-1};
worker_rlimit_nofile $((conns + 300));
daemon off;
$extra
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections $((conns + 64)); use epoll; }
http {
  access_log off;
  keepalive_timeout 300s;
  keepalive_requests 100000000;
  default_type text/plain;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  server {
    listen 127.0.0.1:$port${NGINX_LISTEN:+ $NGINX_LISTEN};
    ${NGINX_SERVER_LINES:-}
    location / { return 200 "Hello, world"; }
  }
}
CONF
}

# start_nginx PORT CORE [WORKER_CONNECTIONS]: one nginx worker pinned to CORE (see
# write_nginx_conf). Sets NGINX_MASTER and NGINX_WORKER (the pid that serves).
start_nginx() {
  local port="$1" core="$2" conns="${3:-4096}" dir="$BENCH_TMP/nginx-$1"
  write_nginx_conf "$dir" "$port" "$conns"
  taskset -c "$core" nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" \
    >"$dir/logs/stdout.log" 2>&1 &
  NGINX_MASTER=$!
  bench_track "$NGINX_MASTER"
  wait_port "$port" 10
  NGINX_WORKER=""
  for _ in $(seq 50); do
    NGINX_WORKER="$(ps -o pid= --ppid "$NGINX_MASTER" | head -n1 | tr -d ' ')"
    [[ -n "$NGINX_WORKER" ]] && break
    sleep 0.1
  done
  [[ -n "$NGINX_WORKER" ]] || { echo "bench: nginx worker did not start" >&2; exit 3; }
}

# callgrind_total FILE: instructions (Ir) recorded in a callgrind output file.
callgrind_total() { "$PY" "$LIB/benchlib.py" callgrind-total "$1"; }

# callgrind_top FILE [N]: the N (default 12) functions with the most instructions (self).
callgrind_top() {
  callgrind_annotate --auto=no --threshold=99 "$1" 2>/dev/null |
    grep -E '^ *[0-9,]+ \( *[0-9.]+%\) ' | grep -v 'PROGRAM TOTALS' | head -n "${2:-12}" |
    cut -c1-160 | sed 's/^/    /' || true # head closes the pipe early: SIGPIPE, not an error
}

# wait_ready PID OUT ERR [TENTHS (default 100)]: waits until the process PID, started with
# its output in OUT and its errors in ERR, has printed its READY line, up to TENTHS tenths of
# a second; a process that ends first has its errors shown and ends the script (exit 3).
wait_ready() {
  local pid="$1" out="$2" err="$3" tenths="${4:-100}"
  for _ in $(seq "$tenths"); do
    grep -q '^READY' "$out" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; exit 3; }
    sleep 0.1
  done
}

# start_router CORE HTTP_PORT [EXTRA FLAGS...]: the bundled router pinned to CORE. Sets
# ROUTER_PID and ROUTER_READY (its READY line).
start_router() {
  local core="$1" port="$2"
  shift 2
  local out="$BENCH_TMP/router-$port.out"
  # shellcheck disable=SC2086 # ROUTER_ENV: NAME=VALUE words for the router's environment
  env ${ROUTER_ENV:-} taskset -c "$core" "$BIN/router" --http "127.0.0.1:$port" --control 127.0.0.1:0 "$@" \
    >"$out" 2>"$BENCH_TMP/router-$port.err" &
  ROUTER_PID=$!
  bench_track "$ROUTER_PID"
  wait_ready "$ROUTER_PID" "$out" "$BENCH_TMP/router-$port.err"
  ROUTER_READY="$(grep '^READY' "$out" | head -n1)"
  [[ -n "$ROUTER_READY" ]] || { echo "bench: router did not print READY" >&2; exit 3; }
}

# stop_pid PID: SIGTERM, wait up to 3 s, SIGKILL.
stop_pid() {
  local pid="$1"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# cpu_cap PID FRACTION: the process (every thread of it) may run for at most FRACTION of one
# core's time, in 10 ms periods, through a cgroup of its own (cgroup v2 `cpu.max`, or v1
# `cpu.cfs_quota_us`), removed when the script ends. A server capped below what its generator
# can send is the bottleneck of the run, whatever the generator's own speed: the requests/s two
# servers reach under the same cap compare their CPU per request, not the generator's. Needs
# root (the bench scripts run as root).
cpu_cap() {
  local pid="$1" fraction="$2" period=10000 quota dir
  quota="$("$PY" -c "print(max(1000, round(float('$fraction') * $period)))")"
  if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
    grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control ||
      echo +cpu >/sys/fs/cgroup/cgroup.subtree_control ||
      { echo "bench: cannot enable the cgroup cpu controller" >&2; exit 3; }
    dir="/sys/fs/cgroup/benchgate-bench-$$-$pid"
    mkdir "$dir" && echo "$quota $period" >"$dir/cpu.max"
  elif [[ -d /sys/fs/cgroup/cpu ]]; then
    dir="/sys/fs/cgroup/cpu/benchgate-bench-$$-$pid"
    mkdir "$dir" && echo "$period" >"$dir/cpu.cfs_period_us" &&
      echo "$quota" >"$dir/cpu.cfs_quota_us"
  else
    echo "bench: no cgroup cpu controller to cap pid $pid with" >&2
    exit 3
  fi
  BENCH_CGROUPS+=("$dir")
  echo "$pid" >"$dir/cgroup.procs"
}

# cpu_seconds PID: user + system CPU time of a live process (its threads included).
cpu_seconds() { "$PY" "$LIB/benchlib.py" cpu "$1"; }

# Prints "median min max" of the numbers given.
stats() { "$PY" "$LIB/benchlib.py" stats "$@"; }
