"""Overload resolution as clang does it for OpenCL C: how well each argument fits a
parameter, and which viable candidate is best.

Clang resolves a call to a builtin (declared `overloadable` in its opencl-c.h) or to
a user's `overloadable` functions by C++'s rules plus its C extensions. Each argument
gets an implicit conversion sequence, ranked (best first):

    EXACT          the same type (qualifiers aside); the literal 0 as the null event
    QUALIFICATION  a pointer gaining const/volatile: exact-match rank, but worse than
                   the identity (C++ [over.ics.rank]p3: a proper subsequence is better)
    PROMOTION      bool/char/uchar/short/ushort/enum to int; float to double
    CONVERSION     any other arithmetic conversion, a null pointer constant to a
                   pointer, T* to void*, a named address space to generic, an integer to
                   a sampler
    SPLAT          a scalar made a vector (`fmax(float4, 1)` takes `fmax(float4, float)`,
                   not `fmax(float4, float4)`: clang-14 ranks the splat below a scalar
                   conversion)
    C_CONVERSION   void* to T*, which only C allows
    C_EXTENSION    an incompatible pointer or one losing qualifiers (clang warns; C's
                   overloading in clang still finds the candidate viable)

Vectors of different types never convert (OpenCL has no lax vector conversions), nor do
pointers into different named address spaces. A candidate is better than another when
it is at least as good for every argument and better for one; the call picks the
candidate better than every other viable one (an incompatible pointer argument weighs
first, see `better`). Otherwise it is ambiguous, and the
candidates reported are clang's: the survivor of a pass over the candidates in order,
and every viable candidate it is not better than, transitively (Sema's
BestViableFunction).
"""

from __future__ import annotations

from typing import Optional, Sequence

from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType, ScalarKind as K
from ..opaque_types import is_event, is_sampler
from .conversions import is_null_constant

EXACT, QUALIFICATION, PROMOTION, CONVERSION, SPLAT, C_CONVERSION, C_EXTENSION = range(7)


def rank(arg: ast.Expr, param: CType) -> Optional[int]:
    """The rank of passing `arg` (a checked rvalue) to a parameter of type `param`;
    None when it cannot be passed."""
    a = arg.ctype
    assert a is not None
    if st.same_unqualified(a, param):
        return EXACT
    if is_event(param):  # clang's ICK_Zero_Event_Conversion, of exact-match rank
        return EXACT if st.is_integer(a) and is_null_constant(arg) else None
    if is_sampler(param):
        return CONVERSION if st.is_integer(a) else None
    if st.is_arith(a) and st.is_arith(param):
        return _arith_rank(a, param)
    if isinstance(param, ct.Vector) and st.is_arith(a):
        return SPLAT
    if isinstance(param, ct.Pointer):
        if st.is_integer(a) and is_null_constant(arg):  # 0 into any space; (void *)0 keeps its own
            return CONVERSION
        if isinstance(a, ct.Pointer):
            return _pointer_rank(a, param)
    return None


def _arith_rank(a: CType, p: CType) -> int:
    ak, pk = st.scalar_kind(a), st.scalar_kind(p)
    if ak is K.FLOAT and pk is K.DOUBLE:
        return PROMOTION
    if pk is K.INT and not st.is_floating(a) and st.same_unqualified(st.promote(a), ct.INT):
        return PROMOTION
    return CONVERSION


def _pointer_rank(a: ct.Pointer, p: ct.Pointer) -> Optional[int]:
    fs, ts = st.pointee_space(a), st.pointee_space(p)
    if fs != ts and (ts is not AddressSpace.GENERIC or fs is AddressSpace.CONSTANT):
        return None
    ap, pp = a.pointee, p.pointee
    drops = (ap.const and not pp.const) or (ap.volatile and not pp.volatile)
    if drops:
        base = C_EXTENSION
    elif st.same_unqualified(ap, pp):
        base = EXACT if (ap.const, ap.volatile) == (pp.const, pp.volatile) else QUALIFICATION
    elif st.is_void(pp):
        base = CONVERSION
    elif st.is_void(ap):
        base = C_CONVERSION
    else:
        base = C_EXTENSION
    return max(base, CONVERSION) if fs != ts else base


def argument_key(arg: ast.Expr) -> tuple[CType, bool]:
    """All that `rank` reads of an argument: its type, and whether it is an integer null
    constant (calls whose arguments have equal keys rank every candidate alike)."""
    a = arg.ctype
    assert a is not None
    return a, st.is_integer(a) and is_null_constant(arg)


def ranks(args: Sequence[ast.Expr], params: Sequence[CType], variadic: bool = False) -> Optional[list[int]]:
    """Each argument's rank for one candidate; None when the candidate is not viable."""
    if len(args) != len(params) and not (variadic and len(args) > len(params)):
        return None
    out = []
    for a, p in zip(args, params):
        r = rank(a, p)
        if r is None:
            return None
        out.append(r)
    return out


def better(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether ranks `a` make a better candidate than ranks `b`. As clang's
    isBetterOverloadCandidate in C, an argument passed as an incompatible pointer
    weighs first: a candidate that needs one where the other does not is not better,
    and one that needs fewer such arguments (and none the other avoids) is better."""
    fewer_bad = False
    for x, y in zip(a, b):
        if (x == C_EXTENSION) != (y == C_EXTENSION):
            if x == C_EXTENSION:
                return False
            fewer_bad = True
    if fewer_bad:
        return True
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def best_viable(costs: Sequence[Optional[Sequence[int]]]) -> tuple[Optional[int], list[int]]:
    """Clang's choice among candidates given each one's ranks (None: not viable):
    (the index chosen, [it]), or on an ambiguity (None, the indices to report), or
    (None, []) when none is viable."""
    viable = [i for i, c in enumerate(costs) if c is not None]
    if not viable:
        return None, []
    best = viable[0]
    for i in viable[1:]:
        if better(costs[i], costs[best]):  # type: ignore[arg-type]
            best = i
    tied, pending = {best}, [best]
    while pending:
        cur = pending.pop()
        for i in viable:
            if i not in tied and not better(costs[cur], costs[i]):  # type: ignore[arg-type]
                tied.add(i)
                pending.append(i)
    if len(tied) > 1:
        return None, sorted(tied)
    return best, [best]
