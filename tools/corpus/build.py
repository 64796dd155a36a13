"""Build one case on oclpy (through its public host API) and on clang.

`run_case(job)` runs in a worker process (see `workers`): it gets a plain
dict (picklable, no oclpy objects) and returns one. oclpy sees the kernel
as `cl.Program(ctx, text).build(options)`, exactly as an application would;
clang sees the same text in a file beside the original, so both resolve
relative #includes from the same directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

from .oracle import ORACLE_REVISION, Diag, Oracle, first_error

INTERNAL_MARKERS = ("Traceback (most recent call last)", "internal compiler error", "internal error")

_state: dict[str, Any] = {}


def _context() -> Any:
    if "ctx" not in _state:
        import oclpy as cl

        _state["cl"] = cl
        _state["ctx"] = cl.Context(cl.get_platforms()[0].get_devices())
    return _state["cl"], _state["ctx"]


def device_extensions() -> list[str]:
    """The extensions oclpy's device advertises (the oracle imitates that device)."""
    import oclpy as cl

    return cl.get_platforms()[0].get_devices()[0].extensions.split()


def _oracle() -> Oracle:
    if "oracle" not in _state:
        _state["oracle"] = Oracle(device_extensions())
    return _state["oracle"]


def kernel_file(job: dict) -> Path:
    """A file holding exactly the text both compilers build: the original when unchanged,
    else a copy beside it (or in `job['write_dir']`, for kernels embedded in our tests)."""
    name = re.sub(r"[^\w.-]", "_", Path(job["path"]).name)
    original = Path(job["directory"]) / name
    try:
        if original.read_text(errors="replace") == job["text"]:
            return original
    except OSError:
        pass
    made = Path(job.get("write_dir") or job["directory"]) / (Path(name).stem + ".corpus.cl")
    if not made.exists() or made.read_text(errors="replace") != job["text"]:
        made.write_text(job["text"])
    return made


def build_options(job: dict) -> list[str]:
    return [*job["options"], f"-I{job['directory']}", f"-cl-std={job['std']}"]


def _frontend(job: dict) -> tuple[str, str]:
    """Only oclpy's frontend (`oclpy.compiler.frontend_for`): parse, check, lower to IR."""
    from oclpy import compiler

    try:
        result = compiler.frontend_for(job["text"], build_options(job), "<kernel>")
        return "ok", result.log
    except Exception as exc:  # noqa: BLE001 - CompileError carries the log; anything else is a bug
        if type(exc).__name__ == "InvalidBuildOptions":
            return "error", f"error: {exc}\n"
        log = getattr(exc, "log", None)
        return ("error", log) if isinstance(log, str) else ("internal", traceback.format_exc())


def oclpy_build(job: dict) -> dict:
    """{'status': 'ok'|'error'|'internal', 'first': Diag fields or None, 'log', 'seconds'}.

    `job['depth']` is 'build' (the default: the whole build, as an application
    does it) or 'frontend' (only as far as the IR, for quick tests)."""
    start = time.perf_counter()
    if job.get("depth") == "frontend":
        status, log = _frontend(job)
        return _verdict(job, status, log, time.perf_counter() - start)
    cl, ctx = _context()
    status, log = "ok", ""
    try:
        prog = cl.Program(ctx, job["text"])
        try:
            prog.build(build_options(job))
        except cl.Error as exc:
            status, log = "error", _failed_log(cl, prog, ctx.devices) or str(exc)
    except Exception:  # noqa: BLE001 - anything but cl.Error escaping build() is a compiler bug
        status, log = "internal", traceback.format_exc()
    return _verdict(job, status, log, time.perf_counter() - start)


def _failed_log(cl: Any, prog: Any, devices: list) -> str:
    """The build log of the first device whose build failed (the context holds every device of
    the platform: a kernel the cpu builds may still fail on simt, and that log is the one to read)."""
    logs = []
    for device in devices:
        try:
            logs.append(prog.get_build_info(device, cl.program_build_info.LOG) or "")
        except Exception:  # noqa: BLE001 - the log is best effort; the error text has it too
            logs.append("")
    return next((log for log in logs if re.search(r"\berror:", log)), next((log for log in logs if log.strip()), ""))


def _verdict(job: dict, status: str, log: str, seconds: float) -> dict:
    if status == "error" and any(m in log for m in INTERNAL_MARKERS):
        status = "internal"
    first = first_error(log, ("<kernel>", Path(job["path"]).name)) if status != "ok" else None
    if status != "ok" and first is None:
        lines = [ln for ln in log.strip().splitlines() if ln.strip()]
        first = Diag("", 0, (lines[-1] if lines else "no diagnostic").strip()[:300])
    return {"status": status, "first": first.__dict__ if first else None, "log": log[-4000:],
            "seconds": round(seconds, 3)}


def _clang_cache_key(job: dict, oracle: Oracle) -> str:
    blob = json.dumps([ORACLE_REVISION, oracle.kind, oracle.binary, oracle.extensions, job["text"],
                       build_options(job)],
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def clang_check(job: dict) -> dict:
    """clang's verdict, cached on disk by text, options and oracle."""
    oracle = _oracle()
    if not oracle.available:
        return {"status": "unavailable", "first": None, "log": oracle.reason}
    cache = Path(job.get("clang_cache") or tempfile.gettempdir()) / "clang-verdicts"
    key = cache / (_clang_cache_key(job, oracle) + ".json")
    if key.exists():
        return json.loads(key.read_text())
    path = kernel_file(job)
    verdict = oracle.check(path, [*job["options"], f"-I{job['directory']}"], job["std"])
    out = {"status": "ok" if verdict.ok else "error",
           "first": verdict.first.__dict__ if verdict.first else None, "log": verdict.log[-4000:]}
    cache.mkdir(parents=True, exist_ok=True)
    key.write_text(json.dumps(out))
    return out


def run_case(job: dict) -> dict:
    """Both verdicts for one case; `job['what']` may ask for only one of them."""
    out: dict = {"id": job["id"], "key": job.get("key", "")}
    if job.get("what", "both") in ("both", "clang"):
        out["clang"] = clang_check(job)
    if job.get("what", "both") in ("both", "oclpy"):
        out["oclpy"] = oclpy_build(job)
    return out


def worker_setup(scratch: str) -> None:
    """Quiet, and failed builds' saved sources go to `scratch` (the caller removes it)."""
    import warnings

    warnings.simplefilter("ignore")
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = scratch
