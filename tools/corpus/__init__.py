"""tools/corpus: other people's OpenCL C as an acceptance test for oclpy.

The corpus is a manifest (`manifest.json`: project, repository, pinned
commit, licence, which files are kernels, which are headers, and the build
options each kernel needs) plus the code to fetch it and to build every
kernel twice: on oclpy through its public host API and on clang, the oracle.
No kernel source lives in this repository; `python -m tools.corpus fetch`
materialises the pinned files under `$OCLPY_CORPUS_DIR`
(default `~/.cache/oclpy-corpus`).

Modules:
  manifest  the manifest: projects, expanded into one `Case` per kernel
  fetch     materialise the pinned files (a local mirror, else git)
  oracle    clang as the oracle: a clang binary, else libclang + resource headers
  build     one case on oclpy and on clang, in a worker process
  workers   worker processes with a time limit per case
  report    classify, group failures by first error, print, write JSON
  known     the known deliberate differences (`known_differences.toml`)
  intree    the kernels of our own tests as cases, and their ids
  rekey     known differences of those kernels keyed by line made stable
"""
