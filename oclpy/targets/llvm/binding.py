"""The one module that touches `llvmlite.binding`: LLVM IR text in, native code or PTX out.

Everything else in the LLVM targets builds `llvmlite.ir` objects and hands their
text here (the seam between IR building and native bindings is text, as in
llvmlite's own split). This module owns:

- LLVM's process-wide state: initialisation, the lock every use holds, options;
- target machines: the host's (triple, CPU name and features, data layout)
  and NVPTX's (`nvptx64-nvidia-cuda`, an `sm_XY` architecture);
- parsing and verifying LLVM IR text (`LLVMError` when LLVM refuses it);
- optimisation with LLVM's new pass manager (`PassBuilder` at O0..O3; for the
  cpu with loop and SLP vectorisation (no SLP for huge functions,
  `huge_functions.py`), and the outer-loop vectoriser for loops that ask for
  it, `cpu/outer.py`);
- cpu code generation to object code (huge basic blocks cut first,
  `split_blocks.py`), loaded into an MCJIT engine kept alive
  by `JitModule`, and symbol lookup (past a few hundred optimisations, in a
  helper process: `llvm_helper.py` says why); `defer_ir` splits it: parse and verify
  now, optimise and compile later; loading object code back into a fresh
  engine (`load_object`, the build cache);
- NVPTX: linking libdevice bitcode, optimising, emitting PTX (`emit_ptx`);
- refusing object code that calls a symbol the process lacks
  (`check_resolvable`, with `object_symbols.py`): an LLVMError, not a crash;
  the runtime-library routines `jit_runtime.py` writes are compiled and
  registered instead, at their first need;
- assembly emission for inspection (`oclpy build --emit asm`),
- making the C math library's symbols visible to JIT code.
"""

from __future__ import annotations

import ctypes.util
import os
import re
import sys
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import llvmlite
import llvmlite.binding as llvm

from . import jit_runtime, llvm_helper, object_symbols
from .huge_functions import slp_vectorization
from .split_blocks import split_huge_blocks

NVPTX_TRIPLE = "nvptx64-nvidia-cuda"


class LLVMError(Exception):
    """LLVM rejected the IR we generated: always a compiler bug, reported as such."""


# LLVM's global context is not thread-safe: every use of it holds this lock.
_lock = threading.RLock()
_state: dict[str, object] = {}


def versions() -> str:
    """llvmlite's and LLVM's versions (part of the compiler version the build cache keys on)."""
    return f"llvmlite {llvmlite.__version__} llvm {llvm.llvm_version_info}"


def _init() -> None:
    """Initialise the native target once per process (idempotent, thread-safe)."""
    with _lock:
        if _state.get("ready"):
            return
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.set_option("oclpy", "-enable-vplan-native-path")  # outer loops with the hint only
        _load_libm()
        _state["ready"] = True


def report_remarks(passes: str = "loop-vectorize") -> None:
    """From now on, in this process, LLVM prints its optimisation remarks (vectorised,
    missed, analysis) of the passes matching regex `passes` to stderr, the remarks about
    declined vectorisation hints included (an inspection tool's switch:
    `benchmarks/real/evidence.py`). LLVM keeps options for the process's life."""
    _init()
    with _lock:
        for kind in ("", "-missed", "-analysis"):
            llvm.set_option("oclpy", f"-pass-remarks{kind}={passes}")
        _state["remarks"] = True


def _init_nvptx() -> None:
    with _lock:
        if not _state.get("nvptx"):
            llvm.initialize_all_targets()
            llvm.initialize_all_asmprinters()
            _state["nvptx"] = True


def _load_libm() -> None:
    """Make the C math library's symbols visible to JIT code."""
    for name in ("libm.so.6", "libm.dylib"):
        try:
            llvm.load_library_permanently(name)
            return
        except RuntimeError:
            continue
    libm = ctypes.util.find_library("m")  # slow (may run a subprocess): only as a fallback
    if libm:
        llvm.load_library_permanently(libm)


# -- the host ------------------------------------------------------------------------

def host_cpu() -> tuple[str, str]:
    """The host CPU's LLVM name and feature string (`znver4`, `+avx2,+fma,...`), cached."""
    if "host_cpu" not in _state:
        _init()
        _state["host_cpu"] = (llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())
    return _state["host_cpu"]  # type: ignore[return-value]


def host_target_machine(opt: int = 3, cpu: str = "", features: str = "") -> llvm.TargetMachine:
    """A target machine for the host (or the named CPU and features), for JIT code."""
    _init()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    if not cpu:
        cpu, features = host_cpu()
    return target.create_target_machine(cpu=cpu, features=features,
                                        opt=opt, reloc="default", codemodel="jitdefault",
                                        jit=True)


def host_triple() -> str:
    _init()
    return llvm.get_process_triple()


def host_data_layout() -> str:
    """The host's LLVM data layout string (what `llvmlite.ir.Module.data_layout` wants)."""
    if "host_layout" not in _state:
        _state["host_layout"] = str(host_target_machine().target_data)
    return _state["host_layout"]  # type: ignore[return-value]


def parse_and_verify(text: str) -> llvm.ModuleRef:
    """Parse LLVM IR text and run LLVM's verifier; raise LLVMError on failure."""
    _init()
    try:
        mod = llvm.parse_assembly(text)
        mod.verify()
    except RuntimeError as exc:
        raise LLVMError(f"invalid LLVM IR generated: {exc}") from exc
    return mod


def optimize(mod: llvm.ModuleRef, tm: llvm.TargetMachine, level: int = 3, slp: bool = True) -> None:
    """Run LLVM's default per-module pipeline at -O`level` (vectorisers on from O2; the
    SLP vectoriser only with `slp`, `huge_functions.py`)."""
    if level <= 0:
        return
    pto = llvm.create_pipeline_tuning_options(speed_level=level)
    pto.loop_vectorization = level >= 2
    pto.slp_vectorization = level >= 2 and slp
    pto.loop_unrolling = level >= 2
    pb = llvm.create_pass_builder(tm, pto)
    pm = pb.getModulePassManager()
    with _without_declined_hint_diagnostics():
        pm.run(mod, pb)


_DECLINED_HINT = re.compile(rb"^(remark|warning): <unknown>:0:0: loop not vectorized\b")


@contextmanager
def _without_declined_hint_diagnostics() -> Iterator[None]:
    """Drop LLVM's stderr lines about an `llvm.loop.vectorize.enable` it declined.

    LLVM prints every hinted loop it could not vectorise, with its reasons,
    straight to file descriptor 2, and llvmlite offers no diagnostic handler.
    The cpu target gives the hint where LLVM's own checks decide
    (`cpu/outer.py`), so a declined hint is expected, not news. Anything
    else written to stderr meanwhile, from any thread, is written again
    afterwards. After `report_remarks`, nothing is dropped."""
    if _state.get("remarks"):
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            kept = [line for line in captured.read().splitlines(keepends=True)
                    if not _DECLINED_HINT.match(line)]
            if kept:
                os.write(2, b"".join(kept))


@dataclass
class JitModule:
    """Native code for one LLVM module, alive as long as this object is."""

    engine: llvm.ExecutionEngine
    target_machine: llvm.TargetMachine
    optimized_ir: str
    object_code: bytes = b""
    _addresses: dict[str, int] = field(default_factory=dict)

    def address_of(self, name: str) -> int:
        """The native address of function `name` (0 when it does not exist)."""
        if name not in self._addresses:
            self._addresses[name] = self.engine.get_function_address(name)
        return self._addresses[name]

    def asm(self) -> str:
        """The module's native assembly, for inspection."""
        with _lock:
            return self.target_machine.emit_assembly(parse_and_verify(self.optimized_ir))


@contextmanager
def _parsed(text: str) -> Iterator[llvm.ModuleRef]:
    """LLVM IR `text` parsed and verified (LLVMError else) in an LLVM context of its own,
    both freed on leaving, the module first (the caller holds `_lock`).

    Types, constants and metadata strings uniqued in the global context stay for
    the process's life (about 5 KiB a program, by `tools/memory_growth.py`'s build
    mode). The module is closed here, never left to the garbage collector, which
    may free a context before a module of it when both are in a cycle."""
    _init()
    context = llvm.create_context()
    mod = None
    try:
        try:
            mod = llvm.parse_assembly(text, context=context)
            mod.verify()
        except RuntimeError as exc:
            raise LLVMError(f"invalid LLVM IR generated: {exc}") from exc
        yield mod
    finally:
        if mod is not None:
            mod.close()


def compile_ir(text: str, opt_level: int = 3) -> JitModule:
    """Parse, verify, optimise and JIT-compile LLVM IR text for the host CPU.

    Serialised process-wide (LLVM's global context is shared); the native code
    it returns may be run from any number of threads at once."""
    with _lock:
        return _compile_module(text, opt_level, "", "")


def verify_ir(text: str) -> None:
    """Parse and verify LLVM IR text now (LLVMError when LLVM refuses it), keeping nothing."""
    with _lock, _parsed(text):
        pass


def defer_ir(text: str, opt_level: int = 3, cpu: str = "",
             features: str = "") -> Callable[[], JitModule]:
    """Parse and verify LLVM IR text now (LLVMError now), optimise and compile later.

    The function returned does the rest of `compile_ir` when called (once); the
    cpu target calls it at a program's first launch, so `Program.build` pays
    only for parsing. Nothing parsed is kept meanwhile: the text is parsed
    again then (here, or in the helper process). `cpu` and `features` name the
    CPU to generate code for (empty: the host's)."""
    verify_ir(text)
    return compile_later(text, opt_level, cpu, features)


def compile_later(text: str, opt_level: int = 3, cpu: str = "",
                  features: str = "") -> Callable[[], JitModule]:
    """A function that optimises and compiles LLVM IR `text` (verified already, by
    `verify_ir`) when called, once."""
    taken: list[bool] = []

    def compile_now() -> JitModule:
        with _lock:
            if taken:
                raise LLVMError("deferred LLVM module compiled twice")
            taken.append(True)
            return _compile_module(text, opt_level, cpu, features)
    return compile_now


def _compile_module(text: str, opt_level: int, cpu: str, features: str) -> JitModule:
    """Optimise LLVM IR `text`, generate object code, and load it (the caller holds
    `_lock`): here, or past `llvm_helper.IN_PROCESS_RUNS` runs in the
    helper process, where what llvmlite keeps of each optimisation is given back
    (`llvm_helper.py`)."""
    found = _in_helper(opt_level, "object", text, opt_level, cpu, features)
    if found is None:
        with _parsed(text) as mod:
            found = _optimize_and_emit(mod, opt_level, cpu, features, slp_vectorization(text))
    return _load_object(found[1], found[0])


def _in_helper(opt_level: int, kind: str, *args: Any) -> tuple | None:
    """The helper process's answer to a request (the caller holds `_lock`), when this
    optimisation goes there (`llvm_helper.use_helper`; -O0 never does); None when
    it is to run here."""
    runs = _state.get("optimisations", 0) if opt_level > 0 else None
    if runs is None:
        return None
    _state["optimisations"] = runs + 1  # type: ignore[operator]
    if not llvm_helper.use_helper(runs):  # type: ignore[arg-type]
        return None
    helper = _state.get("helper")
    if helper is None:
        helper = _state["helper"] = llvm_helper.Helper()
    try:
        return helper.request(kind, *args)  # type: ignore[union-attr]
    except llvm_helper.HelperUnavailable:
        return None  # optimised here, as by a process that never needed a helper
    except llvm_helper.HelperError as exc:
        raise LLVMError(f"LLVM failed in the helper process: {exc}") from exc


def _optimize_and_emit(mod: llvm.ModuleRef, opt_level: int, cpu: str, features: str,
                       slp: bool = True) -> tuple[str, bytes]:
    """(optimised IR, object code) of a parsed module (the caller holds `_lock`), SLP
    vectorised only with `slp`.

    One target machine per (level, CPU) does all code generation (it builds its
    subtarget once); `_load_object` then loads the object code into a fresh
    engine with a fresh target machine. An engine that JIT-compiles from IR
    keeps the module and the code generator's subtarget alive, about 0.85 MB
    for a small kernel; one loaded from object code holds about 50 KB
    (measured by holding 200 compiled programs)."""
    tm = _codegen_machine(min(max(opt_level, 0), 3), cpu, features)
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    optimize(mod, tm, opt_level, slp)
    text = str(mod)
    split, cuts = split_huge_blocks(text)  # code generation linear in a block's size
    return text, tm.emit_object(parse_and_verify(split) if cuts else mod)


def serve_helper() -> None:
    """The helper process's main loop (`llvm_helper.py`): optimise and emit what it is sent."""
    def handle(text: str, opt_level: int, cpu: str, features: str) -> tuple[str, bytes]:
        with _lock, _parsed(text) as mod:
            return _optimize_and_emit(mod, opt_level, cpu, features, slp_vectorization(text))

    def handle_ptx(text: str, arch: str, features: str, opt_level: int, llvm_options: list[str],
                   reset_options: list[str], function_attrs: list[str], libdevice: str | None,
                   keep: list[str]) -> tuple[str, str]:
        with _lock:
            return _emit_ptx_here(text, arch, features, opt_level, llvm_options, reset_options,
                                  function_attrs, libdevice, set(keep))
    llvm_helper.serve({"object": handle, "ptx": handle_ptx})


def _codegen_machine(opt: int, cpu: str, features: str) -> llvm.TargetMachine:
    """The process's code-generating target machine for -O`opt` on `cpu` (the caller holds `_lock`)."""
    key = f"codegen_tm {opt} {cpu} {features}"
    if key not in _state:
        _state[key] = host_target_machine(opt, cpu, features)
    return _state[key]  # type: ignore[return-value]


def load_object(object_code: bytes, optimized_ir: str = "") -> JitModule:
    """Native code from object code that `compile_ir` produced in this or another process.

    Raises LLVMError when LLVM cannot load it (a corrupt or foreign object)."""
    with _lock:
        return _load_object(object_code, optimized_ir)


def _load_object(object_code: bytes, optimized_ir: str) -> JitModule:
    check_resolvable(object_code)
    tm = host_target_machine()  # the engine owns it
    empty = llvm.parse_assembly("")
    empty.triple = tm.triple
    empty.data_layout = str(tm.target_data)
    engine = llvm.create_mcjit_compiler(empty, tm)
    try:
        engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
        engine.finalize_object()
    except RuntimeError as exc:
        raise LLVMError(f"cannot load object code: {exc}") from exc
    return JitModule(engine, tm, optimized_ir, object_code)


def check_resolvable(object_code: bytes) -> None:
    """Raise LLVMError naming each symbol `object_code` needs that this process cannot
    give the JIT (MCJIT would make each call of it a jump to a bad address), after
    providing those `jit_runtime` defines (the caller holds `_lock`)."""
    _init()
    missing = [name for name in object_symbols.undefined_symbols(object_code) or ()
               if not llvm.address_of_symbol(name)]
    ours = [name for name in missing if name in jit_runtime.ROUTINES]
    if ours:
        _provide_runtime(ours)
        missing = [name for name in missing if name not in ours]
    if missing:
        names = ", ".join(f"'{name}'" for name in missing)
        raise LLVMError(f"native code calls {names}, which no library loaded in this process defines")


def _provide_runtime(names: list[str]) -> None:
    """Compile `jit_runtime`'s routines `names` for the host and register their
    addresses with the JIT, for the life of the process (the caller holds `_lock`)."""
    tm = _codegen_machine(3, "", "")
    text = jit_runtime.module_text(names, tm.triple, str(tm.target_data))
    with _parsed(text) as mod:
        optimized, obj = _optimize_and_emit(mod, 3, "", "")
    native = _load_object(obj, optimized)
    _state.setdefault("runtime", []).append(native)  # type: ignore[union-attr]
    for name in names:
        llvm.add_symbol(name, native.address_of(name))


# -- NVPTX ---------------------------------------------------------------------------

def nvptx_target_machine(arch: str, features: str, opt: int = 3) -> llvm.TargetMachine:
    _init_nvptx()
    target = llvm.Target.from_triple(NVPTX_TRIPLE)
    return target.create_target_machine(cpu=arch, features=features, opt=opt)


def nvptx_data_layout(arch: str, features: str) -> str:
    key = f"nvptx_layout {arch} {features}"
    if key not in _state:
        with _lock:
            _state[key] = str(nvptx_target_machine(arch, features).target_data)
    return _state[key]  # type: ignore[return-value]


def _libdevice_bitcode(path: str) -> bytes:
    """libdevice with every function `linkonce_odr`, so linking brings in only what
    the kernel calls (parsed and rewritten once per process; the caller holds `_lock`)."""
    key = f"libdevice {path}"
    data = _state.get(key)
    if data is None:
        with open(path, "rb") as f:
            lib = llvm.parse_bitcode(f.read())
        for fn in lib.functions:
            if not fn.is_declaration:
                fn.linkage = llvm.Linkage.linkonce_odr
        data = _state[key] = lib.as_bitcode()
    return data  # type: ignore[return-value]


def _link_libdevice(mod: llvm.ModuleRef, path: str, keep: set[str]) -> None:
    """Link the libdevice functions `mod` calls and make everything but `keep` internal."""
    lib = llvm.parse_bitcode(_libdevice_bitcode(path))
    lib.triple = mod.triple
    lib.data_layout = mod.data_layout
    mod.link_in(lib)
    for fn in mod.functions:
        if not fn.is_declaration and fn.name not in keep:
            fn.linkage = llvm.Linkage.internal


def _optimize_nvptx(mod: llvm.ModuleRef, tm: llvm.TargetMachine, level: int) -> None:
    if level <= 0:
        return
    pto = llvm.create_pipeline_tuning_options(speed_level=min(level, 3))
    pto.loop_vectorization = False  # the GPU's parallelism is its threads
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def emit_ptx(text: str, arch: str, features: str, opt_level: int, llvm_options: list[str],
             libdevice: str | None, keep: set[str], reset_options: Sequence[str] = (),
             function_attrs: Sequence[str] = ()) -> tuple[str, str]:
    """(PTX, optimised LLVM IR) of LLVM IR `text` for NVPTX `arch`.

    `libdevice` is the path of libdevice.10.bc to link (None: nothing to link);
    every function but `keep` (the kernels) becomes internal then. LLVM's
    `llvm_options` are process-wide, so they are set under the lock, right before
    the optimisation and emission they are for, and `reset_options` after it (in
    the helper process when optimisations go there, as `_compile_module`'s do).
    Every function defined in `text` gets the attributes `function_attrs`."""
    with _lock:
        found = _in_helper(opt_level, "ptx", text, arch, features, opt_level, list(llvm_options),
                           list(reset_options), list(function_attrs), libdevice, sorted(keep))
        if found is not None:
            return found[0], found[1]
        return _emit_ptx_here(text, arch, features, opt_level, llvm_options, reset_options,
                              function_attrs, libdevice, keep)


def _emit_ptx_here(text: str, arch: str, features: str, opt_level: int, llvm_options: list[str],
                   reset_options: Sequence[str], function_attrs: Sequence[str], libdevice: str | None,
                   keep: set[str]) -> tuple[str, str]:
    """`emit_ptx` in this process (the caller holds `_lock`)."""
    mod = parse_and_verify(text)
    for fn in mod.functions:
        if not fn.is_declaration:
            for attr in function_attrs:
                fn.add_function_attribute(attr)
    tm = nvptx_target_machine(arch, features, opt=min(max(opt_level, 0), 3))
    mod.triple = NVPTX_TRIPLE
    mod.data_layout = str(tm.target_data)
    if libdevice is not None:
        _link_libdevice(mod, libdevice, keep)
    for option in llvm_options:
        llvm.set_option("oclpy", option)
    try:
        _optimize_nvptx(mod, tm, opt_level)
        return tm.emit_assembly(mod), str(mod)
    finally:
        for option in reset_options:
            llvm.set_option("oclpy", option)
