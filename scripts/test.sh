#!/usr/bin/env bash
# Builds and runs every test. `scripts/test.sh` uses the Release preset (CUDA compiled when nvcc
# is found; GPU tests skip without a device); `scripts/test.sh debug` uses the Debug preset with
# AddressSanitizer and UndefinedBehaviorSanitizer. The Release suite includes the Python package's
# pytest suite (CTest test python.pytest), built in the private environment build/pyenv.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
scripts/deps.sh
if [[ "$preset" == release || "$preset" == cpu-only ]]; then
  scripts/python-deps.sh  # build/pyenv: the Python module's build and its pytest suite (python.pytest)
fi
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset" -j "$(nproc)"
