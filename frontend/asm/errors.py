"""The one exception the assembler raises, printed the way llvm-mc prints a diagnostic."""

from __future__ import annotations

from luthier.amdgpu_dialects.errors import LuthierError


class AsmError(LuthierError):
    """A statement the assembler rejects; ``str()`` is ``file:line:col: error: message``.

    ``line`` and ``column`` are 1-based, as in llvm-mc's diagnostics, so that an editor or a
    diff against llvm-mc's output points at the same place.
    """

    def __init__(self, filename: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{filename}:{line}:{column}: error: {message}")
        self.filename = filename
        self.line = line
        self.column = column
        self.message = message


class StatementError(Exception):
    """Raised inside a statement's handler; the driver adds the file and line.

    ``column`` is 0-based within the line, or ``None`` for "the start of the statement";
    ``line`` is set when the error belongs to another line than the one being read (a fixup
    resolved at the end, a line inside a block).
    """

    def __init__(self, message: str, column: int | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.line = line
