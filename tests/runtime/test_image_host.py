"""The host side of images and samplers: creation and info, copies with origins,
regions and pitches, fills, image_from_array, and every error with its message
(raised before anything runs, nothing written)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

CO, CT, MF = cl.channel_order, cl.channel_type, cl.mem_flags
RGBA_F = cl.ImageFormat(CO.RGBA, CT.FLOAT)
R_U8 = cl.ImageFormat(CO.R, CT.UNSIGNED_INT8)


def _image(ctx, shape, fmt=R_U8, data=None, **kw):
    if data is None:
        return cl.Image(ctx, MF.READ_WRITE, fmt, shape=shape, **kw)
    return cl.Image(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, fmt, shape=shape, hostbuf=data, **kw)


def _read(queue, img, shape, dtype=np.uint8, channels=1):
    out = np.empty(shape[::-1] + ((channels,) if channels > 1 else ()), dtype)
    cl.enqueue_copy(queue, out, img, origin=(0, 0, 0)[:len(shape)], region=shape)
    return out


def test_info_of_each_image_type(ctx):
    cases = [((8,), False, cl.mem_object_type.IMAGE1D, (8, 0, 0, 0)),
             ((8, 3), True, cl.mem_object_type.IMAGE1D_ARRAY, (8, 0, 0, 3)),
             ((8, 4), False, cl.mem_object_type.IMAGE2D, (8, 4, 0, 0)),
             ((8, 4, 5), True, cl.mem_object_type.IMAGE2D_ARRAY, (8, 4, 0, 5)),
             ((8, 4, 5), False, cl.mem_object_type.IMAGE3D, (8, 4, 5, 0))]
    for shape, is_array, kind, (w, h, d, n) in cases:
        img = cl.Image(ctx, MF.READ_ONLY, RGBA_F, shape=shape, is_array=is_array)
        assert img.type == kind
        assert (img.width, img.height, img.depth, img.array_size) == (w, h, d, n)
        assert img.element_size == 16 and img.row_pitch == 8 * 16
        assert img.format == RGBA_F
        assert img.get_image_info(cl.image_info.FORMAT) == RGBA_F
        assert img.size == 16 * np.prod(shape)
    assert cl.Image(ctx, MF.READ_ONLY, R_U8, shape=(4, 3)).shape == (4, 3)
    assert cl.Image(ctx, MF.READ_ONLY, R_U8, shape=(4, 3, 2)).shape == (4, 3, 2)
    assert cl.Image(ctx, MF.READ_ONLY, R_U8, shape=(4, 3, 2)).slice_pitch == 12


def test_supported_formats_and_device_limits(ctx):
    formats = cl.get_supported_image_formats(ctx, MF.READ_WRITE, cl.mem_object_type.IMAGE2D)
    assert cl.ImageFormat(CO.RGBA, CT.UNORM_INT8) in formats and cl.ImageFormat(CO.BGRA, CT.UNORM_INT8) in formats
    assert cl.ImageFormat(CO.BGRA, CT.FLOAT) not in formats
    dev = ctx.devices[0]
    assert dev.image_support and dev.image2d_max_width >= 8192 and dev.max_samplers >= 16
    with pytest.raises(cl.LogicError, match="is not an image type") as info:
        cl.get_supported_image_formats(ctx, MF.READ_WRITE, cl.mem_object_type.BUFFER)
    assert info.value.code == cl.status_code.INVALID_VALUE


def test_write_and_read_sub_rectangles_with_pitches(ctx, queue):
    img = _image(ctx, (6, 5, 4), data=np.zeros(120, np.uint8))
    host = np.arange(2 * 3 * 10, dtype=np.uint8).reshape(2, 3, 10)  # rows of 10 bytes, 3 rows a slice
    cl.enqueue_copy(queue, img, host, origin=(1, 2, 1), region=(4, 3, 2), pitches=(10, 30))
    want = np.zeros((4, 5, 6), np.uint8)
    want[1:3, 2:5, 1:5] = host[:, :, :4]
    assert np.array_equal(_read(queue, img, (6, 5, 4)), want)
    part = np.zeros((3, 3, 8), np.uint8)
    cl.enqueue_copy(queue, part, img, origin=(1, 2, 1), region=(4, 3, 2), pitches=(8, 24))
    assert np.array_equal(part[:2, :, :4], host[:, :, :4]) and not part[2].any() and not part[:, :, 4:].any()
    again = np.zeros((2, 3, 4), np.uint8)
    cl.enqueue_read_image(queue, img, (1, 2, 1), (4, 3, 2), again).wait()
    assert np.array_equal(again, host[:, :, :4])


def test_copies_between_images_and_buffers(ctx, queue):
    data = np.arange(48, dtype=np.float32).reshape(3, 4, 4)  # 4 x 3 RGBA float
    a = _image(ctx, (4, 3), RGBA_F, data)
    b = _image(ctx, (5, 5), RGBA_F, np.zeros(100, np.float32))
    cl.enqueue_copy(queue, b, a, src_origin=(1, 0), dest_origin=(0, 2), region=(3, 2))
    got = _read(queue, b, (5, 5), np.float32, 4)
    assert np.array_equal(got[2:4, 0:3], data[0:2, 1:4]) and not got[:2].any() and not got[4].any()
    buf = cl.Buffer(ctx, MF.READ_WRITE, 4 * 3 * 16 + 32)
    cl.enqueue_copy(queue, buf, a, origin=(0, 0), region=(4, 3), offset=32)
    flat = np.empty(4 * 3 * 4 + 8, np.float32)
    cl.enqueue_copy(queue, flat, buf)
    assert np.array_equal(flat[8:], data.ravel())
    c = _image(ctx, (4, 3), RGBA_F)
    cl.enqueue_copy(queue, c, buf, offset=32, origin=(0, 0), region=(4, 3))
    assert np.array_equal(_read(queue, c, (4, 3), np.float32, 4), data)
    d = _image(ctx, (4, 3), RGBA_F)
    cl.enqueue_copy_image(queue, a, d, (0, 0), (0, 0), (4, 3))
    cl.enqueue_copy_image_to_buffer(queue, d, buf, (0, 0), (4, 3), 0)
    cl.enqueue_copy_buffer_to_image(queue, buf, c, 0, (0, 0), (4, 3)).wait()
    assert np.array_equal(_read(queue, c, (4, 3), np.float32, 4), data)


@pytest.mark.parametrize("fmt, color, want", [
    (cl.ImageFormat(CO.RGBA, CT.UNORM_INT8), np.array([0.5, 1.5, -1, 2 / 255], np.float32), [128, 255, 0, 2]),
    (cl.ImageFormat(CO.BGRA, CT.UNORM_INT8), np.array([1.0, 0.0, 0.2, 1.0], np.float32), [51, 0, 255, 255]),
    (cl.ImageFormat(CO.RG, CT.SIGNED_INT16), np.array([-40000, 7, 0, 0], np.int32), [-32768, 7]),
    (cl.ImageFormat(CO.A, CT.UNSIGNED_INT8), np.array([1, 2, 3, 300], np.uint32), [255]),
    (cl.ImageFormat(CO.R, CT.HALF_FLOAT), np.array([1 / 3, 0, 0, 0], np.float32), [np.float16(1 / 3)]),
])
def test_fill_image_converts_the_colour(ctx, queue, fmt, color, want):
    dtype = {CT.UNORM_INT8: np.uint8, CT.SIGNED_INT16: np.int16, CT.UNSIGNED_INT8: np.uint8,
             CT.HALF_FLOAT: np.float16}[fmt.channel_data_type]
    img = cl.Image(ctx, MF.READ_WRITE, fmt, shape=(3, 2))
    cl.enqueue_fill_image(queue, img, color, (1, 1), (2, 1))
    got = _read(queue, img, (3, 2), dtype, len(want))
    assert np.array_equal(got.reshape(2, 3, -1)[1, 1:], np.array([want, want], dtype))
    assert not got.reshape(2, 3, -1)[0].any()


def test_image_from_array(ctx, queue):
    rgba = np.random.default_rng(0).random((3, 5, 4)).astype(np.float32)
    img = cl.image_from_array(ctx, rgba, 4)
    assert img.shape == (5, 3) and img.format == RGBA_F
    assert np.array_equal(_read(queue, img, (5, 3), np.float32, 4), rgba)
    vol = np.arange(24, dtype=np.uint16).reshape(2, 3, 4)
    img3 = cl.image_from_array(ctx, vol, norm_int=True, mode="w")
    assert img3.shape == (4, 3, 2) and img3.format == cl.ImageFormat(CO.R, CT.UNORM_INT16)
    assert img3.flags & MF.WRITE_ONLY
    assert np.array_equal(_read(queue, img3, (4, 3, 2), np.uint16), vol)
    with pytest.raises(ValueError, match="C-contiguous"):
        cl.image_from_array(ctx, rgba[:, ::2])
    with pytest.raises(cl.LogicError, match="no image format holds 1 channel") as info:
        cl.image_from_array(ctx, np.zeros((2, 2), np.float64))
    assert info.value.code == cl.status_code.INVALID_IMAGE_FORMAT_DESCRIPTOR


def test_sampler_info_and_kernel_argument(ctx):
    smp = cl.Sampler(ctx, True, cl.addressing_mode.REPEAT, cl.filter_mode.LINEAR)
    assert smp.get_info(cl.sampler_info.NORMALIZED_COORDS) is True
    assert smp.get_info(cl.sampler_info.ADDRESSING_MODE) == cl.addressing_mode.REPEAT
    assert smp.get_info(cl.sampler_info.FILTER_MODE) == cl.filter_mode.LINEAR
    assert smp.bits == 1 | 6 | 0x20
    with pytest.raises(cl.LogicError, match="invalid addressing mode 7") as info:
        cl.Sampler(ctx, True, 7, cl.filter_mode.LINEAR)
    assert info.value.code == cl.status_code.INVALID_VALUE
    with pytest.raises(cl.LogicError, match="invalid filter mode 0"):
        cl.Sampler(ctx, True, cl.addressing_mode.CLAMP, 0)
    props = cl.Sampler(ctx, [cl.sampler_properties.NORMALIZED_COORDS, False,
                             cl.sampler_properties.FILTER_MODE, cl.filter_mode.LINEAR])
    assert (props.normalized_coords, props.addressing_mode, props.filter_mode) == (
        False, cl.addressing_mode.CLAMP, cl.filter_mode.LINEAR)
    with pytest.raises(cl.LogicError, match="unknown sampler property 7") as info:
        cl.Sampler(ctx, [7, 1])
    assert info.value.code == cl.status_code.INVALID_VALUE
    with pytest.raises(cl.LogicError, match=r"come in \(key, value\) pairs, got 1 items"):
        cl.Sampler(ctx, [cl.sampler_properties.FILTER_MODE])


# -- errors: raised before anything runs, nothing written ---------------------------

@pytest.mark.parametrize("fmt, message", [
    (cl.ImageFormat(CO.RGB, CT.UNORM_INT8), "channel order RGB does not pair with channel type UNORM_INT8"),
    (cl.ImageFormat(CO.BGRA, CT.FLOAT), "channel order BGRA does not pair with channel type FLOAT"),
    (cl.ImageFormat(0x1234, CT.FLOAT), "channel order 0x1234 does not pair"),
    ("RGBA", "expected an ImageFormat, got str"),
])
def test_bad_formats(ctx, fmt, message):
    with pytest.raises(cl.LogicError, match=message) as info:
        cl.Image(ctx, MF.READ_ONLY, fmt, shape=(4, 4))
    assert info.value.code == cl.status_code.INVALID_IMAGE_FORMAT_DESCRIPTOR


@pytest.mark.parametrize("kw, code, message", [
    ({"shape": (0, 4)}, "INVALID_IMAGE_SIZE", r"image shape \(0, 4\) has a zero or negative extent"),
    ({"shape": (1 << 20, 4)}, "INVALID_IMAGE_SIZE", "exceeds the device's limits"),
    ({"shape": (4, 4, 4, 4)}, "INVALID_IMAGE_SIZE", "an image has 1 to 3 dimensions"),
    ({"shape": (4,), "is_array": True}, "INVALID_IMAGE_DESCRIPTOR", "needs a layer count"),
    ({"shape": (4, 4), "hostbuf": np.zeros(16, np.uint8)}, "INVALID_HOST_PTR",
     "without USE_HOST_PTR or COPY_HOST_PTR"),
    ({"shape": (4, 4), "flags": MF.COPY_HOST_PTR}, "INVALID_HOST_PTR", "needs a hostbuf"),
    ({"shape": (4, 4), "flags": MF.COPY_HOST_PTR, "hostbuf": np.zeros(15, np.uint8)}, "INVALID_HOST_PTR",
     "the hostbuf holds 15 bytes; the image needs 16"),
    ({"shape": (4, 4), "flags": MF.COPY_HOST_PTR, "hostbuf": np.zeros(64, np.uint8), "pitches": (3,)},
     "INVALID_IMAGE_DESCRIPTOR", "row pitch 3 is not a multiple"),
])
def test_bad_image_creation(ctx, kw, code, message):
    flags = kw.pop("flags", MF.READ_ONLY)
    with pytest.raises(cl.Error, match=message) as info:
        cl.Image(ctx, flags, R_U8, **kw)
    assert info.value.code == getattr(cl.status_code, code)


def test_bad_transfers_write_nothing(ctx, queue):
    img = _image(ctx, (4, 4), data=np.full(16, 7, np.uint8))
    other = _image(ctx, (4, 4), RGBA_F)
    host = np.zeros(16, np.uint8)
    cases = [
        (lambda: cl.enqueue_copy(queue, img, host, origin=(2, 0), region=(3, 1)), "INVALID_VALUE",
         r"the image region \(2, 0, 0\) \+ \(3, 1, 1\) leaves the image along x \(extent 4\)"),
        (lambda: cl.enqueue_copy(queue, img, host[:3], origin=(0, 0), region=(2, 2)), "INVALID_VALUE",
         "the host array holds 3 bytes; the region needs 4"),
        (lambda: cl.enqueue_copy(queue, img, host, origin=(0, 0), region=(0, 1)), "INVALID_VALUE",
         "has a zero extent"),
        (lambda: cl.enqueue_copy(queue, img, other, src_origin=(0, 0), dest_origin=(0, 0), region=(1, 1)),
         "IMAGE_FORMAT_MISMATCH", "differs from the destination's"),
        (lambda: cl.enqueue_copy(queue, img, img, src_origin=(0, 0), dest_origin=(1, 0), region=(2, 2)),
         "MEM_COPY_OVERLAP", "regions overlap"),
        (lambda: cl.enqueue_fill_image(queue, img, np.zeros(3, np.uint32), (0, 0), (1, 1)), "INVALID_VALUE",
         "the fill colour must have 4 components"),
        (lambda: cl.enqueue_copy(queue, cl.Buffer(ctx, MF.READ_WRITE, 8), img, origin=(0, 0), region=(4, 4),
                                 offset=0), "INVALID_VALUE", "the region's 16 bytes at offset 0 overrun"),
    ]
    for call, code, message in cases:
        with pytest.raises(cl.Error, match=message) as info:
            call()
        assert info.value.code == getattr(cl.status_code, code)
    assert np.array_equal(_read(queue, img, (4, 4)).ravel(), np.full(16, 7, np.uint8))
    with pytest.raises(TypeError, match="needs the keyword argument 'region'"):
        cl.enqueue_copy(queue, img, host, origin=(0, 0))


def test_bad_kernel_arguments(ctx, queue):
    prg = cl.Program(ctx, "kernel void k(read_only image2d_t i, sampler_t s, global float4 *o)"
                          "{ o[0] = read_imagef(i, s, (float2)(0.5f, 0.5f)); }").build()
    img = _image(ctx, (2, 2), RGBA_F)
    smp = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP, cl.filter_mode.NEAREST)
    out = cl.Buffer(ctx, MF.READ_WRITE, 16)
    with pytest.raises(cl.LogicError, match=r"arg#1 \(1-based\): argument 'i' \(__global image2d_t\) is an "
                                            r"image: pass an Image, not oclpy.Buffer") as info:
        prg.k(queue, (1,), None, out, smp, out)
    assert info.value.code == cl.status_code.INVALID_ARG_VALUE
    with pytest.raises(cl.LogicError, match=r"arg#2 \(1-based\): argument 's' \(sampler_t\) is a sampler: "
                                            r"pass a Sampler, not numpy.int32") as info:
        prg.k(queue, (1,), None, img, np.int32(0x12), out)
    assert info.value.code == cl.status_code.INVALID_SAMPLER
    with pytest.raises(cl.LogicError, match="is a pointer: pass a Buffer"):
        prg.k(queue, (1,), None, img, smp, img)
    info_k = prg.k
    assert info_k.get_arg_info(0, cl.kernel_arg_info.ACCESS_QUALIFIER) == cl.kernel_arg_access_qualifier.READ_ONLY
    assert info_k.get_arg_info(0, cl.kernel_arg_info.TYPE_NAME) == "image2d_t"
    assert info_k.get_arg_info(1, cl.kernel_arg_info.TYPE_NAME) == "sampler_t"
