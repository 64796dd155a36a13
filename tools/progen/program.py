"""One whole generated program: types, tables, helpers, the kernel.

`generate(seed, mode)` is deterministic per (seed, mode). Modes follow
CLsmith's: "basic" (one work-item's computation), "barrier" (work-items
exchange values through `__local` memory between barriers), "atomics"
(order-independent atomics on `__local` and `__global` counters), "all".
The kernel's signature is fixed (`KERNEL_ARGS`): each work-item writes its
hash to `out[linear global id]`; `gcnt` holds the global counters.
"""

from __future__ import annotations

import random

from .exprs import ExprGen, Helper
from .safe import Safe
from .scope import Scope, Var
from .stmts import ATOMIC_INIT, Ctx, StmtGen
from .types import (FLOAT, INT, INT_TYPES, UINT, ArrayType, CType, IntType, PtrType, RecordType,
                    VecType)
from .values import CRC_STEP, decl, hash_lines, init

MODES = ("basic", "barrier", "atomics", "all", "float")
KERNEL = "entry"
INPUT_LEN = 64        # ints in `input`
SCRATCH_PER_ITEM = 8  # ints of `scratch` each work-item owns
LOCAL_SLOTS = 4       # ints of `lslot` each work-item owns
MAX_GROUP = 64        # the largest work-group the runner launches
KERNEL_ARGS = ("__global ulong *out, __global uint *gcnt, __global int *scratch, "
               "__global const int *input, ushort kshort, long klong, uchar8 kvec")
# the by-value arguments' values (execute.py passes them)
KSHORT, KLONG, KVEC = 40000, -1234567890123, (1, 2, 250, 7, 0, 128, 99, 255)
N_GCNT = len(ATOMIC_INIT)
KEEP = "  // keep"  # the reducer never deletes these lines (doing so leaves memory uninitialised)


def _records(rng: random.Random, eg: ExprGen) -> list[RecordType]:
    out: list[RecordType] = []
    for k in range(rng.randint(0, 3)):
        if rng.random() < 0.3:
            size = rng.choice((4, 8))
            first = INT_TYPES[5] if size == 4 else INT_TYPES[7]
            members = [("a", first), ("b", ArrayType(INT_TYPES[3], size // 2)),
                       ("c", VecType(INT_TYPES[1], size)), ("d", ArrayType(INT_TYPES[0], size))]
            out.append(RecordType("union", f"U{k}", tuple(members)))
            continue
        members = []
        for m in range(rng.randint(1, 4)):
            r = rng.random()
            mt: CType = eg.int_type()
            if r < 0.2:
                mt = eg.vec_type()
            elif r < 0.35:
                mt = ArrayType(eg.int_type(), rng.choice((2, 4)))
            elif r < 0.5 and out:
                mt = rng.choice(out)
            members.append((f"f{m}", mt))
        out.append(RecordType("struct", f"S{k}", tuple(members)))
    return out


def _record_def(r: RecordType) -> str:
    return f"{r.name} {{ " + " ".join(f"{decl(t, n)};" for n, t in r.members) + " };"


class ProgramGen:
    def __init__(self, seed: int, mode: str, wide64: bool = True) -> None:
        self.rng = random.Random(seed * 7919 + MODES.index(mode))
        self.mode = mode
        self.safe = Safe()
        self.helpers: list[Helper] = []
        self.scope = Scope(self.rng)
        self.eg = ExprGen(self.rng, self.scope, self.safe, self.helpers, ["lid", "gx"],
                          floats=mode == "float", wide64=wide64)
        self.records = _records(self.rng, self.eg)
        self.bodies: list[str] = []

    def _constant_table(self) -> str:
        t = self.rng.choice(INT_TYPES)
        values = ", ".join(self.eg.const(t) for _ in range(16))
        self.scope.add(Var("ctab", ArrayType(t, 16), readonly=True, space="__constant"))
        return f"__constant {t.name} ctab[16] = {{{values}}};"

    def _param_type(self) -> CType:
        r = self.rng.random()
        if self.eg.floats and r < 0.15:
            return FLOAT
        if r < 0.5:
            return self.eg.int_type()
        if r < 0.7:
            return self.eg.vec_type()
        if r < 0.8 and self.records:
            return self.rng.choice(self.records)
        return PtrType(self.rng.choice(INT_TYPES), self.rng.choice(("", "", "__global", "__local")), 4)

    def _helper(self, k: int) -> None:
        params = [self._param_type() for _ in range(self.rng.randint(0, 4))]
        params = [p if not isinstance(p, PtrType) or p.space == "" else PtrType(INT, p.space, 4)
                  for p in params]
        ret = self.rng.choice([self.eg.int_type(), self.eg.vec_type(), None]
                              + self.records[:1])  # type: ignore[list-item]
        name = f"func_{k}"
        self.scope.push()
        names = []
        for i, p in enumerate(params):
            names.append(f"a{i}")
            self.scope.add(Var(f"a{i}", p))
        sg = StmtGen(self.rng, self.scope, self.eg, self.records, list(self.helpers),
                     budget=self.rng.randint(3, 15))
        if ret is None and self.eg.floats and self.rng.random() < 0.3:
            ret = FLOAT
        sg.names = 1000 * (k + 1)
        sg.emit("uint se0 = 0u;")
        sg.emit("uint se1 = 0u;")
        if isinstance(ret, RecordType):
            sg.emit(f"{decl(ret, 'rv')} = {self._init(ret, 1)};")
            self.scope.add(Var("rv", ret))
        sg.block(Ctx(ret=ret), 12)
        if ret is not None:
            sg.emit(f"return {self.eg.of_type(ret, 3)};")
        self.scope.pop()
        head = f"{decl(ret, name) if ret is not None else 'void ' + name}"
        sig = ", ".join(decl(p, n) for p, n in zip(params, names)) or "void"
        self.bodies.append(f"{head}({sig})\n{{\n" + "\n".join(sg.lines) + "\n}")
        pure = not any(isinstance(p, PtrType) for p in params) and not any(
            isinstance(p, RecordType) for p in params)
        self.helpers.append(Helper(name, ret, params, pure))

    def _init(self, t: CType, depth: int) -> str:
        return init(t, lambda it: self.eg.int_of(it, depth), lambda vt: self.eg.vec_expr(vt, depth))

    def _prologue(self, sg: StmtGen) -> None:
        lines = [
            "size_t gid = get_global_id(0) + get_global_id(1) * get_global_size(0);",
            "int gx = (int)get_global_id(0);",
            "int lid = (int)(get_local_id(0) + get_local_id(1) * get_local_size(0));",
            "int lsz = (int)(get_local_size(0) * get_local_size(1));",
            "uint se0 = 0u;",
            "uint se1 = 0u;",
            f"__global int *my = scratch + gid * {SCRATCH_PER_ITEM};",
            f"__local int lslot[{MAX_GROUP * LOCAL_SLOTS}];",
            f"__local int *ml = lslot + lid * {LOCAL_SLOTS};",
            f"for (int k = 0; k < {SCRATCH_PER_ITEM}; k++) my[k] = input[(gx + k) & {INPUT_LEN - 1}];",
            f"for (int k = 0; k < {LOCAL_SLOTS}; k++) ml[k] = k * lid - gx;",
        ]
        self.scope.add(Var("input", PtrType(INT, "__global", INPUT_LEN), readonly=True))
        self.scope.add(Var("gx", INT, readonly=True))
        self.scope.add(Var("lid", INT, readonly=True))
        self.scope.add(Var("kshort", INT_TYPES[3], readonly=True))
        self.scope.add(Var("klong", INT_TYPES[6], readonly=True))
        self.scope.add(Var("kvec", VecType(INT_TYPES[1], 8), readonly=True))
        self.scope.add(Var("my", PtrType(INT, "__global", SCRATCH_PER_ITEM)))
        self.scope.add(Var("ml", PtrType(INT, "__local", LOCAL_SLOTS)))
        if self.mode in ("barrier", "all"):
            lines.append(f"__local uint lshare[{MAX_GROUP}];")
        if self.mode in ("atomics", "all"):
            lines.append(f"__local uint lcnt[{N_GCNT}];")
            lines.append("if (lid == 0) { " + " ".join(f"lcnt[{i}] = {v};" for i, v in enumerate(ATOMIC_INIT)) + " }")
            lines.append("barrier(CLK_LOCAL_MEM_FENCE);")
        for line in lines:
            sg.emit(line + KEEP)

    def _epilogue(self, sg: StmtGen, top: list[Var]) -> None:
        if self.mode in ("atomics", "all"):
            sg.emit("barrier(CLK_LOCAL_MEM_FENCE);" + KEEP)
            top = top + [Var("lcnt", ArrayType(UINT, N_GCNT))]
        sg.emit("ulong crc = 0xffffffffUL;")
        for v in top + [Var("se0", UINT), Var("se1", UINT)]:
            if v.name not in ("input", "gx", "lid", "kshort", "klong", "kvec"):
                for line in hash_lines(v.name, v.type):
                    sg.emit(line)
        sg.emit("out[gid] = crc;")

    def kernel(self) -> str:
        sg = StmtGen(self.rng, self.scope, self.eg, self.records, self.helpers,
                     budget=self.rng.randint(15, 60))
        self.scope.push()
        self._prologue(sg)
        barrier, atomics = self.mode in ("barrier", "all"), self.mode in ("atomics", "all")
        ctx = Ctx(top=True, barrier=barrier, atomics=atomics)
        sg.block(ctx, 40)
        if barrier:
            sg.s_barrier(ctx)
        if atomics:
            sg.s_atomic(ctx)
        self._epilogue(sg, self.scope.blocks[-1])
        self.scope.pop()
        return f"__kernel void {KERNEL}({KERNEL_ARGS})\n{{\n" + "\n".join(sg.lines) + "\n}"

    def program(self) -> str:
        table = self._constant_table()
        for k in range(self.rng.randint(0, 4)):
            self._helper(k)
        kernel = self.kernel()
        parts = [f"// progen seed, mode {self.mode}", CRC_STEP, self.safe.text(), table]
        if self.mode == "float":
            parts.insert(1, "#pragma OPENCL FP_CONTRACT OFF")
        parts += [_record_def(r) for r in self.records]
        parts += self.bodies + [kernel]
        return "\n".join(p for p in parts if p) + "\n"


def generate(seed: int, mode: str = "all", wide64: bool = True) -> str:
    """The program of this seed and mode (deterministic); `wide64=False` leaves out the
    builtins that need integers wider than 64 bits (`exprs.WIDE_64`) on 64-bit lanes."""
    return ProgramGen(seed, mode, wide64).program()
