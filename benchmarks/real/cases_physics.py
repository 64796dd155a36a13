"""Physics: the OpenCL SDK's n-body step and Bullet3's broadphase (sweep and prune, grid hash)."""

from __future__ import annotations

import numpy as np

from . import sources as src
from .case import Launch, RealCase

F32, I32 = np.float32, np.int32
SAP = "src/Bullet3OpenCL/BroadphaseCollision/kernels/sap.cl"
GRID = "src/Bullet3OpenCL/BroadphaseCollision/kernels/gridBroadphase.cl"


def make_nbody(small: bool) -> RealCase:
    n = 256 if small else 8192
    r = np.random.default_rng(31)
    pos = np.concatenate([r.uniform(-10, 10, (n, 3)), r.uniform(0.5, 1.5, (n, 1))], 1).astype(F32)
    vel = np.concatenate([r.uniform(-1, 1, (n, 3)), np.zeros((n, 1))], 1).astype(F32)
    dt = F32(0.01)

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        p, m = v["front"][:, :3].astype(np.float64), v["front"][:, 3].astype(np.float64)
        acc = np.empty_like(p)
        for s in range(0, n, 512):                   # rows in chunks: n x n x 3 doubles is too big
            d = p[s:s + 512, None, :] - p[None, :, :]
            q = np.sqrt((d * d).sum(-1) + 1.0)
            acc[s:s + 512] = ((-(m[s:s + 512, None] * m[None, :]) / q ** 3)[..., None] * d).sum(1)
        newp = p + v["vel"][:, :3] * dt + acc * 0.5 * dt * dt
        newv = v["vel"][:, :3] + acc * dt
        return {"back": np.concatenate([newp, m[:, None]], 1).astype(F32),
                "vel": np.concatenate([newv, np.zeros((n, 1))], 1).astype(F32)}

    launch = Launch("nbody", ("front", "back", "vel", np.uint32(n), dt), (n,), (64,))
    return RealCase("sdk_nbody", "opencl-sdk", "physics",
                    src.read("opencl-sdk", "samples/extensions/khr/nbody/nbody.cl"), "",
                    {"front": pos, "back": np.zeros_like(pos), "vel": vel}, ("back", "vel"), (launch,),
                    f"{n} bodies", ref, rtol=1e-3, atol=1e-3, restore=("vel",))


def _boxes(n: int, extent: float) -> np.ndarray:
    """btAabbCL records (min.xyz, object index as int bits, max.xyz, 0), sorted by min.x."""
    r = np.random.default_rng(37)
    centre = r.uniform(0, extent, (n, 3))
    half = r.uniform(0.2, 1.0, (n, 3))
    lo, hi = centre - half, centre + half
    order = np.argsort(lo[:, 0], kind="stable")
    rec = np.zeros((n, 8), F32)
    rec[:, :3], rec[:, 4:7] = lo[order], hi[order]
    rec[:, 3] = np.arange(n, dtype=I32)[order].view(F32)
    return rec


def _pairs(rec: np.ndarray, max_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    lo, hi, idx = rec[:, :3], rec[:, 4:7], rec[:, 3].view(I32)
    found = []
    for i in range(len(rec)):
        j = i + 1 + np.arange(np.searchsorted(lo[i + 1:, 0], hi[i, 0], side="right"))
        ok = np.all((lo[i] <= hi[j]) & (hi[i] >= lo[j]), axis=1)
        found += [(idx[i], idx[k]) for k in j[ok]]
    out = np.zeros((max_pairs, 4), I32)
    out[:len(found), :2] = found
    out[:len(found), 2:] = -1
    return out, np.array([len(found)], I32)


def _sorted_pairs(d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    count = int(d["count"][0])
    p = d["pairs"][:min(count, len(d["pairs"]))]
    return {"count": d["count"], "pairs": p[np.lexsort((p[:, 1], p[:, 0]))]}


def make_bullet_sap(small: bool) -> RealCase:
    n, extent = (512, 20.0) if small else (65536, 160.0)
    rec = _boxes(n, extent)
    max_pairs = 8 * n
    launch = Launch("computePairsKernelOriginal", ("aabbs", "pairs", "count", I32(n), I32(0), I32(max_pairs)),
                    (-(-n // 64) * 64,), (64,))

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        pairs, count = _pairs(v["aabbs"], max_pairs)
        return {"pairs": pairs, "count": count}

    return RealCase("bullet_sap_pairs", "bullet3", "physics", src.read("bullet3", SAP), "",
                    {"aabbs": rec, "pairs": np.zeros((max_pairs, 4), I32), "count": np.zeros(1, I32)},
                    ("pairs", "count"), (launch,), f"{n} boxes", ref, restore=("count",),
                    normalise=_sorted_pairs)


def make_bullet_grid_hash(small: bool) -> RealCase:
    n = 4096 if small else 1 << 22
    r = np.random.default_rng(41)
    centre = r.uniform(0, 64, (n, 3))
    aabb = np.zeros((n, 2, 4), F32)
    aabb[:, 0, :3], aabb[:, 1, :3] = centre - 0.5, centre + 0.5
    mapping = r.permutation(n).astype(I32)
    params = np.zeros((2, 4), F32)
    params[0, :3] = 0.5
    params[1] = np.array([32, 32, 32, 0], I32).view(F32)

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        a = v["aabb"][v["mapping"]]
        pos = ((a[:, 0, :3] + a[:, 1, :3]) * F32(0.5)).astype(F32)
        g = np.floor(pos * F32(0.5)).astype(I32) & 31
        h = g[:, 2] * 32 * 32 + g[:, 1] * 32 + g[:, 0]
        return {"hash": np.stack([h, np.arange(n, dtype=I32)], 1)}

    launch = Launch("kCalcHashAABB", (I32(n), "aabb", "mapping", "hash", "params"), (n,), (64,))
    return RealCase("bullet_grid_hash", "bullet3", "physics", src.read("bullet3", GRID), "",
                    {"aabb": aabb, "mapping": mapping, "hash": np.zeros((n, 2), I32), "params": params},
                    ("hash",), (launch,), f"{n} boxes", ref)
