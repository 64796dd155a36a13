"""What limits one real-suite kernel on oclpy's cpu device: the evidence, in one command.

    python -m benchmarks.real.evidence CASE [--remarks] [--ir FILE] [--time N]

For the case's launched kernels (built as the suite builds them, full size
unless `--small`):

- which of the cpu target's work-item strategies each got (from the IR after
  the target's passes: widened to vectors of work-items `widen-work-items`,
  lane arrays, an entry guard, barriers or steps, lockstep loops; from the
  LLVM IR: the outer-loop hint);
- in the optimised LLVM IR of each launcher: vector instructions by width,
  `llvm.masked.gather`/`scatter` calls, scalar loads and stores, C library
  calls (what stayed one lane at a time);
- `--remarks`: LLVM's loop-vectoriser remarks for the module (vectorised at
  which width, or why not), through `binding.report_remarks`;
- `--ir FILE`: the optimised LLVM IR written there, to read;
- `--time N`: the launch sequence on oclpy alone, N times, fastest, with the
  bytes its buffers hold over that time against a STREAM-style triad
  (`a = b + s * c` in NumPy, one thread, arrays of 64 MiB) measured in the
  same process: how close the kernel is to memory-bound;
- `--intel FILE`: Intel's native code for comparison: the program built by
  Intel's CPU runtime (through PyOpenCL, as the suite sets it up), its
  `CL_PROGRAM_BINARIES` ELF's `.ocl.obj` section (an x86-64 object file)
  written to FILE, for `objdump -d FILE`.
"""

from __future__ import annotations

import argparse
import re
import struct
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from oclpy.compiler import frontend_for, optimize

from . import suite
from .impls import oclpy_impl

_VECTOR = re.compile(r"<(\d+) x (float|double|i1|i8|i16|i32|i64|ptr)>")
_CALL = re.compile(r"call [^@]*@([\w.$]+)\(")


def strategies(source: str, options: str, kernels: set[str]) -> dict[str, list[str]]:
    """kernel -> the work-item strategies the cpu target's passes chose for it."""
    module = frontend_for(source, options).module
    optimize(module, 2, "cpu")
    out = {}
    for fn in module.kernels():
        if fn.name not in kernels:
            continue
        a = fn.attrs
        marks = []
        if "wide" in a:
            marks.append(f"widened to {a['wide_lanes']} work-items ({a['wide']})")
        if "private_lanes_size" in a:
            marks.append(f"lane arrays, {a['private_lanes_size']} bytes per work-item")
        if "guard" in a:
            marks.append("entry guard split")
        if a.get("wg_divergent"):
            marks.append(f"divergent loops stepped (states {a.get('wg_steps')})")
        if a.get("wg_barriers"):
            marks.append(f"{a['wg_barriers']} barriers/steps (regions {a['wg_barriers'] + 1})")
        out[fn.name] = marks or ["plain work-item loop"]
    return out


def launcher_profile(optimized: str, kernel: str) -> Counter:
    """Counts of what the optimised launcher of `kernel` does (its function's text)."""
    m = re.search(rf'^define [^\n]*@"?{re.escape(kernel)}\.launch"?\(.*?^}}', optimized, re.S | re.M)
    text = m.group(0) if m else ""
    c: Counter = Counter()
    for line in text.splitlines():
        line = line.strip()
        if not line or line.endswith(":") or line.startswith(";"):
            continue
        widths = {int(w) for w, _ in _VECTOR.findall(line)}
        if widths:
            c[f"vector <{max(widths)} x ...> instructions"] += 1
        call = _CALL.search(line)
        if call:
            name = call.group(1)
            if "masked.gather" in name or "masked.scatter" in name:
                c[name.split(".v")[0].replace("llvm.masked.", "masked ") + " calls"] += 1
            elif not name.startswith("llvm."):
                c[f"calls of @{name}"] += 1
        elif re.search(r"= load (float|double|i\d+|ptr),", line):
            c["scalar loads"] += 1
        elif re.match(r"store (float|double|i\d+|ptr) ", line):
            c["scalar stores"] += 1
    return c


def triad_gbs() -> float:
    """A STREAM-style triad in NumPy (one thread, two passes over 64 MiB arrays): bytes
    moved over the best of 5 rounds, in GB/s."""
    n = 1 << 24
    a, b, c = np.zeros(n, np.float32), np.ones(n, np.float32), np.ones(n, np.float32)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        np.multiply(c, 3.0, out=a)
        np.add(a, b, out=a)
        best = min(best, time.perf_counter() - t0)
    return 4 * 4 * n / best / 1e9  # NumPy's two passes: c read, a written, a and b read, a written


def elf_section(data: bytes, wanted: str) -> bytes | None:
    """The contents of section `wanted` of a 64-bit little-endian ELF image."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    for name, _, _, _, offset, size in headers:
        end = data.index(b"\0", names_at + name)
        if data[names_at + name:end].decode() == wanted:
            return data[offset:offset + size]
    return None


def intel_object(source: str, options: str) -> bytes | None:
    """Intel's CPU runtime's object code for `source`, or None when it is not here."""
    from . import env

    if env.point_icd_at_intel():
        return None
    import pyopencl as cl

    platforms = [p for p in cl.get_platforms() if "intel" in p.name.lower()]
    if not platforms:
        return None
    ctx = cl.Context(platforms[0].get_devices())
    binary = cl.Program(ctx, source).build(options=options).get_info(cl.program_info.BINARIES)[0]
    return elf_section(bytes(binary), ".ocl.obj")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.real.evidence", description=__doc__.split("\n")[0])
    ap.add_argument("case", help=f"one of: {', '.join(suite.MAKERS)}")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--remarks", action="store_true", help="LLVM's loop-vectoriser remarks (stderr)")
    ap.add_argument("--ir", type=Path, help="write the optimised LLVM IR here")
    ap.add_argument("--time", type=int, default=0, metavar="N", help="time oclpy alone N times, with bandwidth")
    ap.add_argument("--intel", type=Path, metavar="FILE", help="write Intel's object code for the case here")
    opts = ap.parse_args(argv)
    try:
        (name, make), = suite.select([opts.case])
    except KeyError as exc:
        print(exc.args[0], file=sys.stderr)
        return 2
    case = make(opts.small)
    kernels = {launch.kernel for launch in case.launches}
    for kernel, marks in strategies(case.source, case.options, kernels).items():
        print(f"{kernel}: {'; '.join(marks)}")
    if opts.remarks:
        from oclpy.targets.llvm import binding

        binding.report_remarks()
    from oclpy.compiler import compile_program

    program = compile_program(case.source, case.options).program
    hinted = '!"llvm.loop.vectorize.enable", i1 1' in program.llvm_ir
    print(f"outer-loop hint in the LLVM IR: {'yes' if hinted else 'no'}")
    sys.stderr.flush()
    optimized = program.optimized_llvm_ir  # compiles the module now (remarks go to stderr)
    sys.stderr.flush()
    if opts.ir:
        opts.ir.write_text(optimized)
    for kernel in sorted(kernels):
        print(f"{kernel}.launch, optimised:")
        for what, n in sorted(launcher_profile(optimized, kernel).items()):
            print(f"  {n:6d}  {what}")
    if opts.intel:
        obj = intel_object(case.source, case.options)
        if obj is None:
            print("Intel's CPU runtime is not here (python -m benchmarks.real --install-intel)")
        else:
            opts.intel.write_bytes(obj)
            print(f"Intel's object code: {opts.intel} ({len(obj)} bytes); objdump -d {opts.intel}")
    if opts.time:
        impl = oclpy_impl("cpu")
        p = impl.prepare(case, case.source)
        impl.run(p)
        best = float("inf")
        for _ in range(opts.time):
            if case.restore:
                impl.restore(case, p)
            t0 = time.perf_counter()
            impl.run(p)
            best = min(best, time.perf_counter() - t0)
        moved = sum(np.asarray(v).nbytes for v in case.buffers.values())
        print(f"oclpy alone: {best * 1e3:.2f} ms (fastest of {opts.time}); its buffers, {moved / 1e6:.1f} MB, "
              f"once: {moved / best / 1e9:.2f} GB/s; NumPy triad here: {triad_gbs():.2f} GB/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
