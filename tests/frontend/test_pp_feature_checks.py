"""clang's feature-check macros (`__has_builtin`, `__has_feature`, `__has_extension`,
`__has_attribute`, `__has_c_attribute`, `__has_declspec_attribute`, `__is_identifier`):
each answer and each message is clang-14 -x cl -E's, where oclpy has what clang has."""

from __future__ import annotations

import pytest

from oclpy.frontend.driver import compile_to_ir

from .pp_helpers import messages, pp, tokens


def answers(source: str) -> tuple[str, list[str]]:
    out, diags = pp(source)
    return tokens(out), messages(diags)


@pytest.mark.parametrize("check,value", [
    ("__has_builtin(__builtin_expect)", "1"), ("__has_builtin(__builtin_assume)", "1"),
    ("__has_builtin(__builtin_unreachable)", "1"), ("__has_builtin(__builtin_clz)", "1"),
    ("__has_builtin(__builtin_sqrtf)", "1"), ("__has_builtin(__builtin_nanf)", "1"),
    ("__has_builtin(__builtin_offsetof)", "1"), ("__has_builtin(__builtin_amdgcn_ds_bpermute)", "0"),
    ("__has_builtin(max)", "0"), ("__has_builtin(get_global_id)", "0"), ("__has_builtin(nosuch)", "0"),
    ("__has_builtin ( __builtin_expect )", "1"),
    ("__has_feature(attribute_overloadable)", "1"), ("__has_feature(attribute_ext_vector_type)", "1"),
    ("__has_feature(c_static_assert)", "0"), ("__has_extension(c_static_assert)", "1"),
    ("__has_extension(__c_static_assert__)", "1"), ("__has_feature(address_sanitizer)", "0"),
    ("__has_feature(modules)", "0"), ("__has_extension(c_alignof)", "1"), ("__has_feature(c_atomic)", "0"),
    ("__has_attribute(aligned)", "1"), ("__has_attribute(__aligned__)", "1"), ("__has_attribute(packed)", "1"),
    ("__has_attribute(reqd_work_group_size)", "1"), ("__has_attribute(opencl_unroll_hint)", "1"),
    ("__has_attribute(nosvm)", "1"), ("__has_attribute(ext_vector_type)", "1"), ("__has_attribute(nosuch)", "0"),
    ("__has_c_attribute(fallthrough)", "0"), ("__has_declspec_attribute(noreturn)", "0"),
    ("__is_identifier(foo)", "1"), ("__is_identifier(float4)", "1"), ("__is_identifier(int)", "0"),
    ("__is_identifier(kernel)", "0"), ("__is_identifier(bool)", "0"), ("__is_identifier(half)", "0"),
])
def test_answers(check, value):
    assert answers(f"v = {check};\n") == (f"v = {value} ;", [])
    assert answers(f"#if {check}\nyes\n#else\nno\n#endif\n")[0] == ("yes" if value == "1" else "no")


def test_each_is_defined():
    names = ["__has_builtin", "__has_feature", "__has_extension", "__has_attribute", "__has_c_attribute",
             "__has_declspec_attribute", "__is_identifier"]
    source = "".join(f"#ifdef {n}\n{n}_defined\n#endif\n" for n in names)
    assert answers(source) == (" ".join(f"{n}_defined" for n in names), [])


def test_operand_is_not_expanded_but_for_attributes():
    source = ("#define X __builtin_expect\n#define F c_static_assert\n#define A aligned\n"
              "v = __has_builtin(X) __has_extension(F) __has_attribute(A);\n")
    assert answers(source) == ("v = 0 0 1 ;", [])


@pytest.mark.parametrize("source,expected,messages_", [
    ("b = __has_builtin;\n", "b = 0", ["1:18: error: missing '(' after '__has_builtin'"]),
    ("b = __has_builtin(1);\n", "b = 0 ;", ["1:19: error: builtin feature check macro requires a parenthesized "
                                            "identifier"]),
    ("b = __has_builtin(x y);\n", "b = 0 ;", ["1:21: error: missing ')' after 'x'", "  1:18: note: to match this '('"]),
    ("b = __has_feature();\n", "b = 0 ;", ["1:19: error: too few arguments provided to function-like macro "
                                           "invocation"]),
    ("b = __has_builtin(__builtin_expect,);\n", "b = 1 ;",
     ["1:35: error: too many arguments provided to function-like macro invocation"]),
    ("b = __has_builtin((x));\n", "b = 0 ;", ["1:19: error: nested parentheses not permitted in '__has_builtin'"]),
    ("#if __has_builtin(\n#endif\n", "", ["1:19: error: unterminated function-like macro invocation",
                                         "1:19: error: expected value in expression"]),
])
def test_errors(source, expected, messages_):
    assert answers(source) == (expected, messages_)


def test_redefining_or_undefining_one_warns():
    source = "#define __has_builtin(x) 0\n#undef __has_feature\na = __has_builtin(y) __has_feature(z)\n"
    assert answers(source) == ("a = 0 __has_feature ( z )",
                               ["1:9: warning: redefining builtin macro", "2:8: warning: undefining builtin macro"])


def test_code_with_its_own_fallback_takes_the_builtin():
    # john's opencl_misc.h and CLBlast's kernels
    source = ("#ifndef __has_builtin\n#define __has_builtin(x) 0\n#endif\n"
              "#if __has_builtin(__builtin_expect)\n#define likely(x) __builtin_expect(!!(x), 1)\n"
              "#else\n#error no __builtin_expect\n#endif\n"
              "kernel void k(global int *o) { if (likely(o[1] > 0)) o[0] = 1; }\n")
    assert compile_to_ir(source).log == ""
