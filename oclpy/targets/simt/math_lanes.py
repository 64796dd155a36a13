"""`Lanes`: an expression builder over selection for the math formulas (`math_formulas.py`).

Every value is one vector register per lane group: a double (64 bits), an i64
or an i32, and every operation emits one simt vector instruction through the
selection context (`Ctx.op`), so a formula written with `Lanes` is straight
line code: no branches, both sides of a choice computed and one kept by
`sel` (`v_cndmask`). Conditions are lane masks (`v_cmp`); they are combined
by nesting `sel`s rather than by mask arithmetic. Constants are immediates.
The one exception is `rarely`: a part that few lanes need (the trigonometric
functions' reduction of huge arguments) runs under those lanes only, and a
wave with none of them branches around it.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .isel_context import Ctx
from .machine import EXEC, Imm, Label, MBlock, Operand, VReg


class Lanes:
    """Elementwise double, i64 and i32 operations emitted through `ctx`."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx

    def op(self, opcode: str, width: int, *sources: Operand | float | int) -> Operand:
        args = [Imm(s) if isinstance(s, (int, float)) else s for s in sources]
        return self.ctx.op(opcode, "v", width, *args)

    # -- double arithmetic -------------------------------------------------------------------
    def add(self, x, y):  # type: ignore[no-untyped-def]
        return self.op("v_add_f64", 64, x, y)

    def sub(self, x, y):  # type: ignore[no-untyped-def]
        return self.op("v_sub_f64", 64, x, y)

    def mul(self, x, y):  # type: ignore[no-untyped-def]
        return self.op("v_mul_f64", 64, x, y)

    def div(self, x, y):  # type: ignore[no-untyped-def]
        return self.op("v_div_f64", 64, x, y)

    def fma(self, x, y, z):  # type: ignore[no-untyped-def]
        return self.op("v_fma_f64", 64, x, y, z)

    def neg(self, x):  # type: ignore[no-untyped-def]
        return self.op("v_neg_f64", 64, x)

    def fabs(self, x):  # type: ignore[no-untyped-def]
        return self.op("v_abs_f64", 64, x)

    def sqrt(self, x):  # type: ignore[no-untyped-def]
        return self.op("v_sqrt_f64", 64, x)

    def floor(self, x):  # type: ignore[no-untyped-def]
        return self.op("v_floor_f64", 64, x)

    def trunc(self, x):  # type: ignore[no-untyped-def]
        return self.op("v_trunc_f64", 64, x)

    def rint(self, x):  # type: ignore[no-untyped-def]
        return self.op("v_rndne_f64", 64, x)

    def ldexp(self, x, n):  # type: ignore[no-untyped-def]
        """x * 2^n, n an i32 register."""
        return self.op("v_ldexp_f64", 64, x, n)

    def poly(self, x, coeffs: Sequence[float]):  # type: ignore[no-untyped-def]
        """c0 + c1*x + c2*x^2 + ... by Horner's rule (fused steps)."""
        acc: Operand | float = coeffs[-1]
        for c in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, c) if not isinstance(acc, float) else self.fma(x, acc, c)
        return acc

    def rarely(self, mask: Operand, compute: Callable[[], Sequence[Operand]],
               widths: Sequence[int]) -> list[VReg]:
        """`compute()` on the lanes of `mask` only: exec narrowed to them (`s_and_saveexec_b64`),
        and a wave with none skips it (`s_cbranch_execz`), as a GPU's math library branches
        around its rare paths. The results (vector registers of `widths`) hold garbage in the
        other lanes: the caller picks them by `sel` on `mask`. Two new blocks follow the
        current one (`m.N`, the part and the join, where exec comes back); selection goes on
        in the join."""
        ctx = self.ctx
        outs = [ctx.new("v", w) for w in widths]
        for d in outs:
            ctx.emit("p_undef", d)
        saved = ctx.op("s_and_saveexec_b64", "s", 64, mask)
        taken = {b.name for b in ctx.mfn.blocks}
        n = sum(1 for name in taken if name.startswith("m."))
        part, join = MBlock(f"m.{n}"), MBlock(f"m.{n + 1}")
        assert not {part.name, join.name} & taken, "math blocks are named m.N, and only they"
        ctx.emit("s_cbranch_execz", Label(join.name))
        ctx.mfn.blocks.append(part)
        ctx.start_block(part)
        for d, v in zip(outs, compute()):
            ctx.emit("p_copy", d, self.ctx.vreg(v, d.width) if isinstance(v, Imm) else v)
        ctx.mfn.blocks.append(join)
        ctx.start_block(join)
        ctx.emit("s_mov_b64", EXEC, saved)
        return outs

    # -- compares and selection -------------------------------------------------------------
    def cmp(self, pred: str, x, y, kind: str = "f64"):  # type: ignore[no-untyped-def]
        """A lane mask: `pred` one of olt ole ogt oge oeq une uno ... (f64) or lt gt eq ... (i64/i32)."""
        args = [Imm(s) if isinstance(s, (int, float)) else s for s in (x, y)]
        return self.ctx.op(f"v_cmp_{pred}_{kind}", "s", 64, *args)

    def lt(self, x, y):  # type: ignore[no-untyped-def]
        return self.cmp("olt", x, y)

    def gt(self, x, y):  # type: ignore[no-untyped-def]
        return self.cmp("ogt", x, y)

    def le(self, x, y):  # type: ignore[no-untyped-def]
        return self.cmp("ole", x, y)

    def ge(self, x, y):  # type: ignore[no-untyped-def]
        return self.cmp("oge", x, y)

    def eq(self, x, y):  # type: ignore[no-untyped-def]
        return self.cmp("oeq", x, y)

    def isnan(self, x):  # type: ignore[no-untyped-def]
        return self.cmp("uno", x, x)

    def sel(self, mask, x, y, width: int = 64):  # type: ignore[no-untyped-def]
        """x where `mask`, else y."""
        return self.op(f"v_cndmask_b{width}", width, y, x, mask)

    # -- bits and conversions -------------------------------------------------------------
    def iand(self, x, y, width: int = 64):  # type: ignore[no-untyped-def]
        return self.op(f"v_and_b{width}", width, x, y)

    def ior(self, x, y, width: int = 64):  # type: ignore[no-untyped-def]
        return self.op(f"v_or_b{width}", width, x, y)

    def ixor(self, x, y, width: int = 64):  # type: ignore[no-untyped-def]
        return self.op(f"v_xor_b{width}", width, x, y)

    def iadd(self, x, y, width: int = 64):  # type: ignore[no-untyped-def]
        return self.op(f"v_add_u{width}", width, x, y)

    def isub(self, x, y, width: int = 64):  # type: ignore[no-untyped-def]
        return self.op(f"v_sub_u{width}", width, x, y)

    def ashr(self, x, n: int, width: int = 64):  # type: ignore[no-untyped-def]
        return self.op(f"v_ashr_i{width}", width, x, n)

    def shl(self, x, n: int, width: int = 64):  # type: ignore[no-untyped-def]
        return self.op(f"v_lshl_b{width}", width, x, n)

    def exponent_field(self, x):  # type: ignore[no-untyped-def]
        """The biased exponent field of a double (bits 52..62; x's sign bit must be clear), an i32."""
        return self.op("v_lshr_b32", 32, self.ctx.split64(x)[1], 20)

    def to_i32(self, x):  # type: ignore[no-untyped-def]
        """A double holding an integer in i32 range, as an i32."""
        return self.op("v_cvt_i32_f64", 32, x)

    def from_i64(self, x):  # type: ignore[no-untyped-def]
        return self.op("v_cvt_f64_i64", 64, x)

    def from_i32(self, x):  # type: ignore[no-untyped-def]
        return self.op("v_cvt_f64_i32", 64, x)

    def copysign(self, mag, sign):  # type: ignore[no-untyped-def]
        m = self.iand(mag, 0x7FFFFFFFFFFFFFFF)
        s = self.iand(sign, -0x8000000000000000)
        return self.ior(m, s)

    def signbit(self, x):  # type: ignore[no-untyped-def]
        return self.cmp("lt", x, 0, "i64")

    def widen(self, x):  # type: ignore[no-untyped-def]
        """A float as a double; once per IR block for one register (sin(a) and cos(a) share it)."""
        if isinstance(x, Imm):
            return self.op("v_cvt_f64_f32", 64, x)
        return self.ctx.ir_block_cached(("widen", x), lambda: self.op("v_cvt_f64_f32", 64, x))

    def narrow(self, x):  # type: ignore[no-untyped-def]
        return self.op("v_cvt_f32_f64", 32, x)
