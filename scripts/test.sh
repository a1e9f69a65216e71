#!/usr/bin/env bash
# Builds and runs every test. `scripts/test.sh` uses the Release preset (CUDA compiled when nvcc
# is found; GPU tests skip without a device); `scripts/test.sh debug` uses the Debug preset with
# AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
scripts/deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset" -j "$(nproc)"
