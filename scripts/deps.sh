#!/usr/bin/env bash
# Installs the Debian packages polyhe builds with (and python3-matplotlib, which draws the
# report's plots; python3-venv and python3-dev, the Python module's environment and headers;
# doxygen, the C++ API reference),
# when any is missing. Idempotent: with everything present it only checks. The CUDA toolkit is
# optional and never installed here. Extra package names given as arguments (scripts/fuzz.sh:
# clang and its runtimes) are checked and installed the same way.
set -euo pipefail

packages=(
  cmake ninja-build g++ make pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libgmp-dev libsodium-dev libflint-dev
  python3 python3-matplotlib python3-venv python3-dev
  valgrind doxygen
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} > 0)); then
  echo "polyhe: installing missing packages: ${missing[*]}" >&2
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "polyhe: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
