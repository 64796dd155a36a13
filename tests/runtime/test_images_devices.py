"""Images on the simt device and on cuda (skipped, with the reason, without a GPU):
the image builtins are ordinary code, so the same kernels give the NumPy model's
results there (on cuda linear filtering within rounding: NVPTX contracts a*b+c)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime.drivers import load_driver
from oclpy.runtime.drivers.base import DriverUnavailable

from . import image_reference as ref

_cuda = load_driver("cuda")
SRC = """
kernel void s2(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void put(write_only image2d_t img, global const float4 *v)
{ int x = get_global_id(0), y = get_global_id(1); write_imagef(img, (int2)(x, y), v[y * get_image_width(img) + x]); }
"""
SAMPLERS = [(True, cl.addressing_mode.REPEAT, "repeat"), (True, cl.addressing_mode.MIRRORED_REPEAT, "mirrored_repeat"),
            (False, cl.addressing_mode.CLAMP, "clamp"), (True, cl.addressing_mode.CLAMP_TO_EDGE, "clamp_to_edge")]


def _device(kind: str) -> cl.Device:
    if kind == "cuda" and isinstance(_cuda, DriverUnavailable):
        pytest.skip(_cuda.reason)
    return next(d for p in cl.get_platforms() for d in p.get_devices() if d.kind == kind)


@pytest.mark.parametrize("kind", ["simt", "cuda"])
def test_sampling_and_writing(kind):
    dev = _device(kind)
    assert dev.image_support
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SRC).build()
    rng = np.random.default_rng(0)
    data = rng.standard_normal((5, 7, 4)).astype(np.float32)
    img = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                   cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT), shape=(7, 5), hostbuf=data)
    for norm, mode, name in SAMPLERS:
        for filt, fname in ((cl.filter_mode.NEAREST, "nearest"), (cl.filter_mode.LINEAR, "linear")):
            c = rng.uniform(-1, 2, (64, 2)).astype(np.float32) * (1 if norm else np.float32(6))
            cb = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=c)
            ob = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 64 * 16)
            prg.s2(q, (64,), None, img, cl.Sampler(ctx, norm, mode, filt), cb, ob)
            got = np.empty((64, 4), np.float32)
            cl.enqueue_copy(q, got, ob)
            want = ref.sample(data[None], np.zeros(4, np.float32), c, 2, norm, name, fname)
            if kind == "cuda" and fname == "linear":
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
            else:
                assert np.array_equal(got, want), (name, fname)
    u8 = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, cl.ImageFormat(cl.channel_order.BGRA, cl.channel_type.UNORM_INT8),
                  shape=(4, 2))
    v = rng.uniform(-0.2, 1.2, (8, 4)).astype(np.float32)
    prg.put(q, (4, 2), None, u8, cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=v))
    got8 = np.empty((8, 4), np.uint8)
    cl.enqueue_copy(q, got8, u8, origin=(0, 0), region=(4, 2))
    assert np.array_equal(got8, ref.normalize(v[:, [2, 1, 0, 3]], "unorm8"))
