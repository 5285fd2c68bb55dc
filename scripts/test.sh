#!/usr/bin/env bash
# Builds benchgate and runs the whole test suite (unit and end-to-end) with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 600 -LE after_suite
# Then what must hold after everything: no benchgate process left on the machine.
ctest --output-on-failure -L after_suite
