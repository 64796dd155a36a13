"""The simt simulator: runs a kernel's machine code over a whole NDRange.

`run_kernel(module, name, memory, global_size=..., local_size=..., args=b"...")`
runs every work-group and returns `RunStats`. Work-groups are split into
waves of `W` lanes (`SimConfig.wave_width`); a *batch* of work-groups (as
many as fit in `SimConfig.max_lanes` lanes) runs at once, every wave of the
batch held in the same arrays:

- scalar registers `sregs[wave, reg]` (uint32 words; a pair or tuple is
  adjacent words, read as one uint64 or as rows), vector registers
  `vregs[reg // 2, wave, lane, reg % 2]` (uint32 words: register r of every
  lane is a stride-2 run of the whole batch, and an even pair `v[r:r+1]` one
  contiguous uint64 array; `vector_words`/`put_vector_words` read and write
  any run of words), `exec[wave]` (a uint64 mask, with `lanes[wave, lane]` its booleans),
  `scc[wave]`, `pc[wave]`, `status[wave]` (running, waiting at a barrier, done);
- local memory, one segment per work-group of the batch; private memory, one
  segment per lane; global memory is the caller's `GlobalMemory`, holding the
  kernarg segment (read-only) for the launch.

Each step picks the lowest program counter among running waves and executes
that instruction for every wave standing there at once (NumPy over waves and
lanes; never one work-item at a time). While the waves of a step are all the
running ones (one wave, or waves that have not split), the next step needs no
search: the same waves at the next pc, or at the one target a branch, call or
return sent them all to. Instructions are decoded once into
closures (`Decoded`): operand readers and writers bound to their registers,
then the family's executor (`EXECUTORS`, one function per family, the row's
`compute` giving an ALU op's semantics). Per step, the lanes an instruction
runs on are computed once (`Batch.active`; the shared all-true `full_mask`
when every lane is on, which writers store without a mask), and an
unchecked run uses the closures without the definedness bookkeeping. A barrier holds a wave until every
wave of its group that has not ended arrives; when no wave can move, the run
stops with a deadlock error. Every memory access is checked (`SimError`
names the instruction, the wave and the lane).

With a `Checker` (`check/`, docs/check.md), a launch runs checked: the
memory accessors report failing lanes and send them to a sink instead of
raising, barriers and the step limit report divergence and deadlock, memory
instructions hand their accesses to the race check, check instructions
(`v_check_*`) report bad divisors and casts, and every decoded instruction is
wrapped by the definedness bookkeeping (`check/uninit_checks.wrap`: one test
when no checker runs). `Program.locs` maps each pc to its source location.

Virtual registers run too (each gets a register of its own beyond the
physical ones), so code can be run before register allocation; physical
registers must fit the configured files (`OCLPY_SIMT_SGPRS`,
`OCLPY_SIMT_VGPRS`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ...diagnostics import SourceLocation
from .calling_convention import (
    DEFAULT_REGISTERS, KERNEL_ENTRY, check_file_size, hidden_offset, kernarg_size, pack_hidden,
)
from .device_config import ENVIRONMENT
from .isa import DTYPES, Field
from .machine import (
    ExecReg, Imm, MFunction, MInstr, MModule, PReg, Slot, VReg, frame_layout,
    function_problems, instr_problems,
)
from .memory_model import CODE_BASE, LOCAL_APERTURE_HI, PRIVATE_APERTURE_HI
from .check import barrier_checks, defined_bytes, memory_checks, race_checks, uninit_checks, value_checks
from .check.check_session import Checker, Launch, work_items
from .sim_memory import SINK_BYTES, GlobalMemory, SimError, atomic_rmw, gather, scatter

RUNNING, AT_BARRIER, DONE = 0, 1, 2
UNDEFINED = 0xDEADBEEF  # what a register holds before anything writes it
REGISTER_BYTES = 1 << 28  # at most this much vector register file per batch
U32, U64 = np.uint32, np.uint64
NO_PC = np.iinfo(np.int64).max  # stands for the pc of a wave that is not running
MASK_WORDS = {8: np.dtype("<u1"), 16: np.dtype("<u2"), 32: np.dtype("<u4"), 64: np.dtype("<u8")}  # by wave width


@dataclass(frozen=True)
class SimConfig:
    wave_width: int = 32
    sgprs: int = DEFAULT_REGISTERS["s"]
    vgprs: int = DEFAULT_REGISTERS["v"]
    max_lanes: int = 1 << 14  # lanes of one batch of work-groups
    max_steps: int = 10_000_000  # instructions (for all the waves at one pc) before giving up

    def problems(self) -> list[str]:
        out = [p for p in (check_file_size("s", self.sgprs), check_file_size("v", self.vgprs)) if p]
        if self.wave_width not in (8, 16, 32, 64):
            out.append(f"wave width {self.wave_width}: must be 8, 16, 32 or 64")
        return out


def config_from_env(**overrides: Any) -> SimConfig:
    """The configuration `OCLPY_SIMT_SGPRS`, `OCLPY_SIMT_VGPRS`, `OCLPY_SIMT_WAVE` ask for."""
    values = {k: int(os.environ[v]) for k, v in ENVIRONMENT.items() if os.environ.get(v)}
    return SimConfig(**{**values, **overrides})


@dataclass
class RunStats:
    steps: int = 0  # instructions executed (once for all the waves standing at it)
    wave_instructions: int = 0  # instructions times the waves that executed them
    batches: int = 0
    waves: int = 0


# -- the program: functions laid out one after another, instructions decoded ---------

@dataclass
class Decoded:
    instr: MInstr
    function: str
    run: Callable[[Any, np.ndarray], None]  # (batch state, selected waves) -> None, with the definedness bookkeeping
    moves_pc: bool  # the executor sets pc itself
    barrier: bool = False  # s_barrier: the scheduler looks for groups to let go after it
    plain: Callable[[Any, np.ndarray], None] | None = None  # `run` without it (no uninitialised check): faster
    stops: bool = False  # may change a wave's status (end, barrier, trap): the scheduler looks again


@dataclass
class Program:
    module: MModule
    config: SimConfig
    code: list[Decoded] = field(default_factory=list)
    entry: dict[str, int] = field(default_factory=dict)
    labels: dict[tuple[str, str], int] = field(default_factory=dict)
    slots: dict[str, list[int]] = field(default_factory=dict)
    registers: dict[tuple[str, str, int], int] = field(default_factory=dict)  # virtual -> index
    size: dict[str, int] = field(default_factory=lambda: {"s": 36, "v": 3})
    locs: list[SourceLocation | None] = field(default_factory=list)  # pc -> the source it came from
    near_locs: list[SourceLocation | None] = field(default_factory=list)  # else the last one before, in its function

    def register_index(self, fn: str, reg: PReg | VReg) -> int:
        if isinstance(reg, PReg):
            return reg.index
        return self.registers[(fn, reg.file, reg.id)]


def load_program(module: MModule, config: SimConfig) -> Program:
    """Check the module, lay out its code and registers, decode every instruction."""
    problems = config.problems()
    for fn in module.functions:
        problems += [f"@{fn.name}: {p}" for p in function_problems(fn, module)]
        problems += [f"@{fn.name}: {p}" for i in fn.instrs() for p in instr_problems(i)]
    if problems:
        raise SimError("cannot run this machine code:\n  " + "\n  ".join(problems))
    program = Program(module, config)
    for fn in module.functions:
        program.entry[fn.name] = len(program.code)
        program.slots[fn.name] = frame_layout(fn)[0]
        program.code += [Decoded(i, fn.name, lambda s, w: None, False) for i in fn.instrs()]
    place_labels(program)
    place_registers(program)
    program.locs = [d.instr.loc for d in program.code]
    program.near_locs = nearest_locations(program)
    for k, d in enumerate(program.code):
        program.code[k] = decode(program, d.instr, d.function, k)
    return program


def nearest_locations(program: Program) -> list[SourceLocation | None]:
    """Per pc, its location, else the closest one before it in the same function (code that
    instruction selection made for no IR instruction, such as a branch at a block's start)."""
    out: list[SourceLocation | None] = []
    for pc, d in enumerate(program.code):
        loc = d.instr.loc
        if loc is None and pc and program.code[pc - 1].function == d.function:
            loc = out[-1]
        out.append(loc)
    return out


def place_labels(program: Program) -> None:
    """Each block's first instruction's index (blocks may be empty: they then fall to the next)."""
    for fn in program.module.functions:
        index = program.entry[fn.name]
        for block in fn.blocks:
            program.labels[(fn.name, block.name)] = index
            index += len(block.instrs)


def place_registers(program: Program) -> None:
    """Check physical registers against the files; give each virtual register its own place."""
    limits = {"s": program.config.sgprs, "v": program.config.vgprs}
    virtual: list[tuple[str, VReg]] = []
    for fn in program.module.functions:
        for instr in fn.instrs():
            for reg in instr.registers():
                if isinstance(reg, PReg):
                    if reg.index + reg.count > limits[reg.file]:
                        raise SimError(f"@{fn.name}: {instr.op} uses {reg}, outside the {limits[reg.file]}-register "
                                       f"{'scalar' if reg.file == 's' else 'vector'} file")
                    program.size[reg.file] = max(program.size[reg.file], reg.index + reg.count)
                elif isinstance(reg, VReg):
                    virtual.append((fn.name, reg))
    for fn_name, reg in virtual:
        key = (fn_name, reg.file, reg.id)
        if key not in program.registers:
            count = reg.width // 32
            start = -(-program.size[reg.file] // min(count, 4)) * min(count, 4)
            program.registers[key] = start
            program.size[reg.file] = start + count


# -- operand access ---------------------------------------------------------------------

def imm_value(value: int | float, type_: str) -> Any:
    """An immediate as a NumPy scalar of the field's type (an int is a float field's bits)."""
    dtype = np.dtype(DTYPES[type_])
    bits = dtype.itemsize * 8
    if isinstance(value, float):
        if dtype.kind == "f":
            return dtype.type(value)
        as_float = np.float32 if bits == 32 else np.float64
        return np.array(as_float(value)).view(dtype)[()]
    unsigned = np.uint32 if bits == 32 else np.uint64
    return np.array(value & ((1 << bits) - 1), unsigned).view(dtype)[()]


def scalar_reader(program: Program, fn: str, operand: Any, f: Field) -> Callable[[Any], Any]:
    """A function of the state giving the operand per wave: (waves,) typed, or (waves, words)."""
    if isinstance(operand, Imm):
        if f.type in ("b128", "b256"):
            raise SimError(f"an immediate cannot stand for a {f.type} operand")
        value = imm_value(operand.value, f.type)
        return lambda s: value
    if isinstance(operand, Slot):
        value = imm_value(program.slots[fn][operand.index], f.type)
        return lambda s: value
    if isinstance(operand, ExecReg):
        dtype = DTYPES[f.type]
        return lambda s: s.exec.view(dtype)
    r = program.register_index(fn, operand)
    if f.bits == 32:
        dtype = DTYPES[f.type]
        return lambda s: s.sregs[:, r].view(dtype)
    if f.bits == 64:
        dtype = DTYPES[f.type]
        return lambda s: s.sregs[:, r:r + 2].view(U64)[:, 0].view(dtype)
    n = f.bits // 32
    return lambda s: s.sregs[:, r:r + n]


def vector_reader(program: Program, fn: str, operand: Any, f: Field) -> Callable[[Any], Any]:
    """A function of the state giving the operand per lane: (waves, lanes) typed (or
    broadcastable to it), or (waves, lanes, words) for tuples."""
    if not isinstance(operand, (PReg, VReg)) or operand.file == "s":
        read = scalar_reader(program, fn, operand, f)
        if isinstance(operand, (Imm, Slot)):
            return read
        if f.bits > 64:
            return lambda s: read(s)[:, None, :]
        return lambda s: read(s)[:, None]
    r = program.register_index(fn, operand)
    half, word = r >> 1, r & 1
    if f.bits == 32:
        dtype = DTYPES[f.type]
        return lambda s: s.vregs[half, :, :, word].view(dtype)
    if f.bits == 64 and not word:
        dtype = DTYPES[f.type]
        return lambda s: s.vregs[half].view(U64)[:, :, 0].view(dtype)
    n = f.bits // 32
    if n == 2:
        dtype = DTYPES[f.type]
        return lambda s: np.ascontiguousarray(vector_words(s.vregs, r, 2)).view(U64)[:, :, 0].view(dtype)
    return lambda s: vector_words(s.vregs, r, n)


def vector_words(vregs: np.ndarray, r: int, n: int) -> np.ndarray:
    """Vector registers r..r+n-1 of every lane: (waves, lanes, n) uint32 (a copy when n > 1)."""
    if n == 1:
        return vregs[r >> 1, :, :, r & 1][:, :, None]
    if not (r | n) & 1:
        halves = vregs[r >> 1:(r + n) >> 1]  # (n / 2, waves, lanes, 2)
        return halves.transpose(1, 2, 0, 3).reshape(halves.shape[1], halves.shape[2], n)
    return np.stack([vregs[k >> 1, :, :, k & 1] for k in range(r, r + n)], axis=-1)


def put_vector_words(vregs: np.ndarray, r: int, words: np.ndarray, where: np.ndarray | None = None,
                     lanes: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """Write vector registers r.. from `words` (..., n): every lane ((waves, lanes, n), `where`
    a (waves, lanes) mask or None for all), or the lanes (w, lane) given ((len(w), n))."""
    n = words.shape[-1]
    if lanes is None and where is None and not (r | n) & 1:
        shape = vregs.shape[1:3]
        pairs = np.broadcast_to(words, shape + (n,)).reshape(shape + (n >> 1, 2))
        vregs[r >> 1:(r + n) >> 1] = pairs.transpose(2, 0, 1, 3)
        return
    for k in range(n):
        target, value = vregs[(r + k) >> 1, ..., (r + k) & 1], words[..., k]
        if lanes is not None:
            target[lanes] = value
        elif where is None:
            target[...] = value
        else:
            np.copyto(target, value, where=where)


def as_words(value: Any, type_: str) -> np.ndarray:
    """A value of the field's type as uint32 words: (...,) for 32 bits, (..., n) wider."""
    if type_ in ("b128", "b256"):
        return np.asarray(value, U32)
    arr = np.asarray(value).astype(DTYPES[type_], copy=False)
    if arr.dtype.itemsize == 4:
        return arr.view(U32)
    return np.ascontiguousarray(arr).view(U64)


def scalar_writer(program: Program, fn: str, operand: Any, f: Field) -> Callable[[Any, Any, np.ndarray], None]:
    """A function (state, value, selected waves) writing the operand's registers."""
    if isinstance(operand, ExecReg):
        return lambda s, value, sel: s.set_exec(np.asarray(value).astype(U64), sel)
    r = program.register_index(fn, operand)
    n = f.bits // 32

    def write(s: Any, value: Any, sel: np.ndarray) -> None:
        words = as_words(value, f.type)
        if n == 1:
            if sel is s.everyone:
                s.sregs[:, r] = words
                return
            np.copyto(s.sregs[:, r], words, where=sel)
        elif n == 2:
            np.copyto(s.sregs[:, r:r + 2].view(U64)[:, 0], words, where=sel)
        else:
            np.copyto(s.sregs[:, r:r + n], words, where=sel[:, None])
    return write


def vector_writer(program: Program, fn: str, operand: Any, f: Field) -> Callable[[Any, Any, np.ndarray], None]:
    """A function (state, value, lane mask (waves, lanes)) writing the operand's registers."""
    r = program.register_index(fn, operand)
    n = f.bits // 32
    half, word = r >> 1, r & 1

    def write(s: Any, value: Any, mask: np.ndarray) -> None:
        words = as_words(value, f.type)
        if n == 1:
            if mask is s.full_mask:
                s.vregs[half, :, :, word] = words
                return
            np.copyto(s.vregs[half, :, :, word], words, where=mask)
        elif n == 2 and not word:
            if mask is s.full_mask:
                s.vregs[half].view(U64)[:, :, 0] = words
                return
            np.copyto(s.vregs[half].view(U64)[:, :, 0], words, where=mask)
        else:
            rows = as_word_rows(words, 2, np.shape(words)) if n == 2 else words  # a uint64 as two words
            put_vector_words(s.vregs, r, np.broadcast_to(rows, mask.shape + (n,)),
                             None if mask is s.full_mask else mask)
    return write


# -- decoding -----------------------------------------------------------------------------

def decode(program: Program, instr: MInstr, fn: str, index: int) -> Decoded:
    info = instr.info
    plain = EXECUTORS[info.family](program, instr, fn, index)
    run = uninit_checks.wrap(program, instr, fn, index, plain)
    return Decoded(instr, fn, run, info.family in ("branch", "call", "control"), instr.op == "s_barrier",
                   plain, info.family == "control")


def readers(program: Program, instr: MInstr, fn: str, vector: bool) -> list[Callable[[Any], Any]]:
    make = vector_reader if vector else scalar_reader
    return [make(program, fn, o, instr.field_of(i)) for i, o in instr.uses()]


def exec_salu(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    info = instr.info
    reads = readers(program, instr, fn, vector=False)
    writes = [scalar_writer(program, fn, o, instr.field_of(i)) for i, o in instr.defs()]
    compute = info.compute

    def run(s: Any, sel: np.ndarray) -> None:
        args = [read(s) for read in reads] + ([s.scc] if info.scc == "use" else [])
        result = compute(*args)
        results = list(result) if isinstance(result, tuple) else [result]
        if info.scc == "def":
            np.copyto(s.scc, results.pop(), where=sel)
        for write, value in zip(writes, results):
            write(s, value, sel)  # a value the same for every wave broadcasts
    return run


def exec_saveexec(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    (read,) = readers(program, instr, fn, vector=False)
    (write,) = [scalar_writer(program, fn, o, instr.field_of(i)) for i, o in instr.defs()]
    compute = instr.info.compute

    def run(s: Any, sel: np.ndarray) -> None:
        old = s.exec.copy()
        new = np.asarray(compute(np.broadcast_to(read(s), old.shape), old), U64)
        write(s, old, sel)
        s.set_exec(new, sel)
        np.copyto(s.scc, s.exec != 0, where=sel)
    return run


def exec_valu(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    reads = readers(program, instr, fn, vector=True)
    ((d, dst),) = instr.defs()
    write = vector_writer(program, fn, dst, instr.field_of(d))
    compute = instr.info.compute
    if compute is None:  # v_cndmask: d = mask ? src1 : src0
        reads.pop()
        m, mask_operand = instr.uses()[-1]
        select = scalar_reader(program, fn, mask_operand, instr.field_of(m))
        lanes = program.config.wave_width
        shifts = np.arange(lanes, dtype=U64)
        compute_mask = lambda s: ((np.reshape(select(s), (-1, 1)) >> shifts) & U64(1)).astype(bool)  # noqa: E731
        def run(s: Any, sel: np.ndarray) -> None:
            write(s, np.where(compute_mask(s), reads[1](s), reads[0](s)), s.active(sel))
        return run
    if len(reads) == 1:
        (read0,) = reads
        return lambda s, sel: write(s, compute(read0(s)), s.active(sel))
    if len(reads) == 2:
        read0, read1 = reads
        return lambda s, sel: write(s, compute(read0(s), read1(s)), s.active(sel))

    def run(s: Any, sel: np.ndarray) -> None:
        write(s, compute(*[read(s) for read in reads]), s.active(sel))
    return run


def exec_vcmp(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    reads = readers(program, instr, fn, vector=True)
    ((d, dst),) = instr.defs()
    write = scalar_writer(program, fn, dst, instr.field_of(d))
    compute = instr.info.compute

    def run(s: Any, sel: np.ndarray) -> None:
        write(s, s.pack(compute(*[read(s) for read in reads]) & s.lanes), sel)
    return run


def exec_lane(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    op = instr.op
    width = program.config.wave_width
    uses = [(o, instr.field_of(i)) for i, o in instr.uses()]
    ((d, dst),) = instr.defs()
    waves = lambda s: np.arange(s.sregs.shape[0])  # noqa: E731
    if op == "v_writelane_b32":
        value, lane = (scalar_reader(program, fn, o, f) for o, f in uses)
        r = program.register_index(fn, dst)
        def run(s: Any, sel: np.ndarray) -> None:
            w = waves(s)[sel]
            s.vregs[r >> 1, w, np.broadcast_to(lane(s), sel.shape)[sel] % width, r & 1] = \
                np.broadcast_to(value(s), sel.shape)[sel]
        return run
    if op == "v_bpermute_b32":
        index_read, data_read = (vector_reader(program, fn, o, f) for o, f in uses)
        write = vector_writer(program, fn, dst, instr.field_of(d))
        def run(s: Any, sel: np.ndarray) -> None:
            source = np.asarray(index_read(s)).astype(np.int64) % width
            write(s, np.take_along_axis(data_read(s), source, axis=1), s.lanes & sel[:, None])
        return run
    data = vector_reader(program, fn, uses[0][0], uses[0][1])
    lane_read = scalar_reader(program, fn, uses[1][0], uses[1][1]) if op == "v_readlane_b32" else None
    write = scalar_writer(program, fn, dst, instr.field_of(d))

    def run(s: Any, sel: np.ndarray) -> None:
        if lane_read is None:  # readfirstlane: the lowest lane on, lane 0 when none
            lane = np.where(s.lanes.any(axis=1), s.lanes.argmax(axis=1), 0)
        else:
            lane = np.broadcast_to(lane_read(s), sel.shape).astype(np.int64) % width
        write(s, data(s)[waves(s), lane], sel)
    return run


def exec_branch(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    (label,) = instr.operands
    target = program.labels[(fn, label.name)]
    tests: dict[str, Callable[[Any], Any]] = {
        "s_branch": lambda s: True, "s_cbranch_scc0": lambda s: ~s.scc, "s_cbranch_scc1": lambda s: s.scc,
        "s_cbranch_execz": lambda s: s.exec == 0, "s_cbranch_execnz": lambda s: s.exec != 0,
    }
    test = tests[instr.op]
    if instr.op == "s_branch":
        def always(s: Any, sel: np.ndarray) -> None:
            s.pc[sel] = target
        return always

    def run(s: Any, sel: np.ndarray) -> None:
        np.copyto(s.pc, np.where(test(s), target, index + 1), where=sel)
    return run


def exec_call(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    return_address = CODE_BASE + 4 * (index + 1)
    if instr.op == "s_setpc_b64":
        (read,) = readers(program, instr, fn, vector=False)
        limit = len(program.code)
        def run(s: Any, sel: np.ndarray) -> None:
            target = (np.broadcast_to(read(s), sel.shape).astype(np.int64) - CODE_BASE)
            bad = sel & ((target % 4 != 0) | (target < 0) | (target >= 4 * limit))
            if bad.any():
                w = int(np.argmax(bad))
                raise s.error(index, f"jumps to {int(read(s)[w]):#x}, which is no instruction's address", w)
            s.pc[sel] = (target // 4)[sel]
        return run
    ((d, dst),) = instr.defs()
    write = scalar_writer(program, fn, dst, instr.field_of(d))
    callee = program.entry[instr.operands[1].name] if instr.op == "s_call_b64" else index + 1

    def run(s: Any, sel: np.ndarray) -> None:
        write(s, np.full(sel.shape, return_address, U64), sel)
        s.pc[sel] = callee
    return run


def exec_control(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    if instr.op == "s_endpgm":
        def run(s: Any, sel: np.ndarray) -> None:
            s.status[sel] = DONE
    elif instr.op == "s_barrier":
        def run(s: Any, sel: np.ndarray) -> None:
            if s.checker is not None and s.checker.on("barriers"):
                barrier_checks.arrive(s, sel)
            s.status[sel] = AT_BARRIER
            s.pc[sel] = index + 1
    elif instr.op == "s_trap":
        code = instr.operands[0].value
        def run(s: Any, sel: np.ndarray) -> None:
            raise s.error(index, f"trap {code}", int(np.argmax(sel)))
    else:
        def run(s: Any, sel: np.ndarray) -> None:
            s.pc[sel] = index + 1
    return run


def exec_pseudo(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    """Copies as word moves: vector destinations under exec (as v_mov would), scalar ones per wave."""
    if instr.op == "p_undef":
        return lambda s, sel: None
    defs = [o for _, o in instr.defs()]
    uses = [o for _, o in instr.uses()]
    vector = defs[0].kind == "vreg"
    if isinstance(uses[0], Imm):
        width = defs[0].width
        uses_fields = [Field("use", frozenset(), "b32" if width == 32 else "b64")]
    else:
        uses_fields = [Field("use", frozenset(), word_type(o.width)) for o in uses]
    make = vector_reader if vector else scalar_reader
    reads = [make(program, fn, o, f) for o, f in zip(uses, uses_fields)]
    writer = vector_writer if vector else scalar_writer
    writes = [writer(program, fn, o, Field("def", frozenset(), word_type(o.width))) for o in defs]
    src_words = [max(1, f.bits // 32) for f in uses_fields]
    dst_words = [o.width // 32 for o in defs]
    if len(reads) == 1 and len(writes) == 1 and src_words == dst_words:  # a plain copy: no regrouping
        (read,), (write,) = reads, writes
        if vector:
            return lambda s, sel: write(s, read(s), s.active(sel))
        return lambda s, sel: write(s, read(s), sel)

    def run(s: Any, sel: np.ndarray) -> None:
        shape = s.lanes.shape if vector else sel.shape
        parts = [np.broadcast_to(as_words(read(s), f.type), shape + ((n,) if n > 2 else ()))
                 for read, f, n in zip(reads, uses_fields, src_words)]
        flat = np.concatenate([as_word_rows(p, n, shape) for p, n in zip(parts, src_words)], axis=-1)
        mask = s.lanes & sel[:, None] if vector else sel
        at = 0
        for write, n in zip(writes, dst_words):
            chunk = flat[..., at:at + n]
            write(s, chunk[..., 0] if n == 1 else chunk if n > 2 else join64(chunk), mask)
            at += n
    return run


def word_type(width: int) -> str:
    return {32: "b32", 64: "b64", 128: "b128", 256: "b256"}[width]


def as_word_rows(value: np.ndarray, n: int, shape: tuple[int, ...]) -> np.ndarray:
    """A value of n words as uint32 rows: (..., n)."""
    if n == 1:
        return np.asarray(value, U32).reshape(shape + (1,))
    if n == 2:
        v = np.asarray(value, U64)
        return np.stack([(v & U64(0xFFFFFFFF)).astype(U32), (v >> U64(32)).astype(U32)], axis=-1)
    return np.asarray(value, U32)


def join64(words: np.ndarray) -> np.ndarray:
    return words[..., 0].astype(U64) | (words[..., 1].astype(U64) << U64(32))


# -- memory ---------------------------------------------------------------------------------

def exec_smem(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    """Scalar loads from global memory, and the scalar scratch accesses of lane 0."""
    mem = instr.info.memory
    uses = [(o, instr.field_of(i)) for i, o in instr.uses()]
    reads = [scalar_reader(program, fn, o, f) for o, f in uses]
    words = mem.bytes // 4
    store = mem.kind == "store"
    data_read = reads.pop(0) if store else None
    defs = instr.defs()
    dst = program.register_index(fn, defs[0][1]) if defs else 0
    first = uses[0][0]
    src = program.register_index(fn, first) if store and isinstance(first, (PReg, VReg)) else None

    def run(s: Any, sel: np.ndarray) -> None:
        w = np.nonzero(sel)[0]
        base, offset = (per_wave(read(s), w) for read in reads)
        if mem.space == "sprivate":
            s.writing = store
            address = (base.astype(np.int64) + offset.astype(np.int64)).astype(np.int64)
            data, offsets = s.private_offsets(index, w, np.zeros(len(w), np.int64), address, mem.bytes)
        else:
            address = base.astype(U64) + offset.astype(np.int64).astype(U64)
            if (address % U64(4)).any():
                bad = int(np.argmax(address % U64(4) != 0))
                raise s.error(index, f"scalar load from {int(address[bad]):#x}, which is not 4-aligned", int(w[bad]))
            data, offsets = s.global_offsets(index, w, None, address, mem.bytes, write=False)
        if store:
            value = np.asarray(data_read(s))
            rows = as_word_rows(np.broadcast_to(value, sel.shape + value.shape[1:])[w], words, (len(w),))
            scatter(data, offsets, rows.view(np.uint8).reshape(len(w), -1))
            if s.shadow is not None and src is not None:
                bits = np.repeat(s.shadow.sdef[w, src:src + words], 4, axis=1)
                defined_bytes.byte_bits(s, data)[offsets.astype(np.int64)[:, None] + np.arange(mem.bytes)] = bits
        else:
            s.sregs[w, dst:dst + words] = gather(data, offsets, mem.bytes).view(U32)
            if s.shadow is not None:
                s.shadow.sdef[w, dst:dst + words] = defined_bytes.load(s, data, offsets, mem.bytes)
                uninit_checks.wrote_s(s, dst, words)
    if mem.space != "sprivate" or (store and src is None):
        return run
    base_read, offset_read = reads
    span = np.arange(mem.bytes)

    def spill_code(s: Any, sel: np.ndarray) -> None:
        """Scalar scratch (spills and reloads of scalar registers) unchecked and in bounds: bytes
        moved straight between the registers and lane 0's segment."""
        if s.checker is not None:
            return run(s, sel)
        w = np.nonzero(sel)[0]
        address = per_wave(base_read(s), w).astype(np.int64) + per_wave(offset_read(s), w).astype(np.int64)
        if ((address < 0) | (address + mem.bytes > s.private_bytes)).any():
            return run(s, sel)  # the general path raises the error
        at = (w * (s.width * s.private_bytes) + address)[:, None] + span
        if store:
            s.private[at] = s.sregs[w, src:src + words].view(np.uint8)
        else:
            s.sregs[w, dst:dst + words] = s.private[at].view(U32)
    return spill_code


def per_wave(value: Any, w: np.ndarray) -> np.ndarray:
    """A scalar operand's value (one per wave, or one for all) at waves `w`."""
    v = np.asarray(value)
    return v[w] if v.ndim else np.full(len(w), v, v.dtype)


def exec_vmem(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    mem = instr.info.memory
    uses = [(o, instr.field_of(i)) for i, o in instr.uses()]
    reads = [vector_reader(program, fn, o, f) for o, f in uses]
    address_read, offset_read, data_reads = reads[0], reads[-1], reads[1:-1]
    data_fields = [f for _, f in uses[1:-1]]
    defs = instr.defs()
    dst = program.register_index(fn, defs[0][1]) if defs else 0
    n = mem.bytes
    races = mem.kind != "atomic"  # atomics are never part of a race
    data_bits = word_bits_reader(program, fn, uses[1][0]) if mem.kind == "store" else None
    address_operand = uses[0][0]
    per_wave_load = (mem.kind == "load" and mem.space in ("global", "local")
                     and isinstance(address_operand, (PReg, VReg)) and address_operand.file == "s")

    def run(s: Any, sel: np.ndarray) -> None:
        active = s.lanes & sel[:, None]
        lanes = LaneSet(s, active)
        if not len(lanes.w):
            return
        if per_wave_load and s.checker is None and s.shadow is None:
            return load_per_wave(s, active, lanes)
        address, offset = lanes.pick(address_read(s)), lanes.pick(offset_read(s)).astype(np.int64)
        pieces = s.resolve(index, mem.space, lanes.w, lanes.lane, address, offset, n, mem.kind != "load")
        if s.checker is not None and races and s.checker.on("races"):
            for data, offsets, which in pieces:
                s.track(index, data, offsets, lanes.w[which], lanes.lane[which], n, mem.kind != "load")
        if s.shadow is not None:
            shadow_memory(s, index, pieces, lanes, n, mem.kind, dst, data_bits, sel, active)
        if mem.kind == "load":
            rows = np.empty((len(lanes.w), n), np.uint8)
            for data, offsets, which in pieces:
                rows[which] = gather(data, offsets, n)
            lanes.put(dst, load_words(rows, mem.signed))
            return
        values = [lanes.pick(read(s), (f.bits // 32,) if f.bits > 64 else ())
                  for read, f in zip(data_reads, data_fields)]
        if mem.kind == "store":
            rows = store_bytes(values[0], data_fields[0], n)
            for data, offsets, which in pieces:
                scatter(data, offsets, rows[which])
            return
        old = np.empty(len(lanes.w), DTYPES[data_fields[0].type])
        for data, offsets, which in pieces:
            if (offsets % n).any():
                raise s.error(index, f"atomic at a {n}-byte access that is not {n}-aligned", int(lanes.w[which][0]))
            view = data.view(DTYPES[data_fields[0].type])
            compare = values[0][which] if mem.atomic == "cmpswap" else None
            old[which] = atomic_rmw(view, offsets // n, mem.atomic, values[-1][which], compare)
        lanes.put(dst, old.view(U32).reshape(len(lanes.w), -1))

    def load_per_wave(s: Any, active: np.ndarray, lanes: LaneSet) -> None:
        """A load from a scalar address (the same in every lane of a wave; global or local,
        not private, whose segments are per lane): each wave's bytes resolved and read once,
        at its first lane on (which an error names), and copied to its lanes on."""
        w = np.nonzero(active.any(axis=1))[0]
        first = active[w].argmax(axis=1)
        address = per_wave(address_read(s)[:, 0], w)
        offset = np.full(len(w), int(np.asarray(offset_read(s))), np.int64)  # the row's offset is an immediate
        rows = np.empty((len(w), n), np.uint8)
        for data, offsets, which in s.resolve(index, mem.space, w, first, address, offset, n, False):
            rows[which] = gather(data, offsets, n)
        words = load_words(rows, mem.signed)
        row_of = np.zeros(len(active), np.int64)
        row_of[w] = np.arange(len(w))
        lanes.put(dst, words[row_of[lanes.w]])
    return run


def word_bits_reader(program: Program, fn: str, operand: Any) -> Callable[[Any, Any], np.ndarray]:
    """The defined bits of a stored operand's words, per lane of a LaneSet: (lanes, words)."""
    if not isinstance(operand, (PReg, VReg)):
        return lambda s, lanes: np.ones((len(lanes.w), 4), bool)
    r, n = program.register_index(fn, operand), max(1, operand.width // 32)
    if operand.file == "s":
        return lambda s, lanes: s.shadow.sdef[lanes.w, r:r + n]
    return lambda s, lanes: s.shadow.vdef[r:r + n, lanes.w, lanes.lane].T


def shadow_memory(s: Any, index: int, pieces: list, lanes: Any, n: int, kind: str, dst: int,
                  data_bits: Callable[[Any, Any], np.ndarray] | None, sel: np.ndarray, active: np.ndarray) -> None:
    """The uninitialised check's bits through one vector memory access (loads: into the
    destination's words, and whether each is now defined everywhere; stores: into the bytes)."""
    if kind == "store":
        assert data_bits is not None
        bits = data_bits(s, lanes)
        for data, offsets, which in pieces:
            defined_bytes.store(s.checker, s, index, data, offsets, bits[which], n, lanes.w[which], lanes.lane[which])
        return
    words = max(1, n // 4)
    out = np.ones((len(lanes.w), words), bool)
    for data, offsets, which in pieces:
        out[which] = defined_bytes.load(s, data, offsets, n)
    if lanes.full:
        s.shadow.vdef[dst:dst + words] = out.T.reshape((words,) + lanes.shape)
    else:
        s.shadow.vdef[dst:dst + words, lanes.w, lanes.lane] = out.T
    uninit_checks.wrote_v(s, dst, out, sel, active)


class LaneSet:
    """The lanes one memory instruction touches, in order (waves, then lanes): `w`, `lane`;
    `pick` takes their values of a per-lane operand, `put` writes their registers. When every
    lane of every wave is on, both are reshapes instead of gathers."""

    def __init__(self, s: Any, active: np.ndarray) -> None:
        self.s, self.shape = s, active.shape
        self.full = bool(active.all())
        self.w, self.lane = (s.all_waves, s.all_lanes) if self.full else np.nonzero(active)

    def pick(self, value: Any, extra: tuple[int, ...] = ()) -> np.ndarray:
        v = np.asarray(value)
        if v.shape == self.shape + extra:
            return v.reshape((-1,) + extra) if self.full else v[self.w, self.lane]
        if not v.ndim:
            return np.full(len(self.w), v, v.dtype)
        spread = np.broadcast_to(v, self.shape + extra)
        return spread.reshape((-1,) + extra) if self.full else spread[self.w, self.lane]

    def put(self, first: int, words: np.ndarray) -> None:
        count = words.shape[1]
        if self.full:
            put_vector_words(self.s.vregs, first, words.reshape(self.shape + (count,)))
        else:
            put_vector_words(self.s.vregs, first, words, lanes=(self.w, self.lane))


def load_words(rows: np.ndarray, signed: bool) -> np.ndarray:
    """Loaded bytes as register words: sub-word values zero- or sign-extended."""
    n = rows.shape[1]
    if n >= 4:
        return rows.view(U32)
    narrow = rows.view(np.int8 if n == 1 else np.int16) if signed else rows.view(np.uint8 if n == 1 else np.uint16)
    return narrow.astype(np.int64).astype(U32)


def store_bytes(value: np.ndarray, f: Field, n: int) -> np.ndarray:
    """The low n bytes of each lane's value, as rows."""
    words = as_word_rows(as_words(value, f.type), max(1, f.bits // 32), value.shape[:1])
    return np.ascontiguousarray(words).view(np.uint8).reshape(len(value), -1)[:, :n]


def exec_check(program: Program, instr: MInstr, fn: str, index: int) -> Callable[[Any, np.ndarray], None]:
    """Check instructions: nothing on the machine; under a checker, `value_checks` on the operand."""
    (i, operand), *_ = instr.uses()
    read = vector_reader(program, fn, operand, instr.field_of(i))
    if instr.op == "v_check_space_b64":
        aperture = int(instr.operands[1].value)

        def run(s: Any, sel: np.ndarray) -> None:
            if s.checker is not None and s.checker.on("casts"):
                value_checks.cast(s.checker, s, index, read(s), aperture, s.lanes & sel[:, None])
        return run

    def run(s: Any, sel: np.ndarray) -> None:
        if s.checker is not None and s.checker.on("division"):
            value_checks.division(s.checker, s, index, read(s), s.lanes & sel[:, None])
    return run


EXECUTORS: dict[str, Callable[[Program, MInstr, str, int], Callable[[Any, np.ndarray], None]]] = {
    "salu": exec_salu, "exec": exec_saveexec, "valu": exec_valu, "vcmp": exec_vcmp, "lane": exec_lane,
    "branch": exec_branch, "call": exec_call, "control": exec_control, "pseudo": exec_pseudo,
    "smem": exec_smem, "sscratch": exec_smem, "vmem": exec_vmem, "check": exec_check,
}


# -- one batch of work-groups --------------------------------------------------------------

class Batch:
    """The state of every wave of some work-groups (see the module docstring)."""

    def __init__(self, program: Program, groups: Sequence[tuple[int, int, int]], local_size: tuple[int, int, int],
                 waves_per_group: int, kernarg: int, local_bytes: int, private_bytes: int,
                 memory: GlobalMemory, checker: Checker | None = None,
                 global_size: tuple[int, int, int] = (0, 0, 0), global_offset: tuple[int, int, int] = (0, 0, 0)) -> None:
        width = program.config.wave_width
        nw = len(groups) * waves_per_group
        self.program, self.memory, self.width = program, memory, width
        self.checker = checker
        self.local_size, self.global_size, self.global_offset = local_size, global_size, global_offset
        self.waves_per_group = waves_per_group
        self.groups = list(groups)
        self.sregs = np.full((nw, program.size["s"]), UNDEFINED, U32)
        self.vregs = np.full(((program.size["v"] + 1) // 2, nw, width, 2), UNDEFINED, U32)
        self.scc = np.zeros(nw, bool)
        self.pc = np.zeros(nw, np.int64)
        self.status = np.full(nw, RUNNING, np.int8)
        self.group = np.repeat(np.arange(len(groups)), waves_per_group)
        self.local_bytes, self.private_bytes = local_bytes, private_bytes
        self.local = np.zeros(len(groups) * local_bytes + SINK_BYTES, np.uint8)
        self.private = np.zeros(nw * width * private_bytes + SINK_BYTES, np.uint8)
        self.lane_shift = np.arange(width, dtype=U64)
        self.all_waves, self.all_lanes = np.repeat(np.arange(nw), width), np.tile(np.arange(width), nw)
        linear = (np.arange(nw) % waves_per_group)[:, None] * width + np.arange(width)
        lx, ly, lz = local_size
        self.exec = np.zeros(nw, U64)
        self.lanes = linear < lx * ly * lz
        self.exec = self.pack(self.lanes)
        self.present = self.exec.copy()  # the lanes that hold a work-item
        self.full_mask = np.ones((nw, width), bool)  # `active` when every lane is on: writes skip the mask
        self.everyone = np.ones(nw, bool)  # the scheduler's selection when every wave steps: writes skip it
        self.active_key: tuple[Any, Any] = (None, None)  # (sel, lanes) of the cached `active` mask
        self.active_mask = self.full_mask
        self.arrived = np.zeros(nw, U64)  # the lanes on when each wave last reached a barrier (checks)
        self.writing = False  # whether the access being resolved writes (the checks say so)
        entry = KERNEL_ENTRY
        self.sregs[:, entry.kernarg.index:entry.kernarg.index + 2].view(U64)[:, 0] = kernarg
        for dim, reg in enumerate(entry.group_id):
            self.sregs[:, reg.index] = np.repeat(np.array([g[dim] for g in groups], U32), waves_per_group)
        self.sregs[:, entry.wave_id.index] = np.arange(nw) % waves_per_group
        self.sregs[:, entry.stack_pointer.index] = 0
        ids = (linear % lx, linear // lx % ly, linear // (lx * ly))
        for reg, values in zip(entry.local_id, ids):
            self.vregs[reg.index >> 1, :, :, reg.index & 1] = values
        self.epoch = np.zeros(len(groups), np.int64)  # barriers each group has passed (the race check's order)
        on = checker is not None and checker.on("uninitialized")
        self.shadow = uninit_checks.new_shadow(self) if on else None  # defined bits (the uninitialised check)
        if checker is not None:
            items, _, _ = work_items(self, self.all_waves, self.all_lanes)
            self.item_ids = items.reshape(nw, width)
            num = [g // max(1, l) for g, l in zip(global_size, local_size)]
            self.group_linear = np.array([x + num[0] * (y + num[1] * z) for x, y, z in groups], np.int64)

    def pack(self, lanes: np.ndarray) -> np.ndarray:
        """Per wave, the mask of its lanes (lane i: bit i)."""
        packed = np.packbits(lanes, axis=1, bitorder="little")  # (waves, width / 8) bytes, lane 0 first
        return packed.view(MASK_WORDS[self.width])[:, 0].astype(U64)

    def active(self, sel: np.ndarray) -> np.ndarray:
        """The lanes an instruction runs on: on in exec, in a selected wave; `full_mask` itself
        when that is every lane. Cached while the scheduler keeps the same `sel` and exec stays."""
        if self.active_key[0] is sel and self.active_key[1] is self.lanes:
            return self.active_mask
        mask = self.lanes & sel[:, None]
        self.active_mask = self.full_mask if mask.all() else mask
        self.active_key = (sel, self.lanes)
        return self.active_mask

    def set_exec(self, value: np.ndarray, sel: np.ndarray) -> None:
        limit = U64((1 << self.width) - 1) if self.width < 64 else U64(0xFFFFFFFFFFFFFFFF)
        np.copyto(self.exec, np.broadcast_to(value, self.exec.shape) & limit, where=sel)
        self.lanes = ((self.exec[:, None] >> self.lane_shift) & U64(1)).astype(bool)

    def error(self, index: int, message: str, wave: int, lane: int | None = None) -> SimError:
        d = self.program.code[index]
        from_ = f"wave {wave % self.waves_per_group} of work-group {self.groups[int(self.group[wave])]}"
        where = f"lane {lane} of {from_}" if lane is not None else from_
        return SimError(f"@{d.function}: '{format_short(d.instr)}' in {where}: {message}")

    def track(self, index: int, data: np.ndarray, offsets: np.ndarray, w: np.ndarray, lane: np.ndarray, n: int,
              write: bool) -> None:
        """Hand one piece of a checked access to the race check (not private memory, not the sink)."""
        assert self.checker is not None
        if data is self.local:
            race_checks.access(self.checker, self, index, "local", data, offsets,
                               offsets < len(data) - SINK_BYTES, w, lane, n, write)
        elif data is self.memory.data:
            race_checks.access(self.checker, self, index, "global", data, offsets, offsets >= SINK_BYTES,
                               w, lane, n, write)

    # -- addresses of each space as (byte array, offsets, rows of the access) --------------
    def resolve(self, index: int, space: str, w: np.ndarray, lane: np.ndarray, address: np.ndarray,
                offset: np.ndarray, n: int, write: bool) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        self.writing = write  # for the checks of the segment accesses below
        if space == "global":
            full = address.astype(U64) + offset.astype(U64)
            return [self.global_offsets(index, w, lane, full, n, write) + (np.arange(len(w)),)]
        if space == "local":
            return [self.local_offsets(index, w, lane, address.astype(np.int64) + offset, n) + (np.arange(len(w)),)]
        if space == "private":
            return [self.private_offsets(index, w, lane, address.astype(np.int64) + offset, n)
                    + (np.arange(len(w)),)]
        full = address.astype(U64) + offset.astype(U64)
        hi = (full >> U64(32)).astype(np.int64)
        low = (full & U64(0xFFFFFFFF)).astype(np.int64)
        pieces = []
        for which, make in ((hi == LOCAL_APERTURE_HI, "local"), (hi == PRIVATE_APERTURE_HI, "private"),
                            ((hi != LOCAL_APERTURE_HI) & (hi != PRIVATE_APERTURE_HI), "global")):
            rows = np.nonzero(which)[0]
            if not len(rows):
                continue
            if make == "global":
                data, offsets = self.global_offsets(index, w[rows], lane[rows], full[rows], n, write)
            elif make == "local":
                data, offsets = self.local_offsets(index, w[rows], lane[rows], low[rows], n)
            else:
                data, offsets = self.private_offsets(index, w[rows], lane[rows], low[rows], n)
            pieces.append((data, offsets, rows))
        return pieces

    def global_offsets(self, index: int, w: np.ndarray, lane: np.ndarray | None, address: np.ndarray, n: int,
                       write: bool) -> tuple[np.ndarray, np.ndarray]:
        offsets, ok = self.memory.locate(address, n, write)
        if self.checker is not None and self.checker.on("memory"):
            ok = memory_checks.global_access(self.checker, self, index, w, lane, address, n, write, ok)
            return self.memory.data, np.where(ok, offsets, 0)
        if not ok.all():
            bad = int(np.argmin(ok))
            message = self.memory.explain(int(address[bad]), n, write)
            raise self.error(index, message, int(w[bad]), None if lane is None else int(lane[bad]))
        return self.memory.data, offsets

    def local_offsets(self, index: int, w: np.ndarray, lane: np.ndarray, offset: np.ndarray,
                      n: int) -> tuple[np.ndarray, np.ndarray]:
        if self.checker is not None and self.checker.on("memory"):
            ok = memory_checks.segment_access(self.checker, self, index, "local", w, lane, offset, n,
                                              self.writing, self.local_bytes)
            return self.local, np.where(ok, self.group[w] * self.local_bytes + offset, len(self.local) - SINK_BYTES)
        bad = (offset < 0) | (offset + n > self.local_bytes)
        if bad.any():
            k = int(np.argmax(bad))
            raise self.error(index, f"{n}-byte local access at offset {int(offset[k]):#x} is outside the "
                                    f"work-group's {self.local_bytes} bytes", int(w[k]), int(lane[k]))
        return self.local, self.group[w] * self.local_bytes + offset

    def private_offsets(self, index: int, w: np.ndarray, lane: np.ndarray, offset: np.ndarray,
                        n: int) -> tuple[np.ndarray, np.ndarray]:
        if self.checker is not None and self.checker.on("memory"):
            ok = memory_checks.segment_access(self.checker, self, index, "private", w, lane, offset, n,
                                              self.writing, self.private_bytes)
            at = (w * self.width + lane) * self.private_bytes + offset
            return self.private, np.where(ok, at, len(self.private) - SINK_BYTES)
        bad = (offset < 0) | (offset + n > self.private_bytes)
        if bad.any():
            k = int(np.argmax(bad))
            raise self.error(index, f"{n}-byte private access at offset {int(offset[k]):#x} is outside the "
                                    f"lane's {self.private_bytes} bytes", int(w[k]), int(lane[k]))
        return self.private, (w * self.width + lane) * self.private_bytes + offset

    # -- scheduling -----------------------------------------------------------------------
    def run(self, stats: RunStats) -> None:
        """Step the lowest pc until every wave ends. While the selected waves are all the running
        ones (`lockstep`: one wave, or waves that never split), the next step is known without
        looking: the same waves at pc + 1, or at the one pc a branch sent them all to."""
        code = self.program.code
        runs = [d.plain if self.shadow is None and d.plain is not None else d.run for d in code]
        nw = len(self.pc)
        stats.waves += nw
        lockstep, pc, count = False, 0, 0
        sel = np.zeros(nw, bool)
        max_steps = self.program.config.max_steps
        while True:
            if not lockstep:
                running = self.status == RUNNING
                if not running.any():
                    if not self.release_barriers():
                        break
                    continue
                pc = int(np.where(running, self.pc, NO_PC).min())
                sel = running & (self.pc == pc)
                count = int(np.count_nonzero(sel))
                if count == nw:
                    sel = self.everyone
                lockstep = count == int(np.count_nonzero(running))
            if pc >= len(code):
                raise SimError(f"a wave ran past the end of the code (instruction {pc})")
            decoded, here = code[pc], pc
            runs[pc](self, sel)
            if not decoded.moves_pc:
                self.pc[sel] = pc + 1
                pc += 1
            elif decoded.stops or not lockstep:
                lockstep = False
            else:  # a branch, call or return: still together if every wave went to one place
                targets = self.pc[sel]
                first = int(targets[0])
                if count == 1 or (targets == first).all():
                    pc = first
                else:
                    lockstep = False
            stats.steps += 1
            stats.wave_instructions += count
            if stats.steps > max_steps:
                if self.checker is not None and self.checker.on("barriers"):
                    barrier_checks.out_of_steps(self.checker, self, here, sel, self.program.config.max_steps)
                    raise LaunchStopped()
                raise SimError(f"the kernel did not finish within {self.program.config.max_steps} steps")
            if decoded.barrier:
                self.release_barriers()

    def release_barriers(self) -> bool:
        """Let go the groups whose every wave waits at one barrier; False when none can go.
        Waves of a group waiting at different barriers, or waiting while another ended, are
        barrier divergence: an error."""
        per_group = self.status.reshape(-1, self.waves_per_group)
        pcs = self.pc.reshape(-1, self.waves_per_group)
        at_barrier = per_group == AT_BARRIER
        all_there = at_barrier.all(axis=1)
        same = (pcs == pcs[:, :1]).all(axis=1)
        split = all_there & ~same
        stuck = at_barrier.any(axis=1) & (per_group == DONE).any(axis=1) & ~(per_group == RUNNING).any(axis=1)
        if self.checker is not None and self.checker.on("barriers") and (split.any() or stuck.any()):
            barrier_checks.divergent_groups(self.checker, self, split, stuck)
            ended = np.repeat(split | stuck, self.waves_per_group)
            self.status[ended] = DONE  # the group cannot go on; the others do
            return True
        for bad in (split, stuck):
            if bad.any():
                g = int(np.argmax(bad))
                states = ", ".join(f"wave {k} {'ended' if st == DONE else f'waits at instruction {int(pc) - 1}'}"
                                   for k, (st, pc) in enumerate(zip(per_group[g], pcs[g])))
                raise SimError(f"barrier divergence in work-group {self.groups[g]}: {states}")
        ready = all_there & same
        self.epoch += ready
        if ready.any() and self.checker is not None and self.checker.on("barriers"):
            barrier_checks.released(self.checker, self, ready)
        if ready.any():
            self.status[np.repeat(ready, self.waves_per_group)] = RUNNING
            return True
        return False


class LaunchStopped(Exception):
    """A checked launch that cannot go on (reported already): the run ends there."""


def format_short(instr: MInstr) -> str:
    return instr.op + (" " + ", ".join(str(o) for o in instr.operands) if instr.operands else "")


# -- the launch ------------------------------------------------------------------------------

def group_ids(num_groups: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    nx, ny, nz = num_groups
    return [(x, y, z) for z in range(nz) for y in range(ny) for x in range(nx)]


def run_kernel(module: MModule | Program, kernel: str, memory: GlobalMemory, *,
               global_size: Sequence[int], local_size: Sequence[int], args: bytes = b"",
               global_offset: Sequence[int] = (0, 0, 0), local_bytes: int | None = None,
               private_bytes: int | None = None, printf_buffer: int = 0,
               config: SimConfig | None = None, checker: Checker | None = None,
               launch: Launch | None = None) -> RunStats:
    """Run `kernel` over the NDRange; `args` is the kernarg segment's explicit part. With a
    `checker`, the checks report what they find there instead of raising (`launch` names the
    arguments' buffers)."""
    program = module if isinstance(module, Program) else load_program(module, config or config_from_env())
    fn = program.module.function(kernel)
    if fn.kind != "kernel":
        raise SimError(f"@{kernel} is not a kernel")
    work_dim = len(global_size)
    gsize = tuple(global_size) + (1,) * (3 - work_dim)
    lsize = tuple(local_size) + (1,) * (3 - len(local_size))
    if any(g % l for g, l in zip(gsize, lsize)):
        raise SimError(f"global size {gsize} is not a multiple of the local size {lsize}")
    num_groups = tuple(g // l for g, l in zip(gsize, lsize))
    offset = tuple(global_offset) + (0,) * (3 - len(global_offset))
    hidden = pack_hidden(num_groups, work_dim, lsize, offset, printf_buffer)
    segment = bytearray(kernarg_size(len(args)))
    segment[: len(args)] = args
    segment[hidden_offset(len(args)):hidden_offset(len(args)) + len(hidden)] = hidden
    kernarg = memory.upload(bytes(segment), read_only=True, name=f"kernarg of @{kernel}")
    if checker is not None:
        launch = launch or Launch(kernel, program.near_locs)
        launch.kernarg = len(memory.buffers) - 1
        checker.start(launch)
    local_bytes = int(fn.attrs.get("local_bytes", 0)) if local_bytes is None else local_bytes
    private_bytes = default_private_bytes(program.module, fn) if private_bytes is None else private_bytes
    group_lanes = lsize[0] * lsize[1] * lsize[2]
    width = program.config.wave_width
    waves_per_group = -(-group_lanes // width)
    lanes = min(program.config.max_lanes, REGISTER_BYTES // (4 * program.size["v"]))  # many virtual registers
    per_batch = max(1, lanes // (waves_per_group * width))
    groups = group_ids(num_groups)
    stats = RunStats()
    try:
        for start in range(0, len(groups), per_batch):
            batch = Batch(program, groups[start:start + per_batch], lsize, waves_per_group, kernarg,
                          local_bytes, private_bytes, memory, checker, gsize, offset)
            batch.pc[:] = program.entry[kernel]  # waves start at their kernel, not at instruction 0
            with np.errstate(all="ignore"):
                batch.run(stats)
            stats.batches += 1
    except LaunchStopped:
        pass
    finally:
        memory.free(kernarg)
    return stats


def default_private_bytes(module: MModule, kernel: MFunction) -> int:
    """The kernel's `private_bytes` attribute, else room for every function's frame."""
    if "private_bytes" in kernel.attrs:
        return int(kernel.attrs["private_bytes"])
    return sum(frame_layout(fn)[1] for fn in module.functions)

