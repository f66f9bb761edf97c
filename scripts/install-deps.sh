#!/usr/bin/env bash
# Install seqfuzz's build and test dependencies from Debian 12's packages
# (dpkg-dev, patch, bzip2, xz-utils, tcl: unpacking and building the real
# libraries of seeds/; llvm-14: coverage reports; libclang-14-dev: seqfuzz init;
# chromium: tests/report.sh loads seqfuzz report's page headless, ~125 MB to fetch,
# ~415 MB installed)
# (only what is missing; needs root or sudo).
set -euo pipefail
pkgs=(clang-14 libclang-rt-14-dev llvm-14 cmake make pkg-config libffi-dev libxxhash-dev libz3-dev libcmocka-dev
  dpkg-dev patch bzip2 xz-utils zip unzip tcl chromium libclang-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "seqfuzz: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
