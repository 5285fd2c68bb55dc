#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (fuzz/CMakeLists.txt) and runs each for a bounded
# time on its committed seed corpus (fuzz/corpus/NAME).
#   fuzz/run_bounded.sh [--build-only | --no-build] BUILD_DIR [SECONDS_PER_TARGET [NAME...]]
# NAME is a target without its _fuzz suffix (http_request); the default is every fuzz/*_fuzz.cc.
# --build-only builds and runs nothing; --no-build runs what BUILD_DIR already holds. CTest runs
# the build as fuzz.build and each target as fuzz.NAME (tests/fuzz/CMakeLists.txt).
# Exit 0: no crash; 1: a target crashed (the input is under BUILD_DIR/artifacts/); 2: usage;
# 77: no clang/libFuzzer here, or (--no-build) a target that was not built (skipped).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage="usage: run_bounded.sh [--build-only | --no-build] BUILD_DIR [SECONDS [NAME...]]"
build_step=yes run_step=yes
case "${1:-}" in
  --build-only) run_step=no; shift ;;
  --no-build) build_step=no; shift ;;
  -h | --help) echo "$usage"; exit 0 ;;
  -*) echo "$usage" >&2; exit 2 ;;
esac
build="${1:?$usage}"
seconds="${2:-20}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "run_bounded.sh: SECONDS must be a whole number above 0, not '$seconds'" >&2
  exit 2
fi
shift $(($# < 2 ? $# : 2))
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  for source in "$here"/*_fuzz.cc; do
    name="$(basename "$source" _fuzz.cc)"
    targets+=("$name")
  done
fi
for target in "${targets[@]}"; do
  if [ ! -f "$here/${target}_fuzz.cc" ]; then
    echo "run_bounded.sh: no fuzz target '$target' (fuzz/${target}_fuzz.cc)" >&2
    exit 2
  fi
done

if [ "$build_step" = yes ]; then
  cxx=""
  for c in clang++-14 clang++; do
    if command -v "$c" >/dev/null; then cxx="$(command -v "$c")"; break; fi
  done
  if [ -z "$cxx" ]; then
    echo "fuzz: SKIP: no clang++ (install clang libclang-rt-14-dev)" >&2
    exit 77
  fi
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
  cmake --build "$build" -j"$(nproc)"
fi
[ "$run_step" = yes ] || exit 0

if [ "$build_step" = no ]; then
  for target in "${targets[@]}"; do
    if [ ! -x "$build/${target}_fuzz" ]; then
      echo "fuzz: SKIP: $build/${target}_fuzz was not built (fuzz.build skipped: no clang++?)" >&2
      exit 77
    fi
  done
fi

mkdir -p "$build/artifacts"
# One target per core at a time: the same time per target, in about half the wall time on two
# cores. `wait -n -p` needs bash 5.1; an older bash runs them one after the other.
jobs="$(nproc)"
if ((BASH_VERSINFO[0] < 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] < 1))); then jobs=1; fi
run_target() { # TARGET: exit status of its run; its log stays in the build dir
  local target="$1" work="$build/corpus/$1"
  # New inputs go to a scratch corpus in the build dir; the committed seeds stay untouched.
  mkdir -p "$work"
  "$build/${target}_fuzz" "$work" "$here/corpus/$target" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
    -artifact_prefix="$build/artifacts/${target}-" -print_final_stats=1 2>"$build/$target.log"
}
report() { # TARGET STATUS
  if [ "$2" -ne 0 ]; then
    echo "fuzz: ${1}_fuzz FAILED; log: $build/$1.log" >&2
    tail -n 60 "$build/$1.log" >&2
    status=1
  else
    echo "fuzz: ${1}_fuzz ran ${seconds}s"
    grep -E "stat::number_of_executed_units|Done" "$build/$1.log" || true
  fi
}
status=0
declare -A running=() # pid -> target
for target in "${targets[@]}"; do
  if [ "$jobs" -eq 1 ]; then
    rc=0
    run_target "$target" || rc=$?
    report "$target" "$rc"
    continue
  fi
  while [ "${#running[@]}" -ge "$jobs" ]; do
    rc=0
    wait -n -p done_pid "${!running[@]}" || rc=$?
    report "${running[$done_pid]}" "$rc"
    unset "running[$done_pid]"
  done
  run_target "$target" &
  running[$!]="$target"
done
for pid in "${!running[@]}"; do
  rc=0
  wait "$pid" || rc=$?
  report "${running[$pid]}" "$rc"
done
exit $status
