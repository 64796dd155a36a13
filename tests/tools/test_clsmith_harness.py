"""tools/clsmith, the harness itself, without CLSmith and without running a kernel:
the launch read from a kernel's first line and the buffers made from it, the
verdicts and causes, the tables, and the reducer on toy kernels."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.clsmith.check import judge_by_clang, kernels_of, parse_args, parse_seeds  # noqa: E402
from tools.clsmith.clang import CLANG, clang_accepts, uninitialized_reads  # noqa: E402
from tools.clsmith.execute import Run, build_options, digest  # noqa: E402
from tools.clsmith.generate import Launch, parse_launch, with_launch  # noqa: E402
from tools.clsmith.reduce import (delete_chunks, inline_includes, prune_macros, reduce_kernel,  # noqa: E402
                                  shrink_launch, split_preprocessor, tidy)
from tools.clsmith.report import causes, mode_table  # noqa: E402
from tools.clsmith.verdict import agreement, cause, classify, first_error, signature  # noqa: E402


# -- the launch ----------------------------------------------------------------

def test_launch_from_a_plain_kernels_first_line():
    launch = parse_launch("// -g 19,73,5 -l 19,1,1\n#define int64_t long\n")
    assert launch.global_size == (19, 73, 5) and launch.local_size == (19, 1, 1)
    assert launch.total == 6935 and launch.groups == 365
    assert launch.atomic_counters == 0 and launch.flags == frozenset()
    assert launch.buffers() == []


def test_launch_of_the_atomics_and_emi_modes_makes_cl_launchers_buffers():
    launch = parse_launch("// --atomics 18 ---emi -g 8,6 -l 4,3\nkernel")
    assert (launch.global_size, launch.local_size, launch.atomic_counters) == ((8, 6), (4, 3), 18)
    assert launch.flags == {"emi"} and launch.groups == 4
    counters, special, emi = launch.buffers()
    assert counters.dtype == special.dtype == np.uint32 and counters.shape == (72,) and not counters.any()
    assert emi.dtype == np.int32 and emi.shape == (1024,) and (emi[0], emi[1], emi[-1]) == (1024, 1023, 1)


def test_launch_of_reductions_communication_and_fake_divergence():
    launch = parse_launch("// ---atomic_reductions ---inter_thread_comm ---fake_divergence -g 6,10 -l 3,5\n")
    reduction, fake, comm = launch.buffers()
    assert reduction.dtype == np.int32 and reduction.tolist() == [0, 0, 0, 0]
    assert fake.tolist() == list(range(10, 20))                 # 10 + i, as long as the longest dimension
    assert comm.dtype == np.int64 and comm.shape == (60,) and (comm == 1).all()


def test_launch_defaults_header_round_trip_and_bad_dimensions():
    assert parse_launch("int x;\n") == Launch((1024,), (32,), 0, frozenset())
    launch = Launch((30, 79, 3), (2, 1, 1), 27, frozenset({"emi", "atomic_reductions"}))
    assert launch.header() == "// --atomics 27 ---atomic_reductions ---emi -g 30,79,3 -l 2,1,1"
    assert parse_launch(launch.header() + "\n") == launch
    with pytest.raises(ValueError):
        parse_launch("// -g 4,4 -l 4\n")


def test_build_options_are_cl_launchers():
    assert build_options("/opt/cls", "oclpy") == "-w -I /opt/cls"
    assert build_options("/opt/cls", "pocl-O0") == "-w -I /opt/cls -cl-opt-disable"


# -- verdicts ------------------------------------------------------------------

def ok(*values: int) -> Run:
    data = np.array(values, np.uint64)
    return Run("ok", "", (digest(data.tobytes()),), 1.0, data.tobytes())


BUILD_LOG = ("clBuildProgram failed: BUILD_PROGRAM_FAILURE\n<kernel>:223:64: error: expected expression\n"
             "<kernel>:244:72: error: expected expression\n")
ICE_LOG = ("<kernel>:0:0: error: internal compiler error: NotImplementedError: cannot lower expression "
           "StmtExpr (at lower_expr.py:58)\n1 error generated.")


def test_classify_names_every_verdict():
    assert classify(ok(1, 2), ok(1, 2)) == "agree"
    assert classify(ok(1, 2), ok(1, 3)) == "differ"
    assert classify(Run("build", BUILD_LOG), ok(1)) == "oclpy-build"
    assert classify(Run("build", BUILD_LOG), Run("build", "error: x")) == "both-build"
    assert classify(Run("build", ICE_LOG), ok(1)) == "oclpy-ice"
    assert classify(Run("crash", "Traceback ...\nKeyError: 3"), ok(1)) == "oclpy-ice"
    assert classify(Run("died", "worker exited with code -11"), ok(1)) == "oclpy-crash"
    assert classify(Run("died", "worker exited with code -11"), Run("died", "worker exited with code -11")) \
        == "both-crash"
    assert classify(Run("died", "worker exited with code -11"), Run("died", "worker exited with code -6")) \
        == "oclpy-crash"
    assert classify(Run("timeout", "no result after 60 s"), ok(1)) == "timeout"
    assert classify(Run("launch", "Traceback\nLogicError: x"), ok(1)) == "oclpy-launch"
    assert classify(ok(1), Run("timeout")) == "pocl-fail"
    assert classify(ok(1), Run("build", "error: y")) == "pocl-fail"
    assert classify(Run("build", BUILD_LOG), Run("unrun", "clang-14 accepts the kernel")) == "oclpy-build"


def test_first_error_drops_positions_names_and_numbers_but_keeps_where_an_ice_was_raised():
    assert first_error(BUILD_LOG) == "expected expression"
    assert first_error(ICE_LOG) == ("internal compiler error: NotImplementedError: cannot lower expression "
                                    "StmtExpr (at lower_expr.py:58)")
    assert first_error("<kernel>:3:1: error: use of undeclared identifier 'l_19'") == \
        "use of undeclared identifier '_'"
    assert first_error("Traceback (most recent call last):\n  File x\nKeyError: 17\n") == "KeyError: N"


def test_cause_groups_failures_and_tells_where_results_differ():
    assert cause(Run("build", BUILD_LOG), ok(1)) == "oclpy-build: expected expression"
    assert cause(ok(1, 2, 3), ok(1, 2, 4)) == "differ in some work-items"
    assert cause(ok(1, 2, 3), ok(4, 5, 6)) == "differ in every work-item"
    assert cause(Run("timeout"), ok(1)) == "timeout (PoCL finishes)"
    assert cause(Run("timeout"), Run("timeout")) == "timeout (PoCL times out too)"
    assert cause(Run("timeout"), ok(1), Run("timeout")) == "timeout (PoCL finishes, PoCL -O0 times out)"
    assert cause(Run("timeout"), ok(1), ok(1)) == "timeout (PoCL finishes)"
    assert cause(Run("timeout"), Run("died", "worker exited with code -11")) == \
        "timeout (PoCL died: worker exited with code -N)"
    assert cause(ok(1), Run("build", "<s>:1:2: error: bad 'x'")) == "pocl-build: bad '_'"
    assert cause(Run("build", BUILD_LOG), Run("build", "clang rejects the kernel\nk.cl:1:2: error: x")) == \
        "oclpy-build, clang rejects too: expected expression"
    assert cause(Run("build", BUILD_LOG), Run("build", "k.cl:1:2: error: x")) == "both-build: expected expression"
    died = Run("died", "worker exited with code -11")
    assert cause(died, died) == "both-crash: worker exited with code -11"
    assert signature(ok(1, 2, 3), ok(1, 2, 4)) == signature(ok(1, 2, 3), ok(4, 5, 6)) == ("differ", "")


def test_agreement_says_which_runs_share_results():
    runs = {"oclpy": ok(1), "oclpy-O0": ok(1), "pocl": ok(2), "pocl-O0": ok(1)}
    assert agreement(runs) == (("oclpy", "ok", 0), ("oclpy-O0", "ok", 0), ("pocl", "ok", 2), ("pocl-O0", "ok", 0))
    runs["pocl-O0"] = Run("timeout")
    assert agreement(runs)[3] == ("pocl-O0", "timeout", -1)


def test_tables_count_verdicts_per_mode_and_group_causes():
    recs = [{"mode": "plain", "seed": 1, "verdict": "agree", "cause": "agree"},
            {"mode": "plain", "seed": 2, "verdict": "oclpy-build", "cause": "oclpy-build: x"},
            {"mode": "emi", "seed": 1, "verdict": "oclpy-build", "cause": "oclpy-build: x"},
            {"mode": "emi", "seed": 2, "verdict": "differ", "cause": "differ in some work-items"}]
    rows = {r["mode"]: r for r in mode_table(recs)}
    assert (rows["plain"]["kernels"], rows["plain"]["agree"], rows["plain"]["oclpy-build"]) == (2, 1, 1)
    assert (rows["emi"]["differ"], rows["total"]["kernels"], rows["total"]["oclpy-build"]) == (1, 4, 2)
    assert causes(recs)[0] == ("oclpy-build: x", 2, {"plain": 1, "emi": 1}, ["plain/2", "emi/1"])


def test_seed_ranges():
    assert parse_seeds("1000000:1000003") == range(1000000, 1000003)
    assert parse_seeds("7") == range(7, 8)


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_clang_judges_a_kernel_oclpy_cannot_build(tmp_path):
    (tmp_path / "CLSmith.h").write_text("#define safe_add(a, b) ({ int x = (a); x + (b); })\n")
    good = '#include "CLSmith.h"\n__kernel void entry(__global ulong *r) { r[0] = safe_add(1, 2); }\n'
    assert judge_by_clang(good, str(tmp_path)).status == "unrun"
    bad = judge_by_clang(good.replace("r[0]", "q[0]"), str(tmp_path))
    assert bad.status == "build" and "undeclared identifier 'q'" in bad.detail
    assert cause(Run("build", BUILD_LOG), bad).startswith("oclpy-build, clang rejects too")


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_clang_judges_a_pointer_added_to_an_integer_as_clang_15_and_later_do(tmp_path):
    (tmp_path / "CLSmith.h").write_text("")
    kernel = ('__kernel void entry(__global ulong *r) { char c; struct { char *f0; } s = { &c };\n'
              '    uint result = 0; result += s.f0; r[0] = result; }\n')
    assert clang_accepts(kernel, str(tmp_path))     # clang-14 only warns (-Wint-conversion)
    judged = judge_by_clang(kernel, str(tmp_path))
    assert judged.status == "build" and "incompatible pointer to integer conversion" in judged.detail


def test_without_clang_pocl_judges(monkeypatch):
    monkeypatch.setattr("tools.clsmith.check.CLANG", None)
    assert judge_by_clang("__kernel void entry(__global ulong *r) { q[0] = 1; }", None) is None


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_the_analyzer_finds_a_struct_read_before_it_is_written(tmp_path):
    src = ("struct S { int a; volatile ushort b; };\n"
           "__kernel void entry(__global ulong *r) { struct S c, d; c = d; r[0] = c.b; }\n")
    assert any("uninitialized" in w for w in uninitialized_reads(src, str(tmp_path)))
    assert uninitialized_reads(src.replace("c, d;", "c, d = {1, 2};"), str(tmp_path)) == []
    loop = "__kernel void entry(__global int *r) { int i; for (; i < 7; i++) r[i] = 0; }\n"
    assert any("garbage" in w for w in uninitialized_reads(loop, str(tmp_path)))


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_clang_makes_the_undefined_behaviour_warnings_errors(tmp_path):
    loop = "__kernel void entry(__global int *r) { int i; for (; i < 7; i++) r[i] = 0; }\n"
    assert clang_accepts(loop, str(tmp_path))
    assert not clang_accepts(loop, str(tmp_path), ("uninitialized",))
    assert clang_accepts(loop.replace("int i;", "int i = 0;"), str(tmp_path), ("uninitialized",))


# -- the reducer ---------------------------------------------------------------

def test_inline_tidy_and_prune_make_a_kernel_self_contained(tmp_path):
    (tmp_path / "top.h").write_text('#include "inner.h"\n#define USED(x) \\\n  ((x) + ONE)\n#define UNUSED 3\n')
    (tmp_path / "inner.h").write_text("#define ONE 1 /* one */\n#define TWO 2\n")
    src = '// -g 4 -l 2\n#include "top.h"\n#include "top.h"\n// gone\nint f() { return USED(2); } /* x */\n'
    flat = tidy(inline_includes(src, str(tmp_path)))
    assert flat.splitlines()[0] == "// -g 4 -l 2"
    assert "#define USED(x)    ((x) + ONE)" in flat and "gone" not in flat and "/*" not in flat
    assert prune_macros(flat).splitlines() == ["// -g 4 -l 2", "#define ONE 1", "#define USED(x)    ((x) + ONE)",
                                               "int f() { return USED(2); }"]


def test_delete_chunks_keeps_only_what_the_test_needs():
    lines = [f"line {i}" for i in range(40)]
    kept = delete_chunks(lines, lambda ls: "line 7" in ls and "line 31" in ls)
    assert kept == ["line 7", "line 31"]


def test_shrink_launch_goes_to_one_work_group_then_one_work_item():
    src = "// ---emi -g 8,4 -l 2,2\nbody\n"
    assert shrink_launch(src, lambda s: True) == "// ---emi -g 1,1 -l 1,1\nbody\n"
    assert shrink_launch(src, lambda s: "-g 1,1" not in s) == "// ---emi -g 2,2 -l 2,2\nbody\n"


def test_reduce_kernel_on_a_toy_keeps_the_launch_and_the_failing_statement():
    body = ["#define A 1", "#define B(x) ((x) + A)", "int f(int a)", "{", "  int b = a;", "  return b;", "}",
            "__kernel void entry(__global ulong *result)", "{", "  int x = f(2);", "  int y = ({ 3; });",
            "  result[0] = B(y);", "}"]
    src = "// -g 16 -l 4\n" + "\n".join(body) + "\n"

    def interesting(s: str) -> bool:        # "oclpy fails on the statement expression"
        return s.startswith("// -g") and "({ 3; })" in s and s.count("{") == s.count("}")

    out = reduce_kernel(src, interesting)
    assert out.splitlines()[0] == "// -g 1 -l 1"
    assert "({ 3; })" in out and "int f(int a)" not in out and "#define" not in out
    assert len(out.splitlines()) <= 4


def test_an_engine_reduces_only_what_follows_the_macros():
    body = ["#define A 1", "#define SAFE_DIV(a, b) ((b) == 0 ? (a) : (a) / (b))", "int g(int a) { return a + A; }",
            "int f(int a) { return SAFE_DIV(a, 0); }", "__kernel void entry(__global ulong *result)", "{",
            "  result[0] = f(3);", "}"]
    src = "// -g 1 -l 1\n" + "\n".join(body) + "\n"
    seen = []

    def engine(text: str, test) -> str:     # deletes single lines, as C-Vise's line pass would
        seen.append(text)
        lines = text.splitlines(keepends=True)
        for i in reversed(range(len(lines))):
            candidate = lines[:i] + lines[i + 1:]
            if test("".join(candidate)):
                lines = candidate
        return "".join(lines)

    def interesting(s: str) -> bool:        # the guarded division must stay
        return "SAFE_DIV(a, 0)" in s and "#define SAFE_DIV(a, b) ((b) == 0 ? (a) : (a) / (b))" in s

    out = reduce_kernel(src, interesting, engine=engine)
    assert seen and not any("#" in text for text in seen)
    assert out.splitlines() == ["// -g 1 -l 1", "#define SAFE_DIV(a, b) ((b) == 0 ? (a) : (a) / (b))",
                                "int f(int a) { return SAFE_DIV(a, 0); }"]
    assert split_preprocessor("#if X\nint a;\n#endif\nint b;\n") == ("#if X\nint a;\n#endif\n", "int b;\n")
    assert split_preprocessor("int b;\n") == ("", "int b;\n")


def test_one_group_keeps_the_shape_and_flags_and_makes_one_groups_buffers():
    launch = parse_launch("// --atomics 18 ---atomic_reductions -g 8,6 -l 4,3\nkernel")
    single = launch.one_group()
    assert single == Launch((4, 3), (4, 3), 18, frozenset({"atomic_reductions"}))
    assert single.groups == 1 and single.total == 12
    counters, special, reduction = single.buffers()
    assert counters.shape == special.shape == (18,) and reduction.shape == (1,)


def test_with_launch_rewrites_the_first_line_or_adds_one():
    launch = Launch((2,), (2,), 0, frozenset())
    assert with_launch("// -g 8 -l 2\nbody\n", launch) == "// -g 2 -l 2\nbody\n"
    assert with_launch("int x;\n", launch) == "// -g 2 -l 2\nint x;\n"


def test_kernels_of_an_earlier_run_filtered_by_cause():
    results = {"kernels": [
        {"seed": 1, "mode": "plain", "cause": "timeout (PoCL times out too)"},
        {"seed": 2, "mode": "emi", "cause": "agree"},
        {"seed": 3, "mode": "atomics", "cause": "timeout (PoCL finishes)"}]}
    assert kernels_of(results) == {(1, "plain"), (2, "emi"), (3, "atomics")}
    assert kernels_of(results, "timeout") == {(1, "plain"), (3, "atomics")}
    assert kernels_of(results, "timeout (PoCL times") == {(1, "plain")}


def test_cause_without_kernels_of_is_refused(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--cause", "timeout"])
    assert "--cause needs --kernels-of" in capsys.readouterr().err


def test_a_timeout_where_pocl_was_not_run_says_so():
    ours = Run("timeout", "no result after 60 s", seconds=60.0)
    assert classify(ours, Run("unrun", "oclpy timed out")) == "timeout"
    assert cause(ours, Run("unrun", "oclpy timed out")) == "timeout (PoCL not run)"
