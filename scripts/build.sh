#!/usr/bin/env bash
# Configures and builds benchgate (Release) into ./build. Extra arguments go to CMake's
# configure step, e.g. scripts/build.sh -DBENCHGATE_BUILD_TESTS=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja "$@"
cmake --build build -j"$(nproc)"
