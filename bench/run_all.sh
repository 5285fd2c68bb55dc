#!/usr/bin/env bash
# Runs every side-by-side script once, in order, with their defaults, and prints (and, with an
# argument, also writes to FILE) the whole output: the result set docs/PERFORMANCE.md records.
#   bench/run_all.sh [FILE]
# Takes about 8 minutes on an idle 2-core machine (callgrind runs included), longer under load;
# bench/scaling.sh runs longer on a machine with more cores (more thread counts).
set -uo pipefail
dir="$(cd "$(dirname "$0")" && pwd)"
out="${1:-/dev/null}"
status=0
for script in loadgen_vs_h2load_wrk router_vs_nginx wamp_echo idle_connections_memory \
  orchestration_overhead scaling; do
  echo "### bench/$script.sh" | tee -a "$out"
  "$dir/$script.sh" 2>&1 | tee -a "$out"
  rc="${PIPESTATUS[0]}"
  ((rc == 0)) || { echo "### bench/$script.sh exited $rc" | tee -a "$out"; status=1; }
  echo | tee -a "$out"
done
exit "$status"
