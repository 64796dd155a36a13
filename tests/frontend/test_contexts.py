"""Sema and lowering pass an explicit context: no mixins, and every provider of the
builtins' `BuiltinContext` has each member the Protocol declares."""

import ast as pyast
import dataclasses
from pathlib import Path

import pytest

from oclpy.frontend.c.builtins.builtin_context import BuiltinContext
from oclpy.frontend.c.lower.lowering_context import LoweringContext
from oclpy.frontend.spirv.opencl_std import TranslatorBuiltins

C_FRONTEND = Path(__file__).resolve().parents[2] / "oclpy" / "frontend" / "c"


def protocol_members(proto: type) -> set[str]:
    return {name for name in vars(proto) if not name.startswith("_")}


def members(cls: type) -> set[str]:
    fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    return fields | set(dir(cls))


@pytest.mark.parametrize("provider", [LoweringContext, TranslatorBuiltins])
def test_each_frontend_provides_the_builtin_context(provider: type) -> None:
    assert protocol_members(BuiltinContext) - members(provider) == set()


@pytest.mark.parametrize("folder", ["sema", "lower", "builtins"])
def test_no_class_inherits_from_two_classes(folder: str) -> None:
    """A class built from several bases spread over files is a mixin whose contract no class declares."""
    found = []
    for path in sorted((C_FRONTEND / folder).glob("*.py")):
        for node in pyast.walk(pyast.parse(path.read_text())):
            if isinstance(node, pyast.ClassDef) and len(node.bases) > 1:
                found.append(f"{path.name}:{node.lineno} {node.name}")
    assert found == []
