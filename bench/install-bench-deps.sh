#!/usr/bin/env bash
# Installs the anchors and tools the bench/*.sh side-by-side scripts compare against or use
# (Debian 12, as root): h2load (nghttp2-client), wrk, nginx-light, iperf3, valgrind
# (callgrind, callgrind_annotate), hyperfine. Only bench/ needs iperf3, valgrind and
# hyperfine, so they are not in scripts/install-deps.sh. Already installed packages are left as
# they are.
set -euo pipefail
packages=(nghttp2-client wrk nginx-light iperf3 valgrind hyperfine)
source "$(dirname "$0")/../scripts/lib/debian_packages.sh"
mapfile -t missing < <(missing_packages "${packages[@]}")
if ((${#missing[@]} == 0)); then
  echo "bench dependencies already installed: ${packages[*]}"
  exit 0
fi
# nginx-light's package would start (and enable) a system nginx on port 80 of every interface;
# the scripts run their own on a free loopback port and never need it.
install_without_services "nginx.service" "${missing[@]}"
