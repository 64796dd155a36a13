"""Kernels with virtual registers for the register allocator's tests, their NumPy results, and a runner.

Every kernel reads `x = in[gid]` (u32) and writes one u32 to `out[gid]`; the
body is a generator's text between a common prologue and epilogue. Each
generator returns the text and a NumPy function of `x` and the group base
(`gid // 64 * 64`) giving the expected output.
"""

from __future__ import annotations

import struct
from typing import Callable

import numpy as np

from oclpy.targets.simt.alloc_checker import check_allocation
from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.machine import MModule
from oclpy.targets.simt.regalloc import allocate_module
from oclpy.targets.simt.sim_memory import GlobalMemory
from oclpy.targets.simt.simulator import SimConfig, run_kernel

DEFAULT = {"s": 128, "v": 256}
TINY = {"s": 48, "v": 24}  # the smallest files the ABI allows
GROUP = 64
M = 0xFFFFFFFF
Reference = Callable[[np.ndarray, np.ndarray], np.ndarray]

PROLOGUE = """\
entry:
  s_load_b128 %s1:128, s[0:1], 0          ; in, out
  p_split %s2:64, %s3:64, %s1:128
  s_mul_i32 %s4, s2, 64                   ; group base
  v_add_u32 %v1, %s4, v0                  ; gid
  v_lshl_b32 %v2, %v1, 2
  v_mov_b32 %v3, 0
  p_join %v4:64, %v2, %v3                 ; byte offset
  v_add_u64 %v5:64, %s2:64, %v4:64
  global_load_b32 %v6, %v5:64, 0          ; x
"""


def epilogue(value: str) -> str:
    return f"""\
  v_add_u64 %v90:64, %s3:64, %v4:64
  global_store_b32 %v90:64, {value}, 0
  s_endpgm
}}
"""


def kernel(name: str, body: str, value: str) -> str:
    return f"kernel @{name} {{\n{PROLOGUE}{body}{epilogue(value)}"


def u(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, np.uint64) & M


def values(n: int, first: int = 10, scale: int = 3) -> str:
    """n vector values %v(first+k) = x * (k + scale) + k, all live until folded."""
    return "".join(f"  v_mad_u32 %v{first + k}, %v6, {k + scale}, {k}\n" for k in range(n))


def fold(acc: str, n: int, first: int = 10, by: int = 3) -> str:
    return "".join(f"  v_mad_u32 {acc}, {acc}, {by}, %v{first + k}\n" for k in range(n))


def ref_fold(acc: np.ndarray, x: np.ndarray, n: int, scale: int = 3, by: int = 3) -> np.ndarray:
    for k in range(n):
        acc = u(acc * by + u(x * (k + scale) + k))
    return acc


def vector_pressure(n: int) -> tuple[str, Reference]:
    body = values(n) + "  v_mov_b32 %v8, 0\n" + fold("%v8", n)
    return kernel("pressure", body, "%v8"), lambda x, base: ref_fold(np.zeros_like(x), x, n)


def scalar_pressure(n: int) -> tuple[str, Reference]:
    body = "".join(f"  s_mul_i32 %s{200 + k}, %s4, {k + 3}\n  s_add_u32 %s{300 + k}, %s{200 + k}, {k}\n"
                   for k in range(n))
    body += "  v_mov_b32 %v8, %v6\n" + "".join(f"  v_mad_u32 %v8, %v8, 3, %s{300 + k}\n" for k in range(n))

    def ref(x: np.ndarray, base: np.ndarray) -> np.ndarray:
        acc = u(x)
        for k in range(n):
            acc = u(acc * 3 + u(base * (k + 3) + k))
        return acc
    return kernel("scalars", body, "%v8"), ref


def wide(pairs: int, tuples: int) -> tuple[str, Reference]:
    """64-bit pairs and 128-bit tuples, all live at once, then folded."""
    body = "  p_join %v9:64, %v6, %v3\n"
    body += "".join(f"  v_mad_u64 %v{400 + k}:64, %v9:64, {k + 3}, {k}\n" for k in range(pairs))
    for k in range(tuples):
        body += "".join(f"  v_add_u32 %v{500 + 4 * k + j}, %v6, {4 * k + j}\n" for j in range(4))
        body += f"  p_join %v{600 + k}:128, " + ", ".join(f"%v{500 + 4 * k + j}" for j in range(4)) + "\n"
    body += "  v_mov_b64 %v10:64, 0\n"
    body += "".join(f"  v_mad_u64 %v10:64, %v10:64, 3, %v{400 + k}:64\n" for k in range(pairs))
    body += "  p_split %v11, %v12, %v10:64\n  v_xor_b32 %v13, %v11, %v12\n"
    for k in range(tuples):
        parts = [f"%v{700 + 4 * k + j}" for j in range(4)]
        body += f"  p_split {', '.join(parts)}, %v{600 + k}:128\n"
        body += "".join(f"  v_mad_u32 %v13, %v13, 3, {p}\n" for p in parts)

    def ref(x: np.ndarray, base: np.ndarray) -> np.ndarray:
        acc = np.zeros(len(x), np.uint64)
        for k in range(pairs):
            acc = acc * np.uint64(3) + x.astype(np.uint64) * np.uint64(k + 3) + np.uint64(k)
        out = u((acc & np.uint64(M)) ^ (acc >> np.uint64(32)))
        for k in range(tuples):
            for j in range(4):
                out = u(out * 3 + u(x + 4 * k + j))
        return out
    return kernel("wide", body, "%v13"), ref


def loop(n: int, trips: int) -> tuple[str, Reference]:
    """n values live around the back edge of a uniform loop."""
    body = values(n) + "  v_mov_b32 %v8, 0\n  s_mov_b32 %s10, 0\nloop:\n" + fold("%v8", n)
    body += (f"  v_add_u32 %v8, %v8, %s10\n  s_add_u32 %s10, %s10, 1\n  s_cmp_lt_u32 %s10, {trips}\n"
             "  s_cbranch_scc1 loop\ndone:\n")

    def ref(x: np.ndarray, base: np.ndarray) -> np.ndarray:
        acc = np.zeros_like(x, np.uint64)
        for i in range(trips):
            acc = u(ref_fold(acc, x, n) + i)
        return acc
    return kernel("loop", body, "%v8"), ref


def diamond(n: int) -> tuple[str, Reference]:
    """A divergent if/else in exec-mask form; n values live through both sides and after."""
    body = values(n) + """\
  v_and_b32 %v7, %v6, 1
  v_cmp_eq_u32 %s5:64, %v7, 0
  s_and_saveexec_b64 %s6:64, %s5:64
  s_cbranch_execz else
then:
  v_mov_b32 %v8, 1
""" + fold("%v8", n, by=5) + values(n // 2, first=100, scale=9) + fold("%v8", n // 2, first=100) + """\
else:
  s_andn2_b64 exec, %s6:64, %s5:64
  s_cbranch_execz join
  v_mov_b32 %v8, 2
""" + fold("%v8", n, by=7) + """\
join:
  s_mov_b64 exec, %s6:64
  v_mov_b32 %v9, 0
""" + "".join(f"  v_add_u32 %v9, %v9, %v{10 + k}\n" for k in range(n)) + "  v_xor_b32 %v9, %v9, %v8\n"

    def ref(x: np.ndarray, base: np.ndarray) -> np.ndarray:
        then = ref_fold(ref_fold(np.ones_like(x, np.uint64), x, n, by=5), x, n // 2, scale=9)
        other = ref_fold(np.full_like(x, 2, np.uint64), x, n, by=7)
        total = sum((u(x * (k + 3) + k) for k in range(n)), np.zeros_like(x, np.uint64))
        return u(u(total) ^ np.where(x % 2 == 0, then, other))
    return kernel("diamond", body, "%v9"), ref


def calls(n: int, m: int) -> tuple[str, Reference]:
    """A kernel keeping n values across a call to @outer, which keeps m across a call to @madd."""
    body = values(n) + """\
  s_mul_i32 %s20, %s4, 3
  s_mov_b32 s0, 5
  p_copy v0, %v6
  v_mov_b32 v1, 7
  s_call_b64 s[30:31], @outer uses[s0, v0, v1] defs[v0]
  p_copy %v8, v0
""" + fold("%v8", n) + "  v_add_u32 %v8, %v8, %s20\n"
    outer = """
func @outer {
entry:
  p_copy %s1:64, s[30:31]
  p_copy %s2, s0
  p_copy %v1, v0
  p_copy %v2, v1
""" + "".join(f"  v_mad_u32 %v{10 + k}, %v1, {k + 2}, %v2\n" for k in range(m)) + """\
  p_copy s0, %s2
  p_copy v0, %v1
  p_copy v1, %v2
  s_call_b64 s[30:31], @madd uses[s0, v0, v1] defs[v0]
  p_copy %v3, v0
""" + fold("%v3", m) + """\
  v_add_u32 %v3, %v3, %s2
  p_copy v0, %v3
  s_setpc_b64 %s1:64 uses[v0]
}

func @madd {
entry:
  p_copy %s1:64, s[30:31]
  v_mad_u32 %v1, v0, s0, v1
  p_copy v0, %v1
  s_setpc_b64 %s1:64 uses[v0]
}
"""

    def ref(x: np.ndarray, base: np.ndarray) -> np.ndarray:
        r = u(x * 5 + 7)
        for k in range(m):
            r = u(r * 3 + u(x * (k + 2) + 7))
        r = u(r + 5)
        return u(ref_fold(r, x, n) + base * 3)
    return kernel("calls", body, "%v8") + outer, ref


def run(module: MModule, name: str, x: np.ndarray, files: dict[str, int]) -> np.ndarray:
    """Run kernel `name` over `x` (groups of 64) on files of the given sizes; out[]."""
    memory = GlobalMemory()
    src, dst = memory.upload(x), memory.alloc(4 * len(x))
    run_kernel(module, name, memory, global_size=(len(x),), local_size=(GROUP,), args=struct.pack("<QQ", src, dst),
               config=SimConfig(sgprs=files["s"], vgprs=files["v"]))
    return memory.download(dst, np.uint32, len(x))


def allocate_checked(text: str, files: dict[str, int]) -> tuple[MModule, MModule]:
    """The module as parsed and allocated; every function must pass the checker."""
    module = parse_asm(text)
    allocated = allocate_module(module, files)
    for before, after in zip(module.functions, allocated.functions):
        assert check_allocation(before, after, files) == []
    return module, allocated


def inputs(groups: int = 3, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 1 << 32, GROUP * groups, dtype=np.uint64).astype(np.uint32)


VOPS2 = ("v_add_u32", "v_sub_u32", "v_mul_lo_u32", "v_xor_b32", "v_max_u32", "v_lshr_b32")


class RandomKernel:
    """A random kernel with many live values: vector and scalar arithmetic, 64-bit pairs, divergent
    if/else in exec-mask form and uniform loops, all values folded into the output at the end.
    Values made inside a branch side are used on that side only (other lanes never write them)."""

    def __init__(self, seed: int, size: int) -> None:
        import random

        self.rng = random.Random(seed)
        self.size = size
        self.next_id = 1000
        self.lines: list[str] = []
        self.labels = 0

    def new(self, file: str, width: int = 32) -> str:
        self.next_id += 1
        return f"%{file}{self.next_id}" + ("" if width == 32 else f":{width}")

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def vector_op(self, pool: list[str], scalars: list[str], target: str | None = None) -> str:
        rng = self.rng
        op = rng.choice(VOPS2)
        a = rng.choice(pool)
        b = rng.choice(pool + scalars + [str(rng.randrange(1, 100))])
        dst = target or self.new("v")
        self.emit(f"{op} {dst}, {a}, {b}")
        return dst

    def pair_op(self, pool: list[str]) -> list[str]:
        a, b, c = (self.rng.choice(pool) for _ in range(3))
        p, q, r = self.new("v", 64), self.new("v", 64), self.new("v", 64)
        lo, hi = self.new("v"), self.new("v")
        self.emit(f"p_join {p}, {a}, {b}")
        self.emit(f"p_join {q}, {c}, {a}")
        self.emit(f"v_mad_u64 {r}, {p}, {q}, {p}")
        self.emit(f"p_split {lo}, {hi}, {r}")
        return [lo, hi]

    def straight(self, pool: list[str], scalars: list[str], count: int) -> None:
        for _ in range(count):
            kind = self.rng.random()
            if kind < 0.1:
                pool += self.pair_op(pool)
            elif kind < 0.25:
                s = self.new("s")
                self.emit(f"s_mul_i32 {s}, {self.rng.choice(scalars)}, {self.rng.randrange(3, 50)}")
                scalars.append(s)
            else:
                pool.append(self.vector_op(pool, scalars))

    def diamond(self, pool: list[str], scalars: list[str]) -> None:
        k, self.labels = self.labels, self.labels + 1
        cond, saved, var = self.new("s", 64), self.new("s", 64), self.new("v")
        self.emit(f"v_cmp_lt_u32 {cond}, {self.rng.choice(pool)}, {self.rng.choice(pool)}")
        self.emit(f"s_and_saveexec_b64 {saved}, {cond}")
        self.emit(f"s_cbranch_execz else{k}")
        for side in ("then", "else"):
            if side == "else":
                self.emit(f"s_andn2_b64 exec, {saved}, {cond}")
                self.emit(f"s_cbranch_execz join{k}")
            else:
                self.lines.append(f"then{k}:")
            local = list(pool)
            self.straight(local, list(scalars), self.rng.randrange(2, 8))
            self.vector_op(local, scalars, target=var)
            if side == "then":
                self.lines.append(f"else{k}:")
        self.lines.append(f"join{k}:")
        self.emit(f"s_mov_b64 exec, {saved}")
        pool.append(var)

    def loop(self, pool: list[str], scalars: list[str]) -> None:
        k, self.labels = self.labels, self.labels + 1
        counter, var = self.new("s"), self.new("v")
        self.emit(f"s_mov_b32 {counter}, 0")
        self.emit(f"v_mov_b32 {var}, {self.rng.choice(pool)}")
        self.lines.append(f"loop{k}:")
        local = list(pool) + [var]
        self.straight(local, scalars + [counter], self.rng.randrange(2, 8))
        self.vector_op(local, scalars + [counter], target=var)
        self.emit(f"s_add_u32 {counter}, {counter}, 1")
        self.emit(f"s_cmp_lt_u32 {counter}, {self.rng.randrange(2, 5)}")
        self.emit(f"s_cbranch_scc1 loop{k}")
        self.lines.append(f"after{k}:")
        pool.append(var)

    def text(self) -> str:
        pool, scalars = ["%v6", "%v1"], ["%s4"]
        self.straight(pool, scalars, self.size)
        for _ in range(3):
            self.rng.choice((self.diamond, self.loop))(pool, scalars)
            self.straight(pool, scalars, self.size // 3)
        self.emit("v_mov_b32 %v8, 0")
        for value in pool:
            self.emit(f"v_mad_u32 %v8, %v8, 3, {value}")
        return kernel("random", "\n".join(self.lines) + "\n", "%v8")
