#!/usr/bin/env bash
# Checks the Python package as a user gets it: `pip install .` from the repository root into a
# fresh virtual environment (build/pip-venv; scikit-build-core builds the module in
# build/pip/<wheel tag>, reused by later runs), then the pytest suite against the installed
# package, not the build tree. Needs scripts/deps.sh's packages (GMP, libsodium, FLINT) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
venv="$PWD/build/pip-venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q pytest "ray>=2.9"
"$venv/bin/python" -m pip install ".[test]"
cd "$venv"  # away from python/, so that `import polyhe` is the installed package
"$venv/bin/python" - <<'PY'
import pathlib, polyhe
where = pathlib.Path(polyhe.__file__).resolve()
assert "site-packages" in where.parts, where
assert (where.parent / "_polyhe.pyi").exists() and (where.parent / "py.typed").exists()
print("polyhe", polyhe.__version__, "installed at", where.parent)
PY
"$venv/bin/python" -m pytest -q -p no:cacheprovider ../../python/tests
