"""A module finds its functions by name through an index that follows the list:
functions added, lists replaced by passes, renames through `rename_function`,
and a rename behind its back still found (by looking)."""

from __future__ import annotations

import pytest

from oclpy.ir.types import VOID, FunctionType
from oclpy.ir.values import Function, Module


def fn(name: str) -> Function:
    return Function(name, FunctionType(VOID, ()))


def test_added_functions_are_found_and_duplicates_refused():
    module = Module()
    a, b = module.add_function(fn("a")), module.add_function(fn("b"))
    assert module.get_function("a") is a and module.get_function("b") is b
    assert module.get_function("c") is None
    with pytest.raises(ValueError, match="function @a already exists"):
        module.add_function(fn("a"))
    assert module.functions == [a, b]


def test_a_replaced_list_is_indexed_again():
    module = Module()
    a, b = module.add_function(fn("a")), module.add_function(fn("b"))
    assert module.get_function("a") is a
    module.functions = [b]  # what passes do when they delete functions
    assert module.get_function("a") is None
    assert module.get_function("b") is b
    module.functions = [b, fn("a")]  # same length as before, another list
    assert module.get_function("a") is module.functions[1]
    module.functions.append(fn("c"))  # grown in place
    assert module.get_function("c") is module.functions[2]


def test_renames_keep_the_index_true():
    module = Module()
    a = module.add_function(fn("a"))
    module.rename_function(a, "a.body")
    assert module.get_function("a") is None and module.get_function("a.body") is a
    new_a = module.add_function(fn("a"))  # the old name is free again
    assert module.get_function("a") is new_a
    with pytest.raises(ValueError, match="function @a.body already exists"):
        module.add_function(fn("a.body"))


def test_a_direct_rename_is_still_found():
    module = Module()
    a = module.add_function(fn("a"))
    a.name = "z"
    assert module.get_function("a") is None
    assert module.get_function("z") is a


def test_the_first_of_two_functions_of_one_name_is_found():
    first, second = fn("a"), fn("a")
    module = Module(functions=[first, second])
    assert module.get_function("a") is first
