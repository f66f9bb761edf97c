#!/usr/bin/env bash
# Install seqfuzz's build and test dependencies from Debian 12's packages
# (only what is missing; needs root or sudo).
set -euo pipefail
pkgs=(clang-14 libclang-rt-14-dev cmake make pkg-config libffi-dev libxxhash-dev libcmocka-dev)
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
