#!/usr/bin/env bash
# Installs what tbprof needs to build and test on Debian bookworm. Safe to re-run:
# packages already present are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

# gRPC (capture client and the harness's profiler server) comes from Debian; it ships pkg-config
# files but no CMake config, so CMakeLists.txt finds it through pkg-config.
# Slurm and munge: the summarize array test starts its own one-node cluster. simdjson: the
# Kineto import benchmark's baseline.
# Versioned Boost only: unversioned libboost-*-dev is 1.74, conflicts with 1.81 and lacks Boost.JSON.
PKGS=(cmake ninja-build g++ pkg-config libboost1.81-dev libboost-json1.81-dev libprotobuf-dev
      protobuf-compiler zlib1g-dev libgtest-dev libbenchmark-dev ccache
      libgrpc++-dev protobuf-compiler-grpc universal-ctags libre2-dev
      slurmctld slurmd slurm-client munge libsimdjson-dev)
[ -f plugin/web/packages.txt ] && mapfile -t -O "${#PKGS[@]}" PKGS < <(grep -v '^#' plugin/web/packages.txt)

missing=()
for p in "${PKGS[@]}"; do
  [ -n "$p" ] || continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The browser UI's npm packages (esbuild bundle, test driver).
if [ -x plugin/web/setup.sh ]; then plugin/web/setup.sh; fi
echo "setup: ok"
