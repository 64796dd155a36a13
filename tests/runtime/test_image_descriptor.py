"""Images made from an ImageDescriptor (PyOpenCL's API for clCreateImage), and 1D
buffer images (IMAGE1D_BUFFER: an image view of a buffer's memory, writes through
one seen through the other), on the cpu, simt and cuda (where a GPU is present)
devices, with every error
clCreateImage gives for a descriptor, its code and message checked; the same
calls on PyOpenCL + PoCL where they are installed (tests/runtime/test_images_pocl.py)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

from .image_devices import KINDS, context_on

CO, CT, MF, MOT = cl.channel_order, cl.channel_type, cl.mem_flags, cl.mem_object_type
RGBA_U8 = cl.ImageFormat(CO.RGBA, CT.UNSIGNED_INT8)
RGBA_F = cl.ImageFormat(CO.RGBA, CT.FLOAT)

SRC = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void scale(read_only image1d_buffer_t src, write_only image1d_buffer_t dst)
{
    int i = get_global_id(0);
    write_imagef(dst, i, read_imagef(src, i) * 2.0f + (float4)(0, 0, 0, get_image_width(src)));
}
kernel void bump(read_write image1d_buffer_t img)
{ int i = get_global_id(0); write_imageui(img, i, read_imageui(img, i) + (uint4)(1, 2, 3, i)); }
kernel void halves(read_only image1d_buffer_t src, global half4 *out)
{ int i = get_global_id(0); out[i] = read_imageh(src, i); }
kernel void read2a(read_only image2d_array_t img, global uint4 *out)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    out[(z * get_image_height(img) + y) * get_image_width(img) + x] = read_imageui(img, (int4)(x, y, z, 0));
}
"""


def _desc(image_type, shape, array_size=None, pitches=None, buffer=None):
    d = cl.ImageDescriptor()
    d.image_type = image_type
    d.shape = shape
    if array_size is not None:
        d.array_size = array_size
    if pitches is not None:
        d.pitches = pitches
    d.buffer = buffer
    return d


@pytest.fixture(scope="module", params=KINDS)
def env(request):
    ctx = context_on(request.param)
    return ctx, cl.CommandQueue(ctx), cl.Program(ctx, SRC).build("-cl-std=CL2.0")  # read_write images


def test_descriptor_attributes_are_pyopencls():
    d = cl.ImageDescriptor()
    assert (d.image_type, d.array_size, d.num_mip_levels, d.num_samples, d.buffer) == (0, 1, 0, 0, None)
    d.shape = (5, 3)
    assert d.shape == (5, 3, 1) and d.array_size == 1  # the third entry is also the array size
    d.shape = (5, 3, 4)
    assert d.shape == (5, 3, 4) and d.array_size == 4
    d.pitches = (64,)
    assert d.pitches == (64, 0)
    with pytest.raises(ValueError, match=r"an image shape has 1 to 3 entries, got \(1, 2, 3, 4\)"):
        d.shape = (1, 2, 3, 4)
    with pytest.raises(ValueError, match=r"pitches are \(row, slice\), got \(1, 2, 3\)"):
        d.pitches = (1, 2, 3)


@pytest.mark.parametrize("image_type, shape, array_size, info", [
    (MOT.IMAGE1D, (7,), None, (7, 0, 0, 0, 28, 0)),
    (MOT.IMAGE1D_ARRAY, (7,), 3, (7, 0, 0, 3, 28, 28)),
    (MOT.IMAGE2D, (7, 5), None, (7, 5, 0, 0, 28, 0)),
    (MOT.IMAGE2D_ARRAY, (7, 5), 4, (7, 5, 0, 4, 28, 140)),
    (MOT.IMAGE2D_ARRAY, (7, 5, 2), None, (7, 5, 0, 2, 28, 140)),
    (MOT.IMAGE3D, (7, 5, 2), None, (7, 5, 2, 0, 28, 140)),
])
def test_images_from_descriptors(env, image_type, shape, array_size, info):
    ctx, _, _ = env
    img = cl.Image(ctx, MF.READ_WRITE, RGBA_U8, desc=_desc(image_type, shape, array_size))
    assert img.type == image_type
    assert (img.width, img.height, img.depth, img.array_size, img.row_pitch, img.slice_pitch) == info


def test_a_2d_array_from_a_descriptor_with_host_pitches(env):
    ctx, q, prg = env
    data = np.random.default_rng(0).integers(0, 255, (3, 2, 8, 4), dtype=np.uint8)  # 3 layers, 2 rows, 5 of 8
    img = cl.Image(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, RGBA_U8,
                   desc=_desc(MOT.IMAGE2D_ARRAY, (5, 2), 3, pitches=(32, 64)), hostbuf=data)
    out = cl.Buffer(ctx, MF.WRITE_ONLY, 3 * 2 * 5 * 16)
    prg.read2a(q, (5, 2, 3), None, img, out)
    got = np.empty((3, 2, 5, 4), np.uint32)
    cl.enqueue_copy(q, got, out)
    assert np.array_equal(got, data[:, :, :5])


def test_a_1d_buffer_image_shares_its_buffers_memory(env):
    ctx, q, prg = env
    data = np.random.default_rng(1).standard_normal((10, 4)).astype(np.float32)
    src_buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=data)
    dst_buf = cl.Buffer(ctx, MF.READ_WRITE, data.nbytes)
    src = cl.Image(ctx, 0, RGBA_F, desc=_desc(MOT.IMAGE1D_BUFFER, (10,), buffer=src_buf))
    dst = cl.Image(ctx, MF.WRITE_ONLY, RGBA_F, shape=(10,), buffer=dst_buf)  # PyOpenCL's other spelling
    assert src.type == dst.type == MOT.IMAGE1D_BUFFER
    assert src.buffer is src_buf and src.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT) is src_buf
    assert (src.width, src.row_pitch, src.slice_pitch, src.size) == (10, 160, 0, 160)
    assert src.flags == MF.READ_WRITE  # no access flags: the buffer's
    prg.scale(q, (10,), None, src, dst)
    want = data * 2 + np.array([0, 0, 0, 10], np.float32)
    got = np.empty_like(data)
    cl.enqueue_copy(q, got, dst_buf)  # the kernel wrote through the image: the buffer holds it
    assert np.array_equal(got, want)
    cl.enqueue_copy(q, src_buf, -data)  # written through the buffer: the image sees it
    prg.scale(q, (10,), None, src, dst)
    cl.enqueue_copy(q, got, dst, origin=(0,), region=(10,))
    assert np.array_equal(got, -data * 2 + np.array([0, 0, 0, 10], np.float32))


def test_a_1d_buffer_image_over_a_sub_buffer(env):
    ctx, q, prg = env
    align = ctx.devices[0].mem_base_addr_align // 8
    raw = np.arange(4 * align + 64, dtype=np.uint8) % 251
    buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=raw)
    sub = buf.get_sub_region(align, 16 * 4)
    img = cl.Image(ctx, 0, cl.ImageFormat(CO.RGBA, CT.UNSIGNED_INT8), desc=_desc(MOT.IMAGE1D_BUFFER, (16,), buffer=sub))
    prg.bump(q, (16,), None, img)
    got = np.empty_like(raw)
    cl.enqueue_copy(q, got, buf)
    want = raw.copy()
    texels = want[align:align + 64].reshape(16, 4).astype(np.int64)
    texels += np.stack([np.full(16, 1), np.full(16, 2), np.full(16, 3), np.arange(16)], 1)
    want[align:align + 64] = np.clip(texels, 0, 255).reshape(-1)  # write_imageui saturates
    assert np.array_equal(got, want)
    host = np.empty((4, 4), np.uint8)  # host reads and fills through the image land in the buffer
    cl.enqueue_copy(q, host, img, origin=(2,), region=(4,))
    assert np.array_equal(host, want[align + 8:align + 24].reshape(4, 4))
    cl.enqueue_fill_image(q, img, np.array([9, 8, 7, 6], np.uint32), (15,), (1,))
    cl.enqueue_copy(q, got, buf)
    assert np.array_equal(got[align + 60:align + 64], [9, 8, 7, 6])


def test_read_imageh_of_a_1d_buffer_image(env):
    ctx, q, prg = env
    data = (np.random.default_rng(2).standard_normal((6, 4)) * 50).astype(np.float16)
    buf = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=data)
    img = cl.Image(ctx, 0, cl.ImageFormat(CO.RGBA, CT.HALF_FLOAT), desc=_desc(MOT.IMAGE1D_BUFFER, (6,), buffer=buf))
    out = cl.Buffer(ctx, MF.WRITE_ONLY, data.nbytes)
    prg.halves(q, (6,), None, img, out)
    got = np.empty_like(data)
    cl.enqueue_copy(q, got, out)
    assert np.array_equal(got.view(np.uint16), data.view(np.uint16))


def test_copies_between_a_1d_buffer_image_and_its_buffer(ctx, queue):
    buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.arange(64, dtype=np.uint8))
    img = cl.Image(ctx, 0, RGBA_U8, shape=(8,), buffer=buf[:32])
    cl.enqueue_copy(queue, buf, img, origin=(0,), region=(2,), offset=32)  # texels 0-1 -> bytes 32..39
    got = np.empty(64, np.uint8)
    cl.enqueue_copy(queue, got, buf)
    assert np.array_equal(got[32:40], np.arange(8)) and np.array_equal(got[40:], np.arange(40, 64))
    with pytest.raises(cl.Error, match="the source and destination regions overlap") as info:
        cl.enqueue_copy(queue, buf, img, origin=(1,), region=(2,), offset=8)
    assert info.value.code == cl.status_code.MEM_COPY_OVERLAP


def _bad(ctx, buf64, other_ctx_buf):
    released = cl.Buffer(ctx, MF.READ_WRITE, 64)
    released.release()
    ro = cl.Buffer(ctx, MF.READ_ONLY, 64)
    buf_desc = lambda b, n=16: _desc(MOT.IMAGE1D_BUFFER, (n,), buffer=b)  # noqa: E731
    return [
        (dict(desc="not a descriptor"), "INVALID_IMAGE_DESCRIPTOR", "expected an ImageDescriptor, got str"),
        (dict(desc=_desc(MOT.BUFFER, (4, 4))), "INVALID_IMAGE_DESCRIPTOR", "image_type BUFFER is not an image type"),
        (dict(desc=_desc(0, (4, 4))), "INVALID_IMAGE_DESCRIPTOR", "image_type 0x0 is not an image type"),
        (dict(desc=_desc(MOT.IMAGE2D, (4, 4), pitches=(64,))), "INVALID_IMAGE_DESCRIPTOR",
         r"pitches \(64, 0\) need host memory"),
        (dict(desc=_desc(MOT.IMAGE2D_ARRAY, (4, 4), 2, buffer=buf64)), "INVALID_IMAGE_DESCRIPTOR",
         "only IMAGE1D_BUFFER and IMAGE2D images are made over a buffer, not an IMAGE2D_ARRAY one"),
        (dict(desc=_desc(MOT.IMAGE3D, (4, 4, 0))), "INVALID_IMAGE_SIZE",
         r"image shape \(4, 4, 0\) has a zero or negative extent"),
        (dict(desc=_desc(MOT.IMAGE2D_ARRAY, (4, 4), 1 << 20)), "INVALID_IMAGE_SIZE", "exceeds the device's limits"),
        (dict(desc=_desc(MOT.IMAGE1D_BUFFER, (16,))), "INVALID_MEM_OBJECT", "an IMAGE1D_BUFFER image needs a buffer"),
        (dict(desc=buf_desc(buf64, 17)), "INVALID_MEM_OBJECT",
         "17 texels of 4 bytes need 68 bytes; the buffer holds 64"),
        (dict(desc=buf_desc(buf64, 1 << 20)), "INVALID_IMAGE_SIZE", "exceeds the device's limits"),
        (dict(desc=buf_desc(released)), "INVALID_MEM_OBJECT", "the image's buffer was released"),
        (dict(desc=buf_desc(other_ctx_buf)), "INVALID_MEM_OBJECT", "belongs to another context"),
        (dict(desc=buf_desc("b")), "INVALID_MEM_OBJECT", "an image over a buffer needs a Buffer, got str"),
        (dict(desc=buf_desc(buf64), flags=MF.COPY_HOST_PTR, hostbuf=np.zeros(64, np.uint8)), "INVALID_VALUE",
         "USE_HOST_PTR, COPY_HOST_PTR and ALLOC_HOST_PTR may not be given"),
        (dict(desc=buf_desc(buf64), hostbuf=np.zeros(64, np.uint8)), "INVALID_HOST_PTR",
         "an image over a buffer takes no hostbuf"),
        (dict(desc=buf_desc(ro), flags=MF.WRITE_ONLY), "INVALID_VALUE",
         "the image's WRITE_ONLY is not allowed over a READ_ONLY buffer"),
        (dict(desc=_desc(MOT.IMAGE2D, (4, 4)), fmt=cl.ImageFormat(CO.RGB, CT.FLOAT)),
         "INVALID_IMAGE_FORMAT_DESCRIPTOR", "channel order RGB does not pair with channel type FLOAT"),
        (dict(desc=buf_desc(buf64), fmt=cl.ImageFormat(CO.BGRA, CT.HALF_FLOAT)),
         "INVALID_IMAGE_FORMAT_DESCRIPTOR", "channel order BGRA does not pair with channel type HALF_FLOAT"),
        (dict(shape=(4, 4), buffer=buf64), "INVALID_IMAGE_DESCRIPTOR",
         r"a buffer backs only a 1D image \(IMAGE1D_BUFFER\), not one of shape \(4, 4\)"),
        (dict(shape=(4,), buffer=buf64, is_array=True), "INVALID_IMAGE_DESCRIPTOR", r"\(an array\)"),
    ]


def test_bad_descriptors(ctx):
    buf64 = cl.Buffer(ctx, MF.READ_WRITE, 64)
    other = cl.Context(dev_type=cl.device_type.CPU)
    mipmapped = _desc(MOT.IMAGE2D, (4, 4))
    mipmapped.num_mip_levels = 2
    cases = _bad(ctx, buf64, cl.Buffer(other, MF.READ_WRITE, 64))
    cases.append((dict(desc=mipmapped), "INVALID_IMAGE_DESCRIPTOR", "num_mip_levels and num_samples must be 0"))
    for kw, code, message in cases:
        flags, fmt = kw.pop("flags", 0), kw.pop("fmt", RGBA_U8)
        with pytest.raises(cl.Error, match=message) as info:
            cl.Image(ctx, flags, fmt, **kw)
        assert info.value.code == getattr(cl.status_code, code), message
    with pytest.raises(TypeError, match="may not be passed with a descriptor"):
        cl.Image(ctx, 0, RGBA_U8, shape=(4, 4), desc=_desc(MOT.IMAGE2D, (4, 4)))


def test_a_1d_buffer_image_across_devices():
    """One context of the cpu and simt devices: the image's kernel runs on simt (its
    descriptor there holds simt's address of the buffer), then on the cpu, each reading
    what the other wrote through the buffer."""
    devices = [next(d for p in cl.get_platforms() for d in p.get_devices() if d.kind == k) for k in ("cpu", "simt")]
    ctx = cl.Context(devices)
    cpu_q, simt_q = cl.CommandQueue(ctx, devices[0]), cl.CommandQueue(ctx, devices[1])
    prg = cl.Program(ctx, SRC).build("-cl-std=CL2.0")
    buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.zeros((8, 4), np.uint8))
    img = cl.Image(ctx, 0, RGBA_U8, shape=(8,), buffer=buf)
    prg.bump(simt_q, (8,), None, img).wait()
    prg.bump(cpu_q, (8,), None, img).wait()
    prg.bump(simt_q, (8,), None, img).wait()
    got = np.empty((8, 4), np.uint8)
    cl.enqueue_copy(cpu_q, got, buf)
    assert np.array_equal(got, 3 * np.stack([np.full(8, 1), np.full(8, 2), np.full(8, 3), np.arange(8)], 1))


SPIN = """
kernel void spin(global float *x, int n)
{ float v = x[0]; for (int i = 0; i < n; i++) v = v * 0.999f + 0.5f; x[0] = v; }
kernel void copy_u(read_only image1d_buffer_t src, global uint4 *out)
{ int i = get_global_id(0); out[i] = read_imageui(src, i); }
"""


def test_a_descriptor_is_in_memory_before_any_sub_device_launches():
    """Two cpu sub-devices share a memory domain, so one descriptor: made while the first
    one's stream is busy, it must be there for the second one, which runs at once."""
    cpu = next(d for p in cl.get_platforms() for d in p.get_devices() if d.kind == "cpu")
    if cpu.max_compute_units < 2:
        pytest.skip(f"the cpu device has {cpu.max_compute_units} compute unit here: two sub-devices need two")
    first, second = cpu.create_sub_devices([cl.device_partition_property.EQUALLY, 1])[:2]
    ctx = cl.Context([first, second])
    busy_q, idle_q = cl.CommandQueue(ctx, first), cl.CommandQueue(ctx, second)
    prg = cl.Program(ctx, SPIN).build()
    data = np.arange(32, dtype=np.uint8).reshape(8, 4)
    img = cl.Image(ctx, 0, RGBA_U8, shape=(8,), buffer=cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=data))
    scratch = cl.Buffer(ctx, MF.READ_WRITE, 4)
    outs = [cl.Buffer(ctx, MF.WRITE_ONLY, 8 * 16) for _ in range(2)]
    prg.spin(busy_q, (1,), (1,), scratch, np.int32(40_000_000))
    prg.copy_u(busy_q, (8,), None, img, outs[0])  # behind the spin: the descriptor is made now
    prg.copy_u(idle_q, (8,), None, img, outs[1])  # runs at once, on the same descriptor
    for q, out in zip((busy_q, idle_q), outs):
        got = np.empty((8, 4), np.uint32)
        cl.enqueue_copy(q, got, out)
        assert np.array_equal(got, data)
