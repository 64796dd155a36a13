"""oclpy.clmath against NumPy; oclpy.clrandom's generators against Random123's known answers and statistics."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
import oclpy.array as cl_array
from oclpy import clmath, clrandom


@pytest.mark.parametrize(("name", "ref"), [("sin", np.sin), ("cos", np.cos), ("exp", np.exp),
                                           ("log", np.log), ("sqrt", np.sqrt), ("fabs", np.abs),
                                           ("tanh", np.tanh), ("floor", np.floor),
                                           ("log10", np.log10), ("cbrt", np.cbrt)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_functions(queue, name, ref, dtype):
    host = np.linspace(0.1, 7.5, 301).astype(dtype)
    result = getattr(clmath, name)(cl_array.to_device(queue, host))
    assert result.dtype == dtype
    np.testing.assert_allclose(result.get(), ref(host), rtol=4e-6 if dtype == np.float32 else 1e-13)


def test_integer_input_computes_in_double(queue):
    result = clmath.sqrt(cl_array.to_device(queue, np.array([4, 9, 2], np.int32)))
    assert result.dtype == np.float64
    np.testing.assert_allclose(result.get(), np.sqrt([4, 9, 2]))


def test_binary_and_two_output_functions(queue):
    y = np.linspace(-3, 3, 50)
    x = np.linspace(2, -1, 50)
    dy, dx = cl_array.to_device(queue, y), cl_array.to_device(queue, x)
    np.testing.assert_allclose(clmath.atan2(dy, dx).get(), np.arctan2(y, x), rtol=1e-13)
    np.testing.assert_allclose(clmath.atan2pi(dy, 1.0).get(), np.arctan2(y, 1.0) / np.pi, rtol=1e-13)
    np.testing.assert_allclose(clmath.fmod(dy, 0.7).get(), np.fmod(y, 0.7), atol=1e-13)
    sig, expo = clmath.frexp(dy)
    ref_sig, ref_exp = np.frexp(y)
    np.testing.assert_array_equal(sig.get(), ref_sig)
    np.testing.assert_array_equal(expo.get(), ref_exp)
    np.testing.assert_array_equal(clmath.ldexp(sig, expo).get(), y)
    frac, whole = clmath.modf(dy)
    ref_frac, ref_whole = np.modf(y)
    np.testing.assert_array_equal(frac.get(), ref_frac)
    np.testing.assert_array_equal(whole.get(), ref_whole)
    with pytest.raises(NotImplementedError, match="oclpy.clmath.bessel_jn is not provided"):
        clmath.bessel_jn(0, dy)


KAT = [  # Random123's tests/kat_vectors: counter, key, philox4x32-10 and threefry4x32-20 outputs
    ([0, 0, 0, 0], [0, 0, 0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
     [0x9c6ca96a, 0xe17eae66, 0xfc10ecd4, 0x5256a7d8]),
    ([0xffffffff] * 4, [0xffffffff] * 4, [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
     [0x2a881696, 0x57012287, 0xf6c7446e, 0xa16a6732]),
    ([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
     [0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89],
     [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
     [0x59cd1dbb, 0xb8879579, 0x86b5d00c, 0xac8b6d84]),
]


def test_generators_match_random123_known_answers(ctx, queue):
    src = clrandom.GENERATORS_SOURCE + """
    __kernel void kat(__global uint *out, __global const uint *in) {
      uint4 c = vload4(0, in);
      vstore4(oclpy_philox4x32_10(c, vload2(0, in + 4)), 0, out);
      vstore4(oclpy_threefry4x32_20(c, vload4(0, in + 4)), 1, out);
    }"""
    knl = cl.Program(ctx, src).build().kat
    for counter, key, philox, threefry in KAT:
        inp = cl_array.to_device(queue, np.array(counter + key, np.uint32))
        out = cl_array.empty(queue, 8, np.uint32)
        knl(queue, (1,), (1,), out.data, inp.data)
        assert out.get().tolist() == philox + threefry


@pytest.mark.parametrize("generator", [clrandom.PhiloxGenerator, clrandom.ThreefryGenerator])
def test_distributions(ctx, queue, generator):
    gen = generator(ctx, seed=12)
    u = gen.uniform(queue, (200003,), np.float32, a=-1, b=3).get()
    assert -1 <= u.min() and u.max() < 3
    assert u.mean() == pytest.approx(1.0, abs=0.02) and u.var() == pytest.approx(16 / 12, rel=0.02)
    assert np.histogram(u, bins=8, range=(-1, 3))[0].min() > 0.95 * len(u) / 8
    d = gen.normal(queue, (100001,), np.float64, mu=5, sigma=2).get()
    assert d.mean() == pytest.approx(5, abs=0.03) and d.std() == pytest.approx(2, rel=0.02)
    assert abs(((d - 5) / 2) ** 3).mean() == pytest.approx(1.596, rel=0.03)  # E|Z|^3 = 2*sqrt(2/pi)
    ints = gen.uniform(queue, (10000,), np.int64, a=-5, b=5).get()
    assert ints.min() == -5 and ints.max() == 4
    assert np.bincount(ints + 5).min() > 850


def test_seeds_reproduce_and_fills_advance(ctx, queue):
    a = clrandom.PhiloxGenerator(ctx, seed=7).uniform(queue, 1000, np.float64).get()
    b = clrandom.PhiloxGenerator(ctx, seed=7).uniform(queue, 1000, np.float64).get()
    np.testing.assert_array_equal(a, b)
    gen = clrandom.ThreefryGenerator(ctx, seed=7)
    first, second = gen.uniform(queue, 10, np.float32).get(), gen.uniform(queue, 10, np.float32).get()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(clrandom.uniform(queue, 50, seed=3).get(),
                                  clrandom.uniform(queue, 50, seed=3).get())
    gen = clrandom.PhiloxGenerator(ctx, key=[1, 2], counter=[-1, -1, 0, 0])
    gen.fill_uniform(cl_array.empty(queue, 8, np.float32))
    assert gen.counter == [1, 0, 1, 0]  # the 128-bit counter advanced by two blocks, with carries
    with pytest.raises(TypeError, match="seed is unused"):
        clrandom.PhiloxGenerator(ctx, key=[1, 2], counter=[0] * 4, seed=1)


def test_rand_fills_views_and_rejects_bad_dtypes(ctx, queue):
    x = clrandom.rand(queue, (40, 3), np.float32)
    assert x.shape == (40, 3) and 0 < x.get().min() and x.get().max() < 1
    z = cl_array.zeros(queue, 20, np.float64)
    clrandom.fill_rand(z[::2], a=5, b=6)
    assert (z.get()[1::2] == 0).all() and (z.get()[::2] >= 5).all()
    with pytest.raises(NotImplementedError, match="random numbers of dtype float16"):
        clrandom.rand(queue, 4, np.float16)
    with pytest.raises(NotImplementedError, match="normal numbers of dtype int32"):
        clrandom.normal(queue, 4, np.int32)
    with pytest.raises(ValueError, match="uniform integers need a < b"):
        clrandom.rand(queue, 4, np.int32, a=3, b=3)
