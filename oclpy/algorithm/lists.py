"""PyOpenCL's `ListOfListsBuilder` (re-exported by `oclpy.algorithm`): many
variable-length lists built in parallel, one list of each kind per input object.

The user's `generate(LIST_ARG_DECL USER_ARG_DECL index_type i)` calls
`APPEND_<name>(value)`; it is compiled twice:

1. the count kernel, where LIST_ARG_DECL is a private counter per list and
   APPEND increments it; object i's counts go to `counts[i]` (n + 1 entries,
   the last 0);
2. an exclusive scan turns counts into starts in place (`starts[n]` is the
   total, read back to size the lists);
3. for lists in `eliminate_empty_output_lists`, a second scan keeps the
   starts of non-empty lists and their object indices;
4. the write kernel, where LIST_ARG_DECL is the list array and a private
   position starting at the object's start, and APPEND stores and advances.

`count_sharing={child: mother}`: the child has no counts of its own; its
APPEND writes at the position of the mother's latest APPEND.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..array.core import Array, empty, zeros
from ..kernelgen.arguments import DtypedArgument, VectorArg, offset_adjuster, parse_arg_list
from ..kernelgen.dtypes import kernel_ctype
from ..kernelgen.launch import kernel_arg_values
from ..kernelgen.programs import build_kernel
from ..scan import GenericScanKernel

_KERNEL = """{preamble}
typedef {index} index_type;
#define USER_ARG_DECL {user_decl}
#define USER_ARGS {user_args}
#define LIST_ARG_DECL {list_decl}
#define LIST_ARGS {list_args}
{appends}
{generate}

__kernel void {name}({kernel_decl}long oclpy_n)
{{
  long oclpy_i = get_global_id(0);
  if (oclpy_i >= oclpy_n) return;
{adjust}
{setup}
  generate(LIST_ARGS USER_ARGS (index_type) oclpy_i);
{finish}
}}
"""


@dataclass
class BuiltList:
    """One built kind of list: `lists[starts[k]:starts[k+1]]` is list k."""

    count: int | None
    starts: Any
    lists: Any = None
    num_nonempty_lists: Any = None
    nonempty_indices: Any = None
    compressed_indices: Any = None


class ListOfListsBuilder:
    """PyOpenCL's ListOfListsBuilder: `builder(queue, n_objects, *args, allocator=None,
    omit_lists=None, wait_for=None)` -> ({name: BuiltList}, event)."""

    def __init__(self, context: Any, list_names_and_dtypes: Sequence[tuple[str, Any]],
                 generate_template: str, arg_decls: Any, count_sharing: dict[str, str] | None = None,
                 devices: Any = None, name_prefix: str = "plb_build_list", options: Any = None,
                 preamble: str = "", debug: bool = False, complex_kernel: bool = False,
                 eliminate_empty_output_lists: Sequence[str] | bool = False) -> None:
        self.context = context
        self.lists = [(name, np.dtype(dtype)) for name, dtype in list_names_and_dtypes]
        names = [name for name, _ in self.lists]
        self.generate_template, self.preamble = generate_template, preamble
        self.name_prefix, self.options = name_prefix, options
        self.arg_decls: list[DtypedArgument] = parse_arg_list(arg_decls)
        self.count_sharing = dict(count_sharing or {})
        for child, mother in self.count_sharing.items():
            if child not in names or mother not in names or mother in self.count_sharing:
                raise ValueError(f"invalid count_sharing entry '{child}': '{mother}'")
        if eliminate_empty_output_lists is True:
            eliminate_empty_output_lists = names
        self.eliminate = tuple(eliminate_empty_output_lists or ())
        for name in self.eliminate:
            if name not in names:
                raise ValueError(f"invalid list name '{name}' in eliminate_empty_output_lists")
        self._built: dict[tuple, Any] = {}

    # -- code generation ----------------------------------------------------------------

    def _user(self) -> tuple[str, str]:
        plain = [VectorArg(a.dtype, a.name, False, a.address_space, a.const) if isinstance(a, VectorArg)
                 else a for a in self.arg_decls]
        return "".join(a.declarator() + ", " for a in plain), "".join(a.name + ", " for a in plain)

    def _appends(self, stage: str, omitted: frozenset[str]) -> tuple[str, str, str]:
        """(LIST_ARG_DECL, LIST_ARGS, APPEND macros) of the count or write stage."""
        decl, args, macros = [], [], []
        for name, dtype in self.lists:
            mother = self.count_sharing.get(name)
            if name in omitted:
                macros.append(f"#define APPEND_{name}(value) do {{ }} while (0)")
            elif stage == "count":
                if mother is None:
                    decl.append(f"__private index_type *plg_count_{name}")
                    args.append(f"&plg_count_{name}")
                    macros.append(f"#define APPEND_{name}(value) do {{ ++*plg_count_{name}; }} while (0)")
                else:
                    macros.append(f"#define APPEND_{name}(value) do {{ }} while (0)")
            else:
                decl.append(f"__global {kernel_ctype(dtype)} *plg_list_{name}")
                args.append(f"plg_list_{name}")
                if mother is None:
                    decl.append(f"__private index_type *plg_pos_{name}")
                    args.append(f"&plg_pos_{name}")
                    macros.append(f"#define APPEND_{name}(value) do {{ "
                                  f"plg_list_{name}[(*plg_pos_{name})++] = (value); }} while (0)")
                else:
                    macros.append(f"#define APPEND_{name}(value) do {{ "
                                  f"plg_list_{name}[*plg_pos_{mother} - 1] = (value); }} while (0)")
        return "".join(d + ", " for d in decl), "".join(a + ", " for a in args), "\n".join(macros)

    def _stage_io(self, stage: str, omitted: frozenset[str]) -> tuple[str, str, str]:
        """(extra kernel parameters, setup statements, finishing statements)."""
        params, setup, finish = [], [], []
        for name, dtype in self.lists:
            if name in omitted or (stage == "count" and name in self.count_sharing):
                continue
            if stage == "count":
                params.append(f"__global index_type *oclpy_counts_{name}")
                setup.append(f"  index_type plg_count_{name} = 0;")
                finish.append(f"  oclpy_counts_{name}[oclpy_i] = plg_count_{name};")
            else:
                params.append(f"__global {kernel_ctype(dtype)} *plg_list_{name}")
                if name not in self.count_sharing:
                    params.append(f"__global const index_type *oclpy_starts_{name}")
                    setup.append(f"  index_type plg_pos_{name} = oclpy_starts_{name}[oclpy_i];")
        return "".join(p + ", " for p in params), "\n".join(setup), "\n".join(finish)

    def _kernel(self, stage: str, index: np.dtype, omitted: frozenset[str]) -> Any:
        key = (stage, index, omitted)
        if key not in self._built:
            user_decl, user_args = self._user()
            list_decl, list_args, appends = self._appends(stage, omitted)
            params, setup, finish = self._stage_io(stage, omitted)
            name = f"{self.name_prefix}_{stage}"
            source = _KERNEL.format(
                preamble=self.preamble, index=kernel_ctype(index), user_decl=user_decl, user_args=user_args,
                list_decl=list_decl, list_args=list_args, appends=appends, generate=self.generate_template,
                name=name, kernel_decl="".join(a.declarator() + ", " for a in self.arg_decls) + params,
                adjust=offset_adjuster(self.arg_decls), setup=setup, finish=finish)
            if any(a.dtype == np.float64 for a in self.arg_decls) or "double" in source:
                source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + source
            self._built[key] = build_kernel(self.context, source, name, self.options)
        return self._built[key]

    def _scans(self, index: np.dtype) -> tuple[GenericScanKernel, GenericScanKernel]:
        key = ("scans", index)
        if key not in self._built:
            c = kernel_ctype(index)
            starts = GenericScanKernel(self.context, index, f"{c} *counts", "counts[i]", "a+b", "0",
                                       "counts[i] = prev_item;", name_prefix="oclpy_plb_starts")
            compress = GenericScanKernel(
                self.context, index,
                f"{c} *starts, {c} *nonempty_starts, {c} *nonempty_indices, {c} *compressed_indices, "
                f"{c} *num_nonempty",
                "(i < N - 1 && starts[i + 1] > starts[i]) ? 1 : 0", "a+b", "0",
                "if (prev_item != item) { nonempty_indices[item - 1] = i; nonempty_starts[item - 1] = starts[i]; }"
                " compressed_indices[i] = prev_item;"
                " if (i + 1 == N) { nonempty_starts[item] = starts[i]; *num_nonempty = item; }",
                name_prefix="oclpy_plb_compress")
            self._built[key] = (starts, compress)
        return self._built[key]

    # -- launching ----------------------------------------------------------------------

    def __call__(self, queue: Any, n_objects: int, *args: Any, allocator: Any = None,
                 omit_lists: Sequence[str] | None = None, wait_for: Any = None,
                 **kwargs: Any) -> tuple[dict[str, BuiltList], Any]:
        if kwargs:
            raise TypeError(f"invalid keyword arguments: {', '.join(sorted(kwargs))}")
        names = [name for name, _ in self.lists]
        omitted = frozenset(omit_lists or ())
        for name in omitted:
            if name not in names:
                raise ValueError(f"invalid list name '{name}' in omit_lists")
        if len(args) != len(self.arg_decls):
            raise TypeError(f"ListOfListsBuilder: expected {len(self.arg_decls)} arguments, got {len(args)}")
        for k, (decl, value) in enumerate(zip(self.arg_decls, args)):
            if isinstance(decl, VectorArg) and isinstance(value, Array) and value.ndim != 1:
                raise ValueError(f"argument {k} is a multidimensional array")
            if isinstance(decl, VectorArg) and decl.with_offset and not isinstance(value, Array):
                raise ValueError(f"with_offset=True specified for argument {k} but the argument is not an array")
        index = np.dtype(np.int64 if n_objects >= np.iinfo(np.int32).max else np.int32)
        waits = [*(wait_for or []), *(e for v in args if isinstance(v, Array) for e in v.events)]
        user = kernel_arg_values(self.arg_decls, args)
        counted = [n for n in names if n not in omitted and n not in self.count_sharing]
        counts = {n: zeros(queue, (n_objects + 1,), index) for n in counted}
        launch = (max(n_objects, 1),)
        evt = self._kernel("count", index, omitted)(
            queue, launch, None, *user, *(counts[n].base_data for n in counted), np.int64(n_objects),
            wait_for=[*waits, *(e for c in counts.values() for e in c.events)] or None)
        starts_scan, compress = self._scans(index)
        result: dict[str, BuiltList] = {}
        for name in counted:
            evt = starts_scan(counts[name], queue=queue, wait_for=[evt])
            total = int(counts[name][n_objects:].get()[0])
            result[name] = BuiltList(count=total, starts=counts[name],
                                     lists=empty(queue, (total,), dict(self.lists)[name]))
            if name in self.eliminate:
                self._compress(queue, compress, result[name], n_objects, index)
        for child, mother in self.count_sharing.items():
            if child not in omitted and mother in result:
                m = result[mother]
                result[child] = BuiltList(count=m.count, starts=m.starts,
                                          lists=empty(queue, (m.count,), dict(self.lists)[child]))
        write_args = []
        for name in names:
            if name in omitted:
                continue
            write_args.append(result[name].lists.base_data)
            if name not in self.count_sharing:
                write_args.append(counts[name].base_data)
        evt = self._kernel("write", index, omitted)(queue, launch, None, *user, *write_args,
                                                    np.int64(n_objects), wait_for=[evt])
        return result, evt

    def _compress(self, queue: Any, compress: GenericScanKernel, built: BuiltList, n: int,
                  index: np.dtype) -> None:
        """Fill `built`'s non-empty list fields from its full starts; its starts become
        those of the non-empty lists."""
        nonempty_starts = empty(queue, (n + 1,), index)
        nonempty_indices = empty(queue, (max(n, 1),), index)
        compressed = empty(queue, (n + 1,), index)
        num = empty(queue, (), index)
        compress(built.starts, nonempty_starts, nonempty_indices, compressed, num, queue=queue, size=n + 1)
        k = int(num.get())
        built.num_nonempty_lists = num
        built.nonempty_indices = nonempty_indices[:k]
        built.compressed_indices = compressed
        built.starts = nonempty_starts[:k + 1]  # the write kernel reads the full starts, not these
