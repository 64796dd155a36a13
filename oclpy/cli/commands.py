"""The `oclpy` command: devices, build, opt, demo, run.

    oclpy devices
    oclpy build FILE.cl|FILE.spv [OpenCL build options] [--device cpu|cuda|simt] [--emit ast|ir|llvm|asm|ptx|isa]
                        [-O0|-O1|-O2] [--print-after-all] [--verify-each] [--stats] [--time-passes] [--locs]
    oclpy opt FILE.oir --passes=PIPELINE [--print-after-all] [--print-after=PASS]
                       [--verify-each] [--time-passes]
    oclpy demo [--device cpu] [--quick]
    oclpy run SCRIPT [ARGS] | -m MODULE [ARGS] | -c CODE    (`import pyopencl` answered by oclpy)
    oclpy check python SCRIPT [ARGS] | ...                  (every kernel checked on simt: docs/check.md)

Each subcommand is one function taking the parsed arguments and returning the
exit status; `main` only dispatches. `--stats` prints `oclpy.analysis.kernel_stats`'s per-kernel
table of the IR after the level's target-independent pipeline, and on `--device simt` also what
each kernel takes of the machine (`targets/simt/resources.py`: registers, spill slots, scratch and
local memory, waves per SIMD); `--emit isa` prints the simt device's final machine code (physical
registers; `asm_parser` reads it back), whatever `--device` says; `--time-passes`
reports each pass's time on stderr. A file starting with the SPIR-V magic
number is a SPIR-V module (the SPIR-V frontend reads it; every emit kind but
`ast` works). Emit kinds are a table, so a target adds
its own (`ptx`, `isa`) by adding a row. The simt device is the one the environment
configures (`OCLPY_SIMT_WAVE`, `OCLPY_SIMT_SGPRS`, `OCLPY_SIMT_VGPRS`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Callable, Sequence

from .. import get_platforms
from .. import compiler
from ..analysis.kernel_stats import format_stats, kernel_stats
from ..diagnostics import CompileError
from ..frontend.source_files import read_source_bytes, read_source_file
from ..ir.parser import IRParseError, parse_module
from ..ir.printer import print_module
from ..ir.verifier import VerifyError, verify_module
from ..passes.manager import pass_timing, run_pipeline
from ..targets.simt.asm_printer import format_module
from ..targets.simt.device_config import machine_from_env
from ..targets.simt.resources import format_resources, kernel_resources
from .demo import run_demo
from .check import main as check_main
from .run import main as run_main


def _cmd_devices(args: argparse.Namespace) -> int:
    for p_index, platform in enumerate(get_platforms()):
        print(f"platform {p_index}: {platform.name} ({platform.version})")
        for d_index, device in enumerate(platform.get_devices()):
            print(f"  device {p_index}:{d_index}: {device.name}  "
                  f"[{device.max_compute_units} compute units, "
                  f"max work-group {device.max_work_group_size}, "
                  f"{device.local_mem_size // 1024} KiB local memory]")
    return 0


TARGETS: dict[str, Callable[[], compiler.Target]] = {
    "cpu": compiler.host_target,
    "cuda": compiler.cuda_target,  # sm_90: no GPU is needed to compile
    "simt": lambda: compiler.simt_target(machine_from_env()),
}


def _target(kind: str, args: argparse.Namespace) -> compiler.Target:
    """The Target of `--device`, at `-O<n>` when given."""
    target = TARGETS[kind]()
    return target if args.opt is None else target.with_opt_level(args.opt)


def _emit_ast(source: str | bytes, options: str, filename: str, args: argparse.Namespace) -> str:
    return compiler.ast_text(source, options, filename)


def _emit_ir(source: str | bytes, options: str, filename: str, args: argparse.Namespace) -> str:
    """The IR every target starts from: after the level's target-independent pipeline."""
    front = compiler.frontend_for(source, options, filename, compiler.BACKENDS[args.device].layout)
    level = args.opt if args.opt is not None else compiler.opt_level(options)
    trace = sys.stdout if args.print_after_all else None
    run_pipeline(front.module, compiler.pipeline_for(level), verify_each=args.verify_each,
                 print_after_all=trace)
    sys.stderr.write(front.log)
    return print_module(front.module)


def _emit_target(kind: str) -> Callable[[str | bytes, str, str, argparse.Namespace], str]:
    def emit(source: str | bytes, options: str, filename: str, args: argparse.Namespace) -> str:
        result = compiler.compile_program(source, options, _target(args.device, args), filename)
        sys.stderr.write(result.log)
        if kind == "llvm" and not hasattr(result.program, "llvm_ir"):
            raise CompileError(f"oclpy build: error: --emit llvm: the {args.device} device is not compiled "
                               "through LLVM (try --emit asm)\n")
        return result.program.llvm_ir if kind == "llvm" else result.program.asm()

    return emit


def _emit_ptx(source: str | bytes, options: str, filename: str, args: argparse.Namespace) -> str:
    """The cuda device's PTX (whatever --device says; no GPU is needed to make it)."""
    result = compiler.compile_program(source, options, _target("cuda", args), filename)
    sys.stderr.write(result.log)
    return result.program.ptx


def _emit_isa(source: str | bytes, options: str, filename: str, args: argparse.Namespace) -> str:
    """The simt device's final machine code (whatever --device says)."""
    result = compiler.compile_program(source, options, _target("simt", args), filename)
    sys.stderr.write(result.log)
    return format_module(result.program.module, args.locs)


def _build_only(source: str | bytes, options: str, filename: str, args: argparse.Namespace) -> str:
    """No --emit: the whole build for the device, printing only diagnostics."""
    result = compiler.compile_program(source, options, _target(args.device, args), filename)
    sys.stderr.write(result.log)
    return ""


EMITTERS: dict[str, Callable[[str | bytes, str, str, argparse.Namespace], str]] = {
    "none": _build_only,
    "ast": _emit_ast,
    "ir": _emit_ir,
    "llvm": _emit_target("llvm"),
    "asm": _emit_target("asm"),
    "ptx": _emit_ptx,
    "isa": _emit_isa,
}


def _cmd_build(args: argparse.Namespace, cl_options: list[str]) -> int:
    try:
        source = _read_source(args.file)
    except OSError as exc:
        print(f"oclpy build: error: cannot read '{args.file}': {exc.strerror}", file=sys.stderr)
        return 1
    options = " ".join(shlex.quote(o) for o in cl_options)
    try:
        with pass_timing(sys.stderr if args.time_passes else None):
            out = EMITTERS[args.emit or "none"](source, options, args.file, args)
        stats = _stats_table(source, options, args) if args.stats else ""
    except CompileError as exc:
        sys.stderr.write(exc.log)
        return 1
    except compiler.InvalidBuildOptions as exc:
        print(f"oclpy build: error: {exc}", file=sys.stderr)
        return 1
    if args.emit is None:
        print(f"{args.file}: built for {args.device}", file=sys.stderr)
    else:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    sys.stdout.write(stats)
    return 0


def _read_source(path: str) -> str | bytes:
    """OpenCL C text, or a SPIR-V module as bytes (told by its magic number)."""
    data = read_source_bytes(path)
    return data if compiler.is_spirv(data) else data.decode("utf-8", errors="replace")


def _stats_table(source: str | bytes, options: str, args: argparse.Namespace) -> str:
    """Per-kernel counts of the IR every target starts from (after the level's pipeline)."""
    module = compiler.frontend_for(source, options, args.file, compiler.BACKENDS[args.device].layout).module
    level = args.opt if args.opt is not None else compiler.opt_level(options)
    run_pipeline(module, compiler.pipeline_for(level))
    table = format_stats(kernel_stats(module))
    if args.device == "simt":
        target = _target("simt", args)
        program = compiler.compile_program(source, options, target, args.file).program
        table += format_resources(kernel_resources(program.module, program.machine), program.machine)
    return table


def _cmd_opt(args: argparse.Namespace) -> int:
    try:
        text = read_source_file(args.file)
        module = parse_module(text, args.file)
        verify_module(module)
        trace = sys.stdout if args.print_after_all else None
        run_pipeline(module, args.passes, verify_each=args.verify_each, print_after_all=trace,
                     print_after=args.print_after,
                     time_passes=sys.stderr if args.time_passes else None)
    except OSError as exc:
        print(f"oclpy opt: error: cannot read '{args.file}': {exc.strerror}", file=sys.stderr)
        return 1
    except (IRParseError, VerifyError, ValueError) as exc:
        print(f"oclpy opt: error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(print_module(module))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    return run_demo(device_kind=args.device, quick=args.quick)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="oclpy", description="OpenCL written in Python.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("devices", help="list platforms and devices")

    build = sub.add_parser("build", help="compile an OpenCL C file; other options are OpenCL build options")
    build.add_argument("file")
    build.add_argument("--device", default="cpu", choices=list(compiler.DEVICE_KINDS))
    build.add_argument("--emit", choices=sorted(k for k in EMITTERS if k != "none"), default=None)
    for level in (0, 1, 2):
        build.add_argument(f"-O{level}", dest="opt", action="store_const", const=level)
    build.add_argument("--print-after-all", action="store_true")
    build.add_argument("--verify-each", action="store_true")
    build.add_argument("--stats", action="store_true",
                       help="per-kernel IR statistics (simt: also registers, memory, occupancy)")
    build.add_argument("--time-passes", action="store_true", help="time each pass (stderr)")
    build.add_argument("--locs", action="store_true", help="--emit isa: each instruction's source location")

    opt = sub.add_parser("opt", help="run IR passes over a .oir file")
    opt.add_argument("file")
    opt.add_argument("--passes", default="")
    opt.add_argument("--print-after-all", action="store_true")
    opt.add_argument("--print-after", action="append", default=[], metavar="PASS",
                     help="print the module after each run of PASS (repeatable)")
    opt.add_argument("--verify-each", action="store_true")
    opt.add_argument("--time-passes", action="store_true", help="time each pass (stderr)")

    demo = sub.add_parser("demo", help="run real kernels, check them against NumPy, time them")
    demo.add_argument("--device", default=None, help="cpu (default: OCLPY_DEVICE or cpu)")
    demo.add_argument("--quick", action="store_true", help="small sizes")

    sub.add_parser("run", help="run Python (SCRIPT, -m MODULE or -c CODE) with `import pyopencl` "
                               "answered by oclpy", add_help=False)
    sub.add_parser("check", help="run a Python program with every kernel checked on simt "
                                 "(oclpy check python app.py [args])", add_help=False)
    return parser


_OURS_WITH_VALUE = ("--device", "--emit")
_OURS_FLAGS = ("-O0", "-O1", "-O2", "--print-after-all", "--verify-each", "--stats", "--time-passes", "--locs",
               "-h", "--help")
_CL_WITH_VALUE = ("-D", "-I")


def split_build_args(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Separate `oclpy build`'s own arguments from OpenCL build options
    (`-D NAME=VAL`, `-I DIR`, `-cl-std=CL2.0`, `-Werror`, ...), in order."""
    ours: list[str] = []
    cl: list[str] = []
    tokens = list(argv)
    while tokens:
        tok = tokens.pop(0)
        if tok in _OURS_WITH_VALUE:
            ours.append(tok)
            if tokens:
                ours.append(tokens.pop(0))
        elif tok in _OURS_FLAGS or tok.split("=", 1)[0] in _OURS_WITH_VALUE or not tok.startswith("-"):
            ours.append(tok)
        elif tok in _CL_WITH_VALUE:
            cl.append(tok)
            if tokens:
                cl.append(tokens.pop(0))
        else:
            cl.append(tok)
    return ours, cl


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    if argv and argv[0] == "run":
        return run_main(argv[1:])
    if argv and argv[0] == "check":
        return check_main(argv[1:])  # likewise: the program's arguments are its own  # the program's own arguments: no parsing of ours after `run`
    if argv and argv[0] == "build":
        ours, cl_options = split_build_args(argv[1:])
        return _cmd_build(parser.parse_args(["build", *ours]), cl_options)
    args = parser.parse_args(argv)
    commands = {"devices": _cmd_devices, "opt": _cmd_opt, "demo": _cmd_demo}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
