"""Headers lexed once and shared by every `#include` (preprocessor/header_tokens.py): the
output is what lexing at each inclusion gave, whatever the header does to lines and macros."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oclpy.frontend.c.preprocessor import header_tokens
from oclpy.frontend.c.preprocessor.tokens import lex

from .pp_helpers import messages, pp, tokens


@pytest.fixture(autouse=True)
def fresh() -> None:
    header_tokens.forget()


def run(tmp_path: Path, main: str, **headers: str) -> tuple[str, list[str]]:
    for name, text in headers.items():
        (tmp_path / name.replace("_", ".")).write_text(text)
    out, diags = pp(main, filename=str(tmp_path / "k.cl"))
    return out, messages(diags)


def test_file_and_line_in_a_header_included_twice(tmp_path: Path) -> None:
    main = '#include "h.h"\nint mid = __LINE__;\n#include "h.h"\n'
    out, diags = run(tmp_path, main, h_h='int f = __LINE__;\nconst char *n = __FILE__;\n')
    assert diags == []
    header = str(tmp_path / "h.h")
    assert tokens(out) == (f'int f = 1 ; const char * n = "{header}" ; int mid = 2 ; '
                           f'int f = 1 ; const char * n = "{header}" ;')
    assert out.count(f'"{header}"') >= 4  # line markers back into the header each time


def test_line_directive_in_a_header_moves_only_that_inclusion(tmp_path: Path) -> None:
    """#line moves copies of the tokens: the second inclusion starts from line 1 again."""
    header = 'int a = __LINE__;\n#line 100 "moved.h"\nint b = __LINE__; char *f = __FILE__;\nint c = @;\n'
    out, diags = run(tmp_path, '#include "h.h"\n#include "h.h"\n', h_h=header)
    assert tokens(out) == ('int a = 1 ; int b = 100 ; char * f = "moved.h" ; int c = @ ; '
                           'int a = 1 ; int b = 100 ; char * f = "moved.h" ; int c = @ ;')
    assert len(re.findall(r'^#line 10[01] "moved.h"$', out, re.M)) >= 2  # a marker in each inclusion
    kept = next(iter(header_tokens._kept.values()))  # noqa: SLF001 (the test looks inside)
    assert [(t.text, t.line, t.file) for t in kept.tokens] == \
        [(t.text, t.line, t.file) for t in lex(header, str(tmp_path / "h.h")).tokens]


def test_include_guard_and_pragma_once(tmp_path: Path) -> None:
    main = '#include "g.h"\n#include "g.h"\n#include "o.h"\n#include "o.h"\nint n = COUNT;\n'
    out, diags = run(tmp_path, main, g_h="#ifndef G_H\n#define G_H\nint g;\n#endif\n",
                     o_h="#pragma once\nint o;\n#define COUNT 2\n")
    assert diags == []
    assert tokens(out) == "int g ; int o ; int n = 2 ;"


def test_a_header_that_depends_on_the_macros_in_force(tmp_path: Path) -> None:
    """The same tokens, run at each inclusion under the macros of that moment (X-macros)."""
    main = ('#define X(n) int n;\n#include "list.h"\n#undef X\n'
            '#define X(n) +1\nint count = 0\n#include "list.h"\n;\n')
    out, diags = run(tmp_path, main, list_h="X(a)\nX(b)\n#ifdef X\nX(c)\n#endif\n")
    assert diags == []
    assert tokens(out) == "int a ; int b ; int c ; int count = 0 + 1 + 1 + 1 ;"


def test_a_changed_header_is_lexed_again(tmp_path: Path) -> None:
    (tmp_path / "h.h").write_text("int old;\n")
    assert tokens(pp('#include "h.h"\n', filename=str(tmp_path / "k.cl"))[0]) == "int old ;"
    (tmp_path / "h.h").write_text("int new_one;\n")
    assert tokens(pp('#include "h.h"\n', filename=str(tmp_path / "k.cl"))[0]) == "int new_one ;"


def test_warnings_of_the_lexer_are_given_at_each_inclusion(tmp_path: Path) -> None:
    out, diags = run(tmp_path, '#include "w.h"\n#include "w.h"\n', w_h="#define A 1 \\ \n+ 2\nint a = A;\n")
    assert diags == ["1:14: warning: backslash and newline separated by space"] * 2
    assert tokens(out) == "int a = 1 + 2 ; int a = 1 + 2 ;"


def test_the_cache_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(header_tokens, "MAX_TOKENS", 10)
    (tmp_path / "a.h").write_text("int a;\n")  # 4 tokens with the end
    (tmp_path / "b.h").write_text("int b;\n")
    (tmp_path / "c.h").write_text("int c;\n")
    (tmp_path / "big.h").write_text("int x, y, z, w, v;\n")  # 13: never kept
    out, _ = pp('#include "a.h"\n#include "b.h"\n#include "c.h"\n#include "big.h"\n',
                filename=str(tmp_path / "k.cl"))
    assert tokens(out) == "int a ; int b ; int c ; int x , y , z , w , v ;"
    kept = [name for name, _ in header_tokens._kept]  # noqa: SLF001
    assert kept == [str(tmp_path / "b.h"), str(tmp_path / "c.h")]


CASES = sorted((Path(__file__).parent / "preprocessor_cases").glob("*.cl")) + \
    sorted((Path(__file__).parent / "kernels").glob("*.cl"))


def _fields(lexed: object) -> list[tuple]:
    return [(t.kind, t.text, t.file, t.line, t.col, t.space, t.bol, t.hideset, t.src, t.eline, t.digraph)
            for t in lexed.tokens]  # type: ignore[attr-defined]


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_each_case_as_a_header_included_twice_is_as_without_sharing(case: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The output and diagnostics with shared tokens are those of lexing at each inclusion,
    and the shared tokens are as lexed after the run."""
    main = f'#include "{case}"\n#line 50\n#include "{case}"\n'
    shared_out, shared = pp(main, filename=str(tmp_path / "k.cl"))
    for (name, text), lexed in header_tokens._kept.items():  # noqa: SLF001
        assert _fields(lexed) == _fields(lex(text, name))
    monkeypatch.setattr(header_tokens, "lexed", lambda text, name: lex(text, name))
    fresh_out, fresh = pp(main, filename=str(tmp_path / "k.cl"))
    assert shared_out == fresh_out
    assert messages(shared) == messages(fresh)
