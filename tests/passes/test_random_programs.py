"""Differential test: random programs over a few private variables give the same
result before and after `mem2reg,simplify` (run by a tiny interpreter), and the
result verifies."""

from hypothesis import given, settings
from hypothesis import strategies as st

from oclpy.ir.builder import Builder, i32
from oclpy.ir.types import I32, FunctionType
from oclpy.ir.values import Argument, ConstInt, Function, Instr, Module, Undef, Value
from oclpy.ir.verifier import verify_module
from oclpy.passes.manager import run_pipeline

MASK = 0xFFFFFFFF
STEP_LIMIT = 400

BINARY = {
    "add": lambda a, b: (a + b) & MASK,
    "mul": lambda a, b: (a * b) & MASK,
    "xor": lambda a, b: a ^ b,
}


@st.composite
def programs(draw) -> Module:
    nblocks, nvars = draw(st.integers(3, 7)), draw(st.integers(1, 3))
    fn = Function("f", FunctionType(I32, (I32,)), [Argument(I32, "a", 0)])
    blocks = [fn.add_block(f"b{i}") for i in range(nblocks)]
    b = Builder(blocks[0])
    slots = [b.alloca(I32, name=f"v{k}") for k in range(nvars)]
    for k, slot in enumerate(slots):
        if draw(st.integers(0, 4)):  # mostly initialised, sometimes not
            b.store(i32(k), slot)
    for block in blocks:
        b.position_at_end(block)
        values: list[Value] = [fn.args[0]]
        for _ in range(draw(st.integers(0, 5))):
            kind = draw(st.sampled_from(["load", "store", "store", "binary"]))
            slot = slots[draw(st.integers(0, nvars - 1))]
            if kind == "load":
                values.append(b.load(I32, slot))
            elif kind == "store":
                b.store(draw(st.sampled_from(values + [i32(draw(st.integers(0, 5)))])), slot)
            else:
                op = draw(st.sampled_from(sorted(BINARY)))
                values.append(b.binop(op, draw(st.sampled_from(values)), i32(draw(st.integers(0, 3)))))
        _terminate(draw, b, block, blocks, slots, values)
    return Module(functions=[fn])


def _terminate(draw, b: Builder, block, blocks, slots, values) -> None:
    """The last block returns; others branch mostly forward, sometimes back."""
    index = blocks.index(block)
    if index == len(blocks) - 1:
        b.ret(b.load(I32, draw(st.sampled_from(slots))))
        return
    forward = blocks[index + 1:]
    targets = forward + ([blocks[draw(st.integers(1, index))]] if index else [])
    if draw(st.booleans()):
        b.br(draw(st.sampled_from(forward)))
    else:
        cond = b.icmp("slt", draw(st.sampled_from(values)), i32(draw(st.integers(0, 9))))
        b.condbr(cond, draw(st.sampled_from(targets)), draw(st.sampled_from(forward)))


def run(fn: Function, arg: int) -> int | None:
    """The returned value, or None after STEP_LIMIT blocks (or on reading undef)."""
    env: dict[Value, int] = {fn.args[0]: arg}
    memory: dict[Instr, int | None] = {}

    def val(v: Value) -> int | None:
        if isinstance(v, ConstInt):
            return v.value
        if isinstance(v, Undef):
            return None
        if isinstance(v, Instr) and v.op == "alloca":
            return 0  # an address: only the load and store cases look at it
        return env[v]

    block, prev = fn.entry, None
    for _ in range(STEP_LIMIT):
        phis = {p: val(p.operands[p.blocks.index(prev)]) for p in block.phis()}
        env.update(phis)  # type: ignore[arg-type]
        for instr in block.instrs:
            if instr.op == "phi":
                continue
            ops = [val(v) for v in instr.operands]
            if instr.op not in ("store", "alloca", "br", "ret") and None in ops:
                return None  # a read of an uninitialised variable: no defined result
            if instr.op == "alloca":
                memory[instr] = None
            elif instr.op == "load":
                env[instr] = memory[instr.operands[0]]  # type: ignore[index,assignment]
            elif instr.op == "store":
                memory[instr.operands[1]] = ops[0]  # type: ignore[index]
            elif instr.op in BINARY:
                env[instr] = BINARY[instr.op](ops[0], ops[1])
            elif instr.op == "icmp":
                env[instr] = int((ops[0] ^ 0x80000000) < (ops[1] ^ 0x80000000))
            elif instr.op == "call":
                result = run(instr.attrs["callee"], ops[0])  # type: ignore[arg-type]
                if result is None:
                    return None
                env[instr] = result
            elif instr.op == "ret":
                return ops[0]
            elif instr.op == "br":
                block, prev = instr.targets[0], block
                break
            elif instr.op == "condbr":
                block, prev = instr.targets[0 if ops[0] else 1], block
                break
            else:
                raise AssertionError(f"interpreter lacks {instr.op}")
    return None


@settings(max_examples=300, deadline=None)
@given(programs(), st.integers(-3, 3))
def test_mem2reg_simplify_preserve_results(module: Module, arg: int) -> None:
    fn = module.functions[0]
    before = run(fn, arg & MASK)
    run_pipeline(module, "mem2reg,simplify", verify_each=True)
    verify_module(module)
    assert not any(i.op in ("alloca", "load", "store") for i in fn.instructions())
    if before is not None:
        assert run(fn, arg & MASK) == before


def with_caller(module: Module) -> Function:
    """Add `@main(a) = f(a) + f(a + 1)`; return it."""
    helper = module.functions[0]
    main = Function("main", FunctionType(I32, (I32,)), [Argument(I32, "a", 0)])
    b = Builder(main.add_block("entry"))
    x = b.call(helper, [main.args[0]])
    y = b.call(helper, [b.binop("add", main.args[0], i32(1))])
    b.ret(b.binop("add", x, y))
    module.add_function(main)
    return main


@settings(max_examples=150, deadline=None)
@given(programs(), st.integers(-3, 3), st.integers(0, 60))
def test_inline_preserves_results(module: Module, arg: int, threshold: int) -> None:
    main = with_caller(module)
    before = run(main, arg & MASK)
    run_pipeline(module, f"inline{{threshold={threshold}}},mem2reg,simplify", verify_each=True)
    assert module.functions[-1] is main
    if before is not None:
        assert run(main, arg & MASK) == before
