"""OpenCL C 2.0 program-scope variables belong to their program object (OpenCL C 2.0
§6.5.8; the API's program objects): two Programs built from one source each start from the
initializers (PoCL's 6, 6, 6 below), the kernels of one Program share them, and a kernel's
`static global` local is the program's too; while a program without writable data keeps
sharing the build cache's compiled code (no second compile or load). On cpu and simt here,
on cuda through the fake driver (tests/runtime/cuda_fake.py: one CUDA module per Program
with variables, one in all without), and on a real GPU where there is one (skipped, with
the reason, elsewhere)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import oclpy as cl
from oclpy.compiler import cache, cuda_target, door, host_target
from oclpy.runtime.drivers import load_driver
from oclpy.runtime.drivers.base import NDRange, DriverUnavailable
from oclpy.targets.llvm import binding
from oclpy.targets.llvm.cpu import compiled as cpu_compiled

CL2 = "-cl-std=CL2.0"
COUNTER = "global int g = 5;\nkernel void k(global int *o) { g += 1; o[0] = g; }"
TWO_KERNELS = """global int g = 3;
kernel void w(int v) { g = v; }
kernel void r(global int *o) { o[0] = g; }"""
STATIC_LOCAL = "kernel void k(global int *o) { static global int n = 5; n += 1; o[0] = n; }"
CONSTANT_ONLY = """constant int t[4] = {10, 20, 30, 40};
kernel void k(global int *o) { o[0] = t[get_global_id(0) + 2]; }"""

_cuda = load_driver("cuda")
needs_gpu = pytest.mark.skipif(isinstance(_cuda, DriverUnavailable), reason=getattr(_cuda, "reason", ""))
KINDS = ["cpu", "simt", pytest.param("cuda", marks=needs_gpu)]


def device(kind: str) -> cl.Device:
    return next(d for p in cl.get_platforms() for d in p.get_devices() if d.kind == kind)


def build(kind: str, src: str, ctx: cl.Context | None = None) -> tuple[cl.CommandQueue, cl.Program]:
    ctx = ctx or cl.Context([device(kind)])
    return cl.CommandQueue(ctx), cl.Program(ctx, src).build(options=CL2)


def read(queue: cl.CommandQueue, kernel: cl.Kernel, *args: object) -> int:
    out = np.zeros(1, np.int32)
    buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 4)
    kernel(queue, (1,), None, buf, *args)
    cl.enqueue_copy(queue, out, buf)
    return int(out[0])


@pytest.mark.parametrize("kind", KINDS)
def test_each_program_starts_from_the_initializers(kind: str) -> None:
    ctx = cl.Context([device(kind)])
    firsts = []
    for _ in range(3):
        queue, prg = build(kind, COUNTER, ctx)
        firsts.append(read(queue, prg.k))
    assert firsts == [6, 6, 6]
    queue, prg = build(kind, COUNTER)  # a new Context: its own too
    assert [read(queue, prg.k), read(queue, prg.k), read(queue, prg.k)] == [6, 7, 8]  # kept between launches


@pytest.mark.parametrize("kind", KINDS)
def test_the_kernels_of_one_program_share_its_variables(kind: str) -> None:
    queue, prg = build(kind, TWO_KERNELS)
    other_queue, other = build(kind, TWO_KERNELS)
    prg.w(queue, (1,), None, np.int32(42))
    assert read(queue, prg.r) == 42
    assert read(other_queue, other.r) == 3  # the other program's variable is untouched
    other.w(other_queue, (1,), None, np.int32(-7))
    assert (read(queue, prg.r), read(other_queue, other.r)) == (42, -7)


@pytest.mark.parametrize("kind", KINDS)
def test_a_static_global_local_belongs_to_its_program(kind: str) -> None:
    queue, prg = build(kind, STATIC_LOCAL)
    assert (read(queue, prg.k), read(queue, prg.k)) == (6, 7)
    queue, again = build(kind, STATIC_LOCAL)
    assert read(queue, again.k) == 6


def _unique(src: str, tag: str) -> str:
    """`src` under a comment of its own, so that the build cache has never seen it."""
    return f"// {tag} {np.random.default_rng().integers(1 << 62)}\n{src}"


@pytest.mark.parametrize("kind", ["cpu", "simt", "cuda"])
def test_a_program_of_constant_data_only_is_shared(kind: str) -> None:
    target = cuda_target() if kind == "cuda" else device(kind).driver.target  # cuda: compiled, not run
    src = _unique(CONSTANT_ONLY, "constant only")
    assert door.build(src, CL2, target).program is door.build(src, CL2, target).program
    variables = _unique(COUNTER, "variables")
    a, b = door.build(variables, CL2, target), door.build(variables, CL2, target)
    assert a.program is not b.program and a.kernels.keys() == b.kernels.keys() == {"k"}
    assert a.kernels["k"] is not b.kernels["k"]


def test_cpu_constant_only_programs_compile_and_load_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second Program of a constant-only source runs the first's native code: nothing is
    compiled or loaded for it; one with variables loads the first's object code again
    (one load, no compile)."""
    compiles, loads = [], []
    real_later, real_load = binding.compile_later, binding.load_object

    def compile_later(*args: object) -> object:
        compile_now = real_later(*args)  # type: ignore[arg-type]
        return lambda: compiles.append(1) or compile_now()

    monkeypatch.setattr(binding, "compile_later", compile_later)
    monkeypatch.setattr(binding, "load_object", lambda *a: loads.append(1) or real_load(*a))
    src = _unique(CONSTANT_ONLY, "counted")
    queue, prg = build("cpu", src)
    assert read(queue, prg.k) == 30 and (len(compiles), len(loads)) == (1, 0)
    queue, again = build("cpu", src)
    kernel = again.compiled_kernels("k")[queue.device]
    assert kernel is prg.compiled_kernels("k")[queue.device] and kernel.compiled
    assert read(queue, again.k) == 30 and (len(compiles), len(loads)) == (1, 0)

    src = _unique(COUNTER, "counted")
    queue, prg = build("cpu", src)
    assert read(queue, prg.k) == 6 and (len(compiles), len(loads)) == (2, 1)
    queue, again = build("cpu", src)
    assert read(queue, again.k) == 6 and (len(compiles), len(loads)) == (2, 2)


# -- the cpu program through the disk cache -------------------------------------------------

@pytest.fixture()
def disk_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("OCLPY_NO_CACHE", raising=False)


def test_a_program_loaded_from_disk_twice_shares_nothing(disk_cache: None,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    src = _unique(TWO_KERNELS, "disk")
    first_queue, prg = build("cpu", src)
    prg.w(first_queue, (1,), None, np.int32(11))  # compiled now: stored with its object code
    assert read(first_queue, prg.r) == 11

    def no_compiler() -> None:
        raise AssertionError("compiled again: not loaded from the disk cache")

    monkeypatch.setattr(door, "load_toolchain", no_compiler)
    for _ in range(2):
        cache.clear_memory()
        queue, again = build("cpu", src)
        assert read(queue, again.r) == 3
        again.w(queue, (1,), None, np.int32(12))
        assert read(queue, again.r) == 12
    assert read(first_queue, prg.r) == 11


def test_a_cached_program_of_ir_alone_compiles_its_kernels_as_one_module() -> None:
    """A record that holds the LLVM IR and no object code (`program_entry` before any
    launch) comes back with one module for all the kernels of a program with variables,
    so that they share them; one without keeps a module per kernel."""
    target = door.resolve(host_target(), CL2)
    data, blob = cpu_compiled.program_entry(door.load_toolchain().compile_program(TWO_KERNELS, CL2, target).program)
    assert data["variables"] is True and data["ir"] is not None
    assert all(k["object"] is None for k in data["kernels"].values())
    loaded = cpu_compiled.program_from_record(data, blob)
    assert loaded.kernels["w"]._code is loaded.kernels["r"]._code is loaded._whole
    one, two = cpu_compiled.program_instance(loaded), cpu_compiled.program_instance(loaded)
    out = np.zeros(1, np.int32)
    one_dim = (1, (1, 1, 1), (1, 1, 1), (0, 0, 0), 0, 1)
    for program, value in ((one, 21), (two, 22)):
        program.kernels["w"].launch(struct.pack("<i4x", value), *one_dim)
    read_blob = struct.pack("<Q", out.ctypes.data)
    results = []
    for program in (one, two, loaded):
        program.kernels["r"].launch(read_blob, *one_dim)
        results.append(int(out[0]))
    assert results == [21, 22, 3]  # w and r share each copy's g; the template's is untouched

    plain, plain_blob = cpu_compiled.program_entry(door.load_toolchain().compile_program(
        CONSTANT_ONLY + "kernel void z(global int *o) { o[0] = 0; }", "", target).program)
    shared = cpu_compiled.program_from_record(plain, plain_blob)
    assert plain["variables"] is False and shared.kernels["k"]._code is not shared.kernels["z"]._code
    assert cpu_compiled.program_instance(shared) is shared


def test_damaged_records_of_programs_with_variables_are_refused() -> None:
    program = door.load_toolchain().compile_program(TWO_KERNELS, CL2, door.resolve(None, CL2)).program
    program.compile_kernels()
    data, blob = cpu_compiled.program_entry(program)
    assert data["kernels"]["w"]["object"] == data["kernels"]["r"]["object"]  # one module
    with pytest.raises(ValueError, match="variables is not a bool"):
        cpu_compiled.program_from_record({**data, "variables": 1}, blob)
    split = {**data, "kernels": {**data["kernels"], "r": {**data["kernels"]["r"], "object": [0, 1]}}}
    with pytest.raises(ValueError, match="do not share one module"):
        cpu_compiled.program_from_record(split, blob)


# -- cuda through the fake driver --------------------------------------------------------

def _launch_all(fake, src: str, builds: int) -> list:  # type: ignore[no-untyped-def]
    from oclpy.runtime.drivers.cuda import CudaDriver

    driver = CudaDriver()
    out = driver.allocate(4)
    programs = []
    for _ in range(builds):
        program = door.build(src, CL2, cuda_target()).program
        kernel = program.kernels["k"]
        fake.param_count = len(kernel.param_offsets)
        driver.launch(kernel, struct.pack("<Q", out.address), NDRange(1, (1, 1, 1), (1, 1, 1), (0, 0, 0)))
        driver.launch(kernel, struct.pack("<Q", out.address), NDRange(1, (1, 1, 1), (1, 1, 1), (0, 0, 0)))
        programs.append(program)
    return programs


def test_cuda_programs_with_variables_load_a_module_each(fake_cuda) -> None:  # type: ignore[no-untyped-def]
    programs = _launch_all(fake_cuda, _unique(COUNTER, "cuda"), 2)
    assert fake_cuda.calls.count("cuModuleLoadData") == 2
    assert fake_cuda.calls.count("cuLinkCreate") == 1  # one PTX, JIT-compiled once: the cubin cache serves both
    assert programs[0].key == programs[1].key and programs[0].module_key != programs[1].module_key
    assert programs[0].variables and ".global .align 4 .u32 g = 5;" in programs[0].ptx


def test_cuda_programs_without_variables_share_one_module(fake_cuda) -> None:  # type: ignore[no-untyped-def]
    programs = _launch_all(fake_cuda, _unique(CONSTANT_ONLY, "cuda"), 2)
    assert fake_cuda.calls.count("cuModuleLoadData") == 1 and fake_cuda.calls.count("cuLinkCreate") == 1
    assert programs[0] is programs[1] and programs[0].module_key == programs[0].key


def test_cuda_static_global_locals_are_variables(fake_cuda) -> None:  # type: ignore[no-untyped-def]
    _launch_all(fake_cuda, _unique(STATIC_LOCAL, "cuda"), 3)
    assert fake_cuda.calls.count("cuModuleLoadData") == 3


def test_a_cached_cuda_record_keeps_whether_the_program_has_variables() -> None:
    from oclpy.targets.llvm.nvptx import ptx_program

    program = door.build(_unique(COUNTER, "record"), CL2, cuda_target()).program
    data, ptx = ptx_program.ptx_record(program)
    again = ptx_program.ptx_from_record(data, ptx)
    assert data["variables"] is True and again.variables and again.instance == 0
    own = ptx_program.program_instance(again)
    assert own.module_key.startswith(again.key + "#") and own.kernels["k"].program is own
    with pytest.raises(ValueError, match="variables is not a bool"):
        ptx_program.ptx_from_record({**data, "variables": "yes"}, ptx)
