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
# nginx-light's package would start (and enable) a system nginx on port 80 of every interface;
# the scripts run their own on a free loopback port and never need it. A policy-rc.d that
# refuses service starts keeps the package from starting it while it installs (an existing
# policy is left as it is), and the unit is disabled afterwards where systemd runs.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [[ ! -e "$policy" ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  own_policy=1
fi
trap '((own_policy)) && rm -f "$policy"' EXIT
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
if command -v systemctl >/dev/null && [[ -d /run/systemd/system ]]; then
  systemctl disable --now nginx.service >/dev/null 2>&1 || true
fi
