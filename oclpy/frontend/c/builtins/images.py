"""Images and samplers in OpenCL C: the image builtins as an OpenCL C library.

`read_image{f,i,ui,h}`, `write_image{f,i,ui,h}` and the `get_image_*` queries
are `overloadable` functions written in OpenCL C (`images.cl`, next to this
file), built ahead of a program's own text when the program names one of them
(`wants_images`), so they are ordinary code to every target. The library
reaches an image's descriptor and a sampler's bits through two builtins of
the table below, which lower to the value itself: an image is a `ptr<global>`
to its descriptor, a sampler an `i32` (`c/layout.py`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Optional

from ....ir.types import AddressSpace
from ....ir.values import Value
from .. import ast
from .. import c_types as ct
from ..opaque_types import IMAGES, SAMPLER_TYPE_NAME, Opaque
from .builtin_context import BuiltinContext, BuiltinImpl
from .table import IMAGE_FUNCTIONS, Builtin

LIBRARY_NAME = "<oclpy images>"
_USES = re.compile(r"\b(?:" + "|".join(sorted(IMAGE_FUNCTIONS)) + r")\b")
_WORDS = ct.Pointer(ct.Scalar(ct.ScalarKind.INT, space=AddressSpace.GLOBAL))


@lru_cache(maxsize=1)
def library_source() -> str:
    """The text of `images.cl`."""
    return resources.files(__package__).joinpath("images.cl").read_text(encoding="utf-8")


def wants_images(text: str) -> bool:
    """Whether preprocessed `text` names an image builtin (then the library is built with it)."""
    return _USES.search(text) is not None


@lru_cache(maxsize=1)
def _table() -> dict[str, list[Builtin]]:
    headers = [Builtin("__oclpy_image_header", _WORDS, (Opaque(name),), "opaque_value") for name in IMAGES]
    bits = Builtin("__oclpy_sampler_bits", ct.UINT, (Opaque(SAMPLER_TYPE_NAME),), "opaque_value")
    return {"__oclpy_image_header": headers, "__oclpy_sampler_bits": [bits]}


def image_overloads(name: str) -> list[Builtin]:
    """The library's two handles on images and samplers (empty for other names)."""
    return _table().get(name, [])


def b_opaque_value(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return args[0]


IMAGE_IMPLS: dict[str, BuiltinImpl] = {"opaque_value": b_opaque_value}
