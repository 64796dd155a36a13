"""The one door into the compiler: source (OpenCL C or SPIR-V) and options for a
device kind -> a compiled program, with the build cache (`cache`)."""

from .build import (DEVICE_KINDS, TARGET_PIPELINES, BuildResult, build_program, frontend_for, il_text,
                    opt_level, optimize, pipeline_for)

__all__ = ["DEVICE_KINDS", "TARGET_PIPELINES", "BuildResult", "build_program", "frontend_for", "il_text",
           "opt_level", "optimize", "pipeline_for"]
