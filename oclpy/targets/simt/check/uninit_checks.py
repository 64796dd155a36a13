"""Uninitialised values: definedness shadow state, reported where a value matters.

Each register word has a defined bit (`Shadow.sdef[wave, reg]`,
`Shadow.vdef[reg, wave, lane]`, register-major so that one register's bits
are contiguous, and one for `scc` and `exec` per wave), and
so has each byte of memory (`GlobalMemory.defined`, which host writes and
kernel stores set; local and private bytes per batch, undefined at the
start). An instruction's results are defined where all its sources are
(`v_cndmask` takes the defined bit of the source it picks, `p_undef` makes
undefined), loads take the bytes' bits and stores leave theirs. Nothing is
reported on a copy: only where the value matters,

- a branch on an undefined `scc` or `exec` (an `if` or loop on an
  uninitialised value),
- an address (vector or scalar memory) that is undefined in some lane on,
- a store to global memory of a value none of whose bytes is defined (the
  padding of a `float3` stored whole is not a report).

`wrap(program, instr, fn, index, run)` gives the simulator the instruction's
run with this bookkeeping around it; it costs one test when no checker asks.
Memory bytes' bits: `defined_bytes.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..calling_convention import KERNEL_ENTRY
from ..machine import ExecReg, MInstr, PReg, VReg

Run = Callable[[Any, np.ndarray], None]
Reader = Callable[[Any], np.ndarray]


@dataclass
class Shadow:
    sdef: np.ndarray  # (waves, sgprs) bool
    vdef: np.ndarray  # (vgprs, waves, lanes) bool
    scc: np.ndarray  # (waves,)
    exec: np.ndarray  # (waves,)
    local: np.ndarray  # local memory bytes of the batch
    private: np.ndarray  # private memory bytes of the batch
    # per register word (vector words first, then scalar words, then scc and exec): True only
    # when its bits are defined in every wave and lane of the batch (False: not known)
    full: list[bool] = field(default_factory=list)
    all_on: np.uint64 = np.uint64(0)  # exec with every lane of a wave on


def new_shadow(s: Any) -> Shadow:
    """The batch's shadow at kernel entry: the entry registers defined, nothing else."""
    nw = len(s.pc)
    sdef = np.zeros(s.sregs.shape, bool)
    vdef = np.zeros((s.program.size["v"], nw, s.vregs.shape[2]), bool)
    vgprs = vdef.shape[0]
    full = [False] * (vgprs + sdef.shape[1]) + [True, True]
    entry = KERNEL_ENTRY
    for reg in (entry.kernarg, *entry.group_id, entry.wave_id, entry.stack_pointer):
        sdef[:, reg.index:reg.index + reg.count] = True
        full[vgprs + reg.index:vgprs + reg.index + reg.count] = [True] * reg.count
    for reg in entry.local_id:
        vdef[reg.index] = True
        full[reg.index] = True
    all_on = np.uint64((1 << s.width) - 1) if s.width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    return Shadow(sdef, vdef, np.ones(nw, bool), np.ones(nw, bool), np.zeros(len(s.local), bool),
                  np.zeros(len(s.private), bool), full, all_on)


# -- which registers are defined everywhere (the fast path) ----------------------------------

def scc_slot(sh: Shadow) -> int:
    return len(sh.full) - 2


def exec_slot(sh: Shadow) -> int:
    return len(sh.full) - 1


def covers_all(s: Any, sel: np.ndarray) -> bool:
    """Whether an instruction on waves `sel` writes every lane of the batch."""
    return bool(sel.all()) and bool((s.exec == s.shadow.all_on).all())


def wrote_v(s: Any, first: int, bits: np.ndarray, sel: np.ndarray, active: np.ndarray) -> None:
    """Vector words `first`... were just given `bits` (one column per word, per active lane:
    (lanes on, words)) in the lanes `active` of waves `sel`: keep `full` true to them."""
    sh = s.shadow
    every = None
    for i in range(bits.shape[1]):
        if not bits[:, i].all():
            sh.full[first + i] = False
            continue
        if not sh.full[first + i]:
            every = covers_all(s, sel) if every is None else every
            sh.full[first + i] = every


def wrote_s(s: Any, first: int, count: int) -> None:
    """Scalar words `first`... were just written: whether each is now defined in every wave."""
    sh = s.shadow
    base = sh.vdef.shape[0]
    for k in range(first, first + count):
        sh.full[base + k] = bool(sh.sdef[:, k].all())


def wrote_flags(s: Any) -> None:
    sh = s.shadow
    sh.full[scc_slot(sh)] = bool(sh.scc.all())
    sh.full[exec_slot(sh)] = bool(sh.exec.all())


def on(s: Any) -> bool:
    return s.checker is not None and s.shadow is not None


# -- reading and writing defined bits -------------------------------------------------------

def source(program: Any, fn: str, operand: Any) -> Reader | None:
    """The operand's defined bits per wave (scalar) or per lane (vector); None: always defined."""
    if isinstance(operand, ExecReg):
        return lambda s: s.shadow.exec
    if not isinstance(operand, (PReg, VReg)):
        return None
    r, n = program.register_index(fn, operand), max(1, operand.width // 32)
    if operand.file == "s":
        if n == 1:
            return lambda s: s.shadow.sdef[:, r]
        return lambda s: s.shadow.sdef[:, r:r + n].all(axis=1)
    if n == 1:
        return lambda s: s.shadow.vdef[r]
    if n == 2:
        return lambda s: s.shadow.vdef[r] & s.shadow.vdef[r + 1]
    return lambda s: s.shadow.vdef[r:r + n].all(axis=0)


def dest(program: Any, fn: str, operand: Any) -> Callable[[Any, np.ndarray, np.ndarray, np.ndarray], None]:
    """A writer (state, defined bits, selected waves, active lanes) for the operand's bits."""
    if isinstance(operand, ExecReg):
        def write_exec(s: Any, d: np.ndarray, sel: np.ndarray, active: np.ndarray) -> None:
            np.copyto(s.shadow.exec, scalar_bits(d, active), where=sel)
            wrote_flags(s)
        return write_exec
    r, n = program.register_index(fn, operand), max(1, operand.width // 32)
    if operand.file == "s":
        def write_s(s: Any, d: np.ndarray, sel: np.ndarray, active: np.ndarray) -> None:
            bits = scalar_bits(d, active)
            for k in range(r, r + n):
                np.copyto(s.shadow.sdef[:, k], bits, where=sel)
            wrote_s(s, r, n)
        return write_s

    def write_v(s: Any, d: np.ndarray, sel: np.ndarray, active: np.ndarray) -> None:
        if d.ndim == 1:
            d = d[:, None]
        for k in range(r, r + n):
            np.copyto(s.shadow.vdef[k], d, where=active)
        defined = bool((d | ~active).all())
        for k in range(r, r + n):
            if not defined:
                s.shadow.full[k] = False
            elif not s.shadow.full[k]:
                s.shadow.full[k] = covers_all(s, sel)
    return write_v


def scalar_bits(d: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Per wave: a per-lane value is defined when it is in every lane on."""
    if d.ndim == 2:
        return (d | ~active).all(axis=1)
    return d if d.shape == active.shape[:1] else np.broadcast_to(d, active.shape[:1])


def combine(bits: list[np.ndarray], active: np.ndarray, vector: bool) -> np.ndarray:
    """The AND of the sources' bits: per lane for a vector result, per wave for a scalar one."""
    if vector:
        out = None
        for b in bits:
            b = b[:, None] if b.ndim == 1 else b
            out = b if out is None else out & b
        return np.ones(active.shape, bool) if out is None else out  # (waves, 1) or (waves, lanes)
    outs = None
    for b in bits:
        b = scalar_bits(b, active)
        outs = b if outs is None else outs & b
    return np.ones(active.shape[:1], bool) if outs is None else outs


# -- around each instruction ----------------------------------------------------------------

def wrap(program: Any, instr: MInstr, fn: str, index: int, run: Run) -> Run:
    family = instr.info.family
    if family == "branch":
        return around_branch(instr, index, run)
    if family in ("vmem", "smem", "sscratch"):
        return around_address(program, instr, fn, index, run)
    if family in ("control", "check") or instr.op == "s_setpc_b64":
        return run
    if instr.op in ("v_writelane_b32", "v_bpermute_b32", "v_cndmask_b32", "v_cndmask_b64", "p_undef"):
        return around_special(program, instr, fn, run)
    return around_alu(program, instr, fn, run)


def sources(program: Any, fn: str, operands: list[Any], scc: bool) -> Callable[[Any], list[np.ndarray]]:
    """The defined bits of all the operands at once: one gather per register file (vector words
    per lane, scalar words, exec and scc per wave), instead of one per operand."""
    vwords = [w for o in operands if isinstance(o, (PReg, VReg)) and o.file == "v" for w in words_of(program, fn, o)]
    swords = [w for o in operands if isinstance(o, (PReg, VReg)) and o.file == "s" for w in words_of(program, fn, o)]
    uses_exec = any(isinstance(o, ExecReg) for o in operands)
    vindex, sindex = np.array(vwords, np.int64), np.array(swords, np.int64)

    def read(s: Any) -> list[np.ndarray]:
        sh = s.shadow
        out = []
        if len(vwords) == 1:
            out.append(sh.vdef[vwords[0]])
        elif vwords:
            out.append(sh.vdef[vindex].all(axis=0))
        if len(swords) == 1:
            out.append(sh.sdef[:, swords[0]])
        elif swords:
            out.append(sh.sdef[:, sindex].all(axis=1))
        if uses_exec:
            out.append(sh.exec)
        if scc:
            out.append(sh.scc)
        return out
    return read


def words_of(program: Any, fn: str, operand: Any) -> range:
    r = program.register_index(fn, operand)
    return range(r, r + max(1, operand.width // 32))


def slots(program: Any, fn: str, operands: list[Any]) -> list[int]:
    """The operands' places in `Shadow.full` (immediates have none)."""
    vgprs, sgprs = program.size["v"], program.size["s"]
    out = []
    for o in operands:
        if isinstance(o, ExecReg):
            out.append(vgprs + sgprs + 1)
        elif isinstance(o, (PReg, VReg)):
            out.extend(w if o.file == "v" else vgprs + w for w in words_of(program, fn, o))
    return out


def all_full(full: list[bool], need: list[int]) -> bool:
    for i in need:
        if not full[i]:
            return False
    return True


def around_alu(program: Any, instr: MInstr, fn: str, run: Run) -> Run:
    """An ALU instruction's results are defined where its sources are. Fast path: when every
    source and destination (and scc, if used or set) is defined in every lane of the batch
    (`Shadow.full`), the results are too and nothing changes: the instruction just runs."""
    info = instr.info
    operands = [] if info.family == "call" else [o for _, o in instr.uses()]  # call, getpc: addresses are defined
    read_bits = sources(program, fn, operands, info.scc == "use")
    defs = [o for _, o in instr.defs()]
    vector = any(isinstance(o, (PReg, VReg)) and o.file == "v" for o in defs)
    writes = [dest(program, fn, o) for o in defs]
    scc_def = info.scc == "def" or info.family == "exec"
    scc = [program.size["v"] + program.size["s"]] if info.scc in ("use", "def") else []
    need = slots(program, fn, operands) + slots(program, fn, defs) + scc
    fast = info.family != "exec"  # saveexec moves exec's bits into a register: always the long way

    def shadowed(s: Any, sel: np.ndarray) -> None:
        if s.shadow is None or (fast and all_full(s.shadow.full, need)):
            return run(s, sel)
        active = s.lanes & sel[:, None]
        bits = read_bits(s)
        if info.family == "exec":  # saveexec: dst = old exec; exec and scc follow the source
            old = s.shadow.exec.copy()
        run(s, sel)
        d = combine(bits, active, vector)
        if info.family == "exec":
            writes[0](s, old, sel, active)
            np.copyto(s.shadow.exec, d & old, where=sel)
        else:
            for write in writes:
                write(s, d, sel, active)
        if scc_def:
            np.copyto(s.shadow.scc, scalar_bits(d, active) if info.family != "exec" else s.shadow.exec, where=sel)
            wrote_flags(s)
    return shadowed


def around_special(program: Any, instr: MInstr, fn: str, run: Run) -> Run:
    uses = [o for _, o in instr.uses()]
    (d_operand,) = [o for _, o in instr.defs()]
    write = dest(program, fn, d_operand)
    reads = [source(program, fn, o) for o in uses]
    width = program.config.wave_width

    def bits(s: Any, read: Reader | None, shape: tuple[int, ...]) -> np.ndarray:
        b = np.ones(shape, bool) if read is None else read(s)
        return np.broadcast_to(b[:, None] if b.ndim == 1 and len(shape) == 2 else b, shape)

    def shadowed(s: Any, sel: np.ndarray) -> None:
        if not on(s):
            return run(s, sel)
        active = s.lanes & sel[:, None]
        shape = active.shape
        if instr.op == "p_undef":
            run(s, sel)
            return write(s, np.zeros(shape, bool), sel, active)
        if instr.op.startswith("v_cndmask"):
            mask_value = np.asarray(program_mask(s, uses[-1], program, fn))
            picked = ((mask_value.reshape(-1, 1) >> s.lane_shift) & np.uint64(1)).astype(bool)
            d = np.where(picked, bits(s, reads[1], shape), bits(s, reads[0], shape)) & bits(s, reads[2], shape)
            run(s, sel)
            return write(s, d, sel, active)
        if instr.op == "v_bpermute_b32":
            r = program.register_index(fn, uses[0])
            index = np.asarray(s.vregs[r >> 1, :, :, r & 1]).astype(np.int64) % width
            d = np.take_along_axis(bits(s, reads[1], shape), index, axis=1) & bits(s, reads[0], shape)
            run(s, sel)
            return write(s, d, sel, active)
        # v_writelane: one lane, whatever exec holds
        value = scalar_bits(bits(s, reads[0], shape[:1]), active)
        lane = np.broadcast_to(np.asarray(program_scalar(s, uses[1], program, fn)), sel.shape).astype(np.int64) % width
        run(s, sel)
        r = program.register_index(fn, d_operand)
        waves = np.nonzero(sel)[0]
        s.shadow.vdef[r, waves, lane[waves]] = value[waves]
        s.shadow.full[r] = s.shadow.full[r] and bool(value[waves].all())
    return shadowed


def program_mask(s: Any, operand: Any, program: Any, fn: str) -> np.ndarray:
    """A lane-mask operand's value per wave: exec, a scalar pair, or an immediate."""
    if isinstance(operand, ExecReg):
        return s.exec
    if not isinstance(operand, (PReg, VReg)):
        return np.full(len(s.exec), int(operand.value) & 0xFFFFFFFFFFFFFFFF, np.uint64)
    r = program.register_index(fn, operand)
    return s.sregs[:, r:r + 2].view(np.uint64)[:, 0]


def program_scalar(s: Any, operand: Any, program: Any, fn: str) -> Any:
    if isinstance(operand, (PReg, VReg)):
        return s.sregs[:, program.register_index(fn, operand)]
    return operand.value


def around_branch(instr: MInstr, index: int, run: Run) -> Run:
    condition = {"s_cbranch_scc0": "scc", "s_cbranch_scc1": "scc", "s_cbranch_execz": "exec",
                 "s_cbranch_execnz": "exec"}.get(instr.op)
    if condition is None:
        return run

    def shadowed(s: Any, sel: np.ndarray) -> None:
        if on(s):
            undefined = sel & ~getattr(s.shadow, condition)
            if undefined.any():
                w, lane = lanes_of(s, undefined)
                s.checker.report("uninitialized", s, index, "branch on an uninitialised value", w, lane)
                getattr(s.shadow, condition)[undefined] = True  # once per value
        run(s, sel)
    return shadowed


def lanes_of(s: Any, waves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lanes on in the given waves (a wave with none on stands for its first lane)."""
    on_lanes = s.lanes & waves[:, None]
    w, lane = np.nonzero(on_lanes)
    if not len(w):
        w = np.nonzero(waves)[0][:1]
        lane = np.zeros(len(w), np.int64)
    return w, lane


def around_address(program: Any, instr: MInstr, fn: str, index: int, run: Run) -> Run:
    """Memory instructions: an undefined address is reported (the bytes' bits move in `load`/`store`)."""
    uses = instr.uses()
    if instr.info.family == "vmem":
        operands = [uses[0][1], uses[-1][1]]
    elif instr.info.family == "smem":
        operands = [uses[-2][1], uses[-1][1]]
    else:  # scalar scratch: the offset operands
        operands = [uses[-2][1]]
    address: list[Reader] = [r for r in (source(program, fn, o) for o in operands) if r is not None]
    need = slots(program, fn, operands)

    def shadowed(s: Any, sel: np.ndarray) -> None:
        if on(s) and address and not all_full(s.shadow.full, need):
            active = s.lanes & sel[:, None]
            vector = instr.info.family == "vmem"
            d = combine([a(s) for a in address], active, vector)
            bad = (active & ~d) if vector else (sel & ~d)[:, None] & first_lane(active, sel)
            if bad.any():
                w, lane = np.nonzero(bad)
                s.checker.report("uninitialized", s, index, "uninitialised value used as an address", w, lane)
        run(s, sel)
    return shadowed


def first_lane(active: np.ndarray, sel: np.ndarray) -> np.ndarray:
    out = np.zeros(active.shape, bool)
    out[np.arange(len(sel)), np.where(active.any(axis=1), active.argmax(axis=1), 0)] = True
    return out
