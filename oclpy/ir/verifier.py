"""The IR verifier: checks that a module is well-formed and reports every problem.

`verify_module(module, layout)` raises `VerifyError` listing each problem on its
own line, each naming where it is:

    in function @k, block %loop: instruction '%3 = add i32 %1, %2': operand types differ

What is checked:
  * module: unique `@` names; global initializers match their type; callees and
    global operands belong to the module;
  * functions: arguments match the signature; kernels return void; block
    names are unique; the entry block has no predecessors;
  * blocks: non-empty, exactly one terminator, at the end; phis only at the
    start, one incoming value per predecessor and no other;
  * SSA: operands that are instructions or arguments belong to this function and
    sit in a block; each definition dominates its uses (for a phi, the end of
    the incoming block); dominance is `ir/dominance.py`'s DomTree;
  * use-lists: each operand's use-list counts its users right, and no
    value's use-list names an instruction outside a block (`ir/values.py`);
  * each instruction against its row of the opcode table (`ir/ops.py`): the
    number of operands and successors, then its type rule: operand and result
    types (the builder checks the same rules), call arguments, `ret` against
    the function type, a phi's entries against the predecessors; address
    spaces: no store or atomic through `ptr<constant>`, `addrspacecast` only
    between a named space and generic, `alloca` only in the DataLayout's
    alloca space.

Instruction result names may repeat (the printer uniquifies them); block and
`@` names may not.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator

from .cfg import predecessors
from .datalayout import CPU_LAYOUT, DataLayout
from .dominance import DomTree
from .ops import OPS, type_problems
from .printer import Names, format_name, format_value, print_instr
from .types import VOID, AddressSpace, ArrayType, FunctionType, StructType, Type, VectorType
from .values import Argument, Block, ConstAggregate, ConstOffset, Function, GlobalVar, Instr, Module, Value


class VerifyError(Exception):
    """The module is malformed; `problems` has one message per problem found."""

    def __init__(self, problems: list[str]) -> None:
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        super().__init__(f"IR verification failed ({count}):\n" + "\n".join(problems))
        self.problems = problems


@dataclass
class _Ctx:
    """Where the checked instructions are: the `ops.Context` their rules may ask."""

    module: Module | None
    fn: Function
    layout: DataLayout
    names: Names
    preds: dict[Block, list[Block]] = field(default_factory=dict)
    position: dict[int, int] = field(default_factory=dict)  # id(instr) -> index in its block
    arg_ids: set[int] = field(default_factory=set)
    block_ids: set[int] = field(default_factory=set)
    module_ids: set[int] = field(default_factory=set)  # the module's functions and globals

    def __post_init__(self) -> None:
        for block in self.fn.blocks:
            self.position.update((id(instr), k) for k, instr in enumerate(block.instrs))
        self.arg_ids = {id(a) for a in self.fn.args}
        self.block_ids = {id(b) for b in self.fn.blocks}
        if self.module is not None and not self.module_ids:
            self.module_ids = symbol_ids(self.module)

    def symbol(self, value: Value) -> str:
        return f"@{format_name(value.name)}"

    def local(self, obj: Value | Block) -> str:
        return self.names.local(obj)


def verify_module(module: Module, layout: DataLayout = CPU_LAYOUT) -> None:
    """Raise VerifyError listing every problem in `module`; return None when it is well-formed."""
    problems = module_problems(module, layout)
    if problems:
        raise VerifyError(problems)


def verify_function(fn: Function, module: Module | None = None,
                    layout: DataLayout = CPU_LAYOUT) -> None:
    """Like verify_module, for one function (module-level operands are checked against `module`)."""
    problems = function_problems(fn, module, layout)
    if problems:
        raise VerifyError(problems)


def module_problems(module: Module, layout: DataLayout = CPU_LAYOUT) -> list[str]:
    """Every problem in `module`, as messages (empty when it is well-formed)."""
    problems: list[str] = []
    seen: set[str] = set()
    for sym in [*module.globals, *module.functions]:
        if sym.name in seen:
            problems.append(f"duplicate name '@{format_name(sym.name)}'")
        seen.add(sym.name)
    functions = {id(fn) for fn in module.functions}
    for gv in module.globals:
        problems += [f"global @{format_name(gv.name)}: {p}" for p in _global_problems(gv, module)]
        problems += [f"global @{format_name(gv.name)}: {p}" for p in _global_users(gv, functions)]
    symbols = symbol_ids(module)
    for fn in module.functions:
        problems += function_problems(fn, module, layout, symbols)
    return problems


def symbol_ids(module: Module) -> set[int]:
    """The ids of `module`'s functions and globals: what an operand naming one must be."""
    return {id(v) for v in (*module.functions, *module.globals)}


def _global_problems(gv: GlobalVar, module: Module) -> Iterator[str]:
    if not isinstance(gv.space, AddressSpace):
        yield f"address space {gv.space!r} is not an AddressSpace"
    init = gv.initializer
    if init is None:
        return
    if init.type != gv.value_type:
        yield f"initializer has type {init.type}, expected {gv.value_type}"
    for problem in _constant_problems(init, module):
        yield f"initializer: {problem}"


def _global_users(gv: GlobalVar, functions: set[int]) -> Iterator[str]:
    """Every user on the global's use-list is in a block of a function of the module."""
    for user in gv.users:
        block = user.parent
        if block is None or block.parent is None or id(block.parent) not in functions:
            yield f"use-list names '{print_instr(user)}', which is in no function of this module"


def _constant_problems(value: Value, module: Module | None) -> Iterator[str]:
    if isinstance(value, (Instr, Argument)):
        yield f"'{value.name}' is not a constant"
    elif isinstance(value, GlobalVar) and module is not None and \
            not any(g is value for g in module.globals):
        yield f"@{format_name(value.name)} is not a global of this module"
    elif isinstance(value, ConstOffset):
        if not isinstance(value.base, GlobalVar):
            yield f"a constant getelementptr starts from {value.base!r}, not a global"
        else:
            yield from _constant_problems(value.base, module)
            if value.base.space is AddressSpace.LOCAL:
                yield f"@{format_name(value.base.name)} is __local: its address is no constant"
            if value.space not in (None, value.base.space) and \
                    (value.space is not AddressSpace.GENERIC or value.base.space is not AddressSpace.GLOBAL):
                yield f"a constant addrspacecast of @{format_name(value.base.name)} to {value.type}: " \
                      f"only a global's address converts, to generic"
    elif isinstance(value, ConstAggregate):
        t = value.type
        want = list(t.fields) if isinstance(t, StructType) else \
            [t.elem] * t.count if isinstance(t, (ArrayType, VectorType)) else None
        if want is None or [e.type for e in value.elements] != want:
            yield f"aggregate elements do not match {t}"
        for element in value.elements:
            yield from _constant_problems(element, module)


# -- functions ------------------------------------------------------------------------


def function_problems(fn: Function, module: Module | None = None,
                      layout: DataLayout = CPU_LAYOUT, symbols: set[int] | None = None) -> list[str]:
    """Every problem in one function, each message starting `in function @name`
    (`symbols`: `symbol_ids(module)`, when the caller checks many functions)."""
    where = f"in function @{format_name(fn.name)}"
    names = Names(fn)
    problems = [f"{where}: {p}" for p in _signature_problems(fn)]
    if fn.is_declaration:
        return problems
    unknown = [(b, i) for b in fn.blocks for i in b.instrs if i.op not in OPS]
    if unknown:  # nothing else can be checked without knowing what each instruction is
        return problems + [f"{where}, block {names.local(b)}: instruction '{print_instr(i, names)}': "
                           f"unknown opcode '{i.op}'" for b, i in unknown]
    ctx = _Ctx(module, fn, layout, names, predecessors(fn), module_ids=symbols or set())
    structural: list[str] = []
    for block in fn.blocks:
        label = f"{where}, block {names.local(block)}"
        structural += [f"{label}: {p}" for p in _block_problems(block, ctx)]
    problems += structural
    if fn.entry in ctx.preds and ctx.preds[fn.entry]:
        problems.append(f"{where}: the entry block {names.local(fn.entry)} has predecessors")
    problems += _instr_problems(fn, ctx, where, dominance=not structural)
    for arg in fn.args:
        shown = f"{where}: argument {names.local(arg)}"
        problems += [f"{shown}: {p}" for p in _stale_users(arg, names)]
    return problems


def _signature_problems(fn: Function) -> Iterator[str]:
    if not isinstance(fn.type, FunctionType):
        yield f"type {fn.type} is not a function type"
        return
    if fn.is_kernel and fn.type.ret != VOID:
        yield f"a kernel must return void, not {fn.type.ret}"
    if [a.type for a in fn.args] != list(fn.type.params):
        got = ", ".join(str(a.type) for a in fn.args)
        yield f"arguments ({got}) do not match the signature {fn.type}"
    for i, arg in enumerate(fn.args):
        if arg.index != i:
            yield f"argument %{format_name(arg.name)} has index {arg.index}, expected {i}"
    block_names = Counter(b.name for b in fn.blocks if b.name)
    for name in sorted(n for n, count in block_names.items() if count > 1):
        yield f"duplicate block name '%{format_name(name)}'"


def _block_problems(block: Block, ctx: _Ctx) -> Iterator[str]:
    if block.parent is not ctx.fn:
        yield "block's parent is not this function"
    if not block.instrs:
        yield "block is empty (it needs a terminator)"
        return
    for instr in block.instrs[:-1]:
        if instr.is_terminator:
            yield f"terminator '{print_instr(instr, ctx.names)}' in the middle of the block"
    if not block.instrs[-1].is_terminator:
        yield f"block does not end in a terminator (last: '{print_instr(block.instrs[-1], ctx.names)}')"
    seen_other = False
    for instr in block.instrs:
        if instr.op != "phi":
            seen_other = True
        elif seen_other:
            yield f"phi '{print_instr(instr, ctx.names)}' is not at the start of the block"
    for target in block.successors():
        if target.parent is not ctx.fn or id(target) not in ctx.block_ids:
            yield f"branch to {ctx.names.local(target)}, which is not a block of this function"


def _instr_problems(fn: Function, ctx: _Ctx, where: str, dominance: bool) -> list[str]:
    dom = DomTree.compute(fn) if dominance else None
    problems = []
    for block in fn.blocks:
        label = f"{where}, block {ctx.names.local(block)}"
        for instr in block.instrs:
            found = list(_check_instr(instr, block, ctx))
            if dom is not None:
                found += _dominance_problems(instr, block, dom, ctx)
            found += _use_list_problems(instr, ctx)
            if found:
                text = print_instr(instr, ctx.names)
                problems += [f"{label}: instruction '{text}': {p}" for p in found]
    return problems


def _check_instr(instr: Instr, block: Block, ctx: _Ctx) -> Iterator[str]:
    if instr.parent is not block:
        yield "instruction's parent is not its block"
    if instr.op not in OPS:
        yield f"unknown opcode '{instr.op}'"
        return
    for value in instr.operands:
        yield from _operand_problems(value, ctx)
    yield from type_problems(instr, ctx)


def _operand_problems(value: Value, ctx: _Ctx) -> Iterator[str]:
    shown = format_operand(value, ctx)
    if isinstance(value, Instr):
        if id(value) in ctx.position and value.parent is not None and \
                value.parent.parent is ctx.fn:
            return
        owner = value.parent.parent if value.parent is not None else None
        if owner is None or not any(i is value for i in value.parent.instrs):  # type: ignore[union-attr]
            yield f"operand {shown} is an instruction that is not in any block"
        elif owner is not ctx.fn:
            yield f"operand {shown} is an instruction of function @{format_name(owner.name)}"
    elif isinstance(value, Argument):
        if id(value) not in ctx.arg_ids:
            yield f"operand {shown} is an argument of another function"
    elif isinstance(value, (GlobalVar, Function)) and ctx.module is not None:
        if id(value) not in ctx.module_ids:
            yield f"operand {shown} is not defined in this module"
    elif isinstance(value, ConstAggregate):
        yield from _constant_problems(value, ctx.module)
    elif isinstance(value, ConstOffset):
        yield f"operand {shown}: a constant getelementptr may only initialize a global"
    if not isinstance(getattr(value, "type", None), Type):
        yield f"operand {shown} has no type"


def _use_list_problems(instr: Instr, ctx: _Ctx) -> Iterator[str]:
    """Use-lists agree with operands: each operand's list counts this instruction
    once per operand it is, and this instruction's own list names only users
    that use it and sit in a block."""
    for value, count in Counter(instr.operands).items():
        have = value.use_count(instr)
        if have is not None and have != count:
            yield (f"the use-list of operand {format_operand(value, ctx)} counts {have} "
                   f"uses by this instruction, not {count}")
    yield from _stale_users(instr, ctx.names)


def _stale_users(value: Value, names: Names) -> Iterator[str]:
    for user in value.users:
        if user.parent is None:
            yield f"use-list names '{print_instr(user, names)}', which is not in any block"
        elif value not in user.operands:
            yield f"use-list names '{print_instr(user, names)}', which does not use it"


def format_operand(value: Value, ctx: _Ctx) -> str:
    if isinstance(value, (Instr, Argument)) and not ctx.names.local(value).startswith("%?"):
        return ctx.names.local(value)
    if isinstance(value, (Instr, Argument)):
        return f"%{format_name(value.name)}" if value.name else "(unnamed)"
    return format_value(value, ctx.names)


def _dominance_problems(instr: Instr, block: Block, dom: DomTree, ctx: _Ctx) -> Iterator[str]:
    for index, value in enumerate(instr.operands):
        if not isinstance(value, Instr) or id(value) not in ctx.position or \
                value.parent is None or value.parent.parent is not ctx.fn:
            continue
        shown = ctx.names.local(value)
        if instr.op == "phi":
            incoming = instr.blocks[index] if index < len(instr.blocks) else None
            if incoming is not None and not dom.block_dominates(value.parent, incoming):
                yield (f"operand {shown} does not dominate the end of incoming block "
                       f"{ctx.names.local(incoming)}")
        elif value.parent is block:
            if ctx.position[id(value)] >= ctx.position[id(instr)]:
                yield f"operand {shown} is used before it is defined"
        elif not dom.block_dominates(value.parent, block):
            yield f"operand {shown} does not dominate this use"
