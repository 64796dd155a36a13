"""2D images over a buffer (cl_khr_image2d_from_buffer: an ImageDescriptor of type
IMAGE2D with `buffer` set): the image is a view of the buffer's memory with the
descriptor's row pitch, so what a kernel or the host writes through one is what the
other reads, the padding between rows untouched; checked against NumPy slices of the
buffer on every device. PoCL 3.0 does not offer the extension (its devices do not list
it), so there is nothing to compare with there."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

from .image_devices import KINDS, context_on

CO, CT, MF, MOT = cl.channel_order, cl.channel_type, cl.mem_flags, cl.mem_object_type
RGBA_F = cl.ImageFormat(CO.RGBA, CT.FLOAT)
R_U8 = cl.ImageFormat(CO.R, CT.UNSIGNED_INT8)

SRC = """
kernel void copy(read_only image2d_t src, write_only image2d_t dst)
{
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, p, read_imagef(src, p) * 2.0f + (float4)(0, 0, get_image_width(src), get_image_height(src)));
}
kernel void sample(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void bytes(read_only image2d_t img, global uint *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    out[y * get_image_width(img) + x] = read_imageui(img, (int2)(x, y)).x;
}
"""


def _desc(shape, buffer, row_pitch=0):
    d = cl.ImageDescriptor()
    d.image_type = MOT.IMAGE2D
    d.shape = shape
    d.pitches = (row_pitch,)
    d.buffer = buffer
    return d


@pytest.fixture(scope="module", params=KINDS)
def env(request):
    ctx = context_on(request.param)
    return ctx, cl.CommandQueue(ctx), cl.Program(ctx, SRC).build()


def test_devices_report_the_extension_and_its_alignments(env) -> None:
    dev = env[0].devices[0]
    assert "cl_khr_image2d_from_buffer" in dev.extensions.split()
    assert dev.image_pitch_alignment == 1 and dev.image_base_address_alignment == 1  # texels


def test_a_pitched_image_over_a_buffer_shares_its_memory(env) -> None:
    ctx, q, prg = env
    w, h, pitch_texels = 5, 3, 8  # rows 128 bytes apart, 80 of them texels
    store = np.random.default_rng(3).standard_normal((h, pitch_texels, 4)).astype(np.float32)
    src_buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=store)
    dst_store = np.full_like(store, 7.0)
    dst_buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=dst_store)
    src = cl.Image(ctx, 0, RGBA_F, desc=_desc((w, h), src_buf, pitch_texels * 16))
    dst = cl.Image(ctx, MF.WRITE_ONLY, RGBA_F, desc=_desc((w, h), dst_buf, pitch_texels * 16))
    assert src.type == MOT.IMAGE2D and src.buffer is src_buf
    assert (src.width, src.height, src.row_pitch, src.flags) == (w, h, 128, MF.READ_WRITE)
    assert src.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT) is src_buf
    prg.copy(q, (w, h), None, src, dst)
    want = dst_store.copy()
    want[:, :w] = store[:, :w] * 2 + np.array([0, 0, w, h], np.float32)
    got = np.empty_like(store)
    cl.enqueue_copy(q, got, dst_buf)  # the kernel wrote through the image; the padding kept its 7s
    assert np.array_equal(got, want)
    cl.enqueue_copy(q, src_buf, -store)  # written through the buffer: the image sees it
    host = np.empty((h, w, 4), np.float32)
    cl.enqueue_copy(q, host, src, origin=(0, 0), region=(w, h))
    assert np.array_equal(host, -store[:, :w])


def test_host_writes_to_the_image_land_in_the_buffers_rows(env) -> None:
    ctx, q, prg = env
    w, h, pitch = 6, 4, 16
    buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.zeros(pitch * h, np.uint8))
    img = cl.Image(ctx, 0, R_U8, desc=_desc((w, h), buf, pitch))
    texels = (np.arange(w * h, dtype=np.uint8) * 7).reshape(h, w)
    cl.enqueue_copy(q, img, texels, origin=(0, 0), region=(w, h))
    raw = np.empty(pitch * h, np.uint8)
    cl.enqueue_copy(q, raw, buf)
    want = np.zeros((h, pitch), np.uint8)
    want[:, :w] = texels
    assert np.array_equal(raw.reshape(h, pitch), want)
    out = np.empty(w * h, np.uint32)
    ob = cl.Buffer(ctx, MF.WRITE_ONLY, out.nbytes)
    prg.bytes(q, (w, h), None, img, ob)
    cl.enqueue_copy(q, out, ob)
    assert np.array_equal(out.reshape(h, w), texels)


def test_bilinear_sampling_of_an_image_over_a_buffer(env) -> None:
    ctx, q, prg = env
    w, h, pitch_texels = 4, 4, 6
    store = np.arange(h * pitch_texels * 4, dtype=np.float32).reshape(h, pitch_texels, 4)
    buf = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=store)
    img = cl.Image(ctx, 0, RGBA_F, desc=_desc((w, h), buf, pitch_texels * 16))
    s = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.LINEAR)
    coords = np.array([[1.5, 1.5], [2.0, 1.25], [3.9, 0.5], [0.25, 3.75]], np.float32)
    out = np.empty((4, 4), np.float32)
    cb = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=coords)
    ob = cl.Buffer(ctx, MF.WRITE_ONLY, out.nbytes)
    prg.sample(q, (4,), None, img, s, cb, ob)
    cl.enqueue_copy(q, out, ob)
    texels = store[:, :w]
    want = []
    for u, v in coords.astype(np.float64):  # 8.2: i0 = floor(u - 0.5), a = frac(u - 0.5), edges clamped
        i0, j0 = int(np.floor(u - 0.5)), int(np.floor(v - 0.5))
        a, b = (u - 0.5) - i0, (v - 0.5) - j0
        t = lambda i, j: texels[min(max(j, 0), h - 1), min(max(i, 0), w - 1)].astype(np.float64)  # noqa: E731
        want.append((1 - a) * (1 - b) * t(i0, j0) + a * (1 - b) * t(i0 + 1, j0)
                    + (1 - a) * b * t(i0, j0 + 1) + a * b * t(i0 + 1, j0 + 1))
    np.testing.assert_allclose(out, np.array(want), rtol=2e-6)


def test_an_image_over_a_sub_buffer(env) -> None:
    ctx, q, prg = env
    align = ctx.devices[0].mem_base_addr_align // 8
    raw = (np.arange(align + 4 * 8, dtype=np.uint32) % 251).astype(np.uint8)
    buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=raw)
    sub = buf.get_sub_region(align, 32)
    img = cl.Image(ctx, 0, R_U8, desc=_desc((5, 4), sub, 8))
    out = np.empty(20, np.uint32)
    ob = cl.Buffer(ctx, MF.WRITE_ONLY, out.nbytes)
    prg.bytes(q, (5, 4), None, img, ob)
    cl.enqueue_copy(q, out, ob)
    assert np.array_equal(out.reshape(4, 5), raw[align:align + 32].reshape(4, 8)[:, :5])


def _errors(ctx):  # type: ignore[no-untyped-def]
    buf64 = cl.Buffer(ctx, MF.READ_WRITE, 64)
    return [
        (dict(desc=_desc((4, 4), buf64, 18)), "INVALID_IMAGE_DESCRIPTOR",
         "row pitch 18 is not a multiple of the element size 4 at least 16"),
        (dict(desc=_desc((4, 4), buf64, 12)), "INVALID_IMAGE_DESCRIPTOR", "at least 16"),
        (dict(desc=_desc((4, 4), buf64, 32)), "INVALID_IMAGE_DESCRIPTOR",
         "4 rows of pitch 32 need 128 bytes; the buffer holds 64"),
        (dict(desc=_desc((5, 4), buf64)), "INVALID_IMAGE_DESCRIPTOR", "4 rows of pitch 20 need 80 bytes"),
        (dict(desc=_desc((4, 4), buf64), flags=MF.USE_HOST_PTR, hostbuf=np.zeros(64, np.uint8)),
         "INVALID_VALUE", "an image over a buffer takes the buffer's memory"),
    ]


def test_errors_name_the_rule(env) -> None:
    ctx = env[0]
    for kwargs, code, message in _errors(ctx):
        flags = kwargs.pop("flags", 0)
        fmt = cl.ImageFormat(CO.RGBA, CT.UNSIGNED_INT8)
        with pytest.raises(cl.LogicError, match=code) as info:
            cl.Image(ctx, flags, fmt, **kwargs)
        assert message in str(info.value), (message, str(info.value))
    d = _desc((4, 4), cl.Buffer(ctx, MF.READ_WRITE, 64))
    d.pitches = (16, 64)  # a slice pitch has no place in a 2D image without host memory
    with pytest.raises(cl.LogicError, match="INVALID_IMAGE_DESCRIPTOR") as info:
        cl.Image(ctx, 0, cl.ImageFormat(CO.RGBA, CT.UNSIGNED_INT8), desc=d)
    assert "a 2D image over a buffer takes a row pitch alone" in str(info.value)
