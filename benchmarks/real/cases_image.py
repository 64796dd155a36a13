"""Image processing: GEGL's filters, BEMAP's Gaussian filter, the OpenCL SDK's convolution.

Pixels are RGBA float4 (GEGL's linear buffers), uchar (BEMAP) or float
(the SDK); inputs carry the halo each project's host adds around the region.
"""

from __future__ import annotations

import numpy as np

from . import sources as src
from .case import Launch, RealCase, Vec

F32, I32 = np.float32, np.int32


def _rgba(h: int, w: int) -> np.ndarray:
    return np.random.default_rng(11).random((h, w, 4), dtype=F32)


def _window_sum(a: np.ndarray, r: int, axis: int) -> np.ndarray:
    c = np.cumsum(a.astype(np.float64), axis=axis)
    c = np.concatenate([np.zeros_like(np.take(c, [0], axis=axis)), c], axis=axis)
    n = a.shape[axis] - 2 * r
    return np.take(c, range(2 * r + 1, 2 * r + 1 + n), axis=axis) - np.take(c, range(n), axis=axis)


def make_gegl_box_blur(small: bool) -> RealCase:
    h, w, r = (32, 48, 3) if small else (1024, 1024, 8)
    img = _rgba(h + 2 * r, w + 2 * r)
    launches = (Launch("kernel_blur_hor", ("in", "aux", I32(w), I32(r)), (h + 2 * r, w)),
                Launch("kernel_blur_ver", ("aux", "out", I32(w), I32(r)), (h, w)))

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        hor = _window_sum(v["in"], r, 1) / (2 * r + 1)
        return {"out": (_window_sum(hor.astype(F32), r, 0) / (2 * r + 1)).astype(F32)}

    return RealCase("gegl_box_blur", "gegl", "image processing",
                    src.read("gegl", "operations/opencl/box-blur.cl"), "",
                    {"in": img, "aux": np.zeros((h + 2 * r, w, 4), F32), "out": np.zeros((h, w, 4), F32)},
                    ("out",), launches, f"{w}x{h} RGBA, radius {r}", ref)


def make_gegl_bilateral(small: bool) -> RealCase:
    h, w = (24, 40) if small else (512, 768)
    radius, preserve = 3.0, 8.0
    n = int(np.ceil(radius))
    img = _rgba(h + 2 * n, w + 2 * n)

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        a = v["in"].astype(np.float64)
        centre = a[n:n + h, n:n + w]
        acc, count = np.zeros_like(centre), np.zeros(centre.shape[:2])
        for dv in range(-n, n + 1):
            for du in range(-n, n + 1):
                t = a[n + dv:n + dv + h, n + du:n + du + w]
                diff = np.exp(-((centre[..., :3] - t[..., :3]) ** 2).sum(-1) * preserve)
                wgt = diff * np.exp(-0.5 * (du * du + dv * dv) / radius)
                acc += t * wgt[..., None]
                count += wgt
        return {"out": (acc / count[..., None]).astype(F32)}

    launch = Launch("bilateral_filter", ("in", "out", F32(radius), F32(preserve)), (w, h))
    return RealCase("gegl_bilateral", "gegl", "image processing",
                    src.read("gegl", "operations/opencl/bilateral-filter.cl"), "",
                    {"in": img, "out": np.zeros((h, w, 4), F32)}, ("out",), (launch,),
                    f"{w}x{h} RGBA, radius {radius:g}", ref)


def make_gegl_sobel(small: bool) -> RealCase:
    h, w = (24, 40) if small else (2048, 2048)
    img = _rgba(h + 2, w + 2)

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        a = v["in"].astype(np.float64)
        ys = np.clip(np.arange(-1, h + 1), 0, h + 1)
        xs = np.clip(np.arange(-1, w + 1), 0, w + 1)
        p = a[ys][:, xs]                         # p[y + 1, x + 1] = clamped in[y, x]
        at = lambda dy, dx: p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
        hor = (-at(-1, -1) + at(-1, 1)) + (-2 * at(0, -1) + 2 * at(0, 1)) + (-at(1, -1) + at(1, 1))
        ver = (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1)) - (at(1, -1) + 2 * at(1, 0) + at(1, 1))
        g = 0.5 + (hor + ver) / 8.0
        g[..., 3] = at(0, 0)[..., 3]
        return {"out": g.astype(F32)}

    launch = Launch("kernel_edgesobel", ("in", "out", I32(1), I32(1), I32(1), I32(1)), (w, h))
    return RealCase("gegl_edge_sobel", "gegl", "image processing",
                    src.read("gegl", "operations/opencl/edge-sobel.cl"), "",
                    {"in": img, "out": np.zeros((h, w, 4), F32)}, ("out",), (launch,), f"{w}x{h} RGBA", ref)


def _gauss_filter() -> np.ndarray:
    text = src.read("bemap", "src/GaussianFilter/cl/GaussianFilter.cl")
    body = text.split("filter[121] =", 1)[1].split("{", 1)[1].split("}", 1)[0]
    return np.array([float(x.strip().rstrip("f")) for x in body.split(",") if x.strip()], F32).reshape(11, 11)


def make_bemap_gaussian(small: bool) -> RealCase:
    h, w = (40, 56) if small else (1024, 1024)
    img = np.random.default_rng(3).integers(0, 256, (h, w), dtype=np.uint8)

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        f = _gauss_filter().astype(np.float64)
        pad = np.pad(v["src"].astype(np.float64), 5, mode="edge")
        acc = sum(f[a, b] * pad[a:a + h, b:b + w] for a in range(11) for b in range(11))
        return {"dst": np.clip(acc, 0, 255).astype(np.uint8)}

    launch = Launch("gaussian_scalar", ("src", "dst", I32(w), I32(h)), (-(-h * w // 128) * 128,), (128,))
    return RealCase("bemap_gaussian", "bemap", "image processing",
                    src.read("bemap", "src/GaussianFilter/cl/GaussianFilter.cl"),
                    src.include("bemap", "src/GaussianFilter/cl/GaussianFilter_common.hpp"),
                    {"src": img, "dst": np.zeros((h, w), np.uint8)}, ("dst",), (launch,),
                    f"{w}x{h} grey, 11x11", ref, extra={"int_atol": 1})


def make_sdk_convolution(small: bool) -> RealCase:
    h, w = (30, 50) if small else (4096, 4096)
    r = np.random.default_rng(5)
    img, mask = r.random((h + 2, w + 2), dtype=F32), r.random(9, dtype=F32)

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        a, m = v["in"].astype(np.float64), v["mask"].reshape(3, 3)
        return {"out": sum(m[y, x] * a[y:y + h, x:x + w] for y in range(3) for x in range(3)).astype(F32)}

    launch = Launch("convolution_3x3", ("in", "out", "mask", Vec("uint2", (w, h))), (w, h))
    return RealCase("sdk_convolution", "opencl-sdk", "image processing",
                    src.read("opencl-sdk", "samples/core/multi-device/convolution.cl"), "",
                    {"in": img, "out": np.zeros((h, w), F32), "mask": mask}, ("out",), (launch,),
                    f"{w}x{h}, 3x3", ref)
