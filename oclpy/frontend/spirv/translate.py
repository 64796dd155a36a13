"""A read SPIR-V module -> an IR module.

`translate(info) -> ir.Module`: module-scope types, constants and variables
first (Workgroup variables become `local` GlobalVars, CrossWorkgroup ones
`global`, UniformConstant ones `constant`; BuiltIn variables become
`BuiltinRef`s), then every function is declared (so calls may point
forward), then each body is translated by a `FunctionTranslator`. Entry
points with the Kernel execution model become kernels named as the entry
point says, with clGetKernelArgInfo attributes (`kernel_args.py`) and
`reqd_work_group_size` from a LocalSize execution mode.
"""

from __future__ import annotations

from typing import Any

from ...ir import types as ir
from ...ir.datalayout import DataLayout
from ...ir.values import Argument, ConstZero, Function, GlobalVar, Module
from .binary import Instruction, string_from_words
from .builtins import builtin_ref
from .spec_constants import define_constant
from .function import FunctionTranslator, Handler
from .grammar import BUILTINS, EXECUTION_MODELS, KERNEL_MODEL, LINKAGE_IMPORT, OP, SC, STORAGE_CLASSES
from .arg_info import kernel_arg_attrs
from .mangled import demangle_builtin
from .opencl_std import is_debug_set
from .reader import EntryPoint, ModuleInfo
from .spirv_types import SpvType, TypeTable
from .opencl_std import ext_inst
from . import ops_arith, ops_bits, ops_composite, ops_control, ops_convert, ops_memory, ops_sync


def _handlers() -> dict[int, Handler]:
    table: dict[int, Handler] = {OP["ExtInst"]: ext_inst}
    for mod in (ops_arith, ops_bits, ops_composite, ops_control, ops_convert, ops_memory, ops_sync):
        table.update(mod.HANDLERS)
    return table


HANDLERS = _handlers()
_BYVAL = 2  # FuncParamAttr ByVal
_MODULE_SPACES = {SC["Workgroup"]: ir.AddressSpace.LOCAL, SC["CrossWorkgroup"]: ir.AddressSpace.GLOBAL,
                  SC["UniformConstant"]: ir.AddressSpace.CONSTANT}


class ModuleTranslator:
    def __init__(self, info: ModuleInfo, layout: DataLayout) -> None:
        self.info = info
        self.module = Module("program")
        self.types = TypeTable(info, layout)
        self.layout = layout
        self.globals: dict[int, Any] = self.types.consts
        self.value_types: dict[int, SpvType] = {}
        self.functions: dict[int, Function] = {}
        self.kernels: dict[int, EntryPoint] = {}
        self.by_value_args: set[int] = set()  # id() of kernel arguments passed by value
        self.builtin_functions: dict[int, tuple[str, bool | None]] = {}  # imported OpenCL C builtins
        self.kernel_bodies: dict[int, Function] = {}  # a called kernel's id -> its callable twin
        self.called: set[int] = set()  # ids some OpFunctionCall names

    def run(self) -> Module:
        for instr in self.info.globals:
            self.module_scope(instr)
        self.kernels = self._entry_points()
        self.called = {i.operands[2] for body in self.info.functions for i in body
                       if i.opcode == OP["FunctionCall"] and len(i.operands) > 2}
        bodies = []
        for body in self.info.functions:
            bodies += [(fn, body) for fn in self.declare(body)]
        for fn, body in bodies:
            params = [i for i in body[1:] if i.opcode == OP["FunctionParameter"]]
            FunctionTranslator(self, fn, body).run(HANDLERS, params)
        return self.module

    # -- module scope ------------------------------------------------------------------
    def module_scope(self, instr: Instruction) -> None:
        if self.types.define(instr):
            return
        if define_constant(self.types, instr):
            self.value_types[instr.operand(1)] = self.types.get(instr.operand(0), instr)
            return
        if instr.opcode == OP["TypeForwardPointer"]:
            self.types.forward_pointer(instr)
        elif instr.opcode == OP["Variable"]:
            self.variable(instr)
        elif instr.opcode == OP["ExtInst"] and is_debug_set(self.info.ext_imports.get(instr.operand(2), "")):
            return  # module-scope debug information (DebugSource, DebugTypeBasic, ...)
        else:
            raise instr.error(f"{instr.name} is not allowed at module scope")

    def variable(self, instr: Instruction) -> None:
        t, rid, storage = self.types.get(instr.operand(0), instr), instr.operand(1), instr.operand(2)
        if rid in self.globals or rid in self.types.types:
            raise instr.error(f"%{rid} is defined twice")
        self.value_types[rid] = t
        builtin = self.info.decoration(rid, "BuiltIn")
        if builtin is not None:
            self.globals[rid] = builtin_ref(BUILTINS.get(builtin[0], str(builtin[0])), instr)
            return
        space = _MODULE_SPACES.get(storage)
        if space is None:
            raise instr.error(f"module-scope variables in the {STORAGE_CLASSES.get(storage, storage)} "
                              f"storage class are not supported")
        linkage = self.info.decoration(rid, "LinkageAttributes")
        if linkage is not None and linkage[-1] == LINKAGE_IMPORT:
            raise instr.error(f"variable '{self.info.names.get(rid, rid)}' is imported from another "
                              f"module: linking SPIR-V modules is not supported")
        self.types.pointee(t, instr)
        pointee = self.types.data(t.pointee_id, instr, "a variable")
        init = None
        if len(instr.operands) > 3:
            init = self.globals.get(instr.operand(3))
            if init is None:
                raise instr.error(f"initializer %{instr.operand(3)} is not a constant")
        elif space is not ir.AddressSpace.LOCAL:
            init = ConstZero(pointee.ir)
        align = (self.info.decoration(rid, "Alignment") or (self.layout.align_of(pointee.ir),))[0]
        name = self._unique_global(self.info.names.get(rid) or f"spv.{rid}")
        constant = space is ir.AddressSpace.CONSTANT or self.info.decoration(rid, "Constant") is not None
        self.globals[rid] = self.module.add_global(GlobalVar(name, pointee.ir, space, init, constant, align))

    def _unique_global(self, name: str) -> str:
        base, n = name, 1
        while self.module.get_global(name) is not None:
            name, n = f"{base}.{n}", n + 1
        return name

    # -- functions ---------------------------------------------------------------------
    def _entry_points(self) -> dict[int, EntryPoint]:
        kernels = {}
        for ep in self.info.entry_points:
            if ep.model != KERNEL_MODEL:
                raise ep.instr.error(f"execution model {EXECUTION_MODELS.get(ep.model, ep.model)} is "
                                     f"not supported (only Kernel)")
            if not (ep.name.isascii() and ep.name.isidentifier()):
                raise ep.instr.error(f"entry point name {ep.name!r} is not an OpenCL C identifier")
            if ep.function in kernels:
                raise ep.instr.error(f"function %{ep.function} is declared an entry point twice")
            kernels[ep.function] = ep
        return kernels

    def declare(self, body: list[Instruction]) -> list[Function]:
        """The IR functions of a definition: one, or for a kernel that is also called, the
        kernel and its callable twin `<name>.body`; none for an imported OpenCL C builtin."""
        head = body[0]
        ret, rid, ftype = (self.types.get(head.operand(0), head), head.operand(1),
                           self.types.get(head.operand(3), head))
        if ftype.kind != "function" or ftype.ret is None or ftype.ret.ir != ret.ir:
            raise head.error("the function's type does not match its result type")
        params = [i for i in body[1:] if i.opcode == OP["FunctionParameter"]]
        if len(params) != len(ftype.params):
            raise head.error(f"{len(params)} OpFunctionParameters for a type with {len(ftype.params)}")
        for k, (p, instr) in enumerate(zip(ftype.params, params)):
            if self.types.get(instr.operand(0), instr).ir != p.ir:
                raise instr.error(f"parameter {k} has type %{instr.operand(0)}, which is not "
                                  f"parameter {k}'s type in the function type %{head.operand(3)}")
        entry = self.kernels.get(rid)
        if not any(i.opcode == OP["Label"] for i in body):
            self.builtin_functions[rid] = self._imported_builtin(rid, head)
            return []
        made = []
        if entry is not None:
            made.append(self._kernel(entry, ftype, params, head))
        if entry is None or rid in self.called:
            args = [Argument(p.ir, self.info.names.get(i.operand(1), f"arg{k}"), k)
                    for k, (p, i) in enumerate(zip(ftype.params, params))]
            name = self._function_name(rid) if entry is None else self._unique_function(f"{entry.name}.body")
            made.append(Function(name, ir.FunctionType(ret.ir, tuple(a.type for a in args)), args))
            if entry is not None:
                self.kernel_bodies[rid] = made[-1]
        self.functions[rid] = made[0]
        for fn in made:
            self.module.add_function(fn)
        return made

    def _imported_builtin(self, rid: int, head: Instruction) -> tuple[str, bool | None]:
        linkage = self.info.decoration(rid, "LinkageAttributes")
        decoded = string_from_words(linkage, 0) if linkage else None
        name = decoded[0] if decoded else self.info.names.get(rid, f"%{rid}")
        found = demangle_builtin(name)
        if found is None:
            raise head.error(f"function '{name}' has no body (imported from another module): "
                             f"linking SPIR-V modules is not supported")
        return found

    def _function_name(self, rid: int) -> str:
        linkage = self.info.decoration(rid, "LinkageAttributes")
        name = self.info.names.get(rid) or f"spv.fn.{rid}"
        decoded = string_from_words(linkage, 0) if linkage else None
        if decoded and decoded[0]:
            name = decoded[0]
        return self._unique_function(name)

    def _unique_function(self, name: str) -> str:
        base, n = name, 1
        while self.module.get_function(name) is not None or any(ep.name == name for ep in self.info.entry_points):
            name, n = f"{base}.{n}", n + 1
        return name

    def _kernel(self, entry: EntryPoint, ftype: SpvType, params: list[Instruction],
                head: Instruction) -> Function:
        if ftype.ret is None or ftype.ret.kind != "void":
            raise head.error(f"kernel '{entry.name}' must return void")
        if self.module.get_function(entry.name) is not None:
            raise head.error(f"two kernels are named '{entry.name}'")
        args = []
        for k, (p, instr) in enumerate(zip(ftype.params, params)):
            t, by_value, attrs = kernel_arg_attrs(self.info, self.types, entry.name, k, p, instr)
            arg = Argument(t, self.info.names.get(instr.operand(1), f"arg{k}"), k, attrs)
            if by_value:
                self.by_value_args.add(id(arg))
            args.append(arg)
        fn = Function(entry.name, ir.FunctionType(ir.VOID, tuple(a.type for a in args)), args, is_kernel=True)
        for mode, ops in self.info.execution_modes.get(entry.function, []):
            if mode == 17 and len(ops) == 3:
                fn.attrs["reqd_work_group_size"] = tuple(ops)
            elif mode == 18 and len(ops) == 3:
                fn.attrs["work_group_size_hint"] = tuple(ops)
        return fn

    def callee(self, id_: int, instr: Instruction) -> Function:
        fn = self.functions.get(id_)
        if fn is None:
            raise instr.error(f"%{id_} is not a function")
        return self.kernel_bodies.get(id_, fn)

    def bind_params(self, ft: FunctionTranslator, params: list[Instruction]) -> None:
        """Bind each OpFunctionParameter to its IR argument. A by-value struct kernel argument
        gets a private copy (SPIR-V passes it as a pointer); so does a helper's ByVal pointer
        argument, whose pointee the callee owns."""
        ft.b.position_at_end(ft.fn.entry)
        for arg, instr in zip(ft.fn.args, params):
            t = self.types.get(instr.operand(0), instr)
            value: Any = arg
            if id(arg) in self.by_value_args:
                value = ft.allocas.alloca(arg.type, self.layout.align_of(arg.type), name=f"{arg.name}.copy")
                ft.b.store(arg, value)
            elif t.kind == "pointer" and _BYVAL in self.info.func_param_attrs(instr.operand(1)):
                self.types.pointee(t, instr)
                pointee = self.types.data(t.pointee_id, instr, "a ByVal parameter").ir
                value = ft.allocas.alloca(pointee, self.layout.align_of(pointee), name=f"{arg.name}.copy")
                ft.b.store(ft.b.load(pointee, arg), value)
            ft.values[instr.operand(1)] = value
            ft.vtypes[instr.operand(1)] = t


def translate(info: ModuleInfo, layout: DataLayout) -> Module:
    """The IR module of a read SPIR-V module, laid out with the target's DataLayout."""
    return ModuleTranslator(info, layout).run()
