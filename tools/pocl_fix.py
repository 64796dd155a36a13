"""Make the pip-installed PoCL 3.0 usable on CPUs its LLVM 14 cannot name.

PoCL asks LLVM (`llvm::sys::getHostCPUName`) for the host CPU and passes the
answer to clang as `-target-cpu`. LLVM 14 answers "generic" for CPUs newer
than it (Zen 4/5 here), which clang rejects: every build fails with
"unknown target CPU 'generic'" (pocl/pocl#1049). There is no option to
override it, so, only when a probe build fails that way, this module writes a
copy of PyOpenCL's bundled libpocl whose `pocl_get_llvm_cpu_name` returns a
CPU LLVM 14 knows with the host's vector features (`POCL_CPU`, default
icelake-server: AVX-512 with 256-bit preferred vectors, as on Zen 4/5; set
OCLPY_BENCH_POCL_CPU to pick another), and points the ICD loader at it
(OCL_ICD_VENDORS). Must run before pyopencl is first imported.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from pathlib import Path

POCL_CPU = os.environ.get("OCLPY_BENCH_POCL_CPU", "icelake-server")
# push rbp; push rbx; sub rsp,8; call getHostCPUName; test rdx,rdx; je; mov rbp,rax; mov rbx,rdx;
# lea rdi,[rdx+1]; call malloc
_PATTERN = re.compile(rb"\x55\x53\x48\x83\xec\x08\xe8....\x48\x85\xd2\x74.\x48\x89\xc5\x48\x89\xd3"
                      rb"\x48\x8d\x7a\x01\xe8", re.S)
_PROBE = ("import pyopencl as cl; d=cl.get_platforms()[0].get_devices()[0]; "
          "cl.Program(cl.Context([d]), '__kernel void k(__global int*x){x[0]=1;}').build()")


def _loads(data: bytes) -> list[tuple[int, int, int]]:
    """(file offset, vaddr, size) of each PT_LOAD segment of an ELF64 file."""
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    out = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            out.append((p_offset, p_vaddr, p_filesz))
    return out


def _vaddr(loads: list[tuple[int, int, int]], offset: int) -> int:
    for off, vaddr, size in loads:
        if off <= offset < off + size:
            return offset - off + vaddr
    raise ValueError(f"file offset {offset:#x} is in no loaded segment")


def patched(data: bytes, cpu: str) -> bytes:
    """`data` (libpocl) with pocl_get_llvm_cpu_name returning `cpu`."""
    matches = list(_PATTERN.finditer(data))
    name = data.find(cpu.encode() + b"\0")
    if len(matches) != 1 or name < 0:
        raise ValueError("this libpocl does not look like PoCL 3.0's; cannot patch it")
    loads = _loads(data)
    at = matches[0].start() + 6                      # the call to getHostCPUName
    lea_end = _vaddr(loads, at) + 7
    code = (b"\x48\x8d\x2d" + struct.pack("<i", _vaddr(loads, name) - lea_end)  # lea rbp,[name]
            + b"\xbb" + struct.pack("<I", len(cpu))                           # mov ebx,len
            + b"\xbf" + struct.pack("<I", len(cpu) + 1)                       # mov edi,len+1
            + b"\xeb\x01")                                                    # jmp to malloc call
    return data[:at] + code + data[at + len(code):]


def _needs_fix() -> bool:
    proc = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                          timeout=120)
    return proc.returncode != 0 and "unknown target CPU" in (proc.stdout + proc.stderr)


def apply() -> str | None:
    """Point the ICD loader at a fixed PoCL when the installed one cannot build here.

    Returns a note for the results (None when nothing was needed or possible)."""
    if "OCL_ICD_VENDORS" in os.environ:
        return None
    try:
        import importlib.util
        spec = importlib.util.find_spec("pyopencl")
        if spec is None or spec.origin is None or not _needs_fix():
            return None
        libs = Path(spec.origin).parent / ".libs"
        lib = next(libs.glob("libpocl*.so*"))
        cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "oclpy-bench"
        root = cache / f"pocl-{POCL_CPU}"
        target = root / "pyopencl" / ".libs" / lib.name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            share = root / "pocl_binary_distribution"
            share.mkdir(exist_ok=True)
            link = share / ".libs"
            if not link.exists():
                link.symlink_to(libs.parent.parent / "pocl_binary_distribution" / ".libs")
            tmp = target.with_suffix(".tmp")
            tmp.write_bytes(patched(lib.read_bytes(), POCL_CPU))
            tmp.chmod(0o755)
            tmp.replace(target)
        icd = root / "pocl.icd"
        icd.write_text(f"{target}\n")
        os.environ["OCL_ICD_VENDORS"] = str(icd)
        return f"PoCL's LLVM 14 cannot name this CPU; PoCL ran as -target-cpu {POCL_CPU}"
    except (OSError, ValueError, StopIteration, subprocess.SubprocessError) as exc:
        return f"could not work around PoCL's unknown-CPU failure: {exc}"
