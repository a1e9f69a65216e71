#!/usr/bin/env python3
"""The layers as a build fact: no scheme or rlwe source (src/{ckks,bgv,rlwe}, include/polyhe/
{ckks,bgv,rlwe}) includes a header of the transform or kernel layers (polyhe/ntt/, polyhe/cpu/,
or the same from src/); they reach both through the ring layer (ring/context.hpp, ring/poly.hpp)
and the arithmetic helpers through arith/. The CPU kernels (src/cpu, include/polyhe/cpu) include
no ntt/ header: the NTT plans call the kernels, and what both need (the butterflies and the
transform loops) is arith's, so the two layers form no cycle. The umbrella headers hold the user
API only: each of include/polyhe/{ckks,bgv,polyhe}.hpp includes nothing outside its list below
(an expert header — ring/ key switching, rns/ converters, cpu/ kernels — is included by name,
never through them). The examples use the schemes as a user does: polyhe headers only through
the umbrellas, and no rlwe::share (the contexts make the objects that keep the keys). Prints each
offence and fails.

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
KERNEL_DIRS = ("src/cpu", "include/polyhe/cpu")
NTT = re.compile(r'^\s*#\s*include\s*[<"](?:polyhe/)?ntt/([^">]+)[">]')
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](polyhe/[^">]+)[">]')

# What each scheme's umbrella header may include: the scheme's own headers and the user-facing
# rlwe, core, device and version headers.
_SCHEME_COMMON = (r"polyhe/rlwe/(authentication|keys|origin|parameters|security|serial)\.hpp",
                  r"polyhe/core/error\.hpp", r"polyhe/ring/device\.hpp",
                  r"polyhe/backend/emulated\.hpp", r"polyhe/version\.hpp")
UMBRELLAS = {
    "include/polyhe/ckks.hpp": (r"polyhe/ckks/[a-z_]+\.hpp",) + _SCHEME_COMMON,
    "include/polyhe/bgv.hpp": (r"polyhe/bgv/[a-z_]+\.hpp",) + _SCHEME_COMMON,
    # Both schemes and the public polynomial arithmetic under them.
    "include/polyhe/polyhe.hpp": (
        r"polyhe/(ckks|bgv)\.hpp", r"polyhe/arith/(modulus|primes)\.hpp",
        r"polyhe/core/(serial|thread_pool)\.hpp", r"polyhe/ntt/(batch|plan|polymul|variant)\.hpp",
        r"polyhe/ntt/cyclic/[a-z_]+\.hpp", r"polyhe/ring/(context|poly)\.hpp",
        r"polyhe/rlwe/(batch|encryption)\.hpp", r"polyhe/rns/basis\.hpp"),
}
USER_INCLUDES = re.compile(r"polyhe/(ckks|bgv|polyhe)\.hpp|polyhe/backend/cuda/device\.hpp")


def umbrella_offences(root: Path) -> list:
    found = []
    for name, allowed in UMBRELLAS.items():
        path = root / name
        if not path.exists():
            found.append(f"{name}: missing (the user API's umbrella header)")
            continue
        rule = re.compile("|".join(f"(?:{a})" for a in allowed))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if m and not rule.fullmatch(m.group(1)):
                found.append(f"{name}:{number}: the umbrella includes {m.group(1)}, not on its "
                             "list of user headers (an expert header is included by name)")
    return found


def example_offences(root: Path) -> list:
    found = []
    for path in sorted((root / "examples").glob("*.cpp")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if m and not USER_INCLUDES.fullmatch(m.group(1)):
                found.append(f"{path.relative_to(root)}:{number}: includes {m.group(1)}; an "
                             "example includes polyhe/ckks.hpp, bgv.hpp or polyhe.hpp")
            if "rlwe::share(" in line:
                found.append(f"{path.relative_to(root)}:{number}: rlwe::share in an example; "
                             "let the context make the object that keeps the key")
    return found


def source_lines(root: Path, dirs: tuple):
    """(path, line number, line) of every C++ or CUDA source under `dirs`, in order."""
    for d in dirs:
        for path in sorted((root / d).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cu", ".cuh"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                yield path.relative_to(root), number, line


def offences(root: Path) -> list:
    found = []
    for path, number, line in source_lines(root, SCHEME_DIRS):
        m = LOWER.match(line)
        if m:
            found.append(f"{path}:{number}: includes the {m.group(1)} layer's {m.group(2)}: "
                         f"{line.strip()}")
    for path, number, line in source_lines(root, KERNEL_DIRS):
        m = NTT.match(line)
        if m:
            found.append(f"{path}:{number}: a CPU kernel includes the ntt layer's {m.group(1)} "
                         "(the plans call the kernels: a cycle)")
    return found


def all_offences(root: Path) -> list:
    return offences(root) + umbrella_offences(root) + example_offences(root)


def self_test() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "src/ckks").mkdir(parents=True)
        (root / "src/ckks/clean.cpp").write_text('#include "polyhe/ring/context.hpp"\n')
        (root / "include/polyhe").mkdir(parents=True)
        (root / "include/polyhe/ckks.hpp").write_text(
            '#include "polyhe/ckks/context.hpp"\n#include "polyhe/rlwe/keys.hpp"\n')
        (root / "include/polyhe/bgv.hpp").write_text('#include "polyhe/bgv/bgv.hpp"\n')
        (root / "include/polyhe/polyhe.hpp").write_text(
            '#include "polyhe/ckks.hpp"\n#include "polyhe/ntt/plan.hpp"\n')
        (root / "examples").mkdir()
        (root / "examples/good.cpp").write_text(
            "#include <polyhe/ckks.hpp>\nauto e = ctx->encryptor(pk);\n")
        if all_offences(root):
            print("self-test: a clean tree was flagged:", all_offences(root))
            return 1
        (root / "include/polyhe/ckks.hpp").write_text(
            '#include "polyhe/ckks/context.hpp"\n#include "polyhe/ring/key_switching.hpp"\n')
        (root / "include/polyhe/polyhe.hpp").write_text('#include "polyhe/cpu/elementwise.hpp"\n')
        (root / "examples/bad.cpp").write_text(
            '#include "polyhe/rlwe/keys.hpp"\nauto k = rlwe::share(keygen.secret_key());\n')
        got = umbrella_offences(root) + example_offences(root)
        want = ["include/polyhe/ckks.hpp:2: the umbrella includes polyhe/ring/key_switching.hpp",
                "include/polyhe/polyhe.hpp:1: the umbrella includes polyhe/cpu/elementwise.hpp",
                "examples/bad.cpp:1: includes polyhe/rlwe/keys.hpp",
                "examples/bad.cpp:2: rlwe::share in an example"]
        if len(got) != len(want) or any(not g.startswith(w) for g, w in zip(got, want)):
            print("self-test: expected", want, "got", got)
            return 1
        (root / "include/polyhe/ckks.hpp").unlink()
        (root / "examples/bad.cpp").unlink()
        got = umbrella_offences(root)
        if len(got) != 2 or not got[0].startswith("include/polyhe/ckks.hpp: missing"):
            print("self-test: a missing umbrella was not flagged:", got)
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
        (root / "src/cpu/scalar").mkdir(parents=True)
        (root / "src/cpu/scalar/k.cpp").write_text(
            '#include "polyhe/arith/butterfly.hpp"\n#include "polyhe/ntt/schedule.hpp"\n')
        got = offences(root)
        if len(got) != 4 or not got[3].startswith("src/cpu/scalar/k.cpp:2: a CPU kernel includes "
                                                   "the ntt layer's schedule.hpp"):
            print("self-test: expected the kernel's ntt include flagged, got", got)
            return 1
    print("self-test: passed")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = Path(sys.argv[1])
    layered, shaped = offences(root), umbrella_offences(root) + example_offences(root)
    for line in layered + shaped:
        print(line)
    if layered:
        print(f"{len(layered)} include(s) across the layers: the schemes reach the transforms "
              "and kernels through the ring layer, the kernels include no ntt/ header")
    if shaped:
        print(f"{len(shaped)} offence(s) against the user API's headers and examples")
    if layered or shaped:
        return 1
    print("layers: no scheme or rlwe source includes ntt/ or cpu/, no CPU kernel ntt/; the "
          "umbrella headers hold the user API only; the examples use it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
