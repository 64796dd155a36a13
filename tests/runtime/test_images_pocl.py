"""The same image programs on oclpy and on PyOpenCL + PoCL (skipped where they are
not installed): the host code is written once against a `cl` module and run with
each, and the results compared."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import oclpy
from tests.pocl_peer import pocl_context

KERNELS = """
kernel void sample(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void sample3(read_only image3d_t img, sampler_t s, global const float4 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void roundtrip(read_only image2d_t src, write_only image2d_t dst, global int *q)
{
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, p, read_imagef(src, p) * 0.75f + 0.125f);
    if (p.x == 0 && p.y == 0) {
        q[0] = get_image_width(src); q[1] = get_image_height(src);
        q[2] = get_image_channel_order(src); q[3] = get_image_channel_data_type(src);
    }
}
kernel void ints(read_only image2d_t src, write_only image2d_t dst)
{ int2 p = (int2)(get_global_id(0), get_global_id(1)); write_imagei(dst, p, read_imagei(src, p) * 3 - 100); }
"""


@pytest.fixture(scope="module")
def pocl():
    return pocl_context(all_devices=True)


def _both(pocl: Any, run: Any) -> tuple[Any, Any]:
    cl, ctx = pocl
    return run(oclpy, oclpy.Context(dev_type=oclpy.device_type.CPU)), run(cl, ctx)


def _sampling(cl: Any, ctx: Any) -> list[np.ndarray]:
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, KERNELS).build()
    sample2, sample3 = prg.sample, prg.sample3
    rng = np.random.default_rng(0)
    data = rng.standard_normal((5, 7, 4)).astype(np.float32)
    img = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                   cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT), shape=(7, 5), hostbuf=data)
    vol = rng.standard_normal((3, 4, 5, 4)).astype(np.float32)
    img3 = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                    cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT), shape=(5, 4, 3), hostbuf=vol)
    outs = []
    for norm in (True, False):
        modes = [cl.addressing_mode.CLAMP_TO_EDGE, cl.addressing_mode.CLAMP]
        modes += [cl.addressing_mode.REPEAT, cl.addressing_mode.MIRRORED_REPEAT] if norm else []
        for mode in modes:
            for filt in (cl.filter_mode.NEAREST, cl.filter_mode.LINEAR):
                smp = cl.Sampler(ctx, norm, mode, filt)
                c = rng.uniform(-0.6, 1.6, (200, 4)).astype(np.float32)
                if not norm:
                    c *= np.array([7, 5, 3, 1], np.float32)
                for kernel, image, coords in ((sample2, img, np.ascontiguousarray(c[:, :2])),
                                              (sample3, img3, c)):
                    cb = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=coords)
                    ob = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 200 * 16)
                    kernel(q, (200,), None, image, smp, cb, ob)
                    out = np.empty((200, 4), np.float32)
                    cl.enqueue_copy(q, out, ob)
                    outs.append(out)
    return outs


def test_sampling_matches_pocl(pocl):
    mine, theirs = _both(pocl, _sampling)
    for k, (a, b) in enumerate(zip(mine, theirs)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"case {k}")


def _formats(cl: Any, ctx: Any) -> list[np.ndarray]:
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, KERNELS).build()
    roundtrip, ints = prg.roundtrip, prg.ints
    rng = np.random.default_rng(1)
    co, ct = cl.channel_order, cl.channel_type
    outs = []
    for order, n in ((co.R, 1), (co.A, 1), (co.RGBA, 4), (co.BGRA, 4)):
        for ctype, dtype in ((ct.UNORM_INT8, np.uint8), (ct.SNORM_INT8, np.int8), (ct.UNORM_INT16, np.uint16),
                             (ct.SNORM_INT16, np.int16), (ct.FLOAT, np.float32)):
            # not HALF_FLOAT: PoCL 3.0's write_imagef to a half image writes garbage (oclpy's
            # matches NumPy's float16 rounding: test_images.py)
            if order == co.BGRA and dtype not in (np.uint8, np.int8):
                continue
            raw = (rng.integers(-2**15, 2**15, (3, 4, n)).astype(dtype) if np.dtype(dtype).kind in "iu"
                   else rng.uniform(-2, 2, (3, 4, n)).astype(dtype))
            fmt = cl.ImageFormat(order, ctype)
            src = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(4, 3), hostbuf=raw)
            dst = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, fmt, shape=(4, 3))
            qb = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 16)
            roundtrip(q, (4, 3), None, src, dst, qb)
            out, info = np.empty_like(raw), np.empty(4, np.int32)
            cl.enqueue_copy(q, out, dst, origin=(0, 0), region=(4, 3))
            cl.enqueue_copy(q, info, qb)
            outs += [out, info]
    for ctype, dtype in ((ct.SIGNED_INT8, np.int8), (ct.SIGNED_INT16, np.int16), (ct.SIGNED_INT32, np.int32)):
        raw = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, (3, 4, 4)).astype(dtype)
        fmt = cl.ImageFormat(co.RGBA, ctype)
        src = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(4, 3), hostbuf=raw)
        dst = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, fmt, shape=(4, 3))
        ints(q, (4, 3), None, src, dst)
        out = np.empty_like(raw)
        cl.enqueue_copy(q, out, dst, origin=(0, 0), region=(4, 3))
        outs.append(out)
    return outs


def test_format_conversions_match_pocl(pocl):
    mine, theirs = _both(pocl, _formats)
    for k, (a, b) in enumerate(zip(mine, theirs)):
        if a.dtype == np.float32:  # PoCL contracts x * 0.75f + 0.125f into an fma, oclpy's cpu does not
            np.testing.assert_allclose(a, b, rtol=2e-7, atol=1e-7, err_msg=f"case {k}")
        else:
            assert np.array_equal(a, b), f"case {k}: {a.ravel()[:8]} != {b.ravel()[:8]}"


def _host(cl: Any, ctx: Any) -> list[Any]:
    q = cl.CommandQueue(ctx)
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
    img = cl.Image(ctx, cl.mem_flags.READ_WRITE, fmt, shape=(6, 5))
    # colours whose scaled values are integers: PoCL truncates where the spec rounds to nearest
    # even (0.25 fills 63 there, 64 here)
    cl.enqueue_fill_image(q, img, np.array([0.2, 0.4, 1.0, 0.0], np.float32), (0, 0), (6, 5))
    cl.enqueue_fill_image(q, img, np.array([0.6, 0.8, 0.0, 1.0], np.float32), (1, 2), (3, 2))
    out = np.zeros((5, 6, 4), np.uint8)
    cl.enqueue_copy(q, out, img, origin=(0, 0), region=(6, 5))
    part = np.zeros((2, 8, 4), np.uint8)
    cl.enqueue_copy(q, part, img, origin=(1, 2), region=(3, 2), pitches=(32,))
    return [out, part, img.element_size, img.row_pitch, img.width, img.height,
            sorted((f.channel_order, f.channel_data_type) for f in
                   cl.get_supported_image_formats(ctx, cl.mem_flags.READ_WRITE, cl.mem_object_type.IMAGE2D)
                   if f.channel_order in (cl.channel_order.RGBA, cl.channel_order.R))]


def test_host_calls_match_pocl(pocl):
    mine, theirs = _both(pocl, _host)
    for k, (a, b) in enumerate(zip(mine, theirs)):
        assert np.array_equal(np.asarray(a), np.asarray(b)), f"item {k}"


HALF_KERNEL = """
kernel void widen(read_only image2d_t src, global float4 *out)
{ int2 p = (int2)(get_global_id(0), get_global_id(1)); out[p.y * get_image_width(src) + p.x] = read_imagef(src, p); }
"""


def _half(cl: Any, ctx: Any) -> list[np.ndarray]:
    """HALF_FLOAT images: written and read by the host, copied, and read by read_imagef."""
    q = cl.CommandQueue(ctx)
    widen = cl.Program(ctx, HALF_KERNEL).build().widen
    data = (np.random.default_rng(2).standard_normal((3, 5, 4)) * 1000).astype(np.float16)
    data.reshape(-1)[:5] = [np.inf, -np.inf, 6e-8, -0.0, 65504]
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.HALF_FLOAT)
    img = cl.create_image(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(5, 3),
                          hostbuf=data)
    other = cl.create_image(ctx, cl.mem_flags.READ_WRITE, fmt, shape=(5, 3))
    cl.enqueue_copy(q, other, data[::-1].copy(), origin=(0, 0), region=(5, 3))
    cl.enqueue_copy(q, other, img, src_origin=(1, 0), dest_origin=(0, 1), region=(3, 2))
    back = np.empty_like(data)
    cl.enqueue_copy(q, back, other, origin=(0, 0), region=(5, 3))
    ob = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 15 * 16)
    widen(q, (5, 3), None, img, ob)
    wide = np.empty((15, 4), np.float32)
    cl.enqueue_copy(q, wide, ob)
    return [back.view(np.uint16), wide, np.array([img.element_size, img.row_pitch])]


def test_half_images_match_pocl(pocl):
    mine, theirs = _both(pocl, _half)
    for k, (a, b) in enumerate(zip(mine, theirs)):
        assert np.array_equal(a, b), f"item {k}"


BUFFER_KERNEL = """
kernel void scale(read_only image1d_buffer_t src, write_only image1d_buffer_t dst)
{ int i = get_global_id(0); write_imagef(dst, i, read_imagef(src, i) * 2.0f + (float4)(0, 0, 0, i)); }
"""  # (PoCL 3.0 has no get_image_width for image1d_buffer_t)


def _descriptors(cl: Any, ctx: Any) -> list[Any]:
    """Images from ImageDescriptors (their info), a 1D buffer image sharing its buffer's memory,
    and the error codes of bad descriptors."""
    q = cl.CommandQueue(ctx)
    mot = cl.mem_object_type
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8)
    out: list[Any] = []

    def desc(image_type, shape, array_size=None, buffer=None):
        d = cl.ImageDescriptor()
        d.image_type, d.shape, d.buffer = image_type, shape, buffer
        d.pitches = (0, 0)
        if array_size is not None:
            d.array_size = array_size
        return d

    for args in ((mot.IMAGE1D, (7,)), (mot.IMAGE1D_ARRAY, (7,), 3), (mot.IMAGE2D, (7, 5)),
                 (mot.IMAGE2D_ARRAY, (7, 5), 4), (mot.IMAGE3D, (7, 5, 2))):
        img = cl.Image(ctx, cl.mem_flags.READ_WRITE, fmt, desc=desc(*args))
        out.append([img.type, img.width, img.height, img.depth, img.array_size, img.row_pitch, img.slice_pitch])
    data = np.random.default_rng(3).standard_normal((10, 4)).astype(np.float32)
    src_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
    dst_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, data.nbytes)
    fmt_f = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    src = cl.Image(ctx, 0, fmt_f, desc=desc(mot.IMAGE1D_BUFFER, (10,), buffer=src_buf))
    dst = cl.Image(ctx, 0, fmt_f, desc=desc(mot.IMAGE1D_BUFFER, (10,), buffer=dst_buf))
    cl.Program(ctx, BUFFER_KERNEL).build().scale(q, (10,), None, src, dst)
    got = np.empty_like(data)
    cl.enqueue_copy(q, got, dst_buf)
    out += [got, [src.type, src.width, src.row_pitch, src.size]]
    for bad in (desc(mot.IMAGE1D_BUFFER, (16,)), desc(mot.IMAGE1D_BUFFER, (17,), buffer=cl.Buffer(ctx, 0, 64))):
        try:
            cl.Image(ctx, 0, fmt, desc=bad)
            out.append("no error")
        except cl.Error as exc:
            out.append(exc.code)
    return out


def test_descriptors_and_buffer_images_match_pocl(pocl):
    mine, theirs = _both(pocl, _descriptors)
    for k, (a, b) in enumerate(zip(mine, theirs)):
        assert np.array_equal(np.asarray(a), np.asarray(b)), f"item {k}: {a} != {b}"


def _maps(cl: Any, ctx: Any) -> list[Any]:
    """enqueue_map_image: the returned pitches, a read map with pitch strides and with
    default ones, a write map released, on a 2D and a 3D image."""
    q = cl.CommandQueue(ctx)
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8)
    rng = np.random.default_rng(4)
    data = rng.integers(0, 256, (5, 7, 4), dtype=np.uint8)
    img = cl.create_image(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(7, 5), hostbuf=data)
    vol = rng.integers(0, 256, (3, 4, 5, 4), dtype=np.uint8)
    img3 = cl.create_image(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(5, 4, 3),
                           hostbuf=vol)
    out: list[Any] = []
    ary, _, row, slab = cl.enqueue_map_image(q, img, cl.map_flags.READ, (1, 2), (3, 2), (2, 3, 4), np.uint8,
                                             strides=(28, 4, 1))
    out += [ary.copy(), row, slab]
    ary.base.release()
    ary, _, row, slab = cl.enqueue_map_image(q, img, cl.map_flags.READ, (1, 2), (3, 2), (2, 12), np.uint8)
    out.append(ary.copy())
    ary.base.release()
    ary, _, row, slab = cl.enqueue_map_image(q, img3, cl.map_flags.READ | cl.map_flags.WRITE, (1, 1, 1), (2, 3, 2),
                                             (2, 3, 2, 4), np.uint8, strides=(80, 20, 4, 1))
    out += [ary.copy(), row, slab]
    ary[:] = 255 - ary
    ary.base.release()
    back = np.empty_like(vol)
    cl.enqueue_copy(q, back, img3, origin=(0, 0, 0), region=(5, 4, 3))
    out.append(back)
    for shape, is_array in (((6,), False), ((6, 3), True), ((6, 3, 2), True)):  # each type's pitches
        other = cl.create_image(ctx, 0, fmt, shape=shape, is_array=is_array)
        ary, _, row, slab = cl.enqueue_map_image(q, other, cl.map_flags.READ, (0,) * len(shape), (1,) * len(shape),
                                                 (4,), np.uint8)
        out.append([row, slab, other.row_pitch, other.slice_pitch])
        ary.base.release()
    return out


def test_image_maps_match_pocl(pocl):
    mine, theirs = _both(pocl, _maps)
    for k, (a, b) in enumerate(zip(mine, theirs)):
        assert np.array_equal(np.asarray(a), np.asarray(b)), f"item {k}: {a} != {b}"


PAINT_KERNEL = """
kernel void paint(write_only image2d_t img)
{ int x = get_global_id(0), y = get_global_id(1); write_imageui(img, (int2)(x, y), (uint4)(x, y, x + y, 7)); }
"""


def _host_ptr(cl: Any, ctx: Any) -> list[Any]:
    """A USE_HOST_PTR image with a padded row pitch: its pitches, and its host memory after a
    kernel writes it and a map reads it (at the host memory's own address)."""
    q = cl.CommandQueue(ctx)
    host = np.full((3, 40), 0xEE, np.uint8)
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8)
    img = cl.create_image(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, fmt, shape=(5, 3),
                          pitches=(40,), hostbuf=host)
    cl.Program(ctx, PAINT_KERNEL).build().paint(q, (5, 3), None, img)
    ary, _, row, slab = cl.enqueue_map_image(q, img, cl.map_flags.READ, (1, 1), (3, 2), (2, 3, 4), np.uint8,
                                             strides=(40, 4, 1))
    out = [img.row_pitch, row, slab, ary.copy(), ary.__array_interface__["data"][0] - host.ctypes.data,
           host.copy()]
    ary.base.release()
    return out


def test_use_host_ptr_images_match_pocl(pocl):
    mine, theirs = _both(pocl, _host_ptr)
    for k, (a, b) in enumerate(zip(mine, theirs)):
        assert np.array_equal(np.asarray(a), np.asarray(b)), f"item {k}: {a} != {b}"
