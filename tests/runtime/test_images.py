"""Images and samplers on the cpu device, against the NumPy model of the spec
(image_reference.py): addressing and filtering bit for bit, every channel
order and data type read and written, the get_image_* queries, and the host
calls (copies with origins, regions and pitches, fills, image_from_array)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

from . import image_reference as ref

CO, CT = cl.channel_order, cl.channel_type
AM, FM = cl.addressing_mode, cl.filter_mode

KERNELS = """
kernel void s1(read_only image1d_t img, sampler_t s, global const float *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void s2(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void s3(read_only image3d_t img, sampler_t s, global const float4 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void s1a(read_only image1d_array_t img, sampler_t s, global const float2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void s2a(read_only image2d_array_t img, sampler_t s, global const float4 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void i2(read_only image2d_t img, sampler_t s, global const int2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }

kernel void fetch(read_only image2d_t img, global float4 *f, global int4 *si, global uint4 *ui)
{
    int x = get_global_id(0), y = get_global_id(1), i = y * get_image_width(img) + x;
    f[i] = read_imagef(img, (int2)(x, y));
    si[i] = read_imagei(img, (int2)(x, y));
    ui[i] = read_imageui(img, (int2)(x, y));
}
kernel void put_f(write_only image2d_t img, global const float4 *v)
{ int x = get_global_id(0), y = get_global_id(1); write_imagef(img, (int2)(x, y), v[y * get_image_width(img) + x]); }
kernel void put_i(write_only image2d_t img, global const int4 *v)
{ int x = get_global_id(0), y = get_global_id(1); write_imagei(img, (int2)(x, y), v[y * get_image_width(img) + x]); }
kernel void put_ui(write_only image2d_t img, global const uint4 *v)
{ int x = get_global_id(0), y = get_global_id(1); write_imageui(img, (int2)(x, y), v[y * get_image_width(img) + x]); }

const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
kernel void copy3(read_only image3d_t src, write_only image3d_t dst)
{
    int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
    write_imagef(dst, p, read_imagef(src, edge, p) * 2.0f);
}
kernel void queries(read_only image3d_t a, read_only image2d_array_t b, read_only image1d_array_t c,
                    read_only image1d_t d, global int *out)
{
    int4 da = get_image_dim(a);
    int2 db = get_image_dim(b);
    out[0] = get_image_width(a); out[1] = get_image_height(a); out[2] = get_image_depth(a);
    out[3] = da.x; out[4] = da.y; out[5] = da.z; out[6] = da.w;
    out[7] = db.x; out[8] = db.y; out[9] = (int)get_image_array_size(b);
    out[10] = (int)get_image_array_size(c); out[11] = get_image_width(d);
    out[12] = get_image_channel_order(a); out[13] = get_image_channel_data_type(a);
    out[14] = get_image_channel_order(d); out[15] = get_image_channel_data_type(d);
}
"""


@pytest.fixture(scope="module")
def prg(ctx):
    return cl.Program(ctx, KERNELS).build()


def _float_image(ctx, shape, is_array=False, seed=0):
    """An RGBA FLOAT image of `shape` (x first) with random texels, and the texels as (d, h, w, 4)."""
    rng = np.random.default_rng(seed)
    data = rng.standard_normal((*shape[::-1], 4)).astype(np.float32)
    fmt = cl.ImageFormat(CO.RGBA, CT.FLOAT)
    img = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, fmt, shape=shape, hostbuf=data,
                   is_array=is_array)
    return img, data.reshape((1,) * (4 - data.ndim) + data.shape)


def _run(queue, kernel, img, smp, coords, out_n):
    ctx = queue.context
    c = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=coords)
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out_n * 16)
    kernel(queue, (out_n,), None, img, smp, c, out)
    got = np.empty((out_n, 4), np.float32)
    cl.enqueue_copy(queue, got, out)
    return got


MODES = {AM.CLAMP_TO_EDGE: ref.CLAMP_TO_EDGE, AM.CLAMP: ref.CLAMP, AM.NONE: ref.NONE, AM.REPEAT: ref.REPEAT,
         AM.MIRRORED_REPEAT: ref.MIRRORED_REPEAT}
SAMPLERS = [(norm, mode, filt) for norm in (True, False) for mode in MODES for filt in (FM.NEAREST, FM.LINEAR)
            if norm or mode not in (AM.REPEAT, AM.MIRRORED_REPEAT)]


def _coords(rng, n, size, norm, mode, dims):
    """Coordinates inside and outside the image (inside only for ADDRESS_NONE), with texel
    centres and edges among them."""
    lo, hi = (0.0, 1.0) if mode == AM.NONE else (-1.25, 2.25)
    c = rng.uniform(lo, hi, (n, dims)).astype(np.float32)
    c[: n // 4] = (np.floor(c[: n // 4] * 8) / 8).astype(np.float32)  # exact texel edges and centres
    if mode == AM.NONE:
        c = np.clip(c, 0.0, 0.999)
    return c if norm else (c * np.array(size[:dims], np.float32)).astype(np.float32)


@pytest.mark.parametrize("norm, mode, filt", SAMPLERS)
def test_2d_sampling_matches_the_spec_bit_for_bit(ctx, queue, prg, norm, mode, filt):
    img, texels = _float_image(ctx, (7, 5))
    smp = cl.Sampler(ctx, norm, mode, filt)
    coords = _coords(np.random.default_rng(1), 256, (7, 5), norm, mode, 2)
    got = _run(queue, prg.s2, img, smp, coords, len(coords))
    want = ref.sample(texels, np.zeros(4, np.float32), coords, 2, norm, MODES[mode],
                      "nearest" if filt == FM.NEAREST else "linear")
    assert np.array_equal(got, want)


@pytest.mark.parametrize("norm, mode, filt", [s for s in SAMPLERS if s[1] in (AM.CLAMP, AM.REPEAT,
                                                                               AM.MIRRORED_REPEAT)])
@pytest.mark.parametrize("dims", [1, 3])
def test_1d_and_3d_sampling(ctx, queue, prg, norm, mode, filt, dims):
    shape = (9,) if dims == 1 else (5, 4, 3)
    img, texels = _float_image(ctx, shape, seed=dims)
    smp = cl.Sampler(ctx, norm, mode, filt)
    coords = _coords(np.random.default_rng(2), 128, shape, norm, mode, dims)
    padded = coords if dims == 1 else np.concatenate([coords, np.zeros((len(coords), 1), np.float32)], 1)
    got = _run(queue, prg.s1 if dims == 1 else prg.s3, img, smp, np.ascontiguousarray(padded), len(coords))
    want = ref.sample(texels, np.zeros(4, np.float32), coords, dims, norm, MODES[mode],
                      "nearest" if filt == FM.NEAREST else "linear")
    assert np.array_equal(got, want)


@pytest.mark.parametrize("filt", [FM.NEAREST, FM.LINEAR])
def test_array_images_pick_a_layer_and_filter_within_it(ctx, queue, prg, filt):
    rng = np.random.default_rng(3)
    img1, t1 = _float_image(ctx, (6, 4), is_array=True, seed=4)  # 6 texels, 4 layers
    img2, t2 = _float_image(ctx, (5, 3, 4), is_array=True, seed=5)  # 5 x 3, 4 layers
    smp = cl.Sampler(ctx, True, AM.CLAMP, filt)
    name = "nearest" if filt == FM.NEAREST else "linear"
    x = rng.uniform(-0.2, 1.2, (64, 2)).astype(np.float32)
    layer = rng.uniform(-1.4, 4.6, 64).astype(np.float32)
    want_layer = np.clip(np.rint(layer), 0, 3).astype(int)
    got1 = _run(queue, prg.s1a, img1, smp, np.stack([x[:, 0], layer], 1), 64)
    rows = t1[0]  # (layers, width, 4): a 1D array's layers are its rows
    want1 = np.stack([ref.sample(rows[k][None, None], np.zeros(4, np.float32), x[i:i + 1, :1], 1, True,
                                 ref.CLAMP, name)[0] for i, k in enumerate(want_layer)])
    assert np.array_equal(got1, want1)
    c2 = np.stack([x[:, 0], x[:, 1], layer, np.zeros(64, np.float32)], 1)
    got2 = _run(queue, prg.s2a, img2, smp, np.ascontiguousarray(c2), 64)
    want2 = np.stack([ref.sample(t2[k][None], np.zeros(4, np.float32), x[i:i + 1], 2, True, ref.CLAMP,
                                 name)[0] for i, k in enumerate(want_layer)])
    assert np.array_equal(got2, want2)


def test_integer_coordinates_with_a_sampler(ctx, queue, prg):
    img, texels = _float_image(ctx, (4, 3))
    coords = np.array([[x, y] for x in range(-2, 6) for y in range(-2, 5)], np.int32)
    for mode in (AM.CLAMP_TO_EDGE, AM.CLAMP):
        got = _run(queue, prg.i2, img, cl.Sampler(ctx, False, mode, FM.NEAREST), coords, len(coords))
        x, y = coords[:, 0].astype(np.int64), coords[:, 1].astype(np.int64)
        m = MODES[mode]
        want = ref.texel(texels, np.zeros(4, np.float32), ref._edge(x, 4, m), ref._edge(y, 3, m),
                         np.zeros_like(x))
        assert np.array_equal(got, want)


# -- channel orders and data types ------------------------------------------------------

TYPES = {  # channel type -> (numpy storage, reference kind, which read returns it)
    CT.UNORM_INT8: (np.uint8, "unorm8", "f"), CT.UNORM_INT16: (np.uint16, "unorm16", "f"),
    CT.SNORM_INT8: (np.int8, "snorm8", "f"), CT.SNORM_INT16: (np.int16, "snorm16", "f"),
    CT.HALF_FLOAT: (np.float16, "half", "f"), CT.FLOAT: (np.float32, "float", "f"),
    CT.SIGNED_INT8: (np.int8, "int", "i"), CT.SIGNED_INT16: (np.int16, "int", "i"),
    CT.SIGNED_INT32: (np.int32, "int", "i"), CT.UNSIGNED_INT8: (np.uint8, "int", "ui"),
    CT.UNSIGNED_INT16: (np.uint16, "int", "ui"), CT.UNSIGNED_INT32: (np.uint32, "int", "ui"),
}
ORDERS = {  # channel order -> rgba index of each stored component, and the rgba of the unmapped ones
    CO.R: (0,), CO.A: (3,), CO.RG: (0, 1), CO.RA: (0, 3), CO.RGBA: (0, 1, 2, 3),
    CO.BGRA: (2, 1, 0, 3), CO.ARGB: (3, 0, 1, 2), CO.INTENSITY: (0, 0, 0, 0), CO.LUMINANCE: (0, 0, 0),
}
def _formats(ctx):
    """Every supported format but the packed RGB ones (test_packed_rgb_formats)."""
    every = cl.get_supported_image_formats(ctx, cl.mem_flags.READ_WRITE, cl.mem_object_type.IMAGE2D)
    assert len(every) == 5 * 12 + 2 * 4 + 2 * 6 + 3
    return [(f.channel_order, f.channel_data_type) for f in every if f.channel_order != CO.RGB]


def _stored_random(rng, dtype, n):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)


def _expand(order, comps, one):
    """Stored components (N, k) -> rgba (N, 4) as read_image* returns them."""
    n = len(comps)
    out = np.zeros((n, 4), comps.dtype)
    out[:, 3] = one
    if order == CO.INTENSITY:
        return np.repeat(comps[:, :1], 4, 1)
    if order == CO.LUMINANCE:
        out[:, :3] = comps[:, :1]
        return out
    for k, idx in enumerate(ORDERS[order]):
        out[:, idx] = comps[:, k]
    return out


def test_every_supported_format_reads_as_the_spec_says(ctx, queue, prg):
    rng = np.random.default_rng(6)
    w, h = 5, 3
    for order, ctype in _formats(ctx):
        dtype, kind, read = TYPES[ctype]
        k = len(ORDERS[order]) if order not in (CO.INTENSITY, CO.LUMINANCE) else 1
        raw = _stored_random(rng, dtype, w * h * k).reshape(w * h, k)
        img = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, cl.ImageFormat(order, ctype),
                       shape=(w, h), hostbuf=raw)
        bufs = [cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, w * h * 16) for _ in range(3)]
        prg.fetch(queue, (w, h), None, img, *bufs)
        got = {name: np.empty((w * h, 4), t) for name, t in (("f", np.float32), ("i", np.int32), ("ui", np.uint32))}
        for b, name in zip(bufs, ("f", "i", "ui")):
            cl.enqueue_copy(queue, got[name], b)
        if read == "f":
            want = _expand(order, ref.unnormalize(raw, kind) if kind not in ("half", "float")
                           else raw.astype(np.float32), 1.0)
            assert np.array_equal(got["f"], want, equal_nan=True), cl.ImageFormat(order, ctype)
        else:
            want = _expand(order, raw.astype(np.int64), 1)
            assert np.array_equal(got[read].astype(np.int64), want), cl.ImageFormat(order, ctype)


def test_every_supported_format_writes_as_the_spec_says(ctx, queue, prg):
    rng = np.random.default_rng(7)
    w, h = 4, 3
    for order, ctype in _formats(ctx):
        dtype, kind, read = TYPES[ctype]
        img = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, cl.ImageFormat(order, ctype), shape=(w, h))
        if read == "f":
            values = (rng.uniform(-1.3, 1.3, (w * h, 4)).astype(np.float32) if kind != "float"
                      else rng.standard_normal((w * h, 4)).astype(np.float32))
            values[0] = [0.5 / 255, 1.5 / 255, np.nan, -0.0]  # ties round to even; NaN converts to 0
            kernel = prg.put_f
        else:
            info = np.iinfo(np.int32 if read == "i" else np.uint32)
            values = rng.integers(info.min, info.max, (w * h, 4), endpoint=True).astype(
                np.int32 if read == "i" else np.uint32)
            kernel = prg.put_i if read == "i" else prg.put_ui
        vb = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
        kernel(queue, (w, h), None, img, vb)
        k = len(ORDERS[order]) if order not in (CO.INTENSITY, CO.LUMINANCE) else 1
        got = np.empty((w * h, k), dtype)
        cl.enqueue_copy(queue, got, img, origin=(0, 0), region=(w, h))
        picked = values[:, list(ORDERS[order][:k])] if order not in (CO.INTENSITY, CO.LUMINANCE) else values[:, :1]
        if kind in ("unorm8", "unorm16", "snorm8", "snorm16"):
            want = ref.normalize(picked, kind)
        elif kind == "half":
            want = picked.astype(np.float16)
        elif kind == "float":
            want = picked
        else:
            i = np.iinfo(dtype)
            want = np.clip(picked.astype(np.int64), i.min, i.max).astype(dtype)
        assert np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8)), \
            cl.ImageFormat(order, ctype)


@pytest.mark.parametrize("order, alpha", [(CO.R, 1.0), (CO.RG, 1.0), (CO.LUMINANCE, 1.0), (CO.A, 0.0),
                                          (CO.RGBA, 0.0), (CO.BGRA, 0.0), (CO.INTENSITY, 0.0)])
def test_border_colour(ctx, queue, prg, order, alpha):
    fmt = cl.ImageFormat(order, CT.UNORM_INT8)
    k = {CO.R: 1, CO.RG: 2, CO.LUMINANCE: 1, CO.A: 1, CO.RGBA: 4, CO.BGRA: 4, CO.INTENSITY: 1}[order]
    img = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(2, 2),
                   hostbuf=np.full(4 * k, 200, np.uint8))
    got = _run(queue, prg.s2, img, cl.Sampler(ctx, False, AM.CLAMP, FM.NEAREST),
               np.array([[-1.0, 0.5], [0.5, 9.0]], np.float32), 2)
    assert np.array_equal(got, np.array([[0, 0, 0, alpha]] * 2, np.float32))


def test_program_scope_sampler_3d_copy_and_queries(ctx, queue, prg):
    img, texels = _float_image(ctx, (4, 3, 2))
    dst = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, cl.ImageFormat(CO.RGBA, CT.FLOAT), shape=(4, 3, 2))
    prg.copy3(queue, (4, 3, 2), None, img, dst)
    got = np.empty((2, 3, 4, 4), np.float32)
    cl.enqueue_copy(queue, got, dst, origin=(0, 0, 0), region=(4, 3, 2))
    assert np.array_equal(got, 2 * texels)
    b, _ = _float_image(ctx, (5, 6, 7), is_array=True)
    c, _ = _float_image(ctx, (8, 9), is_array=True)
    d = cl.Image(ctx, cl.mem_flags.READ_ONLY, cl.ImageFormat(CO.R, CT.UNORM_INT8), shape=(10,))
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 16 * 4)
    prg.queries(queue, (1,), None, img, b, c, d, out)
    got_q = np.empty(16, np.int32)
    cl.enqueue_copy(queue, got_q, out)
    assert got_q.tolist() == [4, 3, 2, 4, 3, 2, 0, 5, 6, 7, 9, 10, CO.RGBA, CT.FLOAT, CO.R, CT.UNORM_INT8]


@pytest.mark.parametrize("ctype, dtype, fields", [
    (CT.UNORM_SHORT_565, np.uint16, ((11, 31), (5, 63), (0, 31))),
    (CT.UNORM_SHORT_555, np.uint16, ((10, 31), (5, 31), (0, 31))),
    (CT.UNORM_INT_101010, np.uint32, ((20, 1023), (10, 1023), (0, 1023))),
])
def test_packed_rgb_formats(ctx, queue, prg, ctype, dtype, fields):
    rng = np.random.default_rng(8)
    w, h = 4, 3
    raw = rng.integers(0, np.iinfo(dtype).max, w * h, endpoint=True).astype(dtype)
    if dtype == np.uint32:
        raw &= np.uint32((1 << 30) - 1)
    fmt = cl.ImageFormat(CO.RGB, ctype)
    assert fmt in cl.get_supported_image_formats(ctx, cl.mem_flags.READ_WRITE, cl.mem_object_type.IMAGE2D)
    img = cl.Image(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(w, h), hostbuf=raw)
    assert img.element_size == np.dtype(dtype).itemsize
    bufs = [cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, w * h * 16) for _ in range(3)]
    prg.fetch(queue, (w, h), None, img, *bufs)
    got = np.empty((w * h, 4), np.float32)
    cl.enqueue_copy(queue, got, bufs[0])
    want = np.ones((w * h, 4), np.float32)
    for k, (shift, top) in enumerate(fields):
        want[:, k] = ((raw.astype(np.int64) >> shift) & top).astype(np.float32) / np.float32(top)
    assert np.array_equal(got, want)
    values = rng.uniform(-0.2, 1.2, (w * h, 4)).astype(np.float32)
    prg.put_f(queue, (w, h), None, img, cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                                                  hostbuf=values))
    back = np.empty(w * h, dtype)
    cl.enqueue_copy(queue, back, img, origin=(0, 0), region=(w, h))
    packed = np.zeros(w * h, np.int64)
    for k, (shift, top) in enumerate(fields):
        packed |= np.clip(np.rint(np.clip(values[:, k], 0, 1) * np.float32(top)), 0, top).astype(np.int64) << shift
    assert np.array_equal(back.astype(np.int64), packed)
