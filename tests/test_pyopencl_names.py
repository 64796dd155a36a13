"""Every public name of PyOpenCL is in oclpy, or listed with a reason in
tests/data/pyopencl_omissions.txt. The names come from the installed PyOpenCL
(read statically: tools/pyopencl_names.py) and from the frozen copy in
tests/data/pyopencl_public_names.txt, which CI uses where PyOpenCL is absent."""

from __future__ import annotations

import importlib

import pytest

from oclpy.as_pyopencl import oclpy_name
from tools import pyopencl_names as pn

FROZEN = pn.read_names(pn.FROZEN.read_text(encoding="utf-8"))
OMITTED = pn.read_omissions(pn.OMISSIONS.read_text(encoding="utf-8"))


def _module(name: str):
    try:
        return importlib.import_module(oclpy_name(name) or name)
    except ImportError:
        return None


def _missing(names: dict[str, list[str]]) -> list[str]:
    out = []
    for module, items in names.items():
        if (module, "*") in OMITTED:
            continue
        mod = _module(module)
        out += [f"{module}.{n}" for n in items
                if (mod is None or not hasattr(mod, n)) and (module, n) not in OMITTED]
    return out


def test_frozen_names_are_all_in_oclpy_or_omitted_with_a_reason():
    assert sum(len(v) for v in FROZEN.values()) > 400
    assert _missing(FROZEN) == []


def test_installed_pyopencl_names_are_all_in_oclpy_or_omitted():
    package = pn.installed_package()
    if package is None:
        pytest.skip("PyOpenCL is not installed (the frozen list stands in for it)")
    installed = pn.public_names(package)
    assert _missing(installed) == []
    new = sorted(f"{m}.{n}" for m, items in installed.items() for n in items if n not in FROZEN.get(m, []))
    assert new == [], "refresh the frozen list: python -m tools.pyopencl_names --write"


def test_every_omission_has_a_reason_and_is_still_missing():
    assert OMITTED and all(OMITTED.values())
    for (module, name), reason in OMITTED.items():
        assert module in FROZEN, f"{module} is not a PyOpenCL module of the list"
        if name == "*":
            assert _module(module) is None, f"{module} exists in oclpy now: drop its omission"
        else:
            assert name in FROZEN[module], f"{module}.{name} is not a PyOpenCL name"
            mod = _module(module)
            assert mod is None or not hasattr(mod, name), f"{module}.{name} exists in oclpy now: drop its omission"


def test_omission_lines_parse_as_documented():
    got = pn.read_omissions("# comment\npyopencl.x y: the reason\npyopencl.z *: whole module\n")
    assert got == {("pyopencl.x", "y"): "the reason", ("pyopencl.z", "*"): "whole module"}
    assert pn.read_names("# c\npyopencl a\npyopencl b\n") == {"pyopencl": ["a", "b"]}
    assert pn.module_name("characterize/__init__") == "pyopencl.characterize"
