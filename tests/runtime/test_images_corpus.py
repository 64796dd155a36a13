"""Image kernels of the real-kernel corpus (tools/corpus: other people's OpenCL C,
fetched under $OCLPY_CORPUS_DIR by `python -m tools.corpus fetch`; skipped where it
is not), run on oclpy against a NumPy model of what each computes, bit for bit, and
on PyOpenCL + PoCL where they are installed. The kernels are read from the corpus as
they are; the host code for each is written here, once, against a `cl` module."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import oclpy

from . import image_reference as ref

F = np.float32


def _source(path: str) -> str:
    from tools.corpus.manifest import corpus_dir

    file = corpus_dir() / path
    if not file.is_file():
        pytest.skip(f"the corpus file {path} is not under {corpus_dir()}: run `python -m tools.corpus fetch`")
    return Path(file).read_text(encoding="utf-8", errors="replace")


def _pocl() -> tuple[Any, Any] | None:
    try:
        import pyopencl
        platforms = [p for p in pyopencl.get_platforms() if "Portable" in p.name]
    except Exception:  # noqa: BLE001  (no PyOpenCL, or no OpenCL platform at all)
        return None
    return (pyopencl, pyopencl.Context(platforms[0].get_devices())) if platforms else None


def _on_both(source: str, options: str, run: Callable[[Any, Any, Any], Any]) -> tuple[Any, Any]:
    """`run(cl, ctx, program)` on oclpy's cpu device, and on PoCL (None where it is absent)."""
    def go(cl: Any, ctx: Any) -> Any:
        return run(cl, ctx, cl.Program(ctx, source).build(options))

    mine = go(oclpy, oclpy.Context(dev_type=oclpy.device_type.CPU))
    pocl = _pocl()
    return mine, (go(*pocl) if pocl is not None else None)


def _image(cl: Any, ctx: Any, order: str, ctype: str, data: np.ndarray, flags: int = 0) -> Any:
    fmt = cl.ImageFormat(getattr(cl.channel_order, order), getattr(cl.channel_type, ctype))
    h, w = data.shape[:2]
    return cl.create_image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR | flags, fmt, shape=(w, h),
                           hostbuf=np.ascontiguousarray(data))


def _read(cl: Any, q: Any, img: Any, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    cl.enqueue_copy(q, out, img, origin=(0, 0), region=(like.shape[1], like.shape[0]))
    return out


def test_conway_khronos_sdk():
    """KhronosGroup/OpenCL-SDK's Game of Life: normalized REPEAT reads of an R UNSIGNED_INT8 image."""
    source = _source("KhronosGroup+OpenCL-SDK/samples/extensions/khr/conway/conway.cl")
    grid = (np.random.default_rng(0).random((48, 64)) < 0.35).astype(np.uint8)

    def run(cl, ctx, prg):
        q = cl.CommandQueue(ctx)
        front = _image(cl, ctx, "R", "UNSIGNED_INT8", grid)
        back = cl.create_image(ctx, cl.mem_flags.WRITE_ONLY, front.format, shape=(64, 48))
        prg.conway(q, (64, 48), None, front, back, np.array([1 / 64, 1 / 48], F))
        return _read(cl, q, back, grid)

    mine, pocl = _on_both(source, "", run)
    n = sum(np.roll(np.roll(grid, dy, 0), dx, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
    want = np.where(grid == 1, (n == 2) | (n == 3), n == 3).astype(np.uint8)
    assert np.array_equal(mine, want)
    if pocl is not None:
        assert np.array_equal(pocl, want)


def test_blur_box_khronos_sdk():
    """KhronosGroup/OpenCL-SDK's box blur: read_imageui without a sampler, get_image_width/height."""
    source = _source("KhronosGroup+OpenCL-SDK/samples/core/blur/blur.cl")
    img = np.random.default_rng(1).integers(0, 256, (21, 30, 4), dtype=np.uint8)

    def run(cl, ctx, prg):
        q = cl.CommandQueue(ctx)
        src = _image(cl, ctx, "RGBA", "UNSIGNED_INT8", img)
        dst = cl.create_image(ctx, cl.mem_flags.WRITE_ONLY, src.format, shape=(30, 21))
        prg.blur_box(q, (30, 21), None, src, dst, np.int32(2))
        return _read(cl, q, dst, img)

    mine, pocl = _on_both(source, "-cl-std=CL2.0", run)  # the file's subgroup kernels need 2.0
    total = np.zeros((21, 30, 4), np.int64)
    count = np.zeros((21, 30, 1), np.int64)
    padded = np.pad(img.astype(np.int64), ((2, 2), (2, 2), (0, 0)))
    inside = np.pad(np.ones((21, 30, 1), np.int64), ((2, 2), (2, 2), (0, 0)))
    for dy in range(5):
        for dx in range(5):
            total += padded[dy:dy + 21, dx:dx + 30]
            count += inside[dy:dy + 21, dx:dx + 30]
    want = ((total + count // 2) // count).astype(np.uint8)
    assert np.array_equal(mine, want)
    if pocl is not None:
        assert np.array_equal(pocl, want)


def test_gaussian_filter_pocl_example():
    """PoCL's copy of the OpenCL Programming Guide's ImageFilter2D: a 3x3 Gaussian over a
    UNORM_INT8 RGBA image through a CLAMP_TO_EDGE sampler, written with write_imagef."""
    source = _source("pocl+pocl/examples/opencl-book-samples/ImageFilter2D.cl")
    img = np.random.default_rng(2).integers(0, 256, (23, 37, 4), dtype=np.uint8)

    def run(cl, ctx, prg):
        q = cl.CommandQueue(ctx)
        src = _image(cl, ctx, "RGBA", "UNORM_INT8", img)
        dst = cl.create_image(ctx, cl.mem_flags.WRITE_ONLY, src.format, shape=(37, 23))
        smp = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
        prg.gaussian_filter(q, (37, 23), None, src, dst, smp, np.int32(37), np.int32(23))
        return _read(cl, q, dst, img)

    # its weights are a program scope array that is not __constant: OpenCL C 2.0
    mine, pocl = _on_both(source, "-cl-std=CL2.0", run)
    texels = ref.unnormalize(img, "unorm8")
    acc = np.zeros((23, 37, 4), F)
    weights = [F(1), F(2), F(1), F(2), F(4), F(2), F(1), F(2), F(1)]
    k = 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            ys = np.clip(np.arange(23) + dy, 0, 22)
            xs = np.clip(np.arange(37) + dx, 0, 36)
            acc = acc + texels[ys][:, xs] * (weights[k] / F(16))
            k += 1
    want = ref.normalize(acc, "unorm8")
    assert np.array_equal(mine, want)
    if pocl is not None:  # PoCL contracts the accumulation into fmas: a unit in the last place apart
        assert np.abs(pocl.astype(int) - want.astype(int)).max() <= 1


def test_render_nvidia_simple_texture_3d():
    """NVIDIA's oclSimpleTexture3D: trilinear, normalized, REPEAT reads of a 3D R FLOAT volume."""
    source = _source("sschaetz+nvidia-opencl-examples/OpenCL/src/oclSimpleTexture3D/oclSimpleTexture3D_kernel.cl")
    vol = np.random.default_rng(3).random((6, 5, 7)).astype(F)  # depth, height, width

    def run(cl, ctx, prg):
        q = cl.CommandQueue(ctx)
        fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
        img = cl.create_image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(7, 5, 6),
                              hostbuf=vol)
        smp = cl.Sampler(ctx, True, cl.addressing_mode.REPEAT, cl.filter_mode.LINEAR)
        out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 24 * 16 * 4)
        prg.render(q, (24, 16), None, img, smp, out, np.uint32(24), np.uint32(16), F(0.37))
        got = np.empty(24 * 16, np.uint32)
        cl.enqueue_copy(q, got, out)
        return got

    mine, pocl = _on_both(source, "", run)
    x, y = np.meshgrid(np.arange(24), np.arange(16))
    coords = np.stack([x.ravel().astype(F) / F(24), y.ravel().astype(F) / F(16), np.full(x.size, F(0.37))], 1)
    rgba = np.zeros((6, 5, 7, 4), F)
    rgba[..., 0], rgba[..., 3] = vol, 1
    want = (ref.sample(rgba, np.zeros(4, F), coords, 3, True, ref.REPEAT, "linear")[:, 0] * F(255)).astype(np.uint32)
    assert np.array_equal(mine, want)
    if pocl is not None:
        assert np.abs(pocl.astype(int) - want.astype(int)).max() <= 1
