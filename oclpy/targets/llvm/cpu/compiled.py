"""What a compiled cpu program is at run time: kernels, their ABI facts, native code.

`CompiledKernel.launch` allocates one call's context, local memory and frames
(so concurrent calls share nothing; in guarded mappings of their own,
`guarded_memory.py`) and calls the native launcher through ctypes, which
releases the GIL, and the fault guard's trampoline (a kernel that faults fails
its launch: `fault_guard.py`). A freshly built program's native code is made
kernel by kernel, at each kernel's first launch (`NativeCode`, as PoCL defers
its work-group functions): `Program.build` runs the frontend, our passes and
LLVM IR emission and parsing (so bad source and invalid IR still fail the
build), and the first launch of a kernel runs LLVM's optimiser and code
generator on the module with only that kernel's launcher kept
(`launcher.only_launcher`), once: a program of many kernels that launches
one pays for one. `CpuProgram.when_compiled` tells whoever asks (the build
cache) each time a kernel's code appears. `program_entry` /
`program_from_record` turn a `CpuProgram` into JSON data plus bytes (each
compiled kernel's object code, and the LLVM IR while some kernel has none)
and back (the build cache, `compiler/cache.py`), checking every field of the
record on the way back.
"""

from __future__ import annotations

import ctypes
import functools
import struct
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from ...kernel_abi import (KernelArg, align_up, arg_record, args_from_record, checked_dict, checked_int,
                           checked_str, reqd_from_record, MAX_BLOB_BYTES, MAX_MEMORY_BYTES)
from .. import binding
from . import fault_guard, guarded_memory
from . import workitem as wi
from .generic import CTX_SLOTS, FRAMES_END_SLOT, LOCAL_END_SLOT
from .launcher import LOCAL_ALIGN, launcher_name, only_launcher


_LIBC = ctypes.CDLL(None)
CONTEXTS_KEPT = 64  # launch contexts a kernel keeps, by launch shape


def _aligned_buffer(nbytes: int, align: int = 64) -> tuple[np.ndarray | None, int]:
    """A zeroed byte buffer and the address inside it aligned to `align` (none for 0 bytes)."""
    if nbytes <= 0:
        return None, 0
    raw = np.zeros(nbytes + align, dtype=np.uint8)
    addr = raw.ctypes.data
    return raw, addr + (-addr) % align


# The launch context: cpu_workitem.py's slots, then cpu_generic.py's two, then the native
# launcher's address, which the fault guard's trampoline calls (fault_guard.py).
_CTX = struct.Struct(f"<{CTX_SLOTS}q")
_LAUNCHER = struct.Struct("<Q")


def _launch_words(work_dim: int, global_size: tuple[int, int, int],
                  local_size: tuple[int, int, int], global_offset: tuple[int, int, int],
                  groups: list[int], call: tuple[int, int, int, int, int, int]) -> bytes:
    """The context of one `launch` call (see cpu_workitem.py and cpu_generic.py for the slots)."""
    words = [0] * CTX_SLOTS
    words[wi.CTX_WORK_DIM] = work_dim
    words[wi.CTX_GLOBAL_SIZE:wi.CTX_GLOBAL_SIZE + 3] = global_size
    words[wi.CTX_LOCAL_SIZE:wi.CTX_LOCAL_SIZE + 3] = local_size
    words[wi.CTX_GLOBAL_OFFSET:wi.CTX_GLOBAL_OFFSET + 3] = global_offset
    words[wi.CTX_NUM_GROUPS:wi.CTX_NUM_GROUPS + 3] = groups
    local_mem, frames, begin, end, local_end, frames_end = call
    words[wi.CTX_LOCAL_MEM], words[wi.CTX_FRAMES] = local_mem, frames
    words[wi.CTX_GROUP_BEGIN], words[wi.CTX_GROUP_END] = begin, end
    words[LOCAL_END_SLOT], words[FRAMES_END_SLOT] = local_end, frames_end
    return _CTX.pack(*words)


def _address(data: bytes) -> int:
    """Where the bytes of `data` start (the object must outlive every use)."""
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0


class NativeCode:
    """A program's native code, compiled at first need by `get` (once, thread-safe).

    Made from a compile function (`binding.defer_ir`'s) or from ready native code
    (a program loaded from the disk cache). `when_ready` runs a callback once
    the code exists (the build cache stores the program then)."""

    def __init__(self, compile: Callable[[], binding.JitModule] | None = None,
                 ready: binding.JitModule | None = None) -> None:
        if (compile is None) == (ready is None):
            raise ValueError("NativeCode needs exactly one of a compile function and ready code")
        self._compile = compile
        self._jit = ready
        self._lock = threading.Lock()
        self._waiting: list[Callable[[], None]] = []
        self._failed: Exception | None = None

    @property
    def ready(self) -> bool:
        return self._jit is not None

    def get(self) -> binding.JitModule:
        """The native code, compiling it now if this is the first need."""
        if self._jit is not None:
            return self._jit
        with self._lock:
            if self._failed is not None:
                raise self._failed  # the one compile failed: every later need says why
            if self._jit is None:
                assert self._compile is not None
                try:
                    self._jit = self._compile()
                except Exception as exc:
                    self._failed = exc
                    raise
                self._compile = None
            waiting, self._waiting = self._waiting, []
        for callback in waiting:
            callback()
        return self._jit

    def when_ready(self, callback: Callable[[], None]) -> None:
        """Call `callback` once the native code exists (now, if it does)."""
        with self._lock:
            if self._jit is None:
                self._waiting.append(callback)
                return
        callback()


@dataclass
class CompiledKernel:
    name: str
    args: list[KernelArg]
    blob_size: int
    reqd_work_group_size: tuple[int, int, int] | None
    static_local_bytes: int
    frame_size: int  # bytes per work-item frame (0 without barriers)
    uses_printf: bool = False
    _native: Any = field(repr=False, default=None)  # called with (blob, context): fault_guard.py
    _launcher: int = field(repr=False, default=0)  # the native launcher's address, once it exists
    _jit: Any = field(repr=False, default=None)  # keeps the native code alive
    _code: NativeCode | None = field(repr=False, default=None)  # compiles it at first launch
    _contexts: dict[tuple, bytes] = field(repr=False, default_factory=dict)  # by launch shape
    private_bytes: int = 0  # the work-item's private arrays (allocas): the stack it needs
    quick_shapes: dict[int, Any] = field(repr=False, default_factory=dict)  # the driver's: see drivers/cpu.py

    @property
    def compiled(self) -> bool:
        """Whether this kernel's native code exists (launched, or from the cache)."""
        return self._code is not None and self._code.ready

    def _compile_native(self) -> None:
        """Make the kernel's native code, at its first launch (on every thread that launches
        it first at once: NativeCode compiles it once and the others wait for it)."""
        native = self._code.get()  # type: ignore[union-attr]
        address = native.address_of(launcher_name(self.name))
        if not address:
            raise binding.LLVMError(f"native code has no launcher for '{self.name}'")
        self._jit, self._native = native, launch_function(address)
        self._launcher = address  # last: a thread that sees it sees the launcher to call too

    def local_bytes(self, blob: bytes) -> int:
        """The local memory one work-group of this launch needs."""
        total = self.static_local_bytes
        for arg in self.args:
            if arg.kind == "local":
                size = int.from_bytes(blob[arg.offset:arg.offset + 8], "little")
                total = align_up(total, LOCAL_ALIGN) + size
        return total

    def launch(self, blob: bytes, work_dim: int, global_size: tuple[int, int, int],
               local_size: tuple[int, int, int], global_offset: tuple[int, int, int],
               group_begin: int, group_end: int) -> None:
        """Run work-groups [group_begin, group_end); thread-safe, releases the GIL."""
        if not self._launcher:
            self._compile_native()  # before any context is made: each holds its address
        if type(blob) is not bytes:
            blob = bytes(blob)  # immutable: the native code reads it in place
        if len(blob) < self.blob_size:
            raise ValueError(f"{self.name}: argument blob has {len(blob)} bytes, "
                             f"expected {self.blob_size}")
        shape = (work_dim, tuple(global_size), tuple(local_size), tuple(global_offset),
                 group_begin, group_end)
        context = self._contexts.get(shape)
        if context is None:
            self._check_shape(shape[1], shape[2])
            if self._needs_call_memory:
                self._launch_with_call_memory(blob, shape)
                return
            context = self._remember_context(shape, self._context(shape, (0, 0, 0, 0)))
        self._call_native(blob, context)

    def _launch_with_call_memory(self, blob: bytes, shape: tuple) -> None:
        """A launch whose work-groups need `__local` memory or barrier frames: fresh per call,
        so concurrent calls share nothing."""
        local_size = shape[2]
        local_n = self.local_bytes(blob) if self._has_local_args else self.static_local_bytes
        frames_n = self.frame_size * local_size[0] * local_size[1] * local_size[2]
        local = frames = None
        try:
            local, frames = guarded_memory.acquire(local_n), guarded_memory.acquire(frames_n)
            local_addr = local.address if local is not None else 0
            frames_addr = frames.address if frames is not None else 0
            context = self._context(shape, (local_addr, frames_addr, local_addr + local_n,
                                            frames_addr + frames_n))
            self._call_native(blob, context)
        finally:
            guarded_memory.release(local)
            guarded_memory.release(frames)

    def _call_native(self, blob: bytes, context: bytes) -> None:
        """Run the native launcher; the blob is passed in place when aligned enough."""
        if self._blob_align > 8 and _address(blob) % self._blob_align:
            raw, base = _aligned_buffer(len(blob), self._blob_align)
            ctypes.memmove(base, blob, len(blob))
            fault = self._native(base, context)
        else:  # any allocator aligns bytes data to 8
            fault = self._native(blob, context)
        if self.uses_printf:
            _LIBC.fflush(None)  # C's stdout buffer, so output appears in launch order
        if fault:
            raise fault_guard.fault_error(self.name, fault)

    def _check_shape(self, global_size: tuple[int, int, int],
                     local_size: tuple[int, int, int]) -> None:
        if any(g % max(l, 1) for g, l in zip(global_size, local_size)):
            raise ValueError(f"{self.name}: global size {global_size} is not a multiple "
                             f"of local size {local_size}")

    def _context(self, shape: tuple, memory: tuple[int, int, int, int]) -> bytes:
        """The launch context of `shape` with call memory (local, frames, their ends)."""
        work_dim, global_size, local_size, global_offset, begin, end = shape
        groups = [g // max(l, 1) for g, l in zip(global_size, local_size)]
        local_mem, frames, local_end, frames_end = memory
        return _launch_words(work_dim, global_size, local_size, global_offset, groups,
                             (local_mem, frames, begin, end, local_end, frames_end)) \
            + _LAUNCHER.pack(self._launcher)

    def _remember_context(self, shape: tuple, context: bytes) -> bytes:
        """Keep a context that holds no per-call memory for the next launch of `shape`
        (the native code only reads it, so concurrent launches may share it)."""
        if len(self._contexts) >= CONTEXTS_KEPT:
            self._contexts.clear()
        self._contexts[shape] = context
        return context

    @functools.cached_property
    def _needs_call_memory(self) -> bool:
        return bool(self.static_local_bytes or self._has_local_args or self.frame_size)

    @functools.cached_property
    def _has_local_args(self) -> bool:
        return any(a.kind == "local" for a in self.args)

    @functools.cached_property
    def _blob_align(self) -> int:
        """The alignment the blob needs: 8, or a by-value argument's own (float4: 16)."""
        sizes = [a.size for a in self.args if a.kind == "scalar"]
        return max([8] + [min(1 << (n - 1).bit_length(), 128) for n in sizes if n > 8])


@dataclass
class CpuProgram:
    """A program's kernels, each with its own native code (`CompiledKernel._code`).

    `llvm_ir` is the module as emitted (empty for a program from the cache);
    `_whole` compiles all of it at once, only for inspection (`optimized_llvm_ir`,
    `asm`); `_ir` is what a kernel still without native code compiles from, with
    `_codegen` (LLVM's level, the CPU and its features).

    A program with writable program-scope variables (`variables`: OpenCL C 2.0
    `global int g;`) has one native module, `_whole`, that all its kernels share,
    so that they share the variables, which live in that module's data; each
    build of it runs a `program_instance` of its own."""

    kernels: dict[str, CompiledKernel]
    llvm_ir: str
    _whole: NativeCode | None = field(repr=False, default=None)
    _ir: str = field(repr=False, default="")
    _codegen: tuple[int, str, str] = field(repr=False, default=(3, "", ""))
    variables: bool = False

    @property
    def compiled(self) -> bool:
        """Whether native code exists for any kernel yet (after a first launch, or from
        the cache)."""
        return any(k.compiled for k in self.kernels.values())

    @property
    def _jit(self) -> binding.JitModule | None:
        return self._whole.get() if self._whole is not None else None

    @property
    def optimized_llvm_ir(self) -> str:
        """The whole module optimised (compiled now, apart from the kernels' own code)."""
        jit = self._jit
        return jit.optimized_ir if jit is not None else ""

    def asm(self) -> str:
        jit = self._jit
        return jit.asm() if jit is not None else ""

    def compile_kernels(self, names: Iterable[str] | None = None) -> None:
        """Make the native code of the kernels `names` (default: all) now, as a first
        launch of each would."""
        for name in self.kernels if names is None else names:
            code = self.kernels[name]._code
            if code is not None:
                code.get()

    def when_compiled(self, callback: Callable[[], None]) -> None:
        """Call `callback` each time a kernel's native code comes to exist from now on."""
        for kernel in self.kernels.values():
            if kernel._code is not None and not kernel._code.ready:
                kernel._code.when_ready(callback)


def program_instance(program: CpuProgram) -> CpuProgram:
    """`program` as one build's own: `program` itself when it has no writable program-scope
    variables (its kernels and native code are shared by every build); else a copy whose
    kernels share a native module of their own, loaded at their first launch from the
    object code of `program`'s (compiled then, once for all copies), so its variables
    start from their initializers and no other copy sees them. The copy is never cached:
    `program` stays the build cache's."""
    template = program._whole
    if not program.variables or template is None:  # None: a cached program of no kernel
        return program

    def load() -> binding.JitModule:
        native = template.get()
        return binding.load_object(native.object_code, native.optimized_ir)

    code = NativeCode(load)
    kernels = {name: CompiledKernel(k.name, k.args, k.blob_size, k.reqd_work_group_size,
                                    k.static_local_bytes, k.frame_size, k.uses_printf, _code=code,
                                    private_bytes=k.private_bytes)
               for name, k in program.kernels.items()}
    return CpuProgram(kernels, program.llvm_ir, code, program._ir, program._codegen, True)


# -- the build cache's view of a program (compiler/cache.py) --------------------------

KERNEL_KEYS = ("args", "blob_size", "reqd", "static_local_bytes", "frame_size", "uses_printf",
               "private_bytes", "object")
PROGRAM_KEYS = ("kernels", "ir", "codegen", "variables")
MAX_IR_BYTES = 1 << 28


def program_entry(program: CpuProgram) -> tuple[dict[str, Any], bytes]:
    """(JSON data, bytes) that `program_from_record` turns back into `program`: the
    object code of each kernel compiled so far, and the LLVM IR while some kernel
    has none (it compiles from that after a load), and whether the program has
    writable program-scope variables (its kernels then share one module). Compiles nothing."""
    parts: list[bytes] = []
    at = 0
    placed: dict[int, list[int]] = {}  # kernels sharing one native module share its bytes

    def place(data: bytes) -> list[int]:
        nonlocal at
        parts.append(data)
        at += len(data)
        return [at - len(data), len(data)]

    def object_span(code: NativeCode) -> list[int]:
        if id(code) not in placed:
            placed[id(code)] = place(code.get().object_code)
        return placed[id(code)]

    kernels = {}
    for name, k in program.kernels.items():
        ready = object_span(k._code) if k.compiled else None  # type: ignore[arg-type]
        kernels[name] = {
            "args": [arg_record(a) for a in k.args], "blob_size": k.blob_size,
            "reqd": list(k.reqd_work_group_size or ()) or None,
            "static_local_bytes": k.static_local_bytes, "frame_size": k.frame_size,
            "uses_printf": k.uses_printf, "private_bytes": k.private_bytes,
            "object": ready}
    missing = any(v["object"] is None for v in kernels.values())
    if missing and not program._ir:
        raise ValueError("a kernel has no object code and the program no LLVM IR")
    ir = place(program._ir.encode()) if missing else None
    codegen = list(program._codegen) if missing else None  # only what compiles from the IR needs it
    return {"kernels": kernels, "ir": ir, "codegen": codegen, "variables": program.variables}, b"".join(parts)


def _span(value: Any, total: int, limit: int, what: str) -> tuple[int, int] | None:
    """An [offset, length] inside bytes of `total` (None stays None)."""
    if value is None:
        return None
    if type(value) is not list or len(value) != 2:
        raise ValueError(f"{what}: not [offset, length]")
    start = checked_int(value[0], 0, total, f"{what} offset")
    length = checked_int(value[1], 1, min(limit, total - start), f"{what} length")
    return start, start + length


def _kernel_from_record(name: str, data: Any, total: int) -> tuple[list[KernelArg], tuple]:
    k = checked_dict(data, KERNEL_KEYS, f"kernel {name[:40]!r}")
    blob_size = checked_int(k["blob_size"], 0, MAX_BLOB_BYTES, "blob size")
    if type(k["uses_printf"]) is not bool:
        raise ValueError("uses_printf: not a bool")
    facts = (blob_size, reqd_from_record(k["reqd"]),
             checked_int(k["static_local_bytes"], 0, MAX_MEMORY_BYTES, "static local bytes"),
             checked_int(k["frame_size"], 0, MAX_MEMORY_BYTES, "frame size"), k["uses_printf"],
             checked_int(k["private_bytes"], 0, MAX_MEMORY_BYTES, "private bytes"),
             _span(k["object"], total, total, "object code"))
    return args_from_record(k["args"], blob_size), facts


def _codegen_from_record(value: Any) -> tuple[int, str, str] | None:
    if value is None:
        return None
    if type(value) is not list or len(value) != 3:
        raise ValueError("codegen: not [level, cpu, features]")
    return (checked_int(value[0], 0, 3, "LLVM level"), checked_str(value[1], "cpu"),
            checked_str(value[2], "features"))


def program_from_record(record: Any, blob: bytes) -> CpuProgram:
    """The program `program_entry` described: each kernel's native code loaded from
    its object code, or compiled from the stored LLVM IR at its first launch (for a
    program with program-scope variables, one module for all its kernels: loaded or
    compiled whole, never kernel by kernel, which would give each kernel variables of
    its own).

    Every field is checked before any object code is loaded: ValueError on a
    malformed record, binding.LLVMError on object code LLVM refuses."""
    data = checked_dict(record, PROGRAM_KEYS, "program record")
    if type(data["kernels"]) is not dict:
        raise ValueError("program record: kernels is not an object")
    if type(data["variables"]) is not bool:
        raise ValueError("program record: variables is not a bool")
    variables = data["variables"]
    codegen = _codegen_from_record(data["codegen"])
    facts = {checked_str(name, "kernel name"): _kernel_from_record(name, k, len(blob))
             for name, k in data["kernels"].items()}
    ir_span = _span(data["ir"], len(blob), MAX_IR_BYTES, "LLVM IR")
    ir = blob[ir_span[0]:ir_span[1]].decode() if ir_span else ""
    spans = {f[1][6] for f in facts.values()}
    if (not ir or codegen is None) and None in spans:
        raise ValueError("program record: a kernel has no object code and there is no LLVM IR to compile")
    if variables and len(spans) > 1:
        raise ValueError("program record: the kernels of a program with program-scope variables "
                         "do not share one module")
    whole = None
    if variables and spans == {None} and codegen is not None:  # (checked above: there is IR)
        whole = NativeCode(binding.compile_later(ir, *codegen))
    kernels = {}
    loaded: dict[tuple[int, int], NativeCode] = {}  # one native module per span, shared
    for name, (args, (blob_size, reqd, static_local, frame, printf, private, span)) in facts.items():
        if span is not None:
            if span not in loaded:
                loaded[span] = NativeCode(ready=binding.load_object(blob[span[0]:span[1]]))
            native = loaded[span].get()
            address = native.address_of(launcher_name(name))
            if not address:
                raise ValueError(f"cached object code has no launcher for '{name}'")
            kernels[name] = CompiledKernel(name, args, blob_size, reqd, static_local, frame, printf,
                                           launch_function(address), address, native, loaded[span],
                                           private_bytes=private)
        else:
            code = whole or NativeCode(kernel_compiler(ir, name, list(facts), codegen))
            kernels[name] = CompiledKernel(name, args, blob_size, reqd, static_local, frame, printf,
                                           _code=code, private_bytes=private)
    if variables and loaded:
        whole = next(iter(loaded.values()))
    return CpuProgram(kernels, "", whole, ir, codegen or (3, "", ""), variables)


def kernel_compiler(ir: str, kernel: str, kernels: list[str],
                    codegen: tuple[int, str, str]) -> Callable[[], binding.JitModule]:
    """What compiles `kernel` alone out of the program's LLVM IR `ir` (verified already)
    at `codegen`'s LLVM level for its CPU, when called."""
    text = only_launcher(ir, kernel, kernels) if len(kernels) > 1 else ir
    return binding.compile_later(text, *codegen)


def launch_function(address: int) -> Any:
    """The native launcher at `address` as a ctypes function (blob, context), called through
    the fault guard (whose trampoline finds the launcher's address in the context): it
    answers the signal number when the kernel faulted."""
    return fault_guard.guarded_launcher(address)
