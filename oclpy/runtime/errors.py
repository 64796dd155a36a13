"""The host API's exceptions, named and shaped like PyOpenCL's.

Every failure of a host call carries an `_ErrorRecord` (routine, OpenCL status
code, message) and is raised as the class PyOpenCL would pick for that code:

- `MemoryError` for MEM_OBJECT_ALLOCATION_FAILURE,
- `LogicError` for codes <= INVALID_VALUE (-30): the caller did something wrong,
- `RuntimeError` for the other negative codes: the call failed at run time,
- `Error` otherwise (and the base of all three).

`str(err)` reads like PyOpenCL's: "clSetKernelArg failed: INVALID_ARG_SIZE - message".
`raise_cl(routine, code, what)` is the one way the runtime raises them.
"""

from __future__ import annotations

from typing import Any, NoReturn

from .constants import status_code


class _ErrorRecord:
    """What went wrong: the routine, the OpenCL status code and a message."""

    def __init__(self, msg: str = "", code: int = 0, routine: str = "") -> None:
        self._msg = msg
        self._code = code
        self._routine = routine

    def routine(self) -> str:
        return self._routine

    def code(self) -> int:
        return self._code

    def what(self) -> str:
        return self._msg

    def is_out_of_memory(self) -> bool:
        return self._code in (status_code.MEM_OBJECT_ALLOCATION_FAILURE,
                              status_code.OUT_OF_RESOURCES, status_code.OUT_OF_HOST_MEMORY)

    def __str__(self) -> str:
        return self._msg

    def __repr__(self) -> str:
        return f"_ErrorRecord(routine={self._routine!r}, code={self._code}, msg={self._msg!r})"


class Error(Exception):
    """Base of the host API's errors; `.code`, `.routine`, `.what` as in PyOpenCL."""

    def __init__(self, *args: object) -> None:
        if len(args) == 1 and isinstance(args[0], str):
            args = (_ErrorRecord(args[0]),)
        elif len(args) in (2, 3) and isinstance(args[0], str) and isinstance(args[1], int):
            # PyOpenCL's older (routine, code[, msg]) form
            msg = str(args[2]) if len(args) == 3 else ""
            args = (_ErrorRecord(msg, args[1], args[0]),)
        super().__init__(*args)

    @property
    def _record(self) -> _ErrorRecord:
        rec = self.args[0] if self.args else None
        return rec if isinstance(rec, _ErrorRecord) else _ErrorRecord(str(rec or ""))

    @property
    def code(self) -> int:
        return self._record.code()

    @property
    def routine(self) -> str:
        return self._record.routine()

    @property
    def what(self) -> _ErrorRecord:
        return self._record

    def is_out_of_memory(self) -> bool:
        return self._record.is_out_of_memory()

    def __str__(self) -> str:
        rec = self._record
        result = ""
        if rec.code() != status_code.SUCCESS:
            result = status_code.to_string(rec.code(), "<unknown error %d>")
        if rec.routine():
            result = f"{rec.routine()} failed: {result}"
        if rec.what():
            result = f"{result} - {rec.what()}" if result else rec.what()
        return result


class MemoryError(Error):  # noqa: A001 - PyOpenCL's name
    pass


class LogicError(Error):
    pass


class RuntimeError(Error):  # noqa: A001 - PyOpenCL's name
    pass


class KernelNameError(LogicError, AttributeError):
    """`prg.nosuchkernel`: a LogicError (INVALID_KERNEL_NAME) that `hasattr` also understands."""


def error_class(code: int) -> type[Error]:
    """The class PyOpenCL raises for a status code."""
    if code == status_code.MEM_OBJECT_ALLOCATION_FAILURE:
        return MemoryError
    if code <= status_code.INVALID_VALUE:
        return LogicError
    if code < status_code.SUCCESS:
        return RuntimeError
    return Error


def make_error(routine: str, code: int, what: str = "", cls: type[Error] | None = None) -> Error:
    return (cls or error_class(code))(_ErrorRecord(what, code, routine))


def raise_cl(routine: str, code: int, what: str = "") -> NoReturn:
    """Raise the error PyOpenCL would raise for `code` in `routine`."""
    raise make_error(routine, code, what)


def as_list(value: Any, routine: str, code: int, what: str) -> list[Any]:
    """`value` (any iterable, None meaning empty) as a list, or the OpenCL error `code`."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)):
        raise_cl(routine, code, f"{what} must be a sequence, got {type(value).__name__}")
    try:
        return list(value)
    except TypeError:
        raise_cl(routine, code, f"{what} must be a sequence, got {type(value).__name__}")
