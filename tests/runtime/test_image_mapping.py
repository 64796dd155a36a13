"""enqueue_map_image and its unmap, PyOpenCL's signature: (array, event, row_pitch,
slice_pitch), the array over the region with the strides asked for, against NumPy
slices of the image's texels, on the cpu device (the image's own memory) and the
simt and cuda (where a GPU is present) devices (a host copy); every error with its code and message. The same maps on
PyOpenCL + PoCL: tests/runtime/test_images_pocl.py."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

from .image_devices import KINDS, context_on

CO, CT, MF, MAP = cl.channel_order, cl.channel_type, cl.mem_flags, cl.map_flags
RGBA_U8 = cl.ImageFormat(CO.RGBA, CT.UNSIGNED_INT8)
RGBA_F = cl.ImageFormat(CO.RGBA, CT.FLOAT)


@pytest.fixture(scope="module", params=KINDS)
def env(request):
    ctx = context_on(request.param)
    return ctx, cl.CommandQueue(ctx)


def _image(ctx, shape, data, fmt=RGBA_U8, **kw):
    return cl.Image(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, fmt, shape=shape, hostbuf=data, **kw)


def _texels(img, q, shape, channels=4, dtype=np.uint8):
    out = np.empty(shape[::-1] + (channels,), dtype)
    cl.enqueue_copy(q, out, img, origin=(0,) * len(shape), region=shape)
    return out


def test_a_read_map_of_a_2d_region(env):
    ctx, q = env
    data = np.random.default_rng(0).integers(0, 256, (5, 7, 4), dtype=np.uint8)
    img = _image(ctx, (7, 5), data)
    ary, evt, row, slab = cl.enqueue_map_image(q, img, MAP.READ, (1, 2), (3, 2), (2, 3, 4), np.uint8,
                                               strides=(28, 4, 1))
    assert (row, slab) == (28, 0) and isinstance(evt, cl.Event) and isinstance(ary.base, cl.MemoryMap)
    assert np.array_equal(ary, data[2:4, 1:4])
    assert ary.flags.writeable  # a READ map, writable as PyOpenCL's
    copy = ctx.devices[0].kind != "cpu"  # elsewhere the array is a host copy of the texels
    if copy:
        ary[:] = 0
    ary.base.release().wait()
    if copy:  # and a READ map copies nothing back
        assert np.array_equal(_texels(img, q, (7, 5)), data)


def test_default_strides_run_contiguously_from_the_first_texel(env):
    """Without strides the array is contiguous from the region's first texel, as PyOpenCL's:
    its rows after the first are the image's bytes that follow, not the region's rows."""
    ctx, q = env
    data = np.random.default_rng(1).integers(0, 256, (5, 7, 4), dtype=np.uint8)
    img = _image(ctx, (7, 5), data)
    ary, _, row, _ = cl.enqueue_map_image(q, img, MAP.READ, (1, 2), (3, 2), (2, 12), np.uint8)
    assert np.array_equal(ary.reshape(-1), data.reshape(-1)[2 * row + 4:2 * row + 4 + 24])
    ary.base.release()


def test_3d_and_array_maps_use_the_slice_pitch(env):
    ctx, q = env
    rng = np.random.default_rng(2)
    vol = rng.standard_normal((4, 3, 5, 4)).astype(np.float32)
    img = _image(ctx, (5, 3, 4), vol, RGBA_F)
    ary, _, row, slab = cl.enqueue_map_image(q, img, MAP.READ, (1, 0, 1), (4, 3, 2), (2, 3, 4, 4), np.float32,
                                             strides=(240, 80, 16, 4))
    assert (row, slab) == (80, 240)
    assert np.array_equal(ary, vol[1:3, 0:3, 1:5])
    ary.base.release()
    layers = rng.integers(0, 256, (3, 6, 4), dtype=np.uint8)  # a 1D array: 3 layers of 6
    arr = _image(ctx, (6, 3), layers, is_array=True)
    ary, _, row, slab = cl.enqueue_map_image(q, arr, MAP.READ, (2, 1), (3, 2), (2, 3, 4), np.uint8,
                                             strides=(24, 4, 1))
    assert (row, slab) == (24, 24)
    assert np.array_equal(ary, layers[1:3, 2:5])
    ary.base.release()


@pytest.mark.parametrize("flags", [MAP.WRITE, MAP.READ | MAP.WRITE, MAP.WRITE_INVALIDATE_REGION])
def test_a_write_map_reaches_the_image_when_released(env, flags):
    ctx, q = env
    data = np.random.default_rng(3).integers(0, 256, (4, 6, 4), dtype=np.uint8)
    img = _image(ctx, (6, 4), data)
    ary, _, row, _ = cl.enqueue_map_image(q, img, flags, (2, 1), (3, 3), (3, 3, 4), np.uint8,
                                          strides=(img.row_pitch, 4, 1))
    assert row == img.row_pitch == 24
    if flags != MAP.WRITE_INVALIDATE_REGION:
        assert np.array_equal(ary, data[1:4, 2:5])  # a WRITE map holds the texels too
    with ary.base:
        ary[:] = 200 - np.arange(36, dtype=np.uint8).reshape(3, 3, 4)
    want = data.copy()
    want[1:4, 2:5] = 200 - np.arange(36, dtype=np.uint8).reshape(3, 3, 4)
    assert np.array_equal(_texels(img, q, (6, 4)), want)


def test_a_map_of_a_1d_buffer_image_is_its_buffers_memory(env):
    ctx, q = env
    buf = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.arange(32, dtype=np.uint8))
    img = cl.Image(ctx, 0, RGBA_U8, shape=(8,), buffer=buf)
    ary, _, row, slab = cl.enqueue_map_image(q, img, MAP.WRITE, (2,), (3,), (3, 4), np.uint8)
    assert (row, slab) == (32, 0) and np.array_equal(ary.reshape(-1), np.arange(8, 20))
    ary[:] = 0
    ary.base.release()
    got = np.empty(32, np.uint8)
    cl.enqueue_copy(q, got, buf)
    assert np.array_equal(got, np.where((np.arange(32) >= 8) & (np.arange(32) < 20), 0, np.arange(32)))


def test_map_errors(env):
    ctx, q = env
    img = _image(ctx, (4, 4), np.zeros((4, 4, 4), np.uint8))
    sealed = cl.Image(ctx, MF.READ_WRITE | MF.HOST_NO_ACCESS, RGBA_U8, shape=(4, 4))
    cases = [
        (lambda: cl.enqueue_map_image(q, cl.Buffer(ctx, MF.READ_WRITE, 64), MAP.READ, (0, 0), (1, 1), (4,),
                                      np.uint8), "INVALID_MEM_OBJECT", "expected an Image, got Buffer"),
        (lambda: cl.enqueue_map_image(q, img, 1 << 7, (0, 0), (1, 1), (4,), np.uint8), "INVALID_VALUE",
         "invalid map_flags value 128"),
        (lambda: cl.enqueue_map_image(q, img, MAP.READ, (3, 0), (2, 1), (8,), np.uint8), "INVALID_VALUE",
         r"the image region \(3, 0, 0\) \+ \(2, 1, 1\) leaves the image along x \(extent 4\)"),
        (lambda: cl.enqueue_map_image(q, img, MAP.READ, (0, 0), (2, 2), (2, 16), np.uint8), "INVALID_VALUE",
         r"an array of shape \(2, 16\) and strides \(16, 1\) spans 32 bytes; the mapped region spans 24"),
        (lambda: cl.enqueue_map_image(q, img, MAP.READ, (0, 0), (1, 1), (4,), object), "INVALID_VALUE",
         "a map cannot hold Python objects"),
        (lambda: cl.enqueue_map_image(q, img, MAP.READ, (0, 0), (1, 1), (2,), np.uint8, strides=(-1,)),
         "INVALID_VALUE", "reach 1 bytes before the start of the map"),
        (lambda: cl.enqueue_map_image(q, sealed, MAP.READ, (0, 0), (1, 1), (4,), np.uint8), "INVALID_OPERATION",
         "the image's host access flags forbid this map"),
    ]
    for call, code, message in cases:
        with pytest.raises(cl.Error, match=message) as info:
            call()
        assert info.value.code == getattr(cl.status_code, code), message
    ary, *_ = cl.enqueue_map_image(q, img, MAP.READ, (0, 0), (1, 1), (4,), np.uint8)
    ary.base.release()
    with pytest.raises(cl.Error, match="the map was already released") as info:
        ary.base.release()
    assert info.value.code == cl.status_code.INVALID_VALUE
