"""Build option parsing: every accepted option, quoting, and the errors for bad ones."""

import pytest

from oclpy.frontend.options import BuildOptions, InvalidBuildOptions, parse_build_options


def test_defaults():
    opts = parse_build_options("")
    assert opts == BuildOptions()
    assert opts.cl_std == "CL1.2"
    assert opts.opencl_c_version == 120
    assert opts.opencl_version == 120


@pytest.mark.parametrize("text", ["-D N", "-DN", "-D N=1", "-DN=1"])
def test_define_forms(text):
    assert parse_build_options(text).defines == {"N": "1"}


def test_define_values_and_quotes():
    opts = parse_build_options("-D TYPE=float4 -DSCALE=2.5f '-D MSG=a b' -D EMPTY=")
    assert opts.defines == {"TYPE": "float4", "SCALE": "2.5f", "MSG": "a b", "EMPTY": ""}


def test_include_dirs():
    opts = parse_build_options('-I inc -Ilib "-I my dir"')
    assert opts.include_dirs == ["inc", "lib", "my dir"]


@pytest.mark.parametrize("std,c_version,version", [
    ("CL1.0", 100, 120), ("CL1.1", 110, 120), ("CL1.2", 120, 120), ("CL2.0", 200, 200), ("CL3.0", 300, 300)])
def test_cl_std(std, c_version, version):
    opts = parse_build_options(f"-cl-std={std}")
    assert (opts.cl_std, opts.opencl_c_version, opts.opencl_version) == (std, c_version, version)


def test_flags():
    opts = parse_build_options(
        "-cl-fast-relaxed-math -cl-mad-enable -cl-finite-math-only -cl-unsafe-math-optimizations "
        "-cl-no-signed-zeros -cl-denorms-are-zero -cl-single-precision-constant -cl-kernel-arg-info "
        "-w -Werror -g")
    assert opts.fast_relaxed_math and opts.mad_enable and opts.finite_math_only
    assert opts.unsafe_math_optimizations and opts.no_signed_zeros and opts.denorms_are_zero
    assert opts.single_precision_constant and opts.kernel_arg_info
    assert opts.suppress_warnings and opts.warnings_as_errors and opts.debug_info


def test_opt_levels():
    assert parse_build_options("-O0").opt_level == 0
    assert parse_build_options("-O3").opt_level == 3
    assert parse_build_options("-cl-opt-disable").opt_level == 0


def test_sequence_input():
    opts = parse_build_options(["-D", "N=3", "-cl-mad-enable"])
    assert opts.defines == {"N": "3"} and opts.mad_enable


@pytest.mark.parametrize("text,message", [
    ("-cl-bogus", "unknown build option '-cl-bogus'"),
    ("--fast", "unknown build option '--fast'"),
    ("-O7", "unknown build option '-O7'"),
    ("-cl-std=CL9.9", "invalid value 'CL9.9' in '-cl-std=CL9.9'"),
    ("-D", "missing argument to '-D'"),
    ("-I", "missing argument to '-I'"),
    ("-D 3X=1", "invalid macro name in build option '-D 3X=1'"),
    ("-D 'unterminated", "No closing quotation"),
])
def test_errors(text, message):
    with pytest.raises(InvalidBuildOptions, match=message.replace("(", r"\(").replace(")", r"\)")) as exc:
        parse_build_options(text)
    assert isinstance(exc.value, ValueError)


def test_spec_options_accepted():
    opts = parse_build_options("-cl-fp32-correctly-rounded-divide-sqrt -cl-uniform-work-group-size "
                               "-cl-no-subgroup-ifp -cl-strict-aliasing -cl-std=cl2.0")
    assert opts.correctly_rounded_divide_sqrt and opts.uniform_work_group_size and opts.cl_std == "CL2.0"


def test_function_like_define():
    opts = parse_build_options(["-D", "SQ(x)=((x)*(x))", "-DV(...)=__VA_ARGS__", "-D", "Z()=0"])
    assert opts.defines == {"SQ(x)": "((x)*(x))", "V(...)": "__VA_ARGS__", "Z()": "0"}
