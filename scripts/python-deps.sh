#!/usr/bin/env bash
# Makes build/pyenv, a private virtual environment with what the Python module is built, tested
# and documented with (python/requirements.txt: nanobind, scikit-build-core, numpy, pytest, Ray,
# pdoc), from PyPI, when it is missing or lacks any of them. Idempotent: with everything there it
# only checks.
# The presets build the module with build/pyenv/bin/python (cmake/PolyhePython.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
env=build/pyenv
if [[ ! -x $env/bin/python ]]; then
  echo "polyhe: making the Python environment $env" >&2
  python3 -m venv "$env"
fi
if ! "$env/bin/python" - <<'PY' 2>/dev/null; then
import importlib.util, sys
need = ["nanobind", "scikit_build_core", "numpy", "pytest", "ray", "pdoc"]
sys.exit(0 if all(importlib.util.find_spec(m) for m in need) else 1)
PY
  echo "polyhe: installing python/requirements.txt into $env" >&2
  "$env/bin/python" -m pip install -q --upgrade pip
  "$env/bin/python" -m pip install -q -r python/requirements.txt
fi
