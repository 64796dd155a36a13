"""The pass registry, pipeline strings, options, printing, timing and errors."""

import io
from dataclasses import dataclass
from typing import ClassVar

import pytest

from oclpy.ir.parser import parse_module
from oclpy.passes import manager
from oclpy.passes.manager import (
    PASSES, PIPELINES, PassError, known_passes, opt_text, parse_pipeline, register, run_pipeline,
)

SIMPLE = """
define i32 @f(i32 %a) {
entry:
  %x = alloca i32
  store i32 %a, ptr<private> %x
  %v = load i32, ptr<private> %x
  %r = add i32 %v, 0
  ret i32 %r
}
"""


def test_registry_has_the_passes():
    for name in ("mem2reg", "simplify", "inline", "dce"):
        assert name in PASSES
        assert PASSES[name].name == name
        doc = PASSES[name].__doc__ or ""
        assert "Requires:" in doc and "Invalidates:" in doc


def test_named_pipelines():
    assert PIPELINES["O0"] == ""
    assert parse_pipeline("O0") == []
    assert [p.name for p in parse_pipeline("O1")] == ["global-dce", "mem2reg", "simplify", "infer-address-spaces"]
    assert [p.name for p in parse_pipeline("O2,dce")][-1] == "dce"


def test_unknown_pass_lists_known_ones():
    with pytest.raises(ValueError, match="unknown pass 'nope'; known passes: dce, dead-allocas, expand-atomics, .*inline.*mem2reg, print-uniformity, .*simplify, split-entry-guard, split-irreducible, split-large-switches, step-divergent-loops, widen-work-items, O0, O1, O2"):
        parse_pipeline("mem2reg,nope")


def test_options():
    (p,) = parse_pipeline("inline{threshold=7}")
    assert p.threshold == 7
    with pytest.raises(ValueError, match="option 'threshold' wants int, got 'x'"):
        parse_pipeline("inline{threshold=x}")
    with pytest.raises(ValueError, match="unknown option 'depth' \\(options: threshold\\)"):
        parse_pipeline("inline{depth=3}")
    with pytest.raises(ValueError, match="unbalanced '\\{'"):
        parse_pipeline("inline{threshold=3")
    with pytest.raises(ValueError, match="unbalanced '\\}'"):
        parse_pipeline("inline}")
    with pytest.raises(ValueError, match="options must end with '\\}'"):
        parse_pipeline("inline{threshold=3}x")


def test_run_pipeline_reports_change():
    module = parse_module(SIMPLE)
    assert run_pipeline(module, "O1") is True
    assert run_pipeline(module, "O1") is False
    assert run_pipeline(module, "") is False


def test_opt_text():
    out = opt_text(SIMPLE, "mem2reg,simplify")
    assert "ret i32 %a" in out and "alloca" not in out


def test_print_after_all_and_print_after():
    buf = io.StringIO()
    run_pipeline(parse_module(SIMPLE), "mem2reg,simplify", print_after_all=buf)
    text = buf.getvalue()
    assert "; *** IR after mem2reg ***" in text and "; *** IR after simplify ***" in text
    buf = io.StringIO()
    run_pipeline(parse_module(SIMPLE), "mem2reg,simplify", print_after={"simplify"},
                 print_stream=buf)
    assert "after simplify" in buf.getvalue() and "after mem2reg" not in buf.getvalue()
    with pytest.raises(ValueError, match="print-after: unknown pass 'bogus'"):
        run_pipeline(parse_module(SIMPLE), "mem2reg", print_after={"bogus"})


def test_time_passes():
    buf = io.StringIO()
    run_pipeline(parse_module(SIMPLE), "mem2reg,simplify", time_passes=buf)
    lines = buf.getvalue().splitlines()
    assert "timing report" in lines[0]
    assert lines[2].endswith("mem2reg") and lines[3].endswith("simplify")
    assert lines[-1].endswith("total")


@dataclass
class _Boom:
    name: ClassVar[str] = "test-boom"

    def run(self, module):
        raise RuntimeError("kaboom")


def test_pass_errors_name_the_pass(monkeypatch):
    monkeypatch.setitem(PASSES, "test-boom", _Boom)
    with pytest.raises(PassError, match="pass 'test-boom': internal error: RuntimeError: kaboom") as info:
        run_pipeline(parse_module(SIMPLE), "mem2reg,test-boom")
    assert info.value.pass_name == "test-boom"


def test_register_checks():
    class NoName:
        pass

    with pytest.raises(TypeError, match="pass class NoName has no name"):
        register(NoName)

    class Dup:
        name = "mem2reg"

    with pytest.raises(ValueError, match="pass 'mem2reg' registered twice"):
        register(Dup)

    class Shadow:
        name = "O2"

    with pytest.raises(ValueError, match="has the name of a pipeline"):
        register(Shadow)


def test_known_passes_lists_pipelines_too():
    names = known_passes()
    assert "O2" in names and "mem2reg" in names
    assert manager.defined_functions(parse_module(SIMPLE))[0].name == "f"


def test_pass_order_constraints():
    from oclpy.compiler import TARGET_PIPELINES
    from oclpy.passes.manager import PASS_ORDER, check_pass_order, order_problems

    assert all(b in PASSES and a in PASSES for a, b, _ in PASS_ORDER)
    for level in PIPELINES:
        for target in TARGET_PIPELINES.values():
            check_pass_order(",".join(p for p in (PIPELINES[level], target) if p))
    check_pass_order("form-workgroups")  # constraints bind only when both passes are there
    assert order_problems(["mem2reg", "infer-address-spaces", "inline"]) == []
    with pytest.raises(ValueError, match="'form-workgroups' \\(pass 1\\) runs before 'inline': barriers"):
        check_pass_order("form-workgroups,inline")
    with pytest.raises(ValueError, match="'infer-address-spaces' \\(pass 1\\) runs before 'mem2reg'"):
        check_pass_order("infer-address-spaces,mem2reg,infer-address-spaces")


def test_pipeline_names_expand_and_drop_options():
    from oclpy.passes.manager import pipeline_names

    assert pipeline_names("O1,inline{threshold=3},dce") == \
        ["global-dce", "mem2reg", "simplify", "infer-address-spaces", "inline", "dce"]


def test_each_pass_module_can_be_imported_first():
    import subprocess
    import sys

    code = """
import importlib, sys
for module in ("mem2reg", "simplify", "dce", "inline", "form_workgroups", "step_divergent_loops",
               "infer_address_spaces", "print_uniformity", "global_dce"):
    for name in [n for n in sys.modules if n.startswith("oclpy.passes")]:
        del sys.modules[name]
    importlib.import_module("oclpy.passes." + module)
    importlib.import_module("oclpy.passes.manager").parse_pipeline("O2")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-800:]


def test_an_analysis_printer_stream_is_not_a_pipeline_option():
    with pytest.raises(ValueError, match="unknown option 'out' \\(options: none\\)"):
        parse_pipeline("print-uniformity{out=x}")


def test_split_large_switches_wants_a_positive_limit():
    module = parse_module("define void @f() {\nentry:\n  ret void\n}\n")
    with pytest.raises(PassError, match="max_cases must be at least 1, not 0"):
        run_pipeline(module, "split-large-switches{max_cases=0}")
