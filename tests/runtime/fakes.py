"""Fake compiled kernels for runtime tests.

`FakeKernel` honours the CompiledKernel contract (args with kind/size/offset,
blob_size, reqd_work_group_size, static_local_bytes, a thread-safe `launch`)
but runs a Python function per work-group, so scheduling, argument packing and
error paths can be tested without the compiler.
"""

from __future__ import annotations

import ctypes
import itertools
import struct
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import oclpy as cl


@dataclass
class FakeArg:
    name: str
    kind: str  # "global" | "constant" | "local" | "scalar"
    size: int
    offset: int
    type: str
    attrs: dict[str, Any] = field(default_factory=dict)


def fake_args(*specs: tuple[str, str, int, str]) -> tuple[list[FakeArg], int]:
    """(name, kind, size, type_name) specs laid out like the cpu target does."""
    args, offset = [], 0
    for name, kind, size, type_name in specs:
        offset = -(-offset // min(size, 8)) * min(size, 8)
        space = "private" if kind == "scalar" else kind
        args.append(FakeArg(name, kind, size, offset, type_name,
                            {"type_name": type_name, "address_qualifier": space,
                             "access_qualifier": "none", "type_qualifiers": set()}))
        offset += size
    return args, -(-offset // 8) * 8


@dataclass
class Launch:
    work_dim: int
    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    global_offset: tuple[int, int, int]
    begin: int
    end: int
    blob: bytes


class FakeKernel:
    def __init__(self, name: str, specs: list[tuple[str, str, int, str]],
                 body: Callable[[FakeKernel, bytes, tuple[int, int, int], Launch], None] | None = None,
                 reqd: tuple[int, int, int] | None = None, static_local_bytes: int = 0) -> None:
        self.name = name
        self.args, self.blob_size = fake_args(*specs)
        self.reqd_work_group_size = reqd
        self.static_local_bytes = static_local_bytes
        self.body = body
        self.launches: list[Launch] = []
        self.groups_run: list[tuple[int, int, int]] = []
        self.lock = threading.Lock()

    def address(self, blob: bytes, index: int) -> int:
        return struct.unpack_from("<Q", blob, self.args[index].offset)[0]

    def scalar(self, blob: bytes, index: int, fmt: str) -> Any:
        return struct.unpack_from("<" + fmt, blob, self.args[index].offset)[0]

    def launch(self, blob: Any, work_dim: int, global_size: tuple[int, int, int],
               local_size: tuple[int, int, int], global_offset: tuple[int, int, int],
               group_begin: int, group_end: int) -> None:
        blob = bytes(blob)
        record = Launch(work_dim, tuple(global_size), tuple(local_size), tuple(global_offset),
                        group_begin, group_end, blob)
        groups = [g // l for g, l in zip(global_size, local_size)]
        ids = list(itertools.islice(itertools.product(range(groups[2]), range(groups[1]),
                                                      range(groups[0])), group_begin, group_end))
        with self.lock:
            self.launches.append(record)
            self.groups_run.extend((x, y, z) for z, y, x in ids)
        for z, y, x in ids:
            if self.body is not None:
                self.body(self, blob, (x, y, z), record)


def view(address: int, count: int, dtype: Any) -> np.ndarray:
    """The device memory at `address` as a numpy array (cpu device: a host pointer)."""
    dtype = np.dtype(dtype)
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(raw, dtype=dtype)


def vadd_body(knl: FakeKernel, blob: bytes, group: tuple[int, int, int], launch: Launch) -> None:
    n = knl.scalar(blob, 3, "i")
    lo = group[0] * launch.local_size[0] + launch.global_offset[0]
    hi = min(lo + launch.local_size[0], n)
    if hi <= lo:
        return
    a, b, out = (view(knl.address(blob, i), n, np.float32) for i in range(3))
    out[lo:hi] = a[lo:hi] + b[lo:hi]


def make_vadd(**kw: Any) -> FakeKernel:
    return FakeKernel("vadd", [("a", "global", 8, "float*"), ("b", "global", 8, "float*"),
                               ("out", "global", 8, "float*"), ("n", "scalar", 4, "int")],
                      vadd_body, **kw)


def buffer_of(ctx, array: np.ndarray) -> cl.Buffer:
    mf = cl.mem_flags
    return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=array)


def read(queue, buf: cl.Buffer, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    cl.enqueue_copy(queue, out, buf)
    return out
