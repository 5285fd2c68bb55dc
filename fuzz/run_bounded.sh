#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (fuzz/CMakeLists.txt) and runs each for a bounded
# time on its committed seed corpus (fuzz/corpus/NAME). CTest runs it as fuzz.bounded.
#   fuzz/run_bounded.sh BUILD_DIR [SECONDS_PER_TARGET]
# Exit 0: no crash; 1: a target crashed (the input is under BUILD_DIR/artifacts/);
# 77: no clang/libFuzzer here (skipped).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
build="${1:?usage: run_bounded.sh BUILD_DIR [SECONDS]}"
seconds="${2:-20}"

cxx=""
for c in clang++-14 clang++; do
  if command -v "$c" >/dev/null; then cxx="$(command -v "$c")"; break; fi
done
if [ -z "$cxx" ]; then
  echo "fuzz.bounded: SKIP: no clang++ (install clang libclang-rt-14-dev)" >&2
  exit 77
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$build" -j2

mkdir -p "$build/artifacts"
status=0
for target in scenario_loader http_request http2_request wamp_message hdr_decode wamp_auth tls_handshake \
  websocket_frame; do
  # New inputs go to a scratch corpus in the build dir; the committed seeds stay untouched.
  work="$build/corpus/$target"
  mkdir -p "$work"
  echo "fuzz.bounded: ${target}_fuzz for ${seconds}s"
  if ! "$build/${target}_fuzz" "$work" "$here/corpus/$target" \
      -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
      -artifact_prefix="$build/artifacts/${target}-" -print_final_stats=1 2>"$build/$target.log"; then
    echo "fuzz.bounded: ${target}_fuzz FAILED; log: $build/$target.log" >&2
    tail -n 60 "$build/$target.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|Done" "$build/$target.log" || true
  fi
done
exit $status
