#!/usr/bin/env bash
# Installs the anchors and tools the bench/*.sh side-by-side scripts compare against or use
# (Debian 12, as root): h2load (nghttp2-client), wrk, nginx-light, iperf3, valgrind
# (callgrind, callgrind_annotate), hyperfine. Only bench/ needs them, so they are not in
# scripts/install-deps.sh. Already installed packages are left as they are.
set -euo pipefail
packages=(nghttp2-client wrk nginx-light iperf3 valgrind hyperfine)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "bench dependencies already installed: ${packages[*]}"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
# nginx-light's package starts a system nginx on port 80; the scripts run their own on a free
# loopback port and never need it.
