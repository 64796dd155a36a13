"""Linear scan against graph colouring on the simt register allocator's test kernels (docs/simt.md).

For each kernel and file: the lower bound MaxLive (the most 32-bit units
live at one point, from the exact CFG liveness), the units linear scan uses
on hull intervals (`linear_scan.scan`, what the allocator does), and the
units a greedy graph colouring uses on the exact, holey liveness (Chaitin's
interference: a value interferes with every value live where it is written;
values coloured biggest degree first, each at the lowest aligned place its
neighbours leave free), with the time each takes. Run:
`python -m tools.regalloc_choice`.
"""

from __future__ import annotations

import time

from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.calling_convention import DEFAULT_REGISTERS
from oclpy.targets.simt.linear_scan import alignment, scan
from oclpy.targets.simt.live_intervals import compute_liveness, effects, exits
from oclpy.targets.simt.machine import MFunction, VReg
from tests.targets import simt_regalloc_harness as h


def live_after_each(fn: MFunction, files: dict[str, int]) -> list[tuple[set[VReg], list[VReg]]]:
    """Per instruction: the virtual registers live just after it, and those it writes."""
    live = compute_liveness(fn, files)
    index = {b.name: k for k, b in enumerate(fn.blocks)}
    out: list[tuple[set[VReg], list[VReg]]] = []
    for k, block in enumerate(fn.blocks):
        branches, fall = exits(fn, k)
        now = {r for r in (live.live_in[index[fall]] if fall else ()) if isinstance(r, VReg)}
        at = dict(branches)
        rows = []
        for j in reversed(range(len(block.instrs))):
            if j in at:
                now |= {r for r in live.live_in[index[at[j]]] if isinstance(r, VReg)}
            uses, defs = effects(block.instrs[j], files)
            rows.append((set(now), [d for d in defs if isinstance(d, VReg)]))
            now -= set(defs)
            now |= {u for u in uses if isinstance(u, VReg)}
        out += reversed(rows)
    return out


def colour(fn: MFunction, files: dict[str, int], file: str) -> tuple[int, int]:
    """(MaxLive in units, units a greedy colouring of the exact interference uses)."""
    rows = live_after_each(fn, files)
    edges: dict[VReg, set[VReg]] = {}
    max_live = 0
    for live, defs in rows:
        regs = {r for r in live | set(defs) if r.file == file}
        max_live = max(max_live, sum(r.width // 32 for r in regs))
        for d in (d for d in defs if d.file == file):
            edges.setdefault(d, set())
            for other in regs - {d}:
                edges[d].add(other)
                edges.setdefault(other, set()).add(d)
    place: dict[VReg, int] = {}
    for reg in sorted(edges, key=lambda r: (-len(edges[r]), r.id)):
        taken = {u for n in edges[reg] if n in place for u in range(place[n], place[n] + n.width // 32)}
        start = 0
        while any(u in taken for u in range(start, start + reg.width // 32)):
            start += alignment(reg.width)
        place[reg] = start
    return max_live, len({u for r in place for u in range(place[r], place[r] + r.width // 32)})


def main() -> None:
    programs = {"vector_pressure": h.vector_pressure(24), "scalar_pressure": h.scalar_pressure(40),
                "wide": h.wide(6, 3), "loop": h.loop(20, 5), "diamond": h.diamond(18),
                "calls": h.calls(8, 6)}
    files = dict(DEFAULT_REGISTERS)
    print(f"{'kernel':18} {'file':4} {'MaxLive':>7} {'scan':>5} {'colour':>6} {'scan ms':>8} {'colour ms':>9}")
    for name, (text, _) in programs.items():
        fn = parse_asm(text).functions[0]
        for file in ("s", "v"):
            t0 = time.perf_counter()
            assignment = scan(compute_liveness(fn, files), files, fn.kind)
            t1 = time.perf_counter()
            max_live, coloured = colour(fn, files, file)
            t2 = time.perf_counter()
            used = len({u for r, p in assignment.registers.items() if r.file == file for u in p.units()})
            print(f"{name:18} {file:4} {max_live:7} {used:5} {coloured:6} {1e3 * (t1 - t0):8.2f} {1e3 * (t2 - t1):9.2f}")


if __name__ == "__main__":
    main()
