"""oclpy's bundled headers (oclpy/include): pyopencl-complex.h against NumPy,
Random123's philox.cl/threefry.cl against known answers, and the include path
(searched after the user's -I folders, under both PyOpenCL's and oclpy's names)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import oclpy as cl
from oclpy.frontend.options import BUNDLED_INCLUDE_DIR


@pytest.fixture(scope="module")
def ctx():
    return cl.Context(dev_type=cl.device_type.CPU)


@pytest.fixture()
def queue(ctx):
    return cl.CommandQueue(ctx)


# name -> (argument kinds: c complex, r real; NumPy reference)
COMPLEX_FUNCTIONS = {
    "neg": ("c", lambda a: -a), "conj": ("c", np.conj), "sqrt": ("c", np.sqrt),
    "exp": ("c", np.exp), "log": ("c", np.log), "sin": ("c", np.sin), "cos": ("c", np.cos),
    "tan": ("c", np.tan), "sinh": ("c", np.sinh), "cosh": ("c", np.cosh), "tanh": ("c", np.tanh),
    "abs": ("c", np.abs), "abs_squared": ("c", lambda a: np.abs(a) ** 2),
    "real": ("c", np.real), "imag": ("c", np.imag),
    "add": ("cc", np.add), "sub": ("cc", np.subtract), "mul": ("cc", np.multiply),
    "divide": ("cc", np.divide), "pow": ("cc", np.power),
    "addr": ("cr", np.add), "mulr": ("cr", np.multiply), "divider": ("cr", np.divide),
    "powr": ("cr", np.power), "radd": ("rc", np.add), "rmul": ("rc", np.multiply),
    "rdivide": ("rc", np.divide), "rpow": ("rc", np.power),
    "new": ("rr", lambda a, b: a + 1j * b), "fromreal": ("r", lambda a: a + 0j),
    "fma": ("ccc", lambda a, b, c: a * b + c),
}
TYPES = {"cfloat": (np.complex64, np.float32, 2e-5), "cdouble": (np.complex128, np.float64, 1e-13)}


def _kernel(prefix: str, name: str, kinds: str) -> str:
    real = "float" if prefix == "cfloat" else "double"
    params = ", ".join(f"__global const {prefix + '_t' if k == 'c' else real} *a{i}" for i, k in enumerate(kinds))
    args = ", ".join(f"a{i}[i]" for i in range(len(kinds)))
    call = f"{prefix}_{name}({args})"
    if name in ("abs", "abs_squared", "real", "imag"):
        call = f"{prefix}_fromreal({call})"
    return (f"__kernel void f_{name}({params}, __global {prefix}_t *out)\n"
            f"{{ size_t i = get_global_id(0); out[i] = {call}; }}\n")


@pytest.fixture(scope="module")
def complex_programs(ctx):
    progs = {}
    for prefix in TYPES:
        body = "".join(_kernel(prefix, n, k) for n, (k, _) in COMPLEX_FUNCTIONS.items())
        src = "#define PYOPENCL_DEFINE_CDOUBLE\n#include <pyopencl-complex.h>\n" + body
        progs[prefix] = cl.Program(ctx, src).build()
    return progs


def _inputs(kinds: str, cdt, rdt, rng) -> list[np.ndarray]:
    n = 64
    out = []
    for k in kinds:
        if k == "c":
            out.append((rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(cdt))
        else:
            out.append(rng.uniform(0.25, 3, n).astype(rdt))
    return out


def _run(queue, kernel, inputs, cdt):
    bufs = [cl.Buffer(queue.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=a) for a in inputs]
    out = np.zeros(len(inputs[0]), cdt)
    obuf = cl.Buffer(queue.context, cl.mem_flags.WRITE_ONLY, out.nbytes)
    kernel(queue, out.shape, None, *bufs, obuf)
    cl.enqueue_copy(queue, out, obuf)
    return out


@pytest.mark.parametrize("prefix", TYPES)
@pytest.mark.parametrize("name", COMPLEX_FUNCTIONS)
def test_complex_function_matches_numpy(complex_programs, queue, prefix, name):
    cdt, rdt, rtol = TYPES[prefix]
    kinds, ref = COMPLEX_FUNCTIONS[name]
    inputs = _inputs(kinds, cdt, rdt, np.random.default_rng(len(name)))
    got = _run(queue, getattr(complex_programs[prefix], f"f_{name}"), inputs, cdt)
    want = ref(*[a.astype(np.complex128 if a.dtype.kind == "c" else np.float64) for a in inputs])
    np.testing.assert_allclose(got, want.astype(np.complex128), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("prefix", TYPES)
def test_complex_division_does_not_overflow(complex_programs, queue, prefix):
    cdt, _, rtol = TYPES[prefix]
    big = 1e30 if prefix == "cfloat" else 1e300
    a = np.array([big + 1j * big, -big + 3j, 1 + 1j], cdt)
    b = np.array([2 * big + 1j * big, big * 1j, big * (1 + 1j)], cdt)
    got = _run(queue, complex_programs[prefix].f_divide, [a, b], cdt)
    want = a.astype(np.complex128) / b.astype(np.complex128)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, want, rtol=rtol)


@pytest.mark.parametrize("prefix", TYPES)
def test_complex_abs_uses_hypot_and_tan_tanh_saturate(complex_programs, queue, prefix):
    cdt, _, _ = TYPES[prefix]
    big = 3e30 if prefix == "cfloat" else 1e300
    got = _run(queue, complex_programs[prefix].f_abs, [np.array([big + 1j * big], cdt)], cdt)
    np.testing.assert_allclose(got.real, [np.hypot(big, big)], rtol=1e-6)
    z = np.array([1 + 500j, 1 - 500j], cdt)
    np.testing.assert_allclose(_run(queue, complex_programs[prefix].f_tan, [z], cdt), [1j, -1j])
    np.testing.assert_allclose(_run(queue, complex_programs[prefix].f_tanh, [z.imag + 1j * z.real], cdt), [1, -1])


def test_complex_layout_matches_numpy_and_cdouble_needs_its_define(ctx):
    src = ("#include <oclpy-complex.h>\n__kernel void k(__global int *o)"
           "{ o[0] = sizeof(cfloat_t); cfloat_t z = cfloat_new(1, 2); o[1] = (int) cfloat_imag(z);"
           "  o[2] = (int) (z.x * 10 + z.y); }")  # PyOpenCL's .x/.y spelling of real/imag
    prg = cl.Program(ctx, src).build()
    queue = cl.CommandQueue(ctx)
    out = np.zeros(3, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg.k(queue, (1,), None, buf)
    cl.enqueue_copy(queue, out, buf)
    assert out.tolist() == [8, 2, 12]
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, "#include <pyopencl-complex.h>\n__kernel void k(__global cdouble_t *a) {}").build()
    assert "unknown type name 'cdouble_t'" in str(info.value)


# Random123's known-answer vectors (its tests/kat_vectors): all-zero and all-ones
# counters and keys; generator -> (words, key words, zeros' answer, ones' answer).
R123_KAT = {
    "philox2x32": (2, 1, [0xff1dae59, 0x6cd10df2], [0x2c3f628b, 0xab4fd7ad]),
    "philox4x32": (4, 2, [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
                   [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]),
    "philox2x64": (2, 1, [0xca00a0459843d731, 0x66c24222c9a845b5], [0x65b021d60cd8310f, 0x4d02f3222f86df20]),
    "philox4x64": (4, 2, [0x16554d9eca36314c, 0xdb20fe9d672d0fdc, 0xd7e772cee186176b, 0x7e68b68aec7ba23b],
                   [0x87b092c3013fe90b, 0x438c3c67be8d0224, 0x9cc7d7c69cd777b6, 0xa09caebf594f0ba0]),
    "threefry2x32": (2, 2, [0x6b200159, 0x99ba4efe], [0x1cb996fc, 0xbb002be7]),
    "threefry4x32": (4, 4, [0x9c6ca96a, 0xe17eae66, 0xfc10ecd4, 0x5256a7d8],
                     [0x2a881696, 0x57012287, 0xf6c7446e, 0xa16a6732]),
    "threefry2x64": (2, 2, [0xc2b6e3a8c2c69865, 0x6f81ed42f350084d], [0xe02cb7c4d95d277a, 0xd06633d0893b8b68]),
    "threefry4x64": (4, 4, [0x09218ebde6c85537, 0x55941f5266d86105, 0x4bd25e16282434dc, 0xee29ec846bd2e40b],
                     [0x29c24097942bba1b, 0x0371bbfb0f6f4e11, 0x3c231ffa33f83a1c, 0xcd29113fde32d168]),
}


def _r123_source(prefix: str) -> str:
    lines = [f"#include <{prefix}-random123/philox.cl>", f"#include <{prefix}-random123/threefry.cl>",
             "__kernel void kat(__global const ulong *in, __global ulong *out) {"]
    offset = 0
    for name, (n, kn, _, _) in R123_KAT.items():
        lines.append(f"{{ {name}_ctr_t c; {name}_key_t k;"
                     f" for (int j = 0; j < {n}; ++j) c.v[j] = in[j];"
                     f" for (int j = 0; j < {kn}; ++j) k.v[j] = in[4 + j];"
                     f" c = {name}(c, k); for (int j = 0; j < {n}; ++j) out[{offset} + j] = c.v[j]; }}")
        offset += n
    return "\n".join(lines) + "}\n"


@pytest.mark.parametrize("prefix", ["pyopencl", "oclpy"])
@pytest.mark.parametrize("ones", [False, True])
def test_random123_known_answers(ctx, queue, prefix, ones):
    prg = cl.Program(ctx, _r123_source(prefix)).build()
    ins = np.full(8, 2**64 - 1 if ones else 0, np.uint64)  # 32-bit words take the low halves
    total = sum(n for n, _, _, _ in R123_KAT.values())
    out = np.zeros(total, np.uint64)
    ibuf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=ins)
    obuf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg.kat(queue, (1,), None, ibuf, obuf)
    cl.enqueue_copy(queue, out, obuf)
    want = [w for _, _, zeros, ones_ in R123_KAT.values() for w in (ones_ if ones else zeros)]
    assert out.tolist() == want


def test_random123_rounds_and_pyopencl_kernel_style(ctx, queue):
    """PyOpenCL's clrandom kernels brace-initialise keys and counters; _R takes a round count."""
    src = """#include <pyopencl-random123/philox.cl>
    #include <pyopencl-random123/threefry.cl>
    __kernel void k(__global uint *out) {
      philox4x32_key_t k = {{0, 0}}; philox4x32_ctr_t c = {{0, 0, 0, 0}};
      philox4x32_ctr_t r = philox4x32_R(0, c, k); out[0] = r.v[0] + 1;
      r = philox4x32(c, k); out[1] = r.v[0];
      threefry4x32_key_t tk = {{0, 0, 0, 0}}; threefry4x32_ctr_t tc = {{0, 0, 0, 0}};
      threefry4x32_ctr_t tr = threefry4x32_R(threefry4x32_rounds, tc, threefry4x32keyinit(tk));
      out[2] = tr.v[3];
      out[3] = philox4x32_rounds * 100 + threefry4x32_rounds;
    }"""
    prg = cl.Program(ctx, src).build()
    out = np.zeros(4, np.uint32)
    buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg.k(queue, (1,), None, buf)
    cl.enqueue_copy(queue, out, buf)
    assert out.tolist() == [1, 0x6627e8d5, 0x5256a7d8, 1020]


def test_user_include_folder_wins_over_bundled(ctx, queue, tmp_path):
    (tmp_path / "pyopencl-complex.h").write_text("#define MINE 42\n")
    src = "#include <pyopencl-complex.h>\n__kernel void k(__global int *o) { o[0] = MINE; }"
    prg = cl.Program(ctx, src).build(options=["-I", str(tmp_path)])
    out = np.zeros(1, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg.k(queue, (1,), None, buf)
    cl.enqueue_copy(queue, out, buf)
    assert out.tolist() == [42]


def test_bundled_folder_holds_both_names():
    names = ["pyopencl-complex.h", "oclpy-complex.h"] + [
        f"{p}-random123/{f}" for p in ("pyopencl", "oclpy") for f in ("philox.cl", "threefry.cl", "array.h",
                                                                         "openclfeatures.h")]
    assert all(os.path.isfile(os.path.join(BUNDLED_INCLUDE_DIR, n)) for n in names)


def test_random123_through_pointers_and_a_vector_union(ctx, queue):
    """The style of PyOpenCL's clrandom kernels: key and counter behind pointers, the
    counter bumped with carry, the block read back as a uint4 through a union
    (expected words: the same kernel on PoCL with PyOpenCL's headers)."""
    src = """#include <pyopencl-random123/threefry.cl>
    uint4 next_block(threefry4x32_key_t *key, threefry4x32_ctr_t *ctr) {
      union { threefry4x32_ctr_t as_ctr; uint4 as_vec; } out;
      out.as_ctr = threefry4x32(*ctr, *key);
      if (++ctr->v[0] == 0) ++ctr->v[1];
      return out.as_vec;
    }
    __kernel void fill(global uint *o) {
      threefry4x32_key_t k = {{get_global_id(0), 0, 0, 0}};
      threefry4x32_ctr_t c = {{0xffffffff, 0, 0, 0}};
      vstore4(next_block(&k, &c), 0, o);
      vstore4(next_block(&k, &c), 1, o);
    }"""
    prg = cl.Program(ctx, src).build()
    out = np.zeros(8, np.uint32)
    buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg.fill(queue, (1,), None, buf)
    cl.enqueue_copy(queue, out, buf)
    assert out.tolist() == [0x2708eff9, 0x9d3b6215, 0xfd4b1e98, 0xf6ce291a,
                            0x3ec033f6, 0xbf323558, 0x7abf01db, 0xa6a8db82]
