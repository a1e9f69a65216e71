#!/usr/bin/env python3
"""The layers as a build fact: no scheme or rlwe source (src/{ckks,bgv,rlwe}, include/polyhe/
{ckks,bgv,rlwe}) includes a header of the transform or kernel layers (polyhe/ntt/, polyhe/cpu/,
or the same from src/); they reach both through the ring layer (ring/context.hpp, ring/poly.hpp)
and the arithmetic helpers through arith/. Prints each offending line and fails.

Usage: check_layers.py ROOT         check the tree at ROOT
       check_layers.py --self-test  a tree with one offending include fails, a clean one passes
"""
import re
import sys
import tempfile
from pathlib import Path

SCHEME_DIRS = ("src/ckks", "src/bgv", "src/rlwe",
               "include/polyhe/ckks", "include/polyhe/bgv", "include/polyhe/rlwe")
LOWER = re.compile(r'^\s*#\s*include\s*[<"](?:polyhe/)?(ntt|cpu)/([^">]+)[">]')


def offences(root: Path) -> list:
    found = []
    for d in SCHEME_DIRS:
        for path in sorted((root / d).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cu", ".cuh"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                m = LOWER.match(line)
                if m:
                    found.append(f"{path.relative_to(root)}:{number}: includes the {m.group(1)} "
                                 f"layer's {m.group(2)}: {line.strip()}")
    return found


def self_test() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "src/ckks").mkdir(parents=True)
        (root / "src/ckks/clean.cpp").write_text('#include "polyhe/ring/context.hpp"\n')
        if offences(root):
            print("self-test: a clean tree was flagged")
            return 1
        (root / "include/polyhe/bgv").mkdir(parents=True)
        (root / "include/polyhe/bgv/bad.hpp").write_text(
            '// x\n#include "polyhe/ntt/plan.hpp"\n  #  include <polyhe/cpu/ntt_kernel.hpp>\n'
            '#include "cpu/scalar/x.hpp"\n')
        got = offences(root)
        if len(got) != 3 or not got[0].startswith("include/polyhe/bgv/bad.hpp:2: includes the "
                                                   "ntt layer's plan.hpp"):
            print("self-test: expected three offences, got", got)
            return 1
    print("self-test: passed")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = offences(Path(sys.argv[1]))
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} include(s) across the layers: reach the transforms and kernels "
              "through the ring layer")
        return 1
    print("layers: no scheme or rlwe source includes ntt/ or cpu/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
