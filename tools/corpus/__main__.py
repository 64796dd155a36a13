"""python -m tools.corpus [run|fetch|list|show] ...

  fetch            materialise the pinned files under $OCLPY_CORPUS_DIR
  run (default)    build every kernel on oclpy and on clang; print the corpus
                   line and the failure groups; --json writes the full report
  list             the cases, with their options
  show ID          one case: its options and both compilers' logs
  report           the report of the last run's saved results (--results),
                   classified again with the current known differences
  rekey [FILE]     known differences keyed `tests:<path>:<line>` re-keyed by
                   their literal's stable key (default: known_differences.toml)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from . import manifest
from .build import build_options, run_case, worker_setup
from .fetch import fetch_all
from .known import KNOWN, KnownDifferences
from .oracle import Oracle
from .rekey import rekey_file
from .report import Report, classify
from .workers import run_all


def case_key(case: manifest.Case) -> str:
    """What a verdict depends on besides the compilers: the text and the options, with the
    corpus folder in include options left out (results made on another machine, whose
    corpus lies elsewhere, are kept by --resume and --rerun-clang)."""
    root = str(manifest.corpus_dir())
    blob = json.dumps([case.text, [option.replace(root, "<corpus>") for option in case.options], case.std])
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def job_for(case: manifest.Case, what: str = "both") -> dict:
    return {"id": case.id, "path": case.path, "text": case.text, "directory": str(case.directory),
            "options": case.options, "std": case.std, "what": what, "key": case_key(case),
            "clang_cache": str(manifest.corpus_dir() / ".cache")}


def skip_reason(case: manifest.Case) -> str:
    if case.skip:
        return case.skip
    if not case.std.upper().startswith("CL") or "++" in case.std:
        return f"-cl-std={case.std} is not OpenCL C"
    return ""


def _select(args: argparse.Namespace) -> list[manifest.Case]:
    cases = manifest.cases(only=args.only)
    if args.match:
        cases = [c for c in cases if args.match in c.id]
    if args.limit:
        cases = cases[:args.limit]
    return cases


def cmd_fetch(args: argparse.Namespace) -> int:
    projects = [p for p in manifest.load() if not args.only or p.name == args.only]
    root = manifest.corpus_dir()
    failed = fetch_all(projects, root)
    print(f"fetched into {root}: {len(projects) - failed} of {len(projects)} projects")
    return 1 if failed else 0


def cmd_list(args: argparse.Namespace) -> int:
    cases = _select(args)
    for c in cases:
        print(c.id, c.std, " ".join(c.options)[:120], f"[skip: {skip_reason(c)}]" if skip_reason(c) else "")
    print(f"{len(cases)} cases in {len({c.project for c in cases})} projects")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    cases = [c for c in manifest.cases() if c.id == args.id or args.id in c.id]
    if not cases:
        print(f"no case matches {args.id!r}")
        return 1
    case = cases[0]
    job = job_for(case)
    worker_setup(tempfile.mkdtemp(prefix="oclpy-corpus-tmp-"))
    result = run_case(job)
    print(f"{case.id}\noptions: {' '.join(build_options(job))}")
    for side in ("clang", "oclpy"):
        print(f"--- {side}: {result[side]['status']} {result[side]['first']}\n{result[side]['log'][-3000:]}")
    return 0


def _load_results(path: str) -> dict[str, dict]:
    """The results of an interrupted run (one JSON object a line), by case id."""
    out = {}
    if Path(path).exists():
        for line in Path(path).read_text().splitlines():
            if line.strip():
                result = json.loads(line)
                out[result["id"]] = result
    return out


def cmd_run(args: argparse.Namespace) -> int:
    oracle = Oracle()
    print(f"oracle: {oracle.describe()}")
    known = KnownDifferences.load()
    cases = _select(args)
    report = Report(oracle=oracle.describe())
    todo = []
    done_before = _load_results(args.results) if args.resume or args.rerun_clang else {}
    keep_oclpy: dict[str, dict] = {}
    for case in cases:
        reason = skip_reason(case)
        before = done_before.get(case.id)
        if reason:
            report.add({"id": case.id, "skip": reason}, "skipped")
        elif before and args.rerun_clang and "oclpy" in before and before.get("key") == case_key(case):
            keep_oclpy[case.id] = before["oclpy"]
            todo.append(job_for(case, "clang"))
        elif before and args.resume:
            report.add(before, classify(before, known))
        else:
            todo.append(job_for(case, args.what))
    todo.sort(key=lambda job: len(job["text"]))  # small kernels first: early results, long ones last
    if args.rerun_clang:  # the new file is written from scratch below
        Path(args.results).rename(args.results + ".before")
    Path(args.results).parent.mkdir(parents=True, exist_ok=True)
    results_file = open(args.results, "a" if args.resume and not args.rerun_clang else "w")
    print(f"{len(todo)} kernels from {len({c.project for c in cases})} projects "
          f"({len(cases) - len(todo)} skipped), {args.jobs} processes, {args.timeout:.0f} s limit",
          flush=True)
    scratch = tempfile.mkdtemp(prefix="oclpy-corpus-tmp-")
    start = time.time()
    progress = Counter()

    def done(result: dict) -> None:
        if result["id"] in keep_oclpy and "oclpy" not in result:
            result["oclpy"] = keep_oclpy[result["id"]]
        category = classify(result, known)
        report.add(result, category)
        results_file.write(json.dumps(result) + "\n")
        results_file.flush()
        progress[category] += 1
        n = sum(progress.values())
        if args.verbose:
            first = (result.get("oclpy") or {}).get("first")
            print(f"  {category:<10} {result['id']}  {first['message'][:90] if first else ''}", flush=True)
        elif n % 50 == 0:
            print(f"  {n}/{len(todo)} in {time.time() - start:.0f} s: {dict(progress)}", flush=True)

    interrupted = False
    try:
        run_all(todo, args.jobs, args.timeout, scratch, done)
    except KeyboardInterrupt:
        interrupted = True
        print(f"interrupted after {sum(progress.values())} of {len(todo)} kernels: "
              "--resume runs the rest", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        results_file.close()
    print(report.table(args.groups))
    if args.by_project:
        for name, counts in report.by_project().items():
            print(f"  {name:<24} {dict(counts)}")
    if args.json:
        report.save(Path(args.json))
    print(f"({time.time() - start:.0f} s)")
    print(report.line())
    return 130 if interrupted else 0


def cmd_report(args: argparse.Namespace) -> int:
    known = KnownDifferences.load()
    report = Report(oracle="saved results")
    skipped = {c.id: skip_reason(c) for c in manifest.cases() if skip_reason(c)}
    for case_id, reason in skipped.items():
        report.add({"id": case_id, "skip": reason}, "skipped")
    for case_id, result in _load_results(args.results).items():
        if case_id not in skipped:
            report.add(result, classify(result, known))
    print(report.table(args.groups))
    if args.by_project:
        for name, counts in report.by_project().items():
            print(f"  {name:<24} {dict(counts)}")
    if args.json:
        report.save(Path(args.json))
    print(report.line())
    return 0


def cmd_rekey(args: argparse.Namespace) -> int:
    path = Path(args.id) if args.id else KNOWN
    changed, unknown = rekey_file(path)
    for line in changed:
        print(line)
    for key in unknown:
        print(f"no kernel literal is at {key}: left as it is", file=sys.stderr)
    print(f"{path}: {len(changed)} keys made stable")
    return 1 if unknown else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.corpus", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="run",
                        choices=["run", "fetch", "list", "show", "report", "rekey"])
    parser.add_argument("id", nargs="?", help="for show: a case id (or part of one); for rekey: the file")
    parser.add_argument("--only", help="projects whose name matches this glob")
    parser.add_argument("--match", help="cases whose id contains this text")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--jobs", "-j", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per kernel")
    parser.add_argument("--what", choices=["both", "clang", "oclpy"], default="both")
    parser.add_argument("--json", help="write the full report here")
    parser.add_argument("--results", default=str(manifest.corpus_dir() / ".cache" / "last-run.jsonl"),
                        help="each result as it comes, one JSON object a line")
    parser.add_argument("--resume", action="store_true", help="keep the results in --results, run the rest")
    parser.add_argument("--rerun-clang", action="store_true",
                        help="keep oclpy's verdicts from --results, ask clang again (after an oracle change)")
    parser.add_argument("--groups", type=int, default=60, help="failure groups to print")
    parser.add_argument("--by-project", action="store_true")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args(argv)
    commands = {"run": cmd_run, "fetch": cmd_fetch, "list": cmd_list, "show": cmd_show, "report": cmd_report,
                "rekey": cmd_rekey}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
