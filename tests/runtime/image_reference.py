"""A NumPy model of OpenCL 1.2 image sampling (8.2) and conversions (8.3), for the image tests.

Everything is float32 arithmetic in the spec's order, so a device that follows
the formulas matches it bit for bit.
"""

from __future__ import annotations

import numpy as np

F = np.float32
CLAMP_TO_EDGE, CLAMP, NONE, REPEAT, MIRRORED_REPEAT = "clamp_to_edge", "clamp", "none", "repeat", "mirrored_repeat"


def _edge(i: np.ndarray, size: int, mode: str) -> np.ndarray:
    return np.clip(i, 0, size - 1) if mode == CLAMP_TO_EDGE else np.clip(i, -1, size)


def _floor_i(u: np.ndarray) -> np.ndarray:
    return np.floor(u).astype(np.int64)


def nearest(s: np.ndarray, size: int, norm: bool, mode: str) -> np.ndarray:
    s = s.astype(F)
    n = F(size)
    if norm and mode == REPEAT:
        i = _floor_i((s - np.floor(s)) * n)
        return np.where(i > size - 1, i - size, i)
    if norm and mode == MIRRORED_REPEAT:
        m = np.abs(s - F(2) * np.rint(F(0.5) * s))
        return np.minimum(_floor_i(m * n), size - 1)
    u = s * n if norm else s
    return _edge(_floor_i(u), size, mode)


def linear(s: np.ndarray, size: int, norm: bool, mode: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = s.astype(F)
    n = F(size)
    half = F(0.5)
    if norm and mode == REPEAT:
        u = (s - np.floor(s)) * n
        a = _floor_i(u - half)
        b = a + 1
        i0, i1 = np.where(a < 0, size + a, a), np.where(b > size - 1, b - size, b)
    elif norm and mode == MIRRORED_REPEAT:
        u = np.abs(s - F(2) * np.rint(half * s)) * n
        a = _floor_i(u - half)
        i0, i1 = np.maximum(a, 0), np.minimum(a + 1, size - 1)
    else:
        u = s * n if norm else s
        a = _floor_i(u - half)
        i0, i1 = _edge(a, size, mode), _edge(a + 1, size, mode)
    w = (u - half) - np.floor(u - half)
    return i0, i1, w.astype(F)


def texel(img: np.ndarray, border: np.ndarray, x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """img: (depth, height, width, 4) rgba float32; out-of-range texels are the border colour."""
    d, h, w, _ = img.shape
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h) & (z >= 0) & (z < d)
    got = img[np.clip(z, 0, d - 1), np.clip(y, 0, h - 1), np.clip(x, 0, w - 1)]
    return np.where(inside[:, None], got, border[None, :]).astype(F)


def sample(img: np.ndarray, border: np.ndarray, coords: np.ndarray, dims: int, norm: bool, mode: str,
           filt: str) -> np.ndarray:
    """read_imagef at float coordinates (N, dims) of an image of `dims` dimensions."""
    d, h, w, _ = img.shape
    sizes = (w, h, d)
    zero = np.zeros(len(coords), np.int64)
    if filt == "nearest":
        idx = [nearest(coords[:, k], sizes[k], norm, mode) for k in range(dims)] + [zero] * (3 - dims)
        return texel(img, border, *idx)
    parts = [linear(coords[:, k], sizes[k], norm, mode) for k in range(dims)]
    one = F(1)
    t = lambda i, j=None, k=None: texel(img, border, i, zero if j is None else j, zero if k is None else k)  # noqa: E731
    (x0, x1, a), = parts[:1]
    a = a[:, None]
    if dims == 1:
        return (one - a) * t(x0) + a * t(x1)
    y0, y1, b = parts[1]
    b = b[:, None]
    if dims == 2:
        return ((one - a) * (one - b) * t(x0, y0) + a * (one - b) * t(x1, y0)
                + (one - a) * b * t(x0, y1) + a * b * t(x1, y1))
    z0, z1, g = parts[2]
    g = g[:, None]
    return ((one - a) * (one - b) * (one - g) * t(x0, y0, z0) + a * (one - b) * (one - g) * t(x1, y0, z0)
            + (one - a) * b * (one - g) * t(x0, y1, z0) + a * b * (one - g) * t(x1, y1, z0)
            + (one - a) * (one - b) * g * t(x0, y0, z1) + a * (one - b) * g * t(x1, y0, z1)
            + (one - a) * b * g * t(x0, y1, z1) + a * b * g * t(x1, y1, z1))


# -- conversions (8.3) --------------------------------------------------------------

def unnormalize(raw: np.ndarray, kind: str) -> np.ndarray:
    """Stored components -> the floats read_imagef returns."""
    scale = {"unorm8": 255, "unorm16": 65535, "snorm8": 127, "snorm16": 32767}.get(kind)
    if scale is None:
        return raw.astype(F)
    f = raw.astype(F) / F(scale)
    return np.maximum(F(-1), f) if kind.startswith("snorm") else f


def normalize(f: np.ndarray, kind: str) -> np.ndarray:
    """Floats -> the components write_imagef stores (round to nearest even, saturate)."""
    dtype, scale = {"unorm8": (np.uint8, 255), "unorm16": (np.uint16, 65535), "snorm8": (np.int8, 127),
                    "snorm16": (np.int16, 32767)}[kind]
    info = np.iinfo(dtype)
    v = np.nan_to_num(f.astype(F) * F(scale), nan=0.0)
    return np.clip(np.rint(v), info.min, info.max).astype(dtype)
