"""Conversion instructions -> OpenCL C's conversion lowering.

Each SPIR-V conversion says the signedness of its source and result (SConvert,
ConvertFToU, SatConvertSToU, ...); the SaturatedConversion and FPRoundingMode
decorations on its result add `_sat` and `_rte`/`_rtz`/`_rtp`/`_rtn`. That is
exactly an OpenCL C `convert_<type>[_sat][_<mode>]` call, so the conversion
goes through the OpenCL C frontend's own lowering (`lower_builtins.b_convert`):
one implementation of saturation and directed rounding for both frontends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import types as ir
from ..c.builtins.table import Builtin
from .binary import Instruction
from .grammar import OP, ROUNDING_MODES
from .opencl_std import adapter, ctype_of


if TYPE_CHECKING:
    from .function import FunctionTranslator, Handler

# opcode name -> (source signed, result signed, always saturating)
CONVERSIONS = {
    "ConvertFToU": (True, False, False), "ConvertFToS": (True, True, False),
    "ConvertSToF": (True, True, False), "ConvertUToF": (False, True, False),
    "UConvert": (False, False, False), "SConvert": (True, True, False),
    "FConvert": (True, True, False), "SatConvertSToU": (True, False, True),
    "SatConvertUToS": (False, True, True),
}
_KINDS = {"ConvertFToU": ("float", "int"), "ConvertFToS": ("float", "int"),
          "ConvertSToF": ("int", "float"), "ConvertUToF": ("int", "float"),
          "UConvert": ("int", "int"), "SConvert": ("int", "int"), "FConvert": ("float", "float"),
          "SatConvertSToU": ("int", "int"), "SatConvertUToS": ("int", "int")}


def _convert(name: str) -> Handler:
    src_signed, dst_signed, always_sat = CONVERSIONS[name]
    src_kind, dst_kind = _KINDS[name]

    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        x, t = ft.value(instr.operand(2)), ft.result_type(instr)
        if _kind(x.type) != src_kind or _kind(t.ir) != dst_kind or _shape(x.type) != _shape(t.ir):
            raise instr.error(f"{instr.name} cannot convert {x.type} to {t.ir}")
        rid = instr.operand(1)
        sat = always_sat or ft.mt.info.decoration(rid, "SaturatedConversion") is not None
        mode = ft.mt.info.decoration(rid, "FPRoundingMode")
        rnd = ROUNDING_MODES.get(mode[0], "") if mode else ""
        frm, to = ctype_of(x.type, src_signed), ctype_of(t.ir, dst_signed)
        sig = Builtin(f"convert_x{'_sat' if sat else ''}{'_' + rnd if rnd else ''}", to, (frm,), "convert")
        ft.define(instr, adapter(ft).b_convert(sig, [x], None))  # type: ignore[arg-type]
    return handle


def _kind(t: ir.Type) -> str:
    s = t.scalar()
    return "float" if isinstance(s, ir.FloatType) else "int" if isinstance(s, ir.IntType) and s.bits > 1 else "other"


def _shape(t: ir.Type) -> int:
    return t.count if isinstance(t, ir.VectorType) else 1


HANDLERS: dict[int, Handler] = {OP[name]: _convert(name) for name in CONVERSIONS}
