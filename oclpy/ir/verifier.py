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
  * operand types per opcode (the builder's rules: `builder._check_cast` for
    casts), call argument counts and types, `ret` against the function type;
  * address spaces: no store or atomic through `ptr<constant>`; `addrspacecast`
    only between a named space and generic; `alloca` only in the DataLayout's
    alloca space.

Instruction result names may repeat (the printer uniquifies them); block and
`@` names may not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

from .builder import IRBuildError, gep_result_elem
from .builder import _check_cast as _builder_cast_rule
from .cfg import predecessors
from .datalayout import CPU_LAYOUT, DataLayout
from .dominance import DomTree
from .ops import ATOMIC_BINOPS, FCMP_PREDICATES, ICMP_PREDICATES, OPS, ORDERINGS, SCOPES, Kind
from .printer import Names, format_name, format_value, print_instr
from .types import (
    I1, VOID, AddressSpace, ArrayType, FloatType, FunctionType, IntType, PtrType, StructType,
    Type, VectorType,
)
from .values import (
    Argument, Block, ConstAggregate, ConstInt, Function, GlobalVar, Instr, Module, Value,
)


class VerifyError(Exception):
    """The module is malformed; `problems` has one message per problem found."""

    def __init__(self, problems: list[str]) -> None:
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        super().__init__(f"IR verification failed ({count}):\n" + "\n".join(problems))
        self.problems = problems


@dataclass
class _Ctx:
    """What the instruction checks need to know about where they are."""

    module: Module | None
    fn: Function
    layout: DataLayout
    names: Names
    preds: dict[Block, list[Block]] = field(default_factory=dict)
    position: dict[int, int] = field(default_factory=dict)  # id(instr) -> index in its block
    arg_ids: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        for block in self.fn.blocks:
            self.position.update((id(instr), k) for k, instr in enumerate(block.instrs))
        self.arg_ids = {id(a) for a in self.fn.args}


Check = Callable[[Instr, _Ctx], Iterator[str]]


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
    for fn in module.functions:
        problems += function_problems(fn, module, layout)
    return problems


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
                      layout: DataLayout = CPU_LAYOUT) -> list[str]:
    """Every problem in one function, each message starting `in function @name`."""
    where = f"in function @{format_name(fn.name)}"
    names = Names(fn)
    problems = [f"{where}: {p}" for p in _signature_problems(fn)]
    if fn.is_declaration:
        return problems
    unknown = [(b, i) for b in fn.blocks for i in b.instrs if i.op not in OPS]
    if unknown:  # nothing else can be checked without knowing what each instruction is
        return problems + [f"{where}, block {names.local(b)}: instruction '{print_instr(i, names)}': "
                           f"unknown opcode '{i.op}'" for b, i in unknown]
    ctx = _Ctx(module, fn, layout, names, predecessors(fn))
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
    block_names = [b.name for b in fn.blocks if b.name]
    for name in sorted({n for n in block_names if block_names.count(n) > 1}):
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
        if target.parent is not ctx.fn or not any(b is target for b in ctx.fn.blocks):
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
    info = OPS.get(instr.op)
    if info is None:
        yield f"unknown opcode '{instr.op}'"
        return
    for value in instr.operands:
        yield from _operand_problems(value, ctx)
    arity = _arity_problem(instr)
    if arity:
        yield arity
        return
    check = _CHECKS.get(instr.op) or _KIND_CHECKS.get(info.kind)
    if check is not None:
        yield from check(instr, ctx)


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
        pool = ctx.module.globals if isinstance(value, GlobalVar) else ctx.module.functions
        if not any(v is value for v in pool):
            yield f"operand {shown} is not defined in this module"
    elif isinstance(value, ConstAggregate):
        yield from _constant_problems(value, ctx.module)
    if not isinstance(getattr(value, "type", None), Type):
        yield f"operand {shown} has no type"


def _use_list_problems(instr: Instr, ctx: _Ctx) -> Iterator[str]:
    """Use-lists agree with operands: each operand's list counts this instruction
    once per operand it is, and this instruction's own list names only users
    that use it and sit in a block."""
    for value in dict.fromkeys(instr.operands):
        if value.keeps_uses:
            have, want = value.use_count(instr), instr.operands.count(value)
            if have != want:
                yield (f"the use-list of operand {format_operand(value, ctx)} counts {have} "
                       f"uses by this instruction, not {want}")
    yield from _stale_users(instr, ctx.names)


def _stale_users(value: Value, names: Names) -> Iterator[str]:
    for user in value.users:
        if user.parent is None:
            yield f"use-list names '{print_instr(user, names)}', which is not in any block"
        elif not any(op is value for op in user.operands):
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


# -- operand counts -------------------------------------------------------------------

_FIXED_ARITY = {
    Kind.BINARY: 2, Kind.UNARY: 1, Kind.CMP: 2, Kind.CAST: 1, Kind.SELECT: 3,
}
_OP_ARITY = {
    "alloca": 0, "load": 1, "store": 2, "atomicrmw": 2, "cmpxchg": 3,
    "extractelement": 2, "insertelement": 3, "shufflevector": 2,
    "extractvalue": 1, "insertvalue": 2, "br": 0, "condbr": 1, "switch": 1, "unreachable": 0,
}
_TARGET_COUNT = {"br": 1, "condbr": 2}


def _arity_problem(instr: Instr) -> str | None:
    want = _OP_ARITY.get(instr.op, _FIXED_ARITY.get(OPS[instr.op].kind))
    n = len(instr.operands)
    if want is not None and n != want:
        return f"expected {want} operand{'s' if want != 1 else ''}, found {n}"
    if instr.op == "getelementptr" and n < 2:
        return "getelementptr needs a base pointer and at least one index"
    if instr.op == "ret" and n > 1:
        return f"ret takes at most one operand, found {n}"
    targets = _TARGET_COUNT.get(instr.op, 0 if instr.op != "switch" else None)
    if targets is not None and len(instr.targets) != targets:
        return f"expected {targets} successor block{'s' if targets != 1 else ''}, found {len(instr.targets)}"
    if instr.op == "phi" and len(instr.operands) != len(instr.blocks):
        return f"phi has {len(instr.operands)} values but {len(instr.blocks)} incoming blocks"
    if not instr.is_terminator and instr.op != "phi" and (instr.targets or instr.blocks):
        return "only terminators have successor blocks and only phis have incoming blocks"
    return None


# -- per-opcode type checks -------------------------------------------------------------


def _bool_like(t: Type) -> Type:
    return VectorType(I1, t.count) if isinstance(t, VectorType) else I1


def _result(instr: Instr, want: Type) -> Iterator[str]:
    if instr.type != want:
        yield f"result type is {instr.type}, expected {want}"


def _check_binary(i: Instr, c: _Ctx) -> Iterator[str]:
    a, b = i.operands
    if a.type != b.type:
        yield f"operand types differ ({a.type} vs {b.type})"
        return
    is_float_op = i.op.startswith("f")
    ok = a.type.is_float_or_float_vector() if is_float_op else a.type.is_int_or_int_vector()
    if not ok:
        kind = "float" if is_float_op else "integer"
        yield f"operands must be {kind} scalars or vectors, not {a.type}"
    yield from _result(i, a.type)


def _check_fneg(i: Instr, c: _Ctx) -> Iterator[str]:
    if not i.operands[0].type.is_float_or_float_vector():
        yield f"operand must be a float scalar or vector, not {i.operands[0].type}"
    yield from _result(i, i.operands[0].type)


def _check_cmp(i: Instr, c: _Ctx) -> Iterator[str]:
    a, b = i.operands
    preds = ICMP_PREDICATES if i.op == "icmp" else FCMP_PREDICATES
    if i.attrs.get("pred") not in preds:
        yield f"unknown predicate {i.attrs.get('pred')!r}"
    if a.type != b.type:
        yield f"operand types differ ({a.type} vs {b.type})"
        return
    if i.op == "icmp":
        ok = a.type.is_int_or_int_vector() or a.type.scalar().is_ptr()
    else:
        ok = a.type.is_float_or_float_vector()
    if not ok:
        yield f"invalid operand type {a.type} for {i.op}"
    yield from _result(i, _bool_like(a.type))


def _check_cast(i: Instr, c: _Ctx) -> Iterator[str]:
    src = i.operands[0].type
    if i.op == "addrspacecast" and isinstance(src, PtrType) and isinstance(i.type, PtrType) \
            and AddressSpace.GENERIC not in (src.space, i.type.space):
        yield (f"addrspacecast from {src} to {i.type}: a cast between two named address "
               "spaces is not allowed (only to or from generic)")
        return
    try:
        _builder_cast_rule(i.op, src, i.type)
    except IRBuildError as exc:
        yield str(exc).split(": ", 1)[-1]


def _check_select(i: Instr, c: _Ctx) -> Iterator[str]:
    cond, a, b = i.operands
    if a.type != b.type:
        yield f"arm types differ ({a.type} vs {b.type})"
    if cond.type != I1 and cond.type != _bool_like(a.type):
        yield f"condition must be i1 or a matching i1 vector, not {cond.type}"
    yield from _result(i, a.type)


def _check_alloca(i: Instr, c: _Ctx) -> Iterator[str]:
    space = i.attrs.get("space", AddressSpace.PRIVATE)
    if not isinstance(i.attrs.get("elem"), Type) or i.attrs["elem"] == VOID:
        yield f"alloca needs an element type, not {i.attrs.get('elem')!r}"
    if space is not c.layout.alloca_space:
        yield (f"alloca in address space {space}; the {c.layout.name} target allocates "
               f"in {c.layout.alloca_space}")
    yield from _result(i, PtrType(space))


def _pointer(value: Value, what: str) -> Iterator[str]:
    if not isinstance(value.type, PtrType):
        yield f"{what} must be a pointer, not {value.type}"


def _check_load(i: Instr, c: _Ctx) -> Iterator[str]:
    yield from _pointer(i.operands[0], "address")
    if not _is_value_type(i.type):
        yield f"cannot load a value of type {i.type}"


def _check_store(i: Instr, c: _Ctx) -> Iterator[str]:
    value, address = i.operands
    yield from _pointer(address, "address")
    if isinstance(address.type, PtrType) and address.type.space is AddressSpace.CONSTANT:
        yield "store through ptr<constant> (constant memory is read-only)"
    if not _is_value_type(value.type):
        yield f"cannot store a value of type {value.type}"


def _is_value_type(t: Type) -> bool:
    return isinstance(t, Type) and t != VOID and not isinstance(t, FunctionType)


def _check_gep(i: Instr, c: _Ctx) -> Iterator[str]:
    base, *indices = i.operands
    yield from _pointer(base, "base")
    for idx in indices:
        if not isinstance(idx.type, IntType):
            yield f"index must be an integer, not {idx.type}"
    elem = i.attrs.get("elem")
    if not isinstance(elem, Type):
        yield f"getelementptr needs an element type, not {elem!r}"
        return
    try:
        gep_result_elem(elem, indices)
    except (IRBuildError, IndexError) as exc:
        yield str(exc).split(": ", 1)[-1] if isinstance(exc, IRBuildError) else \
            f"struct index out of range in {elem}"
    yield from _result(i, base.type)


def _atomic_common(i: Instr, address: Value) -> Iterator[str]:
    yield from _pointer(address, "address")
    if isinstance(address.type, PtrType) and address.type.space is AddressSpace.CONSTANT:
        yield f"{i.op} through ptr<constant> (constant memory is read-only)"
    if i.attrs.get("ordering") not in ORDERINGS:
        yield f"unknown memory ordering {i.attrs.get('ordering')!r}"
    if i.attrs.get("scope") not in SCOPES:
        yield f"unknown memory scope {i.attrs.get('scope')!r}"


def _check_atomicrmw(i: Instr, c: _Ctx) -> Iterator[str]:
    address, value = i.operands
    yield from _atomic_common(i, address)
    binop = i.attrs.get("binop")
    if binop not in ATOMIC_BINOPS:
        yield f"unknown atomicrmw operation {binop!r}"
    elif binop == "fadd" and not isinstance(value.type, FloatType):
        yield f"atomicrmw fadd needs a float value, not {value.type}"
    elif binop not in ("fadd", "xchg") and not isinstance(value.type, IntType):
        yield f"atomicrmw {binop} needs an integer value, not {value.type}"
    yield from _result(i, value.type)


def _check_cmpxchg(i: Instr, c: _Ctx) -> Iterator[str]:
    address, expected, new = i.operands
    yield from _atomic_common(i, address)
    if expected.type != new.type:
        yield f"expected and new value types differ ({expected.type} vs {new.type})"
    yield from _result(i, new.type)


def _check_extractelement(i: Instr, c: _Ctx) -> Iterator[str]:
    vec, idx = i.operands
    if not isinstance(vec.type, VectorType):
        yield f"operand must be a vector, not {vec.type}"
        return
    if not isinstance(idx.type, IntType):
        yield f"index must be an integer, not {idx.type}"
    yield from _result(i, vec.type.elem)


def _check_insertelement(i: Instr, c: _Ctx) -> Iterator[str]:
    vec, elt, idx = i.operands
    if not isinstance(vec.type, VectorType):
        yield f"operand must be a vector, not {vec.type}"
        return
    if elt.type != vec.type.elem:
        yield f"cannot insert {elt.type} into {vec.type}"
    if not isinstance(idx.type, IntType):
        yield f"index must be an integer, not {idx.type}"
    yield from _result(i, vec.type)


def _check_shufflevector(i: Instr, c: _Ctx) -> Iterator[str]:
    a, b = i.operands
    if not isinstance(a.type, VectorType) or a.type != b.type:
        yield f"operands must be vectors of one type ({a.type} vs {b.type})"
        return
    mask = i.attrs.get("mask", ())
    if not isinstance(mask, tuple):
        yield f"mask must be a tuple of integers, not {mask!r}"
        return
    for m in mask:
        if not isinstance(m, int) or not -1 <= m < 2 * a.type.count:
            yield f"mask element {m!r} out of range for two {a.type}"
    yield from _result(i, VectorType(a.type.elem, len(mask)))


def _walk_indices(t: Type, indices: object) -> Type | str:
    if not isinstance(indices, tuple) or not indices:
        return f"indices must be a non-empty tuple, not {indices!r}"
    for index in indices:
        if isinstance(t, StructType) and isinstance(index, int) and 0 <= index < len(t.fields):
            t = t.fields[index]
        elif isinstance(t, ArrayType) and isinstance(index, int) and 0 <= index < t.count:
            t = t.elem
        else:
            return f"invalid index {index!r} into {t}"
    return t


def _check_extractvalue(i: Instr, c: _Ctx) -> Iterator[str]:
    t = _walk_indices(i.operands[0].type, i.attrs.get("indices"))
    if isinstance(t, str):
        yield t
    else:
        yield from _result(i, t)


def _check_insertvalue(i: Instr, c: _Ctx) -> Iterator[str]:
    agg, elt = i.operands
    t = _walk_indices(agg.type, i.attrs.get("indices"))
    if isinstance(t, str):
        yield t
        return
    if elt.type != t:
        yield f"inserted value is {elt.type}, the indexed field is {t}"
    yield from _result(i, agg.type)


def _check_call(i: Instr, c: _Ctx) -> Iterator[str]:
    callee = i.attrs.get("callee")
    if not isinstance(callee, Function):
        yield f"callee must be a function, not {callee!r}"
        return
    if c.module is not None and not any(f is callee for f in c.module.functions):
        yield f"callee @{format_name(callee.name)} is not a function of this module"
    params = callee.type.params
    n, variadic = len(i.operands), bool(callee.attrs.get("variadic"))
    if n < len(params) or (n > len(params) and not variadic):
        yield f"@{format_name(callee.name)} takes {len(params)} arguments, found {n}"
    for index, (arg, want) in enumerate(zip(i.operands, params)):
        if arg.type != want:
            yield f"argument {index} is {arg.type}, @{format_name(callee.name)} expects {want}"
    yield from _result(i, callee.type.ret)


def _check_phi(i: Instr, c: _Ctx) -> Iterator[str]:
    for value in i.operands:
        if value.type != i.type:
            yield f"incoming value has type {value.type}, the phi is {i.type}"
    block = i.parent
    preds = c.preds.get(block, []) if block is not None else []
    for pred in preds:
        count = sum(1 for b in i.blocks if b is pred)
        if count == 0:
            yield f"no incoming value for predecessor {c.names.local(pred)}"
        elif count > 1:
            yield f"{count} incoming values for predecessor {c.names.local(pred)}"
    for incoming in i.blocks:
        if not any(p is incoming for p in preds):
            yield f"incoming block {c.names.local(incoming)} is not a predecessor"


def _check_condbr(i: Instr, c: _Ctx) -> Iterator[str]:
    if i.operands[0].type != I1:
        yield f"condition must be i1, not {i.operands[0].type}"


def _check_switch(i: Instr, c: _Ctx) -> Iterator[str]:
    value = i.operands[0]
    cases = i.attrs.get("cases", ())
    if not isinstance(cases, tuple) or not all(isinstance(c, int) for c in cases):
        yield f"switch cases must be a tuple of integers, not {cases!r}"
        return
    if not isinstance(value.type, IntType):
        yield f"switch value must be an integer, not {value.type}"
        return
    if len(i.targets) != len(cases) + 1:
        yield f"{len(cases)} cases need {len(cases) + 1} successors, found {len(i.targets)}"
    wrapped = [case % (1 << value.type.bits) for case in cases]
    for case in sorted({w for w in wrapped if wrapped.count(w) > 1}):
        yield f"duplicate case value {ConstInt(value.type, case).signed()}"


def _check_ret(i: Instr, c: _Ctx) -> Iterator[str]:
    want = c.fn.type.ret
    got = i.operands[0].type if i.operands else VOID
    if got != want:
        yield f"returns {got}, but @{format_name(c.fn.name)} returns {want}"


_KIND_CHECKS: dict[Kind, Check] = {
    Kind.BINARY: _check_binary, Kind.UNARY: _check_fneg, Kind.CMP: _check_cmp,
    Kind.CAST: _check_cast, Kind.SELECT: _check_select,
}

_CHECKS: dict[str, Check] = {
    "alloca": _check_alloca, "load": _check_load, "store": _check_store,
    "getelementptr": _check_gep, "atomicrmw": _check_atomicrmw, "cmpxchg": _check_cmpxchg,
    "extractelement": _check_extractelement, "insertelement": _check_insertelement,
    "shufflevector": _check_shufflevector, "extractvalue": _check_extractvalue,
    "insertvalue": _check_insertvalue, "call": _check_call, "phi": _check_phi,
    "condbr": _check_condbr, "switch": _check_switch, "ret": _check_ret,
}
