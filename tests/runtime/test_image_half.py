"""Half-precision images: read_imageh and write_imageh (cl_khr_fp16's image functions)
and HALF_FLOAT images read and written every way, against NumPy's float16 (IEEE
binary16, round to nearest even), on the cpu and simt devices (cuda where a GPU is
present). PoCL has no cl_khr_fp16, so NumPy is the reference for the kernels;
test_images_pocl.py checks the host side of HALF_FLOAT images against PoCL."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

from . import image_reference as ref
from .image_devices import KINDS, context_on

CO, CT, MF = cl.channel_order, cl.channel_type, cl.mem_flags
HALF = cl.ImageFormat(CO.RGBA, CT.HALF_FLOAT)

SRC = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void fetch_h(read_only image2d_t img, global half4 *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    out[y * get_image_width(img) + x] = read_imageh(img, (int2)(x, y));
}
kernel void sample_h(read_only image2d_t img, sampler_t s, global const float2 *c, global half4 *out)
{ size_t i = get_global_id(0); out[i] = read_imageh(img, s, c[i]); }
kernel void sample_h3(read_only image3d_t img, sampler_t s, global const int4 *c, global half4 *out)
{ size_t i = get_global_id(0); out[i] = read_imageh(img, s, c[i]); }
kernel void fetch_h1(read_only image1d_t img, global half4 *out)
{ int x = get_global_id(0); out[x] = read_imageh(img, x); }
kernel void put_h(write_only image2d_t img, global const half4 *v)
{
    int x = get_global_id(0), y = get_global_id(1);
    write_imageh(img, (int2)(x, y), v[y * get_image_width(img) + x]);
}
kernel void put_h2a(write_only image2d_array_t img, global const half4 *v)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    write_imageh(img, (int4)(x, y, z, 0), v[(z * get_image_height(img) + y) * get_image_width(img) + x]);
}
kernel void put_f(write_only image2d_t img, global const float4 *v)
{
    int x = get_global_id(0), y = get_global_id(1);
    write_imagef(img, (int2)(x, y), v[y * get_image_width(img) + x]);
}
kernel void get_f(read_only image2d_t img, global float4 *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    out[y * get_image_width(img) + x] = read_imagef(img, (int2)(x, y));
}
"""


@pytest.fixture(scope="module", params=KINDS)
def env(request):
    ctx = context_on(request.param)
    return ctx, cl.CommandQueue(ctx), cl.Program(ctx, SRC).build()


def _halves(rng, shape):
    """Random halves with the edge cases among them: zeros, subnormals, the largest, infinities."""
    h = (rng.standard_normal(shape) * 100).astype(np.float16).reshape(-1)
    special = np.array([0.0, -0.0, 6e-8, -6e-8, 6.1e-5, 65504.0, -65504.0, np.inf, -np.inf, 1 / 3],
                       np.float16)
    h[:len(special)] = special
    return h.reshape(shape)


def _out(ctx, n, dtype, comps=4):
    return cl.Buffer(ctx, MF.WRITE_ONLY, n * comps * np.dtype(dtype).itemsize)


def _get(q, buf, n, dtype):
    got = np.empty((n, 4), dtype)
    cl.enqueue_copy(q, got, buf)
    return got


def _half(f):
    """float32 -> float16, round to nearest even, infinity beyond the largest half."""
    with np.errstate(over="ignore"):
        return np.asarray(f, np.float32).astype(np.float16)


def _bits_equal(a, b):
    return np.array_equal(a.view(np.uint16), b.view(np.uint16))


def test_read_imageh_returns_the_stored_halves(env):
    ctx, q, prg = env
    texels = _halves(np.random.default_rng(0), (3, 5, 4))
    img = cl.Image(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, HALF, shape=(5, 3), hostbuf=texels)
    out = _out(ctx, 15, np.float16)
    prg.fetch_h(q, (5, 3), None, img, out)
    assert _bits_equal(_get(q, out, 15, np.float16), texels.reshape(15, 4))


def test_read_imageh_of_normalized_texels_rounds_the_float_value(env):
    ctx, q, prg = env
    raw = np.arange(256, dtype=np.uint8)  # every UNORM_INT8 value
    img = cl.Image(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, cl.ImageFormat(CO.R, CT.UNORM_INT8), shape=(256,),
                   hostbuf=raw)
    out = _out(ctx, 256, np.float16)
    prg.fetch_h1(q, (256,), None, img, out)
    got = _get(q, out, 256, np.float16)
    want = ref.unnormalize(raw, "unorm8").astype(np.float16)
    assert _bits_equal(got[:, 0], want)
    assert np.all(got[:, 1:3] == 0) and np.all(got[:, 3] == 1)  # (r, 0, 0, 1) for CL_R


@pytest.mark.parametrize("filt", [cl.filter_mode.NEAREST, cl.filter_mode.LINEAR])
def test_read_imageh_with_a_sampler_is_read_imagef_rounded_to_half(env, filt):
    ctx, q, prg = env
    rng = np.random.default_rng(1)
    texels = (rng.standard_normal((5, 7, 4)) * 10).astype(np.float16)
    img = cl.Image(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, HALF, shape=(7, 5), hostbuf=texels)
    coords = rng.uniform(-0.25, 1.25, (64, 2)).astype(np.float32)
    cb = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=coords)
    out = _out(ctx, 64, np.float16)
    prg.sample_h(q, (64,), None, img, cl.Sampler(ctx, True, cl.addressing_mode.REPEAT, filt), cb, out)
    name = "nearest" if filt == cl.filter_mode.NEAREST else "linear"
    want = ref.sample(texels.astype(np.float32)[None], np.zeros(4, np.float32), coords, 2, True, ref.REPEAT, name)
    got = _get(q, out, 64, np.float16)
    if name == "linear" and ctx.devices[0].kind == "cuda":  # NVPTX contracts a*b+c in the weights
        np.testing.assert_allclose(got.astype(np.float32), want, rtol=2e-3, atol=1e-4)
    else:
        assert _bits_equal(got, want.astype(np.float16))


def test_read_imageh_3d_integer_coordinates_clamp_to_the_border(env):
    ctx, q, prg = env
    texels = _halves(np.random.default_rng(2), (2, 3, 4, 4))
    img = cl.Image(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, HALF, shape=(4, 3, 2), hostbuf=texels)
    coords = np.array([[x, y, z, 0] for z in range(-1, 3) for y in range(3) for x in range(-1, 5)], np.int32)
    cb = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=coords)
    out = _out(ctx, len(coords), np.float16)
    smp = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP, cl.filter_mode.NEAREST)
    prg.sample_h3(q, (len(coords),), None, img, smp, cb, out)
    x, y, z = (coords[:, k].astype(np.int64) for k in range(3))
    want = ref.texel(texels.astype(np.float32), np.zeros(4, np.float32), x, y, z).astype(np.float16)
    assert _bits_equal(_get(q, out, len(coords), np.float16), want)


def test_write_imageh_round_trips_every_half_bit_for_bit(env):
    ctx, q, prg = env
    values = _halves(np.random.default_rng(3), (4, 6, 4))
    img = cl.Image(ctx, MF.WRITE_ONLY, HALF, shape=(6, 4))
    prg.put_h(q, (6, 4), None, img, cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=values))
    got = np.empty_like(values)
    cl.enqueue_copy(q, got, img, origin=(0, 0), region=(6, 4))
    assert _bits_equal(got, values)


def test_write_imageh_to_an_array_layer(env):
    ctx, q, prg = env
    values = _halves(np.random.default_rng(4), (3, 2, 5, 4))
    img = cl.Image(ctx, MF.WRITE_ONLY, HALF, shape=(5, 2, 3), is_array=True)
    prg.put_h2a(q, (5, 2, 3), None, img, cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=values))
    got = np.empty_like(values)
    cl.enqueue_copy(q, got, img, origin=(0, 0, 0), region=(5, 2, 3))
    assert _bits_equal(got, values)


@pytest.mark.parametrize("order, kind, dtype", [(CO.BGRA, "unorm8", np.uint8), (CO.RGBA, "snorm16", np.int16)])
def test_write_imageh_to_normalized_texels_converts_as_write_imagef(env, order, kind, dtype):
    ctx, q, prg = env
    values = np.random.default_rng(5).uniform(-1.3, 1.3, (2, 3, 4)).astype(np.float16)
    img = cl.Image(ctx, MF.WRITE_ONLY, cl.ImageFormat(order, {"unorm8": CT.UNORM_INT8,
                                                              "snorm16": CT.SNORM_INT16}[kind]), shape=(3, 2))
    prg.put_h(q, (3, 2), None, img, cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=values))
    got = np.empty((2, 3, 4), dtype)
    cl.enqueue_copy(q, got, img, origin=(0, 0), region=(3, 2))
    perm = [2, 1, 0, 3] if order == CO.BGRA else [0, 1, 2, 3]
    assert np.array_equal(got, ref.normalize(values.astype(np.float32)[..., perm], kind))


def test_write_imagef_to_half_texels_rounds_to_nearest_even(env):
    ctx, q, prg = env
    rng = np.random.default_rng(6)
    values = (rng.standard_normal((3, 4, 4)) * 3000).astype(np.float32)
    values.reshape(-1)[:6] = [65519.0, 65520.0, -1e9, 1e-9, 2049.0, 2051.0]  # below/at overflow, ties
    img = cl.Image(ctx, MF.READ_WRITE, HALF, shape=(4, 3))
    prg.put_f(q, (4, 3), None, img, cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=values))
    got = np.empty((3, 4, 4), np.float16)
    cl.enqueue_copy(q, got, img, origin=(0, 0), region=(4, 3))
    assert _bits_equal(got, _half(values))
    back = cl.Buffer(ctx, MF.WRITE_ONLY, values.nbytes)  # and read_imagef gives the halves back as floats
    prg.get_f(q, (4, 3), None, img, back)
    assert np.array_equal(_get(q, back, 12, np.float32), _half(values).astype(np.float32).reshape(12, 4))


def test_half_images_on_the_host(env):
    """Host writes, reads, copies and fills of a HALF_FLOAT image, and image_from_array."""
    ctx, q, _ = env
    data = _halves(np.random.default_rng(7), (4, 5, 2))
    img = cl.image_from_array(ctx, data, num_channels=2, mode="w")
    assert img.format == cl.ImageFormat(CO.RG, CT.HALF_FLOAT) and img.element_size == 4
    got = np.empty_like(data)
    cl.enqueue_copy(q, got, img, origin=(0, 0), region=(5, 4))
    assert _bits_equal(got, data)
    cl.enqueue_fill_image(q, img, np.array([1 / 3, 70000.0, 0, 0], np.float32), (1, 1), (2, 2))
    data[1:3, 1:3] = _half([1 / 3, 70000.0])
    cl.enqueue_copy(q, got, img, origin=(0, 0), region=(5, 4))
    assert _bits_equal(got, data) and np.isinf(got[1, 1, 1])
