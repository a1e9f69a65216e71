#!/usr/bin/env bash
# Builds the API reference into BUILD/reference (BUILD: a CMake build tree, default
# build/release): the C++ headers' /// comments by Doxygen (docs/Doxyfile, into cpp/), and, when
# that build made the Python module, the package's docstrings by pdoc (into python/). Doxygen
# comes from the distribution (scripts/deps.sh), pdoc from PyPI (build/pyenv). Fails on any
# warning of either: the same checks as the CTest tests docs.reference_cpp and python.reference.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
scripts/deps.sh doxygen
out="$build/reference"
mkdir -p "$out"
POLYHE_REFERENCE_DIR="$out" doxygen docs/Doxyfile
echo "polyhe: C++ reference in $out/cpp/index.html"
if [[ -d $build/python/polyhe ]]; then
  scripts/python-deps.sh
  PYTHONPATH="$build/python" build/pyenv/bin/python -W error -m pdoc -o "$out/python" polyhe \
    polyhe.distributed polyhe.parameters
  echo "polyhe: Python reference in $out/python/index.html"
else
  echo "polyhe: $build has no Python module; the Python reference is not built" >&2
fi
