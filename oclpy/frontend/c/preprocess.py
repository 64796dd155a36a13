"""The entry point of the C99 preprocessor for OpenCL C, and OpenCL's predefined macros.

`preprocess(source, filename, options, diags)` expands macros, resolves
`#include` (the including file's folder first, then each `-I` folder, then
oclpy's bundled headers in `oclpy/include`, as PyOpenCL adds its own), and
returns text with `#line N "file"` markers so the lexer can place every token
in the user's original file, line and column. The preprocessor itself is the
package `preprocessor/`; its diagnostics go to `diags` in clang's words.

OpenCL's predefined macros (versions, extension macros, math constants and
numeric limits of OpenCL C 6.15.2/6.15.3) are defined here.
"""

from __future__ import annotations

import sys

from ...diagnostics import DiagnosticEngine, TooManyErrors
from ..options import BUNDLED_INCLUDE_DIR, BuildOptions, CL_STD_VERSIONS
from .language_features import capabilities
from .preprocessor.directives import Preprocessor
from .type_macros import type_macros

# Math constants of OpenCL C 6.15.2.1: name -> full-precision value (M_x double, M_x_F float, M_x_H half).
MATH_CONSTANTS = {
    "E": "2.718281828459045235360287471352662498",
    "LOG2E": "1.442695040888963407359924681001892137",
    "LOG10E": "0.434294481903251827651128918916605082",
    "LN2": "0.693147180559945309417232121458176568",
    "LN10": "2.302585092994045684017991454684364208",
    "PI": "3.141592653589793238462643383279502884",
    "PI_2": "1.570796326794896619231321691639751442",
    "PI_4": "0.785398163397448309615660845819875721",
    "1_PI": "0.318309886183790671537767526745028724",
    "2_PI": "0.636619772367581343075535053490057448",
    "2_SQRTPI": "1.128379167095512573896158903121545172",
    "SQRT2": "1.414213562373095048801688724209698079",
    "SQRT1_2": "0.707106781186547524400844362104849039",
}

LIMITS = {
    "CHAR_BIT": "8", "SCHAR_MAX": "127", "SCHAR_MIN": "(-127-1)", "CHAR_MAX": "SCHAR_MAX",
    "CHAR_MIN": "SCHAR_MIN", "UCHAR_MAX": "255", "SHRT_MAX": "32767", "SHRT_MIN": "(-32767-1)",
    "USHRT_MAX": "65535", "INT_MAX": "2147483647", "INT_MIN": "(-2147483647-1)",
    "UINT_MAX": "0xffffffffU", "LONG_MAX": "0x7fffffffffffffffL",
    "LONG_MIN": "(-0x7fffffffffffffffL-1)", "ULONG_MAX": "0xffffffffffffffffUL",
    "FLT_DIG": "6", "FLT_MANT_DIG": "24", "FLT_MAX_10_EXP": "+38", "FLT_MAX_EXP": "+128",
    "FLT_MIN_10_EXP": "-37", "FLT_MIN_EXP": "-125", "FLT_RADIX": "2", "FLT_MAX": "0x1.fffffep127f",
    "FLT_MIN": "0x1.0p-126f", "FLT_EPSILON": "0x1.0p-23f",
    "DBL_DIG": "15", "DBL_MANT_DIG": "53", "DBL_MAX_10_EXP": "+308", "DBL_MAX_EXP": "+1024",
    "DBL_MIN_10_EXP": "-307", "DBL_MIN_EXP": "-1021", "DBL_MAX": "0x1.fffffffffffffp1023",
    "DBL_MIN": "0x1.0p-1022", "DBL_EPSILON": "0x1.0p-52",
    "HALF_DIG": "3", "HALF_MANT_DIG": "11", "HALF_MAX_10_EXP": "+4", "HALF_MAX_EXP": "+16",
    "HALF_MIN_10_EXP": "-4", "HALF_MIN_EXP": "-13", "HALF_RADIX": "2", "HALF_MAX": "0x1.ffcp15h",
    "HALF_MIN": "0x1.0p-14h", "HALF_EPSILON": "0x1.0p-10h",
    "MAXFLOAT": "0x1.fffffep127f", "HUGE_VALF": "__builtin_huge_valf()", "HUGE_VAL": "__builtin_huge_val()",
    "INFINITY": "__builtin_inff()", "NAN": "__builtin_nanf(\"\")",
    "FP_ILOGB0": "(-2147483647-1)", "FP_ILOGBNAN": "(-2147483647-1)",
}

EXTENSIONS = (
    "cl_khr_fp64", "cl_khr_fp16", "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics",
    "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
    "cl_khr_byte_addressable_store", "cl_khr_subgroups", "cl_ext_float_atomics", "cl_khr_3d_image_writes",
)

# OpenCL C 3.0's optional features (6.2.1) that oclpy has; pipes and device-side
# enqueue are not among them.
CL30_FEATURES = (
    "__opencl_c_generic_address_space", "__opencl_c_program_scope_global_variables",
    "__opencl_c_atomic_order_acq_rel", "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices", "__opencl_c_work_group_collective_functions",
    "__opencl_c_subgroups", "__opencl_c_fp64", "__opencl_c_int64", "__opencl_c_images",
    "__opencl_c_3d_image_writes", "__opencl_c_read_write_images",
    "__opencl_c_ext_fp32_global_atomic_add", "__opencl_c_ext_fp32_local_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_add", "__opencl_c_ext_fp64_local_atomic_add",
)

FIXED_MACROS = {
    # C99 6.10.8's, which OpenCL C keeps; clang gives every OpenCL C version C99's values
    "__STDC__": "1", "__STDC_VERSION__": "199901L", "__STDC_HOSTED__": "1",
    "__ENDIAN_LITTLE__": "1", "FP_FAST_FMAF": "1", "FP_FAST_FMA": "1",
    "CLK_LOCAL_MEM_FENCE": "1", "CLK_GLOBAL_MEM_FENCE": "2", "CLK_IMAGE_MEM_FENCE": "4",
    "NULL": "((void*)0)",
    # Sampler bits (clang's values; a sampler_t is these bits).
    "CLK_NORMALIZED_COORDS_FALSE": "0", "CLK_NORMALIZED_COORDS_TRUE": "1", "CLK_ADDRESS_NONE": "0",
    "CLK_ADDRESS_CLAMP_TO_EDGE": "2", "CLK_ADDRESS_CLAMP": "4", "CLK_ADDRESS_REPEAT": "6",
    "CLK_ADDRESS_MIRRORED_REPEAT": "8", "CLK_FILTER_NEAREST": "0x10", "CLK_FILTER_LINEAR": "0x20",
    "__IMAGE_SUPPORT__": "1",
    # clang's own predefined atomic orders and OpenCL memory scopes (in every OpenCL C version)
    "__ATOMIC_RELAXED": "0", "__ATOMIC_CONSUME": "1", "__ATOMIC_ACQUIRE": "2", "__ATOMIC_RELEASE": "3",
    "__ATOMIC_ACQ_REL": "4", "__ATOMIC_SEQ_CST": "5", "__OPENCL_MEMORY_SCOPE_WORK_ITEM": "0",
    "__OPENCL_MEMORY_SCOPE_WORK_GROUP": "1", "__OPENCL_MEMORY_SCOPE_DEVICE": "2",
    "__OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES": "3", "__OPENCL_MEMORY_SCOPE_SUB_GROUP": "4",
    **{f"CLK_{name}": str(value) for name, value in {
        "R": 0x10B0, "A": 0x10B1, "RG": 0x10B2, "RA": 0x10B3, "RGB": 0x10B4, "RGBA": 0x10B5,
        "BGRA": 0x10B6, "ARGB": 0x10B7, "INTENSITY": 0x10B8, "LUMINANCE": 0x10B9, "Rx": 0x10BA,
        "RGx": 0x10BB, "RGBx": 0x10BC, "ABGR": 0x10C3,
        "SNORM_INT8": 0x10D0, "SNORM_INT16": 0x10D1, "UNORM_INT8": 0x10D2, "UNORM_INT16": 0x10D3,
        "UNORM_SHORT_565": 0x10D4, "UNORM_SHORT_555": 0x10D5, "UNORM_INT_101010": 0x10D6,
        "SIGNED_INT8": 0x10D7, "SIGNED_INT16": 0x10D8, "SIGNED_INT32": 0x10D9,
        "UNSIGNED_INT8": 0x10DA, "UNSIGNED_INT16": 0x10DB, "UNSIGNED_INT32": 0x10DC,
        "HALF_FLOAT": 0x10DD, "FLOAT": 0x10DE}.items()},
    "__kernel_exec(X, typen)": "__kernel __attribute__((work_group_size_hint(X, 1, 1))) "
    "__attribute__((vec_type_hint(typen)))", "kernel_exec(X, typen)": "__kernel_exec(X, typen)",
}

# OpenCL C 2.0's memory_order and memory_scope enumerators (values as clang's opencl-c-base.h)
# and the atomic initialisers.
CL20_MACROS = {
    "memory_order_relaxed": "0", "memory_order_acquire": "2", "memory_order_release": "3",
    "memory_order_acq_rel": "4", "memory_order_seq_cst": "5",
    "memory_scope_work_item": "0", "memory_scope_work_group": "1", "memory_scope_device": "2",
    "memory_scope_all_svm_devices": "3", "memory_scope_all_devices": "3", "memory_scope_sub_group": "4",
    "ATOMIC_VAR_INIT(x)": "(x)", "ATOMIC_FLAG_INIT": "0",
}


def predefined_macros(options: BuildOptions) -> dict[str, str]:
    """Every macro OpenCL C predefines for `options`, name (or `NAME(args)`) -> body."""
    macros: dict[str, str] = {f"CL_VERSION_{v // 100}_{v % 100 // 10}": str(v) for v in CL_STD_VERSIONS.values()}
    macros["__OPENCL_VERSION__"] = str(options.opencl_version)
    macros["__OPENCL_C_VERSION__"] = str(options.opencl_c_version)
    macros.update(FIXED_MACROS)
    macros.update(dict.fromkeys(EXTENSIONS, "1"))
    for name, value in MATH_CONSTANTS.items():
        macros[f"M_{name}"] = value
        macros[f"M_{name}_F"] = value + "f"
        macros[f"M_{name}_H"] = value + "h"
    macros.update(LIMITS)
    macros.update(type_macros(options.size_rules))
    if options.opencl_c_version >= 200:
        macros.update(CL20_MACROS)
    if options.opencl_c_version >= 300:
        macros.update(dict.fromkeys(CL30_FEATURES, "1"))
    if options.fast_relaxed_math:
        macros["__FAST_RELAXED_MATH__"] = "1"
    if options.finite_math_only or options.fast_relaxed_math:
        macros["__FINITE_MATH_ONLY__"] = "1"
    macros.update(options.defines)
    return macros


_RECURSION_LIMIT = 20000  # each macro call nested in an argument costs a few frames


def preprocess(source: str, filename: str, options: BuildOptions, diags: DiagnosticEngine) -> str:
    """Preprocess `source`; the result carries `#line` markers into the original files."""
    pp = Preprocessor(diags, [*options.include_dirs, BUNDLED_INCLUDE_DIR], capabilities())
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
    try:
        for name, body in predefined_macros(options).items():
            pp.define(f"{name} {body}")
        return pp.run(source, filename)
    except TooManyErrors:
        pass
    except RecursionError:
        diags.error(pp.where(), "macro calls nested too deeply")
    except Exception as exc:  # a bug of ours: report it rather than fail the whole build with a traceback
        diags.error(pp.where(), f"internal error in the preprocessor ({type(exc).__name__}: {exc})")
    finally:
        sys.setrecursionlimit(old_limit)
    return pp.writer.text()
