"""Run Oclgrind's test kernels on oclpy and on PoCL and compare with their reference output.

Oclgrind's tests/kernels come with a `.sim` file (kernel, NDRange, one line
per argument: `<size=N [type] [fill=V|range=A:S:B] [dump] [ro|wo] ...>`
followed by inline values) and a `.ref` file whose `EXACT name[i] = v` lines
are the dumped buffers' expected contents. Tests whose `.ref` expects an
Oclgrind diagnostic (a race, an invalid access) are left out: they are tests
of the simulator, not of a compiler.

    python -m tools.corpus.oclgrind_sim [--pocl]

prints, per kernel, whether oclpy (and PoCL through pyopencl) reproduce the
reference, then one line `oclgrind: N match, M differ, U unsupported, F fail to run`.
Each test runs in a child process, so a native crash costs one verdict.
Arguments this reader does not model (structs, images, hex dumps) make a
test "unsupported".
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .manifest import corpus_dir

SCALARS = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
           "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
           "float": np.float32, "double": np.float64, "size_t": np.uint64, "bool": np.uint8}
_PARAM = re.compile(r"^(?P<quals>(?:(?:__)?(?:global|local|constant|private)\s+|const\s+|volatile\s+|"
                    r"restrict\s+|unsigned\s+)*)(?P<type>[A-Za-z_]\w*)\s*(?P<ptr>\*?)\s*"
                    r"(?:const\s+|restrict\s+|__restrict\s+)*(?P<name>\w+)$")


@dataclass
class Param:
    name: str
    space: str  # global, local, constant, value
    base: type  # numpy scalar type of one element
    width: int  # vector width (1 for scalars)


@dataclass
class Arg:
    size: int
    options: dict[str, str] = field(default_factory=dict)
    values: list[str] = field(default_factory=list)


def parse_params(source: str, kernel: str) -> list[Param] | None:
    m = re.search(r"\bkernel\s+void\s+" + re.escape(kernel) + r"\s*\(([^)]*)\)", source)
    if not m:
        return None
    params = []
    for text in (p.strip() for p in m.group(1).split(",") if p.strip()):
        pm = _PARAM.match(re.sub(r"\s+", " ", text))
        if not pm:
            return None
        quals, tname = pm["quals"], pm["type"]
        if "unsigned" in quals:
            tname = "u" + tname
        vm = re.fullmatch(r"([a-z]+?)(\d*)", tname)
        if not vm or vm.group(1) not in SCALARS:
            return None
        space = next((s for s in ("global", "local", "constant") if s in quals), "global") if pm["ptr"] else "value"
        params.append(Param(pm["name"], space, SCALARS[vm.group(1)], int(vm.group(2) or 1)))
    return params


def parse_sim(text: str) -> tuple[str, str, list[int], list[int], list[Arg]]:
    lines = [ln.split("#")[0] for ln in text.splitlines()]
    kfile, kernel = lines[0].strip(), lines[1].strip()
    gsize = [int(x) for x in lines[2].split()]
    lsize = [int(x) for x in lines[3].split()]
    args: list[Arg] = []
    for token in re.findall(r"<[^>]*>|[^\s<]+", "\n".join(lines[4:])):
        if token.startswith("<"):
            words = token[1:-1].split()
            opts = dict(w.split("=", 1) if "=" in w else (w, "") for w in words)
            args.append(Arg(int(opts.get("size", 0)), opts))
        elif args:
            args[-1].values.append(token)
    return kfile, kernel, gsize, lsize, args


def _dtype(arg: Arg, param: Param) -> Any:
    for name, t in SCALARS.items():
        if name in arg.options:
            return t
    return param.base


def arg_bytes(arg: Arg, param: Param) -> np.ndarray:
    dt = np.dtype(_dtype(arg, param))
    count = max(1, arg.size // dt.itemsize)
    if "fill" in arg.options:
        data = np.full(count, float(arg.options["fill"]) if dt.kind == "f" else int(arg.options["fill"], 0), dt)
    elif "range" in arg.options:
        a, step, b = (float(x) for x in arg.options["range"].split(":"))
        data = np.arange(a, b + step / 2, step).astype(dt)[:count]
    elif arg.values:
        data = np.array([float(v) if dt.kind == "f" else int(v, 0) for v in arg.values]).astype(dt)
    else:
        data = np.zeros(count, dt)
    out = np.zeros(arg.size, np.uint8)
    raw = data.view(np.uint8)[:arg.size]
    out[:len(raw)] = raw
    return out


def reference(text: str) -> dict[str, list[str]] | None:
    """name -> expected values, or None when the reference expects a diagnostic."""
    if re.search(r"^(ERROR|WARNING)", text, re.M):
        return None
    out: dict[str, list[str]] = {}
    for m in re.finditer(r"^EXACT\s+(\w+)\[(\d+)\] = (.*)$", text, re.M):
        out.setdefault(m.group(1), []).append(m.group(3).strip())
    return out or None


def run(cl: Any, ctx: Any, source: str, kernel: str, gsize: list[int], lsize: list[int],
        args: list[Arg], params: list[Param]) -> dict[str, list[str]]:
    queue = cl.CommandQueue(ctx)
    prog = cl.Program(ctx, source).build()
    knl = cl.Kernel(prog, kernel)  # not getattr: oclpy's Program hides names that start with _
    dumps = []
    for i, (arg, param) in enumerate(zip(args, params)):
        if "null" in arg.options:
            knl.set_arg(i, None)
        elif param.space == "local":
            knl.set_arg(i, cl.LocalMemory(arg.size))
        elif param.space == "value":
            knl.set_arg(i, arg_bytes(arg, param).view(np.dtype(param.base)).copy()
                        if param.width > 1 else arg_bytes(arg, param).view(np.dtype(param.base))[0])
        else:
            host = arg_bytes(arg, param)
            buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
            knl.set_arg(i, buf)
            if "dump" in arg.options:
                dumps.append((param, arg, buf, host))
    cl.enqueue_nd_range_kernel(queue, knl, tuple(gsize), tuple(lsize) if lsize else None)
    out = {}
    for param, arg, buf, host in dumps:
        back = np.empty_like(host)
        cl.enqueue_copy(queue, back, buf)
        queue.finish()
        values = back.view(np.dtype(_dtype(arg, param)))
        out[param.name] = [_fmt(v) for v in values]
    return out


def _fmt(v: Any) -> str:
    if isinstance(v, np.floating):
        return f"{float(v):g}"
    return str(int(v))


def same(got: dict[str, list[str]], want: dict[str, list[str]]) -> bool:
    for name, values in want.items():
        g = got.get(name)
        if g is None or len(g) < len(values):
            return False
        for a, b in zip(g, values):
            try:
                if not np.isclose(float(a), float(b), rtol=1e-6, atol=0, equal_nan=True):
                    return False
            except ValueError:
                if a != b:
                    return False
    return True


def check(cl: Any, ctx: Any, sim: Path) -> str:
    """'match', 'differ', 'unsupported' or 'fail: <why>' for one test."""
    ref_path = sim.with_suffix(".ref")
    want = reference(ref_path.read_text()) if ref_path.exists() else None
    try:
        kfile, kernel, gsize, lsize, args = parse_sim(sim.read_text())
    except (ValueError, IndexError):  # a .sim form this reader does not know
        return "unsupported"
    if not (sim.parent / kfile).is_file():
        return "unsupported"
    source = (sim.parent / kfile).read_text()
    params = parse_params(source, kernel)
    if want is None or params is None or len(params) != len(args) or \
            any("hex" in a.options for a in args):
        return "unsupported"
    try:
        got = run(cl, ctx, source, kernel, gsize, lsize, args, params)
    except Exception as exc:  # noqa: BLE001 - a failure to build or run is this test's answer
        lines = [ln for ln in str(exc).splitlines() if "error:" in ln] or str(exc).strip().splitlines() or [""]
        return f"fail: {type(exc).__name__}: {lines[0].strip()[:140]}"
    return "match" if same(got, want) else "differ"


def _context(impl: str) -> tuple[Any, Any]:
    if impl == "oclpy":
        import oclpy as cl
    else:
        import pyopencl as cl
    return cl, cl.Context(cl.get_platforms()[0].get_devices())


def _one(impl: str, sim: Path) -> None:
    """Child process: one test on one implementation (a native crash kills only this)."""
    import os
    import tempfile
    import warnings

    warnings.simplefilter("ignore")
    tempfile.tempdir = tempfile.mkdtemp(prefix="oclpy-oclgrind-")  # where failed builds save their source
    os.environ["TMPDIR"] = tempfile.tempdir
    cl, ctx = _context(impl)
    print(check(cl, ctx, sim), flush=True)


def _verdict(impl: str, sim: Path, timeout: float) -> str:
    import subprocess

    cmd = [sys.executable, "-m", "tools.corpus.oclgrind_sim", "--one", impl, str(sim)]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             cwd=Path(__file__).resolve().parents[2])
    except subprocess.TimeoutExpired:
        return f"fail: timeout after {timeout:.0f} s"
    lines = run.stdout.strip().splitlines()
    if run.returncode != 0 or not lines:
        return f"fail: crashed (exit status {run.returncode})"
    return lines[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.corpus.oclgrind_sim")
    parser.add_argument("--pocl", action="store_true", help="also run on PoCL through pyopencl")
    parser.add_argument("--one", nargs=2, metavar=("IMPL", "SIM"), help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    if args.one:
        _one(args.one[0], Path(args.one[1]))
        return 0
    root = corpus_dir() / "jrprice+Oclgrind" / "tests" / "kernels"
    sims = sorted(root.rglob("*.sim"))
    if not sims:
        print(f"no Oclgrind tests under {root}: run `python -m tools.corpus fetch --only oclgrind`")
        return 1
    impls = ["oclpy"] + (["pocl"] if args.pocl else [])
    totals: dict[str, dict[str, int]] = {name: {} for name in impls}
    for sim in sims:
        verdicts = []
        for impl in impls:
            v = _verdict(impl, sim, args.timeout)
            key = v.split(":")[0]
            totals[impl][key] = totals[impl].get(key, 0) + 1
            verdicts.append(f"{impl}: {v}")
        print(f"{str(sim.relative_to(root)):<48} " + "  ".join(verdicts), flush=True)
    for impl, t in totals.items():
        print(f"oclgrind ({impl}): {t.get('match', 0)} match, {t.get('differ', 0)} differ, "
              f"{t.get('unsupported', 0)} unsupported, {t.get('fail', 0)} fail to run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
