#!/usr/bin/env bash
# Installs the Debian 12 packages benchgate needs to build and test, only those missing.
# Run as root (or with sudo). Nothing is downloaded outside Debian's package archive.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config git
  # libraries (docs/ARCHITECTURE.md, "Dependencies")
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libboost1.81-dev libtomlplusplus-dev prometheus-cpp-dev libsqlite3-dev libcli11-dev
  libspdlog-dev libfmt-dev nlohmann-json3-dev libssl-dev zlib1g-dev
  # WAMP-SCRAM's Argon2id key derivation (common/auth)
  libargon2-dev
  # the worker's HTTP/2 driver: framing, HPACK and flow control (TLS is libssl-dev above)
  libnghttp2-dev
  # io_uring for the load thread's and the serving thread's optional io_uring loops
  liburing-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # tests: the reference HdrHistogram (Java), Python for end-to-end tests, sqlite3 shell
  libhdrhistogram-java default-jdk-headless python3 sqlite3 procps
  # tests: a real Prometheus server and promtool (dashboards, alert rules, /metrics)
  prometheus
  # tests: WAMP interop with Autobahn|Python and its serializers
  python3-autobahn python3-msgpack python3-cbor2
  # tests: Autobahn authenticating with WAMP-SCRAM (argon2, passlib) and cryptosign (nacl)
  python3-argon2 python3-passlib python3-nacl
  # the example worker in Python (examples/python_worker)
  python3-grpcio python3-protobuf
  # tests: the worker adapters and scenarios/compare_workers.toml run the real h2load and wrk
  nghttp2-client wrk
  # tests: the worker's HTTP/2 and TLS interop peers (nghttpd; openssl s_server is in openssl)
  nghttp2-server openssl
  # tests: nginx as an independent HTTP/2 and TLS peer (e2e.nginx_interop) and as the other
  # server of scenarios/compare_routers.toml and compare_h2.toml (e2e.process_tree). Its
  # package would start and enable nginx.service on port 80 of every interface: see below.
  nginx-light
  # tests: the router's TLS listeners against curl https:// (e2e.router_tls)
  curl
  # tests: the router's HTTP/2 interop and defence checks (Python's hyper-h2)
  python3-h2
  # tests: the HTML report and serve's pages open in a real headless Chromium (e2e.report:
  # no script error, no request leaving the page, the charts' series and points, screenshots)
  chromium
  # tests: libFuzzer targets (fuzz/, built with clang)
  clang libclang-rt-14-dev
)
# tests: the Kubernetes manifests (tests/kubernetes) are rendered with kubectl's kustomize and
# parsed with PyYAML. Debian's kubernetes-client conflicts with a kubectl installed otherwise.
packages+=(python3-yaml)
command -v kubectl >/dev/null || packages+=(kubernetes-client)
# tests: npm fetches Taplo for the schema test; a Node.js that bundles npm needs no npm package.
command -v npm >/dev/null || packages+=(nodejs npm)

# nginx-light and prometheus are servers whose packages start and enable a system service; the
# tests start their own on loopback and stop them, so none is started while the packages
# install, and the services the install adds are left disabled (scripts/lib/debian_packages.sh).
services=(nginx.service prometheus.service)

source "$(dirname "$0")/lib/debian_packages.sh"
mapfile -t missing < <(missing_packages "${packages[@]}")

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or with sudo) to install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
install_without_services "${services[*]}" "${missing[@]}"
