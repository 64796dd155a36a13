"""`Kernel.capture_call`: write a kernel launch as a stand-alone Python script.

The script holds the program source and build options, the bytes of every
buffer argument (read back now, zlib-compressed, base64), every by-value
argument's bytes and dtype, and the launch shape; its `main()` rebuilds the
program on a fresh context, recreates the buffers and makes the same call.
It is what one attaches to a bug report.
"""

from __future__ import annotations

import base64
import zlib
from typing import Any, TextIO

import numpy as np

from .memory import Buffer, LocalMemory
from .transfer import enqueue_copy

_HEADER = '''# A kernel call captured by oclpy's Kernel.capture_call
import base64
import zlib

import numpy as np

import oclpy as cl

SOURCE = {source!r}
OPTIONS = {options!r}


def _data(text):
    return np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype=np.uint8).copy()


def main():
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SOURCE).build(OPTIONS)
    mf = cl.mem_flags
    args = []
'''


def _pack(data: bytes) -> str:
    return base64.b64encode(zlib.compress(data)).decode("ascii")


def _arg_line(queue: Any, value: Any) -> str:
    if value is None:
        return "    args.append(None)"
    if isinstance(value, Buffer):
        host = np.empty(value.size, np.uint8)
        enqueue_copy(queue, host, value)
        return (f"    args.append(cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, "
                f"hostbuf=_data({_pack(host.tobytes())!r})))")
    if isinstance(value, LocalMemory):
        return f"    args.append(cl.LocalMemory({value.size}))"
    array = np.asarray(value)
    return (f"    args.append(np.frombuffer(base64.b64decode({base64.b64encode(array.tobytes()).decode()!r}), "
            f"dtype=np.dtype({array.dtype.descr!r} if {bool(array.dtype.names)} else {array.dtype.str!r}))[0])")


def capture_call(kernel: Any, output: str | TextIO, queue: Any, global_size: Any, local_size: Any,
                 *args: Any, global_offset: Any = None, wait_for: Any = None,
                 g_times_l: bool = False, allow_empty_ndrange: bool = False) -> None:
    """Write the script for `kernel(queue, global_size, local_size, *args, ...)` to `output`."""
    kernel.bind_all(args)  # the same argument checks as a real call
    if wait_for:
        for evt in wait_for:
            evt.wait()
    options = kernel.program._builds.get(queue.device)
    lines = [_HEADER.format(source=kernel.program.source, options=options.options if options else "")]
    lines += [_arg_line(queue, a) for a in args]
    lines.append(f"    prg.{kernel.function_name}(queue, {tuple(global_size)!r}, "
                 f"{tuple(local_size) if local_size is not None else None!r}, *args, "
                 f"global_offset={global_offset!r}, g_times_l={g_times_l!r}, "
                 f"allow_empty_ndrange={allow_empty_ndrange!r})")
    lines.append("    queue.finish()\n\n\nif __name__ == \"__main__\":\n    main()\n")
    text = "\n".join(lines)
    if isinstance(output, str):
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        output.write(text)
