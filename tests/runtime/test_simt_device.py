"""The simt device through the runtime: listed, picked by OCLPY_DEVICE, memory commands,
launches on the simulator, device info, and its errors."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime.drivers import load_driver
from oclpy.runtime.drivers.base import NDRange
from oclpy.runtime.drivers.simt import SimtDriver
from oclpy.targets.simt.device_config import SimtMachine

MF = cl.mem_flags


@pytest.fixture(scope="module")
def simt() -> cl.Device:
    return next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "simt")


@pytest.fixture(scope="module")
def ctx(simt: cl.Device) -> cl.Context:
    return cl.Context([simt])


def test_the_device_is_listed_and_oclpy_device_picks_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "simt" in [d.kind for d in cl.get_platforms()[0].get_devices()]
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    monkeypatch.setenv("OCLPY_DEVICE", "simt")
    assert cl.create_some_context().devices[0].kind == "simt"
    assert cl.get_platforms()[0].get_devices()[0].kind == "simt"


def test_a_gpu_like_device(simt: cl.Device) -> None:
    assert simt.type == cl.device_type.GPU
    assert simt.local_mem_size == 65536 and simt.max_work_group_size == 1024
    assert "cl_khr_fp64" in simt.extensions and "cl_khr_int64_base_atomics" in simt.extensions
    assert simt.name.startswith("oclpy simt (wave 32")
    assert simt in cl.get_platforms()[0].get_devices(cl.device_type.GPU)


def test_reads_writes_copies_and_fills(ctx: cl.Context) -> None:
    q = cl.CommandQueue(ctx)
    a = np.arange(64, dtype=np.int32)
    src = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=a)
    dst = cl.Buffer(ctx, MF.READ_WRITE, a.nbytes)
    cl.enqueue_fill_buffer(q, dst, np.int32(-7), 0, a.nbytes)
    cl.enqueue_copy(q, dst, src, byte_count=64, src_offset=16, dst_offset=32)
    out = np.empty_like(a)
    cl.enqueue_copy(q, out, dst)
    q.finish()
    want = np.full(64, -7, np.int32)
    want[8:24] = a[4:20]
    np.testing.assert_array_equal(out, want)


def test_a_launch_runs_on_the_simulator_with_local_memory_and_calls(ctx: cl.Context) -> None:
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, """
    __attribute__((noinline)) float f(float a, float b) { return a * b + 1.0f; }
    kernel void k(global float *a, local float *t, int n) {
      int i = get_global_id(0);
      t[get_local_id(0)] = a[i];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (i < n) a[i] = f(a[i], t[(get_local_id(0) + 1) % get_local_size(0)]);
    }""").build()
    a = np.arange(256, dtype=np.float32)
    buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=a)
    prg.k(q, (256,), (64,), buf, cl.LocalMemory(256), np.int32(250))
    out = np.empty_like(a)
    cl.enqueue_copy(q, out, buf)
    q.finish()
    t = a.reshape(4, 64)
    want = (t * np.roll(t, -1, axis=1) + 1).ravel()
    want[250:] = a[250:]
    np.testing.assert_array_equal(out, want)


def test_a_device_of_other_files_and_wave_width_builds_for_itself() -> None:
    driver = SimtDriver(SimtMachine(16, 48, 24))
    assert driver.target.features == "sgprs=48,vgprs=24" and driver.target.arch == "simt-w16"
    program = cl.compiler.build("""kernel void k(global int *o) {
      int i = get_global_id(0), a = i * 3, b = a ^ 5, c = b + i, d = c * c, e = d - a, f = e | b, g = f + d;
      o[i] = a + b + c + d + e + f + g + (a * b) + (c * d) + (e * f);
    }""", "", driver.target).program
    out = driver.allocate(4 * 40)
    driver.launch(program.kernels["k"], struct.pack("<Q", out.address), NDRange(1, (40, 1, 1), (8, 1, 1)))
    got = np.empty(40, np.int32)
    driver.read(out, 0, memoryview(got).cast("B"))
    i = np.arange(40, dtype=np.int64)
    a = i * 3
    b = a ^ 5
    c = b + i
    d = c * c
    e = d - a
    f = e | b
    g = f + d
    np.testing.assert_array_equal(got, (a + b + c + d + e + f + g + a * b + c * d + e * f).astype(np.int32))


def test_a_kernel_that_breaks_the_rules_is_a_simulator_error(ctx: cl.Context) -> None:
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, "kernel void k(global int *o) { o[get_global_id(0) + 1000] = 1; }").build()
    buf = cl.Buffer(ctx, MF.READ_WRITE, 64)
    with pytest.raises(cl.RuntimeError, match=r"OUT_OF_RESOURCES: SimError: @k: 'global_store_b32 .*' in lane 0 "
                                              r"of wave 0 of work-group \(0, 0, 0\): 4-byte access at 0x"):
        prg.k(q, (16,), (16,), buf)
        q.finish()


def test_what_simt_cannot_compile_is_a_build_error(ctx: cl.Context) -> None:
    prg = cl.Program(ctx, "kernel void k(global int *o) { local int big[20000]; big[get_local_id(0)] = 1; "
                          "barrier(CLK_LOCAL_MEM_FENCE); o[0] = big[3]; }")
    with pytest.raises(cl.RuntimeError, match="needs 80000 bytes of __local memory; a simt work-group has 65536"):
        prg.build()


PRINTF_SOURCE = r"""
kernel void k(global const float *a, global const long *b) {
  int i = get_global_id(0);
  printf("%d: %f %.3e %g|%5.1f|%-4d|%x %o %u %c %s %%\n", i, a[i], a[i], a[i], a[i], i, -i, i, (uint)-i, 'A' + i,
         "str");
  printf("%ld %lx %hhd %hd %v2hld %v4hlf\n", b[i], b[i], (char)(i * 40), (short)(i * 9000), (int2)(i, -i),
         (float4)(a[i], 1.5f, -2.0f, 0.0f));
  if (i % 2) printf("odd %d\n", i);
}
"""


def printed(device: cl.Device, capfd: pytest.CaptureFixture[str]) -> str:
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    a = (np.arange(8, dtype=np.float32) - 3.25) * 7.5
    b = np.array([-(2 ** 40), 5, 7, -1, 2 ** 62, 0, 3, 9], dtype=np.int64)
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x) for x in (a, b)]
    capfd.readouterr()
    cl.Program(ctx, PRINTF_SOURCE).build().k(queue, (8,), (8,), *bufs)
    queue.finish()
    return capfd.readouterr().out


def test_printf_prints_what_the_cpu_prints(simt: cl.Device, capfd: pytest.CaptureFixture[str]) -> None:
    cpu = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "cpu")
    expected = printed(cpu, capfd)
    assert expected.count("\n") == 20
    # OpenCL leaves the order of different work-items' lines open: simt's lanes run each
    # printf together, and the host prints each work-item's records together in id order,
    # as the cpu runs them
    assert printed(simt, capfd) == expected


PRINTF_HELPERS = r"""
__attribute__((noinline)) void show(int i, float x) { printf("item %d: %.2f\n", i, x); }
__attribute__((noinline)) int deeper(int i, global const long *b) {
  if (i % 3 == 0) show(i, i * 0.5f);
  printf("deeper %d %ld\n", i, b[i]);
  return i * 2;
}
__attribute__((noinline)) void uniform_note(int n) { printf("group of %d\n", n); }
kernel void k(global const float *a, global const long *b) {
  int i = get_global_id(0);
  show(i, a[i]);
  int d = deeper(i, b);
  if (get_local_id(0) == 0) uniform_note((int)get_local_size(0));
  printf("kernel %d %d\n", i, d);
}
"""


@pytest.mark.parametrize("registers", [{}, {"OCLPY_SIMT_SGPRS": "48", "OCLPY_SIMT_VGPRS": "24"}],
                         ids=["default", "tiny"])
def test_printf_in_called_helpers_prints_what_the_cpu_prints(registers: dict[str, str],
                                                             capfd: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """printf in helpers kept as calls (nested, divergent, uniform): the buffer and the
    work-item's id reach them as hidden arguments; the lines are the cpu's."""
    def run(device: cl.Device) -> str:
        ctx = cl.Context([device])
        queue = cl.CommandQueue(ctx)
        a = (np.arange(8, dtype=np.float32) - 3.25) * 7.5
        b = np.array([-(2 ** 40), 5, 7, -1, 2 ** 62, 0, 3, 9], dtype=np.int64)
        bufs = [cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=x) for x in (a, b)]
        capfd.readouterr()
        cl.Program(ctx, PRINTF_HELPERS).build().k(queue, (8,), (4,), *bufs)
        queue.finish()
        return capfd.readouterr().out

    cpu = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "cpu")
    expected = run(cpu)
    assert expected.count("\n") == 8 + 3 + 8 + 2 + 8
    assert "deeper 4 -1099511627776" not in expected and "deeper 0 -1099511627776" in expected
    for key, value in registers.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr("oclpy.runtime.drivers._loaded", {})  # a simt device of these register files
    monkeypatch.setattr("oclpy.runtime.platform._platform", None)
    device = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "simt")
    assert device.name == f"oclpy simt (wave 32, {registers.get('OCLPY_SIMT_SGPRS', 128)} sgprs, " \
                          f"{registers.get('OCLPY_SIMT_VGPRS', 256)} vgprs)"
    assert run(device) == expected


def test_a_bad_environment_makes_the_driver_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCLPY_SIMT_VGPRS", "20")
    monkeypatch.setattr("oclpy.runtime.drivers._loaded", {})
    found = load_driver("simt")
    assert "the 'simt' driver failed to start" in found.reason and "vector register file of 20" in found.reason


GLOBALS = """
global int counter;
global int table[5] = {10, 20, 30, 40, 50};
global float scale = 0.5f;
__attribute__((noinline)) int bump(int v) { return atomic_fetch_add((volatile global atomic_int *)&counter, v); }
kernel void k(global int *out) {
  size_t i = get_global_id(0);
  int before = bump(1);
  out[i] = before >= 0 ? table[i % 5] + (int)(scale * 4) : -1;
  if (i == 0) table[4] = 99;
}
kernel void read(global int *out) { out[0] = counter; out[1] = table[4]; }
"""


def test_program_scope_global_variables_keep_their_values_between_launches(ctx: cl.Context) -> None:
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, GLOBALS).build(options="-cl-std=CL2.0")
    out = cl.Buffer(ctx, MF.READ_WRITE, 64 * 4)
    program.k(queue, (64,), (32,), out)
    program.k(queue, (64,), (32,), out)
    got = np.empty(64, np.int32)
    cl.enqueue_copy(queue, got, out)
    table = np.array([10, 20, 30, 40, 99], np.int32)  # the second launch sees the first's store
    np.testing.assert_array_equal(got, table[np.arange(64) % 5] + 2)
    state = cl.Buffer(ctx, MF.READ_WRITE, 8)
    program.read(queue, (1,), (1,), state)
    pair = np.empty(2, np.int32)
    cl.enqueue_copy(queue, pair, state)
    assert pair.tolist() == [128, 99]  # every work-item of both launches bumped the counter once


def test_two_programs_of_one_source_have_their_own_global_variables(ctx: cl.Context) -> None:
    """The build cache gives both the same compiled program; each Program object still gets
    its own program-scope variables (OpenCL 2.0), initialised afresh."""
    queue = cl.CommandQueue(ctx)
    first = cl.Program(ctx, GLOBALS).build(options="-cl-std=CL2.0")
    second = cl.Program(ctx, GLOBALS).build(options="-cl-std=CL2.0")
    out = cl.Buffer(ctx, MF.READ_WRITE, 64 * 4)
    first.k(queue, (64,), (32,), out)
    first.k(queue, (64,), (32,), out)
    second.k(queue, (32,), (32,), out)
    state = cl.Buffer(ctx, MF.READ_WRITE, 8)
    pair = np.empty(2, np.int32)
    for program, want in ((first, [128, 99]), (second, [32, 99])):
        program.read(queue, (1,), (1,), state)
        cl.enqueue_copy(queue, pair, state)
        assert pair.tolist() == want
    third = cl.Program(ctx, GLOBALS).build(options="-cl-std=CL2.0")
    third.read(queue, (1,), (1,), state)
    cl.enqueue_copy(queue, pair, state)
    assert pair.tolist() == [0, 50]  # untouched by the others' launches


HALF_MATH = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((noinline)) half hmix(half x, half y, half4 v) { return fmod(x, y) + v.s2 * (half)0.5f - rint(v.s0); }
__attribute__((noinline)) half4 hvec(half4 v, half s) { return v * s + (half4)(1.0h, -2.0h, 0.25h, 8.0h); }
kernel void k(global const half *a, global const half *b, global half *o, global double *d) {
  int i = get_global_id(0);
  half x = a[i], y = b[i];
  half4 w = hvec(*(global const half4 *)(a + (i & ~3)), y);
  half r[12] = {hmix(x, y, w), x / y, fmod(x, y), remainder(x, y), sqrt(fabs(x)), sin(x), exp(y), fma(x, y, x),
                pow(fabs(x), y), atan2(x, y), (x < y) ? x : y, (half)(float)(short)x};
  for (int k = 0; k < 12; k++) o[i * 12 + k] = r[k];
  d[i] = (double)fmod(x * y, (half)3.0h);
}
"""


def test_half_arithmetic_and_math_give_the_cpus_bits(ctx: cl.Context) -> None:
    """half values, fmod/remainder (frem on half) and the math functions, in a kernel and through
    helpers kept as calls with half and half4 arguments: the same bits as the cpu device."""
    rng = np.random.default_rng(2)
    a = (rng.standard_normal(64) * 8).astype(np.float16)
    b = (rng.standard_normal(64) * 3 + 0.5).astype(np.float16)

    def run(context: cl.Context) -> tuple[np.ndarray, np.ndarray]:
        queue = cl.CommandQueue(context)
        o, d = np.zeros(64 * 12, np.float16), np.zeros(64)
        ins = [cl.Buffer(context, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=x) for x in (a, b)]
        outs = [cl.Buffer(context, MF.READ_WRITE, x.nbytes) for x in (o, d)]
        cl.Program(context, HALF_MATH).build().k(queue, (64,), (16,), *ins, *outs)
        for host, buf in zip((o, d), outs):
            cl.enqueue_copy(queue, host, buf)
        queue.finish()
        return o, d

    cpu = next(dv for dv in cl.get_platforms()[0].get_devices() if dv.kind == "cpu")
    want, got = run(cl.Context([cpu])), run(ctx)
    assert np.isfinite(want[0].astype(np.float32)).sum() > 500  # mostly numbers, some NaN (fmod by 0, ...)
    for w, g in zip(want, got):
        assert w.tobytes() == g.tobytes()
