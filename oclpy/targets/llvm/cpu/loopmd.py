"""Loop metadata for the cpu work-item loops: "these iterations are independent".

Work-items of a kernel without barriers may run in any order, and a
data-race-free kernel has no dependences between them through global,
constant or local memory. `LoopMetadata` tells LLVM so, the way PoCL does:

- every plain load and store through a global, constant or local pointer
  (never private memory: after inlining, a work-item's private arrays live in
  one alloca that all iterations reuse) joins one access group;
- so does private memory in kernels made resumable by form-workgroups: all
  of it lives in the work-item's own frame; and so do a work-item's elements
  of the lane arrays (interleave-private-arrays), which are its own as well;
- the work-item x loop of each launcher (for resumable kernels, of each
  region) gets a loop ID with
  `llvm.loop.parallel_accesses` naming that group, so the loop vectoriser
  needs no run-time alias checks and may vectorise across work-items; an x
  loop around a loop of the kernel's own also gets `llvm.loop.vectorize.enable`
  where `outer.py` says so (LLVM's outer-loop vectoriser);
- a kernel too large for LLVM's loop vectoriser (`VECTORIZE_MAX_INSTRUCTIONS`
  in `cpu_target.py`: its time grows with the square of the loop's size,
  3 s at 1,000 lines of arithmetic, 13.5 s at 2,000) gets
  `llvm.loop.vectorize.enable` false on its work-item loops instead.

llvmlite cannot spell distinct or self-referencing metadata, so nodes are
emitted with marker strings and `finalize(text)` rewrites them in the IR text
(the seam to `binding.py` is text anyway).
"""

from __future__ import annotations

import re

from llvmlite import ir as ll

from ....ir.types import AddressSpace
from ....ir.values import Instr
from ....passes.interleave_private_arrays import lane_array

GROUP_MARK = "oclpy.access.group"
LOOP_MARK = "oclpy.loop.self"
VECTORIZE_ENABLE = "llvm.loop.vectorize.enable"
PARALLEL_SPACES = (AddressSpace.GLOBAL, AddressSpace.CONSTANT, AddressSpace.LOCAL)


class LoopMetadata:
    """One module's access group and work-item loop IDs."""

    def __init__(self, llmod: ll.Module) -> None:
        self.llmod = llmod
        self.group = llmod.add_metadata([ll.MetaDataString(llmod, GROUP_MARK)])
        self.used = False
        self.loops = 0

    def annotate(self, instr: Instr, access: ll.Instruction, private_is_frame: bool = False) -> None:
        """Put `access` in the access group when `instr` goes through shared memory,
        or through private memory in a kernel whose private memory is all in its
        per-work-item frame (`private_is_frame`: made resumable by form-workgroups)."""
        ptr = instr.operands[0] if instr.op == "load" else instr.operands[1]
        space = getattr(ptr.type, "space", None)
        ok = space in PARALLEL_SPACES or (private_is_frame and space is AddressSpace.PRIVATE) \
            or lane_array(ptr) is not None
        if ok and not instr.attrs.get("volatile"):
            access.set_metadata("llvm.access.group", self.group)
            self.used = True

    def mark_parallel(self, latch: ll.Instruction, outer: bool = False, parallel: bool = True,
                      vectorize: bool = True) -> None:
        """Give the loop whose back edge is `latch` a loop ID: parallel accesses (unless not
        `parallel`); `outer`: also ask for outer-loop vectorisation (`outer.py` says
        when); not `vectorize`: forbid vectorisation (a loop too large for LLVM's loop
        vectoriser, whose time grows with the square of the loop's size)."""
        m = self.llmod
        hints = []
        if parallel:
            hints.append(m.add_metadata([ll.MetaDataString(m, "llvm.loop.parallel_accesses"), self.group]))
        if outer or not vectorize:
            hints.append(m.add_metadata([ll.MetaDataString(m, VECTORIZE_ENABLE),
                                         ll.Constant(ll.IntType(1), int(vectorize))]))
        self.loops += 1  # a distinct ID per loop: the marker string keeps llvmlite from sharing
        loop_id = m.add_metadata([ll.MetaDataString(m, f"{LOOP_MARK}.{self.loops}"), *hints])
        latch.set_metadata("llvm.loop", loop_id)


_GROUP = re.compile(r'^(![0-9]+) = !\{\s*!"' + re.escape(GROUP_MARK) + r'"\s*\}$', re.M)
_LOOP = re.compile(r'^(![0-9]+) = !\{\s*!"' + re.escape(LOOP_MARK)
                   + r'\.[0-9]+"\s*,\s*(![0-9]+(?:\s*,\s*![0-9]+)*)\s*\}$', re.M)


def finalize(text: str) -> str:
    """Rewrite the marker nodes as LLVM wants them: a distinct empty access group,
    distinct self-referencing loop IDs."""
    text = _GROUP.sub(lambda m: f"{m.group(1)} = distinct !{{}}", text)
    return _LOOP.sub(lambda m: f"{m.group(1)} = distinct !{{{m.group(1)}, {m.group(2)}}}", text)
