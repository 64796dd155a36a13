"""What a compiled simt kernel takes of the machine, and the occupancy that allows (`--stats`).

Per kernel, over its call tree (the kernel and every function it may call,
since a callee's registers and frame are the wave's too):
- `sgprs`, `vgprs`: the most registers of each file any function of the tree
  uses (the allocator's attributes: the highest register + 1);
- `spill_slots`: the frame slots of spilled values, summed over the tree;
- `scratch_bytes`: private memory per lane, the kernel's frame plus the
  deepest chain of callees' frames (no recursion on simt, so it is finite);
- `local_bytes`: static `__local` memory per work-group;
- `waves_per_simd`: how many waves of the kernel one SIMD holds at once,
  as its registers allow. A SIMD has `VGPR_FILES` times the device's vector
  file per lane and `SGPR_FILES` times its scalar file, handed out in
  granules of `VGPR_GRANULE` and `SGPR_GRANULE` registers, and runs at most
  `MAX_WAVES_PER_SIMD` waves (AMDGPU's model, with our numbers).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .device_config import SimtMachine
from .machine import Func, MFunction, MModule, frame_layout

MAX_WAVES_PER_SIMD = 16
VGPR_FILES = 4  # a SIMD's vector registers: 4 waves' worth of full files
SGPR_FILES = 8
VGPR_GRANULE = 4
SGPR_GRANULE = 8


@dataclass(frozen=True)
class KernelResources:
    name: str
    sgprs: int
    vgprs: int
    spill_slots: int
    scratch_bytes: int
    local_bytes: int
    waves_per_simd: int


def callees(fn: MFunction) -> list[str]:
    return sorted({o.name for i in fn.instrs() if i.op == "s_call_b64" for o in i.operands if isinstance(o, Func)})


def call_tree(module: MModule, name: str) -> list[MFunction]:
    """`name` and every function it may call, each once."""
    seen: dict[str, MFunction] = {}
    work = [name]
    while work:
        fn = module.function(work.pop())
        if fn.name not in seen:
            seen[fn.name] = fn
            work += callees(fn)
    return list(seen.values())


def scratch_bytes(module: MModule, name: str) -> int:
    """The frame of `name` plus its deepest chain of callees' frames, per lane."""
    @lru_cache(maxsize=None)
    def depth(fn_name: str, path: frozenset[str]) -> int:
        fn = module.function(fn_name)
        below = [depth(c, path | {c}) for c in callees(fn) if c not in path]
        return frame_layout(fn)[1] + max(below, default=0)
    return depth(name, frozenset({name}))


def waves_per_simd(sgprs: int, vgprs: int, machine: SimtMachine) -> int:
    def granted(used: int, granule: int) -> int:
        return max(granule, -(-used // granule) * granule)
    by_v = VGPR_FILES * machine.vgprs // granted(vgprs, VGPR_GRANULE)
    by_s = SGPR_FILES * machine.sgprs // granted(sgprs, SGPR_GRANULE)
    return max(1, min(MAX_WAVES_PER_SIMD, by_v, by_s))


def kernel_resources(module: MModule, machine: SimtMachine) -> list[KernelResources]:
    out = []
    for fn in module.functions:
        if fn.kind != "kernel":
            continue
        tree = call_tree(module, fn.name)
        s = max(int(f.attrs.get("sgprs", 0)) for f in tree)
        v = max(int(f.attrs.get("vgprs", 0)) for f in tree)
        spills = sum(int(f.attrs.get("spill_slots", 0)) for f in tree)
        out.append(KernelResources(fn.name, s, v, spills, scratch_bytes(module, fn.name),
                                   int(fn.attrs.get("local_bytes", 0)), waves_per_simd(s, v, machine)))
    return out


HEADER = ("kernel", "sgprs", "vgprs", "spill slots", "scratch bytes/lane", "local bytes", "waves/SIMD")


def format_resources(rows: list[KernelResources], machine: SimtMachine) -> str:
    """A table, one line per kernel, under a line naming the device."""
    cells = [HEADER] + [(r.name, str(r.sgprs), str(r.vgprs), str(r.spill_slots), str(r.scratch_bytes),
                         str(r.local_bytes), str(r.waves_per_simd)) for r in rows]
    widths = [max(len(c[k]) for c in cells) for k in range(len(HEADER))]
    lines = [f"simt: wave {machine.wave_width}, {machine.sgprs} sgprs, {machine.vgprs} vgprs"]
    lines += ["  ".join(c[k].ljust(widths[k]) if k == 0 else c[k].rjust(widths[k]) for k in range(len(c)))
              for c in cells]
    return "\n".join(lines) + "\n"
