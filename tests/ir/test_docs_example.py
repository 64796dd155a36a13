"""The complete example in docs/ir.md parses, verifies, and is in canonical form."""

from pathlib import Path

from oclpy.ir.parser import parse_module
from oclpy.ir.printer import print_module
from oclpy.ir.verifier import verify_module

DOC = Path(__file__).parents[2] / "docs" / "ir.md"


def test_docs_example_is_canonical_and_valid():
    text = DOC.read_text().split("### A complete example\n\n```\n", 1)[1].split("```", 1)[0]
    module = parse_module(text, "ir.md")
    verify_module(module)
    assert print_module(module) == text
    assert module.get_function("scale").attrs == {"reqd_work_group_size": (64, 1, 1)}
