"""One OpenCL C case through oclpy's compiler, and what came of it.

`build_one(source, options, backend)` gives ("ok" | "diagnostic" | "internal",
detail): the frontend alone (`compiler.frontend_for`: preprocess, parse,
check, lower to IR) or, with `backend`, the whole compiler
(`compile_program`: the frontend, the level's pipeline, the cpu target's
passes, its LLVM IR and LLVM's parse and verify of it; LLVM's own optimisation
and code generation wait for a first launch, so they are not run). A clean
build error is a "diagnostic"; an exception that escapes, or a log that says
internal compiler error, is "internal". The mutator (`opencl_mutator.py`) and
the seed costs (`opencl_seeds.py`) both build through here.
"""

from __future__ import annotations

from .driver import internal_detail


def build_one(source: str, options: str = "", backend: bool = False) -> tuple[str, str]:
    """("ok" | "diagnostic" | "internal", detail) of compiling one source."""
    # loaded at the first build: a campaign's job processes make mutants and never compile
    from oclpy.compiler.toolchain import compile_program, frontend_for
    from oclpy.diagnostics import CompileError

    try:
        if backend:
            compile_program(source, options, filename="f.cl")
        else:
            frontend_for(source, options, "f.cl")
    except CompileError as exc:
        if "internal compiler error" in exc.log:
            line = next(l for l in exc.log.splitlines() if "internal compiler error" in l)
            return "internal", line[:200]
        return "diagnostic", ""
    except RecursionError:
        return "internal", "RecursionError"
    except Exception as exc:  # the point of the exercise: any of these is a bug
        if type(exc).__name__ == "InvalidBuildOptions":
            return "diagnostic", ""
        return "internal", internal_detail(exc)
    return "ok", ""
