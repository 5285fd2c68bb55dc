#!/usr/bin/env bash
# `orchestrator history changes` over a store of 100,000 runs (issue 17's goal: under 1 s).
# build/bin/changes_history_fill writes the store (one workload, so 7 series of 100,000 runs,
# with a 7% level change every 10,000 runs) and brings its change points up to date once, as
# a database that saw every run land has them; it prints how long that took and how long one
# more run's update took. Then the command is timed REPEATS times as a user runs it (a new
# process each time, reading the stored change points), the same with --json, and once with
# --alpha 0.05 on one metric, which computes the series instead of reading it (not a goal).
#
#   bench/history_changes.sh [RUNS (default 100000)] [REPEATS (default 7)]
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

RUNS="${1:-100000}"
REPEATS="${2:-7}"
bench_init history_changes 1800
bench_need "$BIN/orchestrator" "$BIN/changes_history_fill"

echo "== orchestrator history changes over a store of $RUNS runs =="
BENCH_PINNING="none (one process at a time)" print_environment
DB="$BENCH_TMP/history.db"
"$BIN/changes_history_fill" "$DB" --runs "$RUNS"
echo "database:  $(du -cm "$DB"* | tail -n1 | cut -f1) MB"

# wall_ms ARGS...: milliseconds one `orchestrator history changes --db DB ARGS...` takes.
wall_ms() {
  local start end
  start=$(date +%s%N)
  "$BIN/orchestrator" history changes --db "$DB" "$@" >"$BENCH_TMP/out" 2>"$BENCH_TMP/err" || {
    cat "$BENCH_TMP/err" >&2
    exit 3
  }
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

# measure LABEL ARGS...: median, min and max over REPEATS runs against the 1 s goal.
measure() {
  local label="$1" times=() sorted median
  shift
  for _ in $(seq "$REPEATS"); do times+=("$(wall_ms "$@")"); done
  mapfile -t sorted < <(printf '%s\n' "${times[@]}" | sort -n)
  median="${sorted[$((${#sorted[@]} / 2))]}"
  echo "history changes $label: median $median ms (min ${sorted[0]}, max ${sorted[-1]}," \
    "$REPEATS runs) goal < 1000 ms: $([[ $median -lt 1000 ]] && echo met || echo MISSED)"
}

measure "(table and CHANGE lines)"
echo "           $(grep -c '^CHANGE|' "$BENCH_TMP/out") CHANGE lines;" \
  "$(grep 'change points\? in' "$BENCH_TMP/out")"
grep -q 'computed now' "$BENCH_TMP/out" && {
  echo "error: some series were computed instead of read from the store" >&2
  exit 3
}
measure "--json" --json
echo "history changes --metric throughput.rps --alpha 0.05 (computed, not stored; not a goal):" \
  "$(wall_ms --metric throughput.rps --alpha 0.05) ms"
print_load_after
