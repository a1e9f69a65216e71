"""Every public object of the package has a docstring: the modules, their public classes and
functions, and every public method and property of those classes."""

import inspect

import pytest

import polyhe
from polyhe import arith, bgv, ckks, distributed, parameters

MODULES = [polyhe, arith, bgv, ckks, distributed, parameters]


def public_objects():
    for module in MODULES:
        yield module.__name__, module
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
                continue
            yield f"{module.__name__}.{name}", obj
            if inspect.isclass(obj):
                seen = set()
                for klass in obj.__mro__[:-1]:  # inherited members too (not object's)
                    for attr, member in vars(klass).items():
                        if attr.startswith("_") or attr in seen:
                            continue
                        seen.add(attr)
                        if isinstance(member, property) or inspect.isfunction(member):
                            yield f"{module.__name__}.{name}.{attr}", member


@pytest.mark.parametrize("name,obj", list(public_objects()), ids=lambda v: v if isinstance(v, str) else "")
def test_has_docstring(name, obj):
    doc = inspect.getdoc(obj) or ""
    if type(obj).__name__ == "nb_func":  # nanobind puts the signature first: skip it
        doc = "\n".join(doc.splitlines()[1:])
    assert doc.strip(), f"{name} has no docstring"


def test_stub_is_installed_beside_the_module():
    import pathlib

    here = pathlib.Path(polyhe._polyhe.__file__).parent
    stub = here / "_polyhe.pyi"
    assert stub.exists(), stub
    text = stub.read_text()
    assert "class Parameters" in text and "def cpu_path" in text
    assert (here / "py.typed").exists()
