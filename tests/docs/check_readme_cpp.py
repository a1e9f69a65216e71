#!/usr/bin/env python3
"""Compiles every C++ block of README.md (syntax and types, -fsyntax-only) against the headers.

    check_readme_cpp.py CXX SOURCE_DIR

A block with a main() is compiled as it stands. A fragment is compiled inside a function whose
parameters are the objects the README's prose says it starts from (FRAGMENT_INPUTS, matched by
the fragment's first line); a fragment with no entry there fails the check, so a new snippet
cannot go untested.
"""
import pathlib
import re
import subprocess
import sys
import tempfile

FRAGMENT_INPUTS = {
    # "Running the schemes on a GPU": the host objects of the CKKS first steps.
    "auto dev = polyhe::cuda::make_device(": (
        "#include <polyhe/backend/cuda/device.hpp>\n",
        "const polyhe::ckks::ContextPtr& ctx, const std::vector<double>& values, "
        "const polyhe::rlwe::PublicKey& pk, const polyhe::rlwe::SecretKey& sk, "
        "const polyhe::rlwe::KeySwitchKey& relin",
    ),
}


def main() -> int:
    cxx, source = sys.argv[1], pathlib.Path(sys.argv[2])
    text = (source / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```cpp\n(.*?)```", text, re.S)
    if not blocks:
        print("FAIL: README.md has no C++ block", file=sys.stderr)
        return 1
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, block in enumerate(blocks):
            first = block.strip().splitlines()[0]
            if "int main(" in block:
                src = block
            else:
                key = next((k for k in FRAGMENT_INPUTS if first.startswith(k)), None)
                if key is None:
                    print(f"FAIL: block {i + 1} ('{first}') is a fragment with no inputs in "
                          "FRAGMENT_INPUTS", file=sys.stderr)
                    failed += 1
                    continue
                include, params = FRAGMENT_INPUTS[key]
                src = ("#include <polyhe/polyhe.hpp>\n" + include + f"void fragment({params}) {{\n"
                       + block + "}\n")
            path = pathlib.Path(tmp) / f"block{i + 1}.cpp"
            path.write_text(src, encoding="utf-8")
            r = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", f"-I{source / 'include'}",
                                str(path)], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL: README.md C++ block {i + 1} ('{first}'):\n{r.stderr}",
                      file=sys.stderr)
                failed += 1
            else:
                print(f"ok: block {i + 1} ('{first}')")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
