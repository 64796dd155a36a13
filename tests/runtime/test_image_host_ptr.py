"""USE_HOST_PTR images, PyOpenCL's semantics: the image's pitches are the host
memory's, and after a map or a blocking read the host array reflects the image
(on the cpu device always: the host memory is the image; on simt and cuda, whose
memory is their own, through the copies maps and reads make). Against NumPy; the same calls on
PyOpenCL + PoCL in tests/runtime/test_images_pocl.py."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

from .image_devices import KINDS, context_on

CO, CT, MF, MAP = cl.channel_order, cl.channel_type, cl.mem_flags, cl.map_flags
RGBA_U8 = cl.ImageFormat(CO.RGBA, CT.UNSIGNED_INT8)

SRC = """
kernel void paint(write_only image2d_t img)
{ int x = get_global_id(0), y = get_global_id(1); write_imageui(img, (int2)(x, y), (uint4)(x, y, x + y, 7)); }
kernel void paint3(write_only image3d_t img)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    write_imageui(img, (int4)(x, y, z, 0), (uint4)(x, y, z, 9));
}
kernel void sum(read_only image2d_t img, global uint *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    uint4 v = read_imageui(img, (int2)(x, y));
    out[y * 5 + x] = v.x + v.y + v.z + v.w;
}
"""


@pytest.fixture(scope="module", params=KINDS)
def env(request):
    ctx = context_on(request.param)
    return ctx, cl.CommandQueue(ctx), cl.Program(ctx, SRC).build(), request.param


def _painted(w, h, pitch):
    """What `paint` leaves in host memory of row pitch `pitch` whose bytes were 0xEE."""
    mem = np.full((h, pitch), 0xEE, np.uint8)
    for y in range(h):
        for x in range(w):
            mem[y, 4 * x:4 * x + 4] = (x, y, x + y, 7)
    return mem


def test_the_host_memory_reflects_kernel_writes_after_a_blocking_read(env):
    ctx, q, prg, kind = env
    host = np.full((3, 40), 0xEE, np.uint8)  # 5 RGBA8 texels in 20 bytes of each 40-byte row
    img = cl.Image(ctx, MF.READ_WRITE | MF.USE_HOST_PTR, RGBA_U8, shape=(5, 3), pitches=(40,), hostbuf=host)
    assert (img.row_pitch, img.slice_pitch, img.size) == (40, 0, 100)
    assert img.get_info(cl.mem_info.HOST_PTR) is host
    prg.paint(q, (5, 3), None, img)
    q.finish()
    if kind == "cpu":  # the host memory is the image
        assert np.array_equal(host, _painted(5, 3, 40))
    one = np.empty(4, np.uint8)
    cl.enqueue_copy(q, one, img, origin=(4, 2), region=(1, 1))  # a blocking read of one texel...
    assert np.array_equal(one, [4, 2, 6, 7])
    assert np.array_equal(host, _painted(5, 3, 40))  # ...and the whole host memory is up to date


def test_a_map_of_a_use_host_ptr_image_is_its_host_memory(env):
    ctx, q, prg, _ = env
    host = np.full((2, 3, 16), 0xEE, np.uint8)  # 3 texels in 16-byte rows, 48-byte slices
    img = cl.Image(ctx, MF.READ_WRITE | MF.USE_HOST_PTR, RGBA_U8, shape=(3, 3, 2), pitches=(16, 48), hostbuf=host)
    prg.paint3(q, (3, 3, 2), None, img)
    ary, _, row, slab = cl.enqueue_map_image(q, img, MAP.READ | MAP.WRITE, (0, 0, 0), (3, 3, 2), (2, 3, 3, 4),
                                             np.uint8, strides=(48, 16, 4, 1))
    assert (row, slab) == (16, 48)
    assert ary.__array_interface__["data"][0] == host.ctypes.data  # the map is the host memory
    want = np.array([[[(x, y, z, 9) for x in range(3)] for y in range(3)] for z in range(2)], np.uint8)
    assert np.array_equal(ary, want) and np.array_equal(host[:, :, :12].reshape(2, 3, 3, 4), want)
    assert np.all(host[:, :, 12:] == 0xEE)  # the padding is untouched
    ary[1, 2, 2] = (100, 101, 102, 103)  # written through the map: kernels see it once unmapped
    ary.base.release()
    got = np.empty((2, 3, 3, 4), np.uint8)
    cl.enqueue_copy(q, got, img, origin=(0, 0, 0), region=(3, 3, 2))
    want[1, 2, 2] = (100, 101, 102, 103)
    assert np.array_equal(got, want)


def test_host_writes_reach_the_cpu_image_directly(ctx, queue):
    host = np.zeros((3, 5, 4), np.uint8)
    img = cl.Image(ctx, MF.READ_ONLY | MF.USE_HOST_PTR, RGBA_U8, shape=(5, 3), hostbuf=host)
    prg = cl.Program(ctx, SRC).build()
    out = cl.Buffer(ctx, MF.WRITE_ONLY, 15 * 4)
    host[...] = np.arange(60, dtype=np.uint8).reshape(3, 5, 4)  # after creation: the cpu image is this memory
    prg.sum(queue, (5, 3), None, img, out)
    got = np.empty(15, np.uint32)
    cl.enqueue_copy(queue, got, out)
    assert np.array_equal(got, host.reshape(15, 4).sum(1))


def test_a_read_only_host_buffer_is_copied(env):
    ctx, q, prg, _ = env
    data = bytes(range(60))
    img = cl.Image(ctx, MF.READ_ONLY | MF.USE_HOST_PTR, RGBA_U8, shape=(5, 3), hostbuf=data)
    got = np.empty((3, 5, 4), np.uint8)
    cl.enqueue_copy(q, got, img, origin=(0, 0), region=(5, 3))
    assert np.array_equal(got.reshape(-1), np.arange(60))


def test_use_host_ptr_pitches_are_checked(ctx):
    for pitches, message in (((18,), "row pitch 18 is not a multiple of the element size 4 at least 20"),
                             ((20, 50), "slice pitch 50 is not a multiple of the row pitch 20 at least 60")):
        with pytest.raises(cl.Error, match=message) as info:
            cl.Image(ctx, MF.USE_HOST_PTR, RGBA_U8, shape=(5, 3, 2), pitches=pitches, hostbuf=np.zeros(400, np.uint8))
        assert info.value.code == cl.status_code.INVALID_IMAGE_DESCRIPTOR
    with pytest.raises(cl.Error, match=r"at most two pitches \(row, slice\), got \(20, 60, 120\)") as info:
        cl.Image(ctx, MF.USE_HOST_PTR, RGBA_U8, shape=(5, 3, 2), pitches=(20, 60, 120), hostbuf=np.zeros(400, np.uint8))
    assert info.value.code == cl.status_code.INVALID_IMAGE_DESCRIPTOR
    with pytest.raises(cl.Error, match="the hostbuf holds 100 bytes; the image needs 108") as info:
        cl.Image(ctx, MF.USE_HOST_PTR, RGBA_U8, shape=(5, 3), pitches=(44,), hostbuf=np.zeros(100, np.uint8))
    assert info.value.code == cl.status_code.INVALID_HOST_PTR
