"""The pass registry, named pipelines and the pass manager.

Each pass is a small dataclass with a class-level `name`, its options as
fields, and `run(module) -> bool` (whether it changed anything), registered
with `@register`. A pipeline is a string of pass names separated by commas,
each optionally with options in braces: `"mem2reg,inline{threshold=50},simplify"`.
A named pipeline (`O0`, `O1`, `O2`) may stand anywhere a pass name can.

`run_pipeline` runs a pipeline over a module, optionally verifying and
printing after passes and timing them; `opt_text` is parse -> run -> print,
for FileCheck tests and `oclpy opt`.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import io
import time
from typing import Any, ClassVar, Iterable, Iterator, Protocol, TextIO, TypeVar

from ..ir.datalayout import CPU_LAYOUT, DataLayout
from ..ir.values import Function, Module
from ..ir.verifier import VerifyError, verify_module
from ..ir.printer import print_module
from ..ir.parser import parse_module


class Pass(Protocol):
    name: ClassVar[str]

    def run(self, module: Module) -> bool: ...


class PassError(Exception):
    """A pass failed, or the module failed verification after it; names the pass."""

    def __init__(self, pass_name: str, message: str) -> None:
        super().__init__(f"pass '{pass_name}': {message}")
        self.pass_name = pass_name


PASSES: dict[str, type] = {}

PIPELINES: dict[str, str] = {
    "O0": "",
    "O1": "global-dce,mem2reg,simplify,infer-address-spaces",
    "O2": "global-dce,mem2reg,simplify,inline,mem2reg,simplify,infer-address-spaces,simplify",
}

# Ordering constraints (Go's passOrder): (before, after, why). When a pipeline
# holds both passes, each run of `after` must follow some run of `before`.
# Checked once at import over the named pipelines (the compiler's target
# pipelines are checked by a test); ad-hoc pipelines (`oclpy opt`) may break them
# on purpose, so run_pipeline does not enforce them.
PASS_ORDER: tuple[tuple[str, str, str], ...] = (
    ("inline", "form-workgroups", "barriers inside helper functions must be inlined into the kernel first"),
    ("step-divergent-loops", "form-workgroups", "the loop's step is made resumable like a barrier"),
    ("step-divergent-loops", "split-entry-guard", "a kernel stepping a divergent loop keeps its guard"),
    ("rebase-loop-counters", "step-divergent-loops", "a loop whose start alone differs is not divergent once counted from 0"),
    ("step-divergent-loops", "lockstep-strided-loops", "a stepped loop is not also run in lockstep"),
    ("inline", "lockstep-strided-loops", "a barrier inside a helper called in the loop must be seen"),
    ("lockstep-strided-loops", "form-workgroups", "the lockstep barriers are made resumable"),
    ("lockstep-strided-loops", "split-entry-guard", "a kernel given barriers keeps its guard"),
    ("inline", "interleave-private-arrays", "a helper's private arrays are the kernel's once inlined"),
    ("lockstep-strided-loops", "interleave-private-arrays",
     "kernels given barriers keep their arrays in frames"),
    ("step-divergent-loops", "interleave-private-arrays", "kernels given steps keep their arrays in frames"),
    ("interleave-private-arrays", "split-entry-guard", "an alloca in the entry block hides the guard"),
    ("split-entry-guard", "widen-work-items", "what is widened is the body the launcher runs"),
    ("form-workgroups", "widen-work-items", "kernels given barriers or steps are not widened"),
    ("mem2reg", "infer-address-spaces", "spaces are inferred through SSA values, not memory round trips"),
)

P = TypeVar("P", bound=type)


def register(cls: P) -> P:
    """Class decorator: add a pass class to `PASSES` under its `name`."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"pass class {cls.__name__} has no name")
    if name in PASSES and PASSES[name] is not cls:
        raise ValueError(f"pass '{name}' registered twice")
    if name in PIPELINES:
        raise ValueError(f"pass '{name}' has the name of a pipeline")
    PASSES[name] = cls
    return cls


# -- pipeline strings ----------------------------------------------------------------


def _split_top_level(text: str) -> list[str]:
    """Split at commas outside braces."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced '}}' in pipeline '{text}'")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise ValueError(f"unbalanced '{{' in pipeline '{text}'")
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _convert_option(pass_name: str, fld: dataclasses.Field[Any], raw: str) -> Any:
    kind = fld.type if isinstance(fld.type, type) else {"int": int, "bool": bool, "float": float,
                                                        "str": str}.get(str(fld.type), str)
    if kind is bool:
        if raw not in ("true", "false", "1", "0"):
            raise ValueError(f"pass '{pass_name}': option '{fld.name}' wants true or false, got '{raw}'")
        return raw in ("true", "1")
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(
            f"pass '{pass_name}': option '{fld.name}' wants {kind.__name__}, got '{raw}'") from None


def _make_pass(item: str) -> Any:
    name, _, rest = item.partition("{")
    name = name.strip()
    cls = PASSES.get(name)
    if cls is None:
        raise ValueError(f"unknown pass '{name}'; known passes: {', '.join(known_passes())}")
    options: dict[str, Any] = {}
    if rest:
        if not rest.endswith("}"):
            raise ValueError(f"pass '{name}': options must end with '}}'")
        fields = {f.name: f for f in dataclasses.fields(cls) if f.init} \
            if dataclasses.is_dataclass(cls) else {}
        for opt in filter(None, (o.strip() for o in rest[:-1].split(","))):
            key, eq, raw = (s.strip() for s in opt.partition("="))
            if not eq or key not in fields:
                known = ", ".join(sorted(fields)) or "none"
                raise ValueError(f"pass '{name}': unknown option '{key}' (options: {known})")
            options[key] = _convert_option(name, fields[key], raw)
    return cls(**options)


def parse_pipeline(pipeline: str) -> list[Any]:
    """Pass instances for a pipeline string; named pipelines are expanded."""
    passes: list[Any] = []
    for item in _split_top_level(pipeline):
        if item in PIPELINES:
            passes += parse_pipeline(PIPELINES[item])
        else:
            passes.append(_make_pass(item))
    return passes


def order_problems(names: list[str]) -> list[str]:
    """The PASS_ORDER constraints a sequence of pass names breaks, as messages."""
    problems = []
    for before, after, why in PASS_ORDER:
        if before not in names:
            continue
        first_before = names.index(before)
        for k, name in enumerate(names):
            if name == after and k < first_before:
                problems.append(f"'{after}' (pass {k + 1}) runs before '{before}': {why}")
    return problems


def check_pass_order(pipeline: str) -> None:
    """Raise ValueError if `pipeline` breaks a PASS_ORDER constraint. Works on the
    names alone (no pass is made), so it can run while pass modules are still loading."""
    problems = order_problems(pipeline_names(pipeline))
    if problems:
        raise ValueError(f"pipeline '{pipeline}': " + "; ".join(problems))


def pipeline_names(pipeline: str) -> list[str]:
    """The pass names of a pipeline string, named pipelines expanded, options dropped."""
    names: list[str] = []
    for item in _split_top_level(pipeline):
        name = item.partition("{")[0].strip()
        names += pipeline_names(PIPELINES[name]) if name in PIPELINES else [name]
    return names


def known_passes() -> list[str]:
    return sorted(PASSES) + sorted(PIPELINES)


# -- running -------------------------------------------------------------------------


def _verify(module: Module, after: str, layout: DataLayout) -> None:
    try:
        verify_module(module, layout)
    except VerifyError as exc:
        raise PassError(after, f"module fails verification after this pass: {exc}") from exc


def _print(module: Module, after: str, out: TextIO) -> None:
    out.write(f"; *** IR after {after} ***\n")
    out.write(print_module(module))


def run_pipeline(module: Module, pipeline: str, verify_each: bool = False,
                 print_after_all: TextIO | None = None, print_after: Iterable[str] = (),
                 time_passes: TextIO | None = None,
                 print_stream: TextIO | None = None, layout: DataLayout = CPU_LAYOUT) -> bool:
    """Run `pipeline` over `module` in place; return whether any pass changed it.
    `verify_each` verifies the module after each pass against the target's `layout`.

    `print_after` names passes after which the module is printed to
    `print_stream` (default: `print_after_all`, else stdout). Raises
    ValueError for a bad pipeline string and PassError when a pass fails."""
    passes = parse_pipeline(pipeline)
    wanted = set(print_after)
    unknown = sorted(wanted - set(PASSES))
    if unknown:
        raise ValueError(f"print-after: unknown pass '{unknown[0]}'; "
                         f"known passes: {', '.join(known_passes())}")
    timings: list[tuple[str, float]] = []
    changed = False
    for p in passes:
        if hasattr(p, "out") and p.out is None:  # analysis printers write to the print stream
            p.out = print_stream or print_after_all
        start = time.perf_counter()
        changed |= _run_one(p, module)
        timings.append((p.name, time.perf_counter() - start))
        if verify_each:
            _verify(module, p.name, layout)
        if print_after_all is not None:
            _print(module, p.name, print_after_all)
        elif p.name in wanted:
            import sys

            _print(module, p.name, print_stream or sys.stdout)
    report_to = time_passes if time_passes is not None else _TIMING_STREAM.get()
    if report_to is not None:
        _report_times(timings, report_to)
    return changed


def _run_one(p: Any, module: Module) -> bool:
    try:
        return bool(p.run(module))
    except PassError:
        raise
    except Exception as exc:  # an internal error: say which pass, keep the cause chained
        raise PassError(p.name, f"internal error: {type(exc).__name__}: {exc}") from exc


# Where run_pipeline reports pass times when its caller did not say (set by `pass_timing`).
_TIMING_STREAM: contextvars.ContextVar[TextIO | None] = contextvars.ContextVar(
    "oclpy_pass_timing", default=None)


@contextlib.contextmanager
def pass_timing(stream: TextIO | None) -> Iterator[None]:
    """Within the block, every `run_pipeline` without its own `time_passes` reports
    its pass times to `stream` (None: no report). For drivers that call the pass
    manager through other layers (`oclpy build --time-passes`)."""
    token = _TIMING_STREAM.set(stream)
    try:
        yield
    finally:
        _TIMING_STREAM.reset(token)


def _report_times(timings: list[tuple[str, float]], out: TextIO) -> None:
    total = sum(t for _, t in timings) or 1e-12
    out.write("===-- pass execution timing report --===\n")
    out.write(f"{'seconds':>10} {'%':>6}  pass\n")
    for name, secs in timings:
        out.write(f"{secs:10.6f} {100 * secs / total:6.1f}  {name}\n")
    out.write(f"{sum(t for _, t in timings):10.6f} {100.0:6.1f}  total\n")


def opt_text(text: str, pipeline: str, verify_each: bool = False) -> str:
    """Parse IR text, run `pipeline`, print the result (what `oclpy opt` does):
    what analysis printers wrote, then the module."""
    module = parse_module(text)
    printed = io.StringIO()
    run_pipeline(module, pipeline, verify_each=verify_each, print_stream=printed)
    return printed.getvalue() + print_module(module)


def defined_functions(module: Module) -> list[Function]:
    """The functions of `module` that have bodies (a copy: passes may delete some)."""
    return [fn for fn in module.functions if not fn.is_declaration]

