"""oclpy's C99 preprocessor, as clang runs it for OpenCL C (`clang -E -x cl`).

Modules, in the order a token meets them:
- `tokens.py`: translation phases 1-3, text -> pp-tokens with physical lines and columns.
- `files.py`: the files being read, `#include` search, presumed locations after `#line`.
- `directives.py`: the `Preprocessor`: directives, conditional groups, the main loop.
- `include_line.py`: `#include`, `#include_next`, `#line` and GNU line markers.
- `macros.py`: `#define` parsing, redefinition, `#` and `##` on spellings.
- `expand.py`: macro expansion (a macro is disabled while its replacement is read), `_Pragma`.
- `builtin_macros.py`: `__FILE__`, `__LINE__` and the other macros made at each use.
- `feature_checks.py`: `__has_builtin(x)`, `__has_feature(x)`, `__has_attribute(x)` and kin.
- `expr.py`: `#if` arithmetic in intmax_t/uintmax_t.
- `output.py`: tokens back to text with `#line` markers, columns kept.

`frontend/c/preprocess.py` is the entry point (`preprocess(source, filename,
options, diags)`) and defines OpenCL's predefined macros.
"""
