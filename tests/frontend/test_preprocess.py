"""Preprocessing: predefined macros, -D/-I, includes, line markers, and diagnostics in clang's words."""

import math

import pytest

from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.c.lexer import tokenize
from oclpy.frontend.options import parse_build_options
from oclpy.frontend.c.c_parser import parse
from oclpy.frontend.c.preprocess import MATH_CONSTANTS, predefined_macros, preprocess


def pp(source, options="", filename="k.cl"):
    diags = DiagnosticEngine()
    out = preprocess(source, filename, parse_build_options(options), diags)
    return out, diags


def expand(expr, options=""):
    """The tokens `expr` expands to, as text."""
    out, diags = pp(f"__x__ {expr}\n", options)
    toks = tokenize(out, "k.cl", DiagnosticEngine())
    assert not diags.diagnostics, diags.render()
    return " ".join(t.text for t in toks[1:-1])


@pytest.mark.parametrize("macro,value,options", [
    ("__OPENCL_VERSION__", "120", ""), ("__OPENCL_VERSION__", "200", "-cl-std=CL2.0"),
    ("__OPENCL_VERSION__", "300", "-cl-std=CL3.0"), ("__OPENCL_C_VERSION__", "120", ""),
    ("__OPENCL_C_VERSION__", "110", "-cl-std=CL1.1"), ("__OPENCL_C_VERSION__", "300", "-cl-std=CL3.0"),
    ("CL_VERSION_1_0", "100", ""), ("CL_VERSION_1_1", "110", ""), ("CL_VERSION_1_2", "120", ""),
    ("CL_VERSION_2_0", "200", ""), ("CL_VERSION_3_0", "300", ""), ("__ENDIAN_LITTLE__", "1", ""),
    ("CLK_LOCAL_MEM_FENCE", "1", ""), ("CLK_GLOBAL_MEM_FENCE", "2", ""), ("CLK_IMAGE_MEM_FENCE", "4", ""),
    ("cl_khr_fp64", "1", ""), ("cl_khr_global_int32_base_atomics", "1", ""), ("cl_khr_fp16", "1", ""),
    ("cl_khr_int64_base_atomics", "1", ""), ("cl_khr_byte_addressable_store", "1", ""),
    ("FP_FAST_FMAF", "1", ""), ("FP_FAST_FMA", "1", ""), ("__FAST_RELAXED_MATH__", "1", "-cl-fast-relaxed-math"),
    ("INT_MAX", "2147483647", ""), ("CHAR_BIT", "8", ""), ("UINT_MAX", "0xffffffffU", ""),
    ("FLT_EPSILON", "0x1.0p-23f", ""), ("MAXFLOAT", "0x1.fffffep127f", ""),
    ("INFINITY", "__builtin_inff ( )", ""), ("HUGE_VALF", "__builtin_huge_valf ( )", ""),
    ("NAN", '__builtin_nanf ( "" )', ""), ("N", "4", "-D N=4"), ("FLAG", "1", "-DFLAG"),
])
def test_predefined_macro_values(macro, value, options):
    assert expand(macro, options) == value


def test_undefined_macros():
    assert expand("__IMAGE_SUPPORT__ __FAST_RELAXED_MATH__") == "1 __FAST_RELAXED_MATH__"


@pytest.mark.parametrize("name,value", [
    ("M_PI", math.pi), ("M_E", math.e), ("M_SQRT2", math.sqrt(2)), ("M_LN2", math.log(2)),
    ("M_LOG2E", math.log2(math.e)), ("M_LOG10E", math.log10(math.e)), ("M_LN10", math.log(10)),
    ("M_PI_2", math.pi / 2), ("M_PI_4", math.pi / 4), ("M_1_PI", 1 / math.pi), ("M_2_PI", 2 / math.pi),
    ("M_2_SQRTPI", 2 / math.sqrt(math.pi)), ("M_SQRT1_2", math.sqrt(0.5)),
])
def test_math_constants(name, value):
    assert float(expand(name)) == value
    assert expand(name + "_F") == expand(name) + "f"
    assert expand(name + "_H") == expand(name) + "h"


def test_every_math_constant_has_both_forms():
    macros = predefined_macros(parse_build_options(""))
    assert all(f"M_{n}" in macros and f"M_{n}_F" in macros for n in MATH_CONSTANTS)


def test_limits_are_usable_in_if():
    out, diags = pp("#if INT_MAX == 2147483647 && CHAR_BIT == 8\nyes\n#else\nno\n#endif\n")
    assert "yes" in out and "no" not in out


def test_kernel_exec_macro():
    assert expand("__kernel_exec(64, float4)") == (
        "__kernel __attribute__ ( ( work_group_size_hint ( 64 , 1 , 1 ) ) ) "
        "__attribute__ ( ( vec_type_hint ( float4 ) ) )")


def test_line_markers_point_into_original_file(tmp_path):
    (tmp_path / "inc.h").write_text("int from_header;\n")
    main = tmp_path / "main.cl"
    source = '#include "inc.h"\n// comment\n\n\n\n\n\n\n\nint   x = @;\n'
    diags = DiagnosticEngine()
    out = preprocess(source, str(main), parse_build_options(""), diags)
    parse(out, str(main), diags)
    assert [(str(d.loc), d.message) for d in diags.diagnostics] == [
        (f"{main}:10:11", "invalid character '@' in source"), (f"{main}:10:12", "expected expression")]


def test_include_locations(tmp_path):
    (tmp_path / "inc.h").write_text("\nint bad = ;\n")
    diags = DiagnosticEngine()
    out = preprocess('int a;\n#include "inc.h"\nint b = ;\n', str(tmp_path / "k.cl"), parse_build_options(""), diags)
    parse(out, "k.cl", diags)
    assert [(d.loc.file.endswith("inc.h"), d.loc.line, d.loc.col) for d in diags.diagnostics] == [
        (True, 2, 11), (False, 3, 9)]
    assert "int bad = ;" in diags.render()  # the header's text is known for carets


def test_include_from_i_dir_and_including_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "inc").mkdir()
    (tmp_path / "sub" / "a.h").write_text('#include "b.h"\nint a;\n')
    (tmp_path / "sub" / "b.h").write_text("int b;\n")
    (tmp_path / "inc" / "c.h").write_text("int c;\n")
    out, diags = pp('#include "sub/a.h"\n#include <c.h>\n', f"-I {tmp_path / 'inc'}",
                    filename=str(tmp_path / "k.cl"))
    assert not diags.diagnostics, diags.render()
    names = [t.text for t in tokenize(out, "k.cl", DiagnosticEngine()) if t.kind == "id"]
    assert names == ["b", "a", "c"]


def test_missing_include_is_fatal():
    out, diags = pp('int a;\n  #include "nothere.h"\n')
    assert diags.render().startswith("k.cl:2:12: fatal error: 'nothere.h' file not found\n")
    assert diags.has_errors


def test_missing_system_include():
    _, diags = pp("#include <nothere.h>\n")
    assert str(diags.diagnostics[0].loc) == "k.cl:1:10"


@pytest.mark.parametrize("source,rendered", [
    ("#error stop here\n", "k.cl:1:2: error: stop here"),
    ("\n#warning careful\n", "k.cl:2:2: warning: careful"),
    ("#define\n", "k.cl:1:8: error: macro name missing"),
    ("#frobnicate\n", "k.cl:1:2: error: invalid preprocessing directive"),
    ("#include\n", 'k.cl:1:9: error: expected "FILENAME" or <FILENAME>'),
    ("#if 1\nint x;\n", "k.cl:1:2: error: unterminated conditional directive"),
    ("#endif\n", "k.cl:1:2: error: #endif without #if"),
    ("#else\n", "k.cl:1:2: error: #else without #if"),
    ("#elif 1\n", "k.cl:1:2: error: #elif without #if"),
    ("#define F(a) a\nF(1, 2)\n", "k.cl:2:6: error: too many arguments provided to function-like macro invocation"),
    ("#define F(a, b) a\nF(1)\n", "k.cl:2:4: error: too few arguments provided to function-like macro invocation"),
    ("#define F(a\n", "k.cl:1:12: error: expected comma in macro parameter list"),
    ("#if 1 +\n#endif\n", "k.cl:1:8: error: expected value in expression"),
    ("#if 1 / 0\n#endif\n", "k.cl:1:7: error: division by zero in preprocessor expression"),
    ("#line abc\n", "k.cl:1:7: error: #line directive requires a positive integer argument"),
])
def test_directive_errors(source, rendered, capsys):
    _, diags = pp(source)
    assert diags.render().startswith(rendered + "\n")
    assert capsys.readouterr() == ("", "")  # nothing printed


def test_error_directive_in_false_branch_is_skipped():
    _, diags = pp("#if 0\n#error no\n#endif\n")
    assert not diags.diagnostics


def test_pragmas_pass_through():
    out, diags = pp("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nint x;\n"
                    "void f(void) {\n#pragma unroll 4\n  for (;;) ;\n}\n")
    assert "#pragma OPENCL EXTENSION" in out and "#pragma unroll 4" in out and not diags.diagnostics
    tu = parse(out, "k.cl", diags)
    assert [d.name for d in tu.decls] == ["x", "f"] and not diags.diagnostics


def test_columns_kept_outside_macros():
    out, _ = pp("#define N 4\n   float  y = N; /* c */ int z;\n")
    toks = tokenize(out, "k.cl", DiagnosticEngine())
    assert [(t.text, t.loc.line, t.loc.col) for t in toks if t.text in ("y", "z")] == [("y", 2, 11), ("z", 2, 30)]


def test_file_macro_uses_given_name():
    assert expand("__FILE__") == '"k.cl"'


def test_line_directive_and_gnu_line_marker_in_source():
    out, diags = pp('#line 50 "other.cl"\nint a;\n# 7 "third.cl"\nint b;\n')
    tu = parse(out, "k.cl", diags)
    assert not diags.diagnostics
    assert [str(d.loc) for d in tu.decls] == ["other.cl:50:5", "third.cl:7:5"]


def test_function_like_define_from_options():
    assert expand("SQ(3)", ["-D", "SQ(x)=((x)*(x))"]) == "( ( 3 ) * ( 3 ) )"


def test_bom_and_crlf_line_endings():
    out, diags = pp("\ufeffint a;\r\n#define X 1\r\nint  b = X\r\nint c;\r\n")
    tu = parse(out, "k.cl", diags)
    assert [d.message for d in diags.diagnostics] == ["expected ';' after top level declarator"]
    assert str(diags.diagnostics[0].loc) == "k.cl:3:11"
    assert [str(d.loc) for d in tu.decls] == ["k.cl:1:5", "k.cl:3:6", "k.cl:4:5"]


def test_recursive_include_stops_at_depth_limit(tmp_path, capsys):
    (tmp_path / "self.h").write_text('#include "self.h"\nint x;\n')
    _, diags = pp('#include "self.h"\n', filename=str(tmp_path / "k.cl"))
    assert [d.message for d in diags.diagnostics] == ["#include nested depth 201 exceeds maximum of 200"]
    assert diags.diagnostics[0].loc.file.endswith("self.h")
    assert capsys.readouterr() == ("", "")
