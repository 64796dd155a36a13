"""What a builtin's lowering may use of the frontend that lowers the call.

Every builtin implementation (`IMPLS` in `lower/builtin_calls.py`, the
families' `*_IMPLS` here) is a function `impl(cx, sig, args, call)`: `cx` is
a `BuiltinContext`, `sig` the chosen overload (its parameter types are the
arguments' C types), `args` the lowered arguments and `call` the OpenCL C call
being lowered (None from SPIR-V: only printf looks at it, for a literal format). Two frontends provide the context: the
OpenCL C lowering (`lower/lowering_context.LoweringContext`) and the SPIR-V
reader (`spirv/opencl_std.TranslatorBuiltins`); a typing.Protocol declares
the little the builtins need of either, so neither has to fake the other.
"""

from __future__ import annotations

from typing import Callable, Optional, Protocol

from ....ir.builder import Builder
from ....ir.datalayout import DataLayout
from ....ir.values import Block, Module, Value
from .. import ast
from ..c_types import CType
from .table import Builtin


class BuiltinContext(Protocol):
    """The builder positioned at the call, the module it builds, and four operations of the caller."""

    @property
    def b(self) -> Builder: ...

    @property
    def module(self) -> Module: ...

    @property
    def layout(self) -> DataLayout:
        """The target's DataLayout."""
        ...

    def new_block(self, name: str) -> Block:
        """A new, empty block of the function being built (the builder does not move)."""
        ...

    def after_terminator(self) -> None:
        """Continue in a fresh unreachable block after a terminator the builtin emitted."""
        ...

    def string_constant(self, data: bytes) -> Value:
        """The address of `data` plus a NUL byte as constant data."""
        ...

    def convert(self, v: Value, frm: CType, to: CType) -> Value:
        """Value `v` of C type `frm` converted to C type `to` as C converts it."""
        ...

    def lower_builtin_call(self, sig: Builtin, args: list[Value], call: Optional[ast.Call]) -> Optional[Value]:
        """The lowering of builtin `sig` on lowered `args` (how an alias calls its target)."""
        ...


BuiltinImpl = Callable[[BuiltinContext, Builtin, list[Value], Optional[ast.Call]], Optional[Value]]
