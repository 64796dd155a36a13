"""Driver tests: source -> IR module, errors -> CompileError with the rendered log."""

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend import driver
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.verifier import module_problems


def test_kernel_compiles_to_verified_module() -> None:
    src = "__kernel void k(__global float *p) { p[get_global_id(0)] *= 2.0f; }"
    result = compile_to_ir(src)
    assert result.log == ""
    k = result.module.get_function("k")
    assert k is not None and k.is_kernel
    assert module_problems(result.module) == []


def test_error_raises_compile_error_with_clang_log() -> None:
    src = "__kernel void k(__global float *p) {\n  p[0] = x;\n}\n"
    with pytest.raises(CompileError) as info:
        compile_to_ir(src)
    assert info.value.log == (
        "<kernel>:2:10: error: use of undeclared identifier 'x'\n"
        "  p[0] = x;\n"
        "         ^\n"
        "1 error generated.\n")


def test_warning_goes_to_log() -> None:
    src = "int f(int a) { if (a) return 1; }\n__kernel void k(__global int *p) { p[0] = f(1); }\n"
    result = compile_to_ir(src)
    assert "warning: non-void function does not return a value in all control paths" in result.log
    assert "1 warning generated." in result.log


def test_werror_turns_warning_into_error() -> None:
    src = "int f(int a) { if (a) return 1; }\n__kernel void k(__global int *p) { p[0] = f(1); }\n"
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, "-Werror")
    assert "error: non-void function does not return a value" in info.value.log


def test_internal_error_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object) -> None:
        raise RuntimeError("kaboom")
    monkeypatch.setattr("oclpy.frontend.driver.lower", boom)
    with pytest.raises(CompileError) as info:
        compile_to_ir("__kernel void k(void) {}")
    assert "error: internal compiler error: RuntimeError: kaboom" in info.value.log


def test_invalid_build_option() -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("__kernel void k(void) {}", "-bogus")
    assert "unknown build option '-bogus'" in info.value.log


def test_filename_used_in_log() -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("__kernel int k(void) { return 0; }", filename="a.cl")
    assert info.value.log.startswith("a.cl:1:")


# -- the worker thread's stack (issue 13: 512 MB per build ran 16 concurrent builds out of
# address space under `ulimit -v`) ---------------------------------------------------------

def test_the_worker_stack_is_sized_to_the_source():
    from oclpy.frontend.driver import stack_bytes_for

    assert stack_bytes_for(100) == 32 << 20
    assert stack_bytes_for(70_000) == 137 << 20  # a 10,000-term expression
    assert stack_bytes_for(10 << 20) == 512 << 20


def test_a_build_retries_on_smaller_stacks_then_on_the_calling_thread(monkeypatch):
    import threading

    from oclpy.frontend import driver

    sizes = []
    real_start = threading.Thread.start

    def start(self):
        size = threading.stack_size()  # reading it sets it to 0: put it back
        threading.stack_size(size)
        sizes.append(size)
        if self.name == "oclpy-frontend" and size > 8 << 20:
            raise RuntimeError("can't start new thread")
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    assert driver.compile_to_ir("kernel void k(global int *a) { a[0] = 1; }").module.get_function("k")
    assert sizes == [32 << 20, 16 << 20, 8 << 20]
    monkeypatch.setattr(driver, "_start_worker", lambda work, size: None)  # no thread at all
    assert driver.compile_to_ir("kernel void k(global int *a) { a[0] = 2; }").module.get_function("k")


def test_recursion_that_outgrows_a_small_stack_retries_on_the_largest(monkeypatch):
    from oclpy.frontend import driver

    used = []
    real = driver.run_with_deep_stack

    def run(fn, stack_bytes=driver._MAX_STACK_BYTES):
        used.append(stack_bytes)
        if len(used) == 1:
            raise RecursionError("maximum recursion depth exceeded")
        return real(fn, stack_bytes)

    monkeypatch.setattr(driver, "run_with_deep_stack", run)
    assert driver.compile_to_ir("kernel void k(global int *a) { a[0] = 1; }").module.get_function("k")
    assert used == [32 << 20, 512 << 20]


def test_sixteen_concurrent_builds_under_an_address_space_limit():
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import resource, threading
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        import oclpy as cl
        ctx = cl.Context(dev_type=cl.device_type.CPU)
        threading.stack_size(1 << 20)
        errors = []
        def work(i):
            try:
                cl.Program(ctx, f"__kernel void k{i}(__global int *a) {{ a[0] = {i}; }}").build()
            except Exception as exc:
                errors.append(str(exc))
        threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(len(errors), errors[:1])
    """)
    import os

    env = dict(os.environ, OCLPY_NO_CACHE="1")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         timeout=300, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.stdout.strip() == "0 []", out.stdout + out.stderr[-2000:]
