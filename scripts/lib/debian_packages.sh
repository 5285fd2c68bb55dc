# Installing Debian packages for benchgate without leaving a service running. Sourced by
# scripts/install-deps.sh and bench/install-bench-deps.sh; needs bash.
#
# Some packages the tests and benchmarks use are servers whose Debian package starts a system
# service at once and enables it at boot: nginx-light (nginx.service, a default site on port 80
# of every interface) and prometheus (prometheus.service, port 9090 of every interface). The
# tests and bench scripts start their own, on loopback, and stop them, so an install leaves no
# such service running or enabled.

# missing_packages PACKAGE...: prints, one per line, the packages of the list that are not
# installed.
missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

# install_without_services "SERVICE..." PACKAGE...: installs the packages with apt-get (as
# root), with no service started while they install: a policy-rc.d that refuses every start is
# put in place for the install (one already there is left as it is and obeyed). Afterwards each
# SERVICE the install added (its unit did not exist before) is disabled and stopped, where
# systemd runs; a service the machine had before, running or not, is left as it was.
install_without_services() {
  local services=($1)
  shift
  local policy=/usr/sbin/policy-rc.d own_policy=0 systemd=0 service caller_trap
  local existed_before=()
  if command -v systemctl >/dev/null && [[ -d /run/systemd/system ]]; then
    systemd=1
    for service in "${services[@]}"; do
      systemctl cat "$service" >/dev/null 2>&1 && existed_before+=("$service")
    done
  fi
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\n# benchgate install: no service starts while packages install\n' >"$policy"
    printf 'exit 101\n' >>"$policy"
    chmod 755 "$policy"
    own_policy=1
    # Removed also when the install is interrupted; the caller's own EXIT trap comes back after.
    caller_trap="$(trap -p EXIT)"
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  local status=0
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -q && apt-get install -y -q --no-install-recommends "$@"; } || status=$?
  if ((own_policy)); then
    rm -f "$policy"
    if [[ -n "$caller_trap" ]]; then eval "$caller_trap"; else trap - EXIT; fi
  fi
  if ((systemd)); then
    for service in "${services[@]}"; do
      [[ " ${existed_before[*]} " == *" $service "* ]] && continue
      systemctl cat "$service" >/dev/null 2>&1 || continue
      systemctl disable --now --quiet "$service" 2>/dev/null || true
    done
  fi
  return "$status"
}
