#!/usr/bin/env bash
# The main job: install what is missing, build Release, run `polyhe report` (self-test plus the
# NTT/polymul benchmark table as markdown). Extra arguments go to `polyhe report`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake --preset release >&2
cmake --build --preset release --target polyhe_cli >&2
exec build/release/tools/polyhe/polyhe report "$@"
