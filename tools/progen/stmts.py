"""Random statements: declarations, assignments, control flow, side effects.

One statement per line (the reducer deletes lines), every declaration with
its initialiser on the same line, every loop bounded by a counter the body
never writes, `goto` only forward over a nested block (so no declaration is
skipped), side effects inside expressions only on the side counters
(`se0`, `se1`), which no other expression reads.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .exprs import ExprGen, Helper, _holds
from .scope import Scope, Var
from .types import (FLOAT, INT_TYPES, ArrayType, CType, FloatType, IntType, PtrType, RecordType,
                    VecType, never_overflows, promote)
from .values import decl, init


@dataclass
class Ctx:
    """Where the statement goes: nesting depth, loop/switch, and the modes allowed."""

    depth: int = 0
    in_loop: bool = False
    in_switch: bool = False
    ret: CType | None = None
    top: bool = False
    barrier: bool = False
    atomics: bool = False


@dataclass
class StmtGen:
    rng: random.Random
    scope: Scope
    eg: ExprGen
    records: list[RecordType]
    helpers: list[Helper]
    lines: list[str] = field(default_factory=list)
    budget: int = 60
    names: int = 0
    indent: int = 1

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def fresh(self, prefix: str) -> str:
        self.names += 1
        return f"{prefix}{self.names}"

    # ---- the driver ----
    def block(self, ctx: Ctx, count: int) -> None:
        for _ in range(count):
            if self.budget <= 0:
                return
            self.budget -= 1
            self.statement(ctx)

    def statement(self, ctx: Ctx) -> None:
        forms = [(w, f) for w, f, ok in self._forms(ctx) if ok]
        choice = self.rng.choices([f for _, f in forms], weights=[w for w, _ in forms])[0]
        choice(self, ctx)

    def _forms(self, ctx: Ctx) -> list:
        nest = ctx.depth < 3
        return [
            (4, StmtGen.s_decl, True), (6, StmtGen.s_assign, True), (3, StmtGen.s_compound, True),
            (1, StmtGen.s_incdec, True), (2, StmtGen.s_if, nest), (2, StmtGen.s_for, nest),
            (1, StmtGen.s_while, nest), (1, StmtGen.s_do, nest), (1, StmtGen.s_switch, nest),
            (1, StmtGen.s_goto, nest), (2, StmtGen.s_side, True), (2, StmtGen.s_call, bool(self.helpers)),
            (1, StmtGen.s_jump, ctx.in_loop), (1, StmtGen.s_return, ctx.ret is not None and ctx.depth > 0),
            (2, StmtGen.s_barrier, ctx.barrier and ctx.top), (2, StmtGen.s_atomic, ctx.atomics),
            (2, StmtGen.s_barrier_block, ctx.barrier and ctx.top),
            (1, StmtGen.s_struct_copy, bool(self.records)), (1, StmtGen.s_vstore, True),
        ]

    def nested(self, ctx: Ctx, count: int, **kw) -> None:
        self.scope.push()
        self.indent += 1
        sub = Ctx(ctx.depth + 1, kw.get("in_loop", ctx.in_loop), kw.get("in_switch", ctx.in_switch),
                  ctx.ret, False, ctx.barrier, ctx.atomics)
        self.block(sub, count)
        self.indent -= 1
        self.scope.pop()

    # ---- declarations ----
    def new_type(self) -> CType:
        if self.eg.floats and self.rng.random() < 0.2:
            return FLOAT if self.rng.random() < 0.8 else ArrayType(FLOAT, self.rng.choice((2, 4)))
        r = self.rng.random()
        if r < 0.45:
            return self.eg.int_type()
        if r < 0.7:
            return self.eg.vec_type()
        if r < 0.85 or not self.records:
            return ArrayType(self.rng.choice(INT_TYPES + [self.eg.vec_type()]), self.rng.choice((2, 4, 8)))
        rec = self.rng.choice(self.records)
        return ArrayType(rec, 2) if self.rng.random() < 0.2 else rec

    def s_decl(self, ctx: Ctx) -> None:
        if self.rng.random() < 0.15 and self._pointer_decl():
            return
        t = self.new_type()
        name = self.fresh("v")
        value = init(t, lambda it: self.eg.of_type(it, 2), lambda vt: self.eg.vec_expr(vt, 2))
        self.emit(f"{decl(t, name)} = {value};")
        self.scope.add(Var(name, t))

    def _pointer_decl(self) -> bool:
        arrays = [v for v in self.scope.all() if isinstance(v.type, (ArrayType, PtrType))
                  and isinstance(v.type.elem, IntType) and not v.readonly and v.space != "__constant"]
        if not arrays:
            return False
        v = self.rng.choice(arrays)
        n = v.type.n if isinstance(v.type, ArrayType) else v.type.extent
        off = self.rng.choice([o for o in range(n) if (n - o) & (n - o - 1) == 0])
        space = v.type.space if isinstance(v.type, PtrType) else v.space
        name = self.fresh("p")
        pt = PtrType(v.type.elem, space, n - off)  # type: ignore[union-attr]
        self.emit(f"{decl(pt, name)} = {'&' + v.name + f'[{off}]' if self.rng.random() < 0.5 else f'{v.name} + {off}'};")
        self.scope.add(Var(name, pt))
        return True

    # ---- assignments ----
    def lvalue(self, pred) -> tuple[str, CType] | None:
        return self.scope.access(pred, True, self.eg.index)

    def s_assign(self, ctx: Ctx) -> None:
        got = self.lvalue(lambda t: isinstance(t, (IntType, VecType, FloatType)))
        if got is None:
            return self.s_decl(ctx)
        text, t = got
        if isinstance(t, VecType) and self.rng.random() < 0.3 and t.n <= 4:
            k = self.rng.choice([k for k in (1, 2) if k <= t.n])
            comps = "xyzw"[:t.n]
            sw = "".join(self.rng.sample(comps, k))
            value = self.eg.int_of(t.elem, 3) if k == 1 else self.eg.vec_expr(VecType(t.elem, k), 3)
            self.emit(f"{text}.{sw} = {value};")
            return
        self.emit(f"{text} = {self.eg.of_type(t, 4)};")

    def s_compound(self, ctx: Ctx) -> None:
        got = self.lvalue(lambda t: isinstance(t, (IntType, VecType)))
        if got is None:
            return self.s_decl(ctx)
        text, t = got
        if isinstance(t, VecType):
            ut = VecType(t.elem.unsigned, t.n)
            op = self.rng.choice(["&=", "|=", "^="] + (["+=", "-=", "*="] if not t.elem.signed else []))
            self.emit(f"{text} {op} {self.eg.vec_expr(t, 3)};")
            if t.elem.signed:
                self.emit(f"{text} = as_{t.name}(as_{ut.name}({text}) + as_{ut.name}({self.eg.vec_expr(t, 2)}));")
            return
        op = self.rng.choice(["+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>=", "/=", "%="])
        e, et = self.eg.int_expr(3)
        if op in ("<<=", ">>="):
            if op == "<<=" and promote(t).signed:
                op = ">>="
            self.emit(f"{text} {op} (({e}) & {t.bits - 1});")
        elif op in ("/=", "%="):
            self.emit(f"{text} {op} ((({e}) & 15) + 1);")
        elif op in ("+=", "-=", "*=") and not never_overflows(op[0], t, et):
            cast = self.rng.choice([u for u in INT_TYPES if never_overflows(op[0], t, u)])
            self.emit(f"{text} {op} ({cast.name})({e});")
        else:
            self.emit(f"{text} {op} {e};")

    def s_incdec(self, ctx: Ctx) -> None:
        got = self.lvalue(lambda t: isinstance(t, IntType) and (not t.signed or t.bits < 32))
        if got is None:
            return self.s_assign(ctx)
        op = self.rng.choice(["++", "--"])
        self.emit(f"{op}{got[0]};" if self.rng.random() < 0.5 else f"{got[0]}{op};")

    def s_vstore(self, ctx: Ctx) -> None:
        vt = VecType(self.eg.int_type(), self.rng.choice((2, 3, 4, 8)))
        got = self.lvalue(lambda t: _holds(t, vt))
        if got is None:
            return self.s_assign(ctx)
        text, t = got
        n = t.n if isinstance(t, ArrayType) else t.extent  # type: ignore[union-attr]
        self.emit(f"vstore{vt.n}({self.eg.vec_expr(vt, 3)}, {self.rng.randrange(n // vt.n)}, {text});")

    def s_struct_copy(self, ctx: Ctx) -> None:
        rec = self.rng.choice(self.records)
        dst = self.lvalue(lambda t: t == rec)
        src = self.eg.read(lambda t: t == rec)
        if dst is None or src is None:
            return self.s_decl(ctx)
        self.emit(f"{dst[0]} = {src[0]};")

    # ---- control flow ----
    def cond(self) -> str:
        return self.eg.int_expr(3)[0]

    def s_if(self, ctx: Ctx) -> None:
        self.emit(f"if ({self.cond()}) {{")
        self.nested(ctx, self.rng.randint(1, 4))
        if self.rng.random() < 0.5:
            self.emit("} else {")
            self.nested(ctx, self.rng.randint(1, 3))
        self.emit("}")

    def _counter(self) -> tuple[str, str]:
        """A fresh loop counter and a bound of 0..4 iterations (maybe data dependent)."""
        i = self.fresh("i")
        bound = str(self.rng.randint(0, 4))
        if self.rng.random() < 0.4:
            bound = f"(({self.eg.int_expr(2)[0]}) & 3)"
        return i, bound

    def _loop_var(self, i: str, t: str = "int") -> None:
        self.scope.add(Var(i, {"int": INT_TYPES[4], "uint": INT_TYPES[5]}[t], readonly=True))

    def s_for(self, ctx: Ctx) -> None:
        i, bound = self._counter()
        t = self.rng.choice(("int", "uint"))
        self.scope.push()
        self._loop_var(i, t)
        self.emit(f"for ({t} {i} = 0; {i} < {bound}; {i}++) {{")
        self.nested(ctx, self.rng.randint(1, 4), in_loop=True, in_switch=False)
        self.emit("}")
        self.scope.pop()

    def s_while(self, ctx: Ctx) -> None:
        i, bound = self._counter()
        self.emit(f"int {i} = 0;")
        self._loop_var(i)
        self.emit(f"while ({i}++ < {bound}) {{")
        self.nested(ctx, self.rng.randint(1, 4), in_loop=True, in_switch=False)
        self.emit("}")

    def s_do(self, ctx: Ctx) -> None:
        i, bound = self._counter()
        self.emit(f"int {i} = 0;")
        self._loop_var(i)
        self.emit("do {")
        self.nested(ctx, self.rng.randint(1, 4), in_loop=True, in_switch=False)
        self.emit(f"}} while (++{i} < {bound});")

    def s_switch(self, ctx: Ctx) -> None:
        self.emit(f"switch (({self.eg.int_expr(2)[0]}) & 7) {{")
        labels = self.rng.sample(range(8), self.rng.randint(1, 4))
        for k, label in enumerate(labels + ["default"] * (self.rng.random() < 0.5)):
            self.emit(f"case {label}: {{" if label != "default" else "default: {")
            self.nested(ctx, self.rng.randint(0, 3), in_switch=True)
            self.emit("}")
            if self.rng.random() < 0.6:
                self.emit("    break;")
        self.emit("}")

    def s_goto(self, ctx: Ctx) -> None:
        label = self.fresh("L")
        self.emit(f"if ({self.cond()}) goto {label};")
        self.emit("{")
        self.nested(ctx, self.rng.randint(1, 3))
        self.emit("}")
        self.emit(f"{label}: ;")

    def s_jump(self, ctx: Ctx) -> None:
        word = "continue" if ctx.in_switch or self.rng.random() < 0.5 else "break"
        self.emit(f"if ({self.cond()}) {word};")

    def s_return(self, ctx: Ctx) -> None:
        assert ctx.ret is not None
        self.emit(f"if ({self.cond()}) return {self.eg.of_type(ctx.ret, 3)};")

    # ---- side effects, calls, work-group modes ----
    def s_side(self, ctx: Ctx) -> None:
        a, b = self.eg.int_expr(2)[0], self.eg.int_expr(2)[0]
        form = self.rng.randrange(4)
        if form == 0:
            got = self.lvalue(lambda t: isinstance(t, IntType))
            target = f"{got[0]} = " if got else ""
            self.emit(f"{target}({a} && (se0 += 3u)) || ({b} && (se1 ^= 5u));")
        elif form == 1:
            self.emit(f"({a}) ? (se0 += (uint)({b})) : (se1 -= 7u);")
        elif form == 2:
            self.emit(f"(se0++, se1 += (uint)({a}));")
        else:
            self.emit(f"if (({a} || se0++) && ({b} || ++se1)) se0 ^= 11u;")

    def s_call(self, ctx: Ctx) -> None:
        h = self.rng.choice(self.helpers)
        args = []
        for p in h.params:
            if isinstance(p, PtrType):
                got = self.scope.access(lambda t, p=p: isinstance(t, PtrType) and t.elem == p.elem
                                        and t.space == p.space and t.extent >= p.extent, True, self.eg.index)
                arr = self.scope.access(lambda t, p=p: isinstance(t, ArrayType) and t.elem == p.elem
                                        and t.n >= p.extent, True, self.eg.index) if p.space == "" else None
                if got is None and arr is None:
                    return self.s_assign(ctx)
                args.append((got or arr)[0])  # type: ignore[index]
            elif isinstance(p, RecordType):
                rec = self.eg.read(lambda t, p=p: t == p)
                if rec is None:
                    return self.s_assign(ctx)
                args.append(rec[0])
            else:
                args.append(self.eg.of_type(p, 2))
        call = f"{h.name}({', '.join(args)})"
        dst = self.lvalue(lambda t, h=h: t == h.ret) if h.ret is not None else None
        self.emit(f"{dst[0]} = {call};" if dst else f"{call};")

    def s_barrier(self, ctx: Ctx) -> None:
        e = self.eg.int_expr(3)[0]
        got = self.lvalue(lambda t: isinstance(t, IntType))
        if got is None:
            return
        k = self.rng.randint(0, 5)
        self.emit(f"lshare[lid] = (uint)({e});  // keep")
        self.emit("barrier(CLK_LOCAL_MEM_FENCE);  // keep")
        self.emit(f"{got[0]} ^= lshare[(lid + {k}) % lsz];")
        self.emit("barrier(CLK_LOCAL_MEM_FENCE);  // keep")

    def s_barrier_block(self, ctx: Ctx) -> None:
        """A loop of uniform trip count, or an if of uniform condition, whose body ends
        with a barrier exchange (no break or continue may skip it)."""
        head = self.rng.choice([f"for (int {{i}} = 0; {{i}} < {b}; {{i}}++) {{{{"
                                for b in ("2", "3", "(kshort & 3)", "((int)klong & 1) + 1")]
                               + ["if (kshort > 30000) {{", "if ((klong & 4) == 0) {{"])
        i = self.fresh("b")
        self.scope.push()
        if head.startswith("for"):
            self.scope.add(Var(i, INT_TYPES[4], readonly=True))
        self.emit(head.format(i=i) + "  // keep")
        self.nested(ctx, self.rng.randint(1, 4), in_loop=False, in_switch=False)
        self.indent += 1
        self.s_barrier(ctx)
        self.indent -= 1
        self.emit("}  // keep")
        self.scope.pop()

    def s_atomic(self, ctx: Ctx) -> None:
        e = self.eg.int_expr(3)[0]
        space = self.rng.choice(("lcnt", "gcnt"))
        k, fn = self.rng.choice(ATOMICS)
        arg = "" if fn in ("atomic_inc", "atomic_dec") else f", (uint)({e})"
        self.emit(f"{fn}(&{space}[{k}]{arg});")


# (counter index, function): functions sharing a counter commute with each other
ATOMICS = [(0, "atomic_add"), (0, "atomic_sub"), (0, "atomic_inc"), (0, "atomic_dec"),
           (1, "atomic_min"), (2, "atomic_max"), (3, "atomic_or"), (4, "atomic_xor"),
           (5, "atomic_and")]
ATOMIC_INIT = ["0u", "0xffffffffu", "0u", "0u", "0u", "0xffffffffu"]
