"""Lines of assembly text as statements: comments removed, labels split off, operands split.

AMDGPU assembly (what clang -S writes) has one statement per line: ``;`` and ``//`` start a
comment anywhere outside a string, ``#`` one at the start of a line. A line may begin with
labels (``name:``). Columns are kept 0-based through all of this so that diagnostics can point
where llvm-mc would.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from luthier.amdgpu_dialects.mc.asm_text import strip_comment
from luthier.frontend.asm.errors import StatementError

#: A label at the start of a line: an identifier then a colon (``::`` is not a label).
_LABEL = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*:(?!:)")
#: A symbol name as the assembler's lexer reads it.
SYMBOL = re.compile(r"[A-Za-z_.$][\w.$]*")

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class Line:
    """One source line: its labels (name, 0-based column) and the statement after them."""

    number: int
    raw: str
    labels: tuple[tuple[str, int], ...]
    #: The statement text (comment removed, trailing blanks removed); may be empty.
    text: str
    #: 0-based column of ``text`` in the line.
    column: int


def split_lines(text: str) -> Iterator[Line]:
    """Every line of ``text`` with its labels and statement (blank statements included, so
    that block directives can read raw lines)."""
    for number, raw in enumerate(text.splitlines(), start=1):
        yield split_line(number, raw)


def split_line(number: int, raw: str) -> Line:
    line = strip_comment(raw).rstrip()
    labels: list[tuple[str, int]] = []
    column = 0
    while (match := _LABEL.match(line, column)) is not None:
        labels.append((match.group(1), match.start(1)))
        column = match.end()
    rest = line[column:]
    stripped = rest.lstrip()
    return Line(number, raw, tuple(labels), stripped, column + len(rest) - len(stripped))


def split_args(text: str, column: int) -> list[tuple[str, int]]:
    """Split directive operands at top-level commas: ``[(text, column), ...]``.

    Commas inside strings or parentheses do not split. An empty operand list gives ``[]``.
    """
    if not text.strip():
        return []
    parts: list[tuple[str, int]] = []
    depth = 0
    in_string = False
    start = 0
    index = 0
    while index < len(text):
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(_trimmed(text, start, index, column))
            start = index + 1
        index += 1
    parts.append(_trimmed(text, start, len(text), column))
    return parts


def _trimmed(text: str, start: int, end: int, column: int) -> tuple[str, int]:
    piece = text[start:end]
    stripped = piece.lstrip()
    return stripped.rstrip(), column + start + len(piece) - len(stripped)


def parse_string(text: str, column: int) -> bytes:
    """A double-quoted string with C escapes (``\\n``, ``\\x41``, ``\\101``) as bytes."""
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise StatementError("expected string", column)
    out = bytearray()
    body = text[1:-1]
    index = 0
    while index < len(body):
        char = body[index]
        index += 1
        if char == '"':
            raise StatementError("unexpected token in string", column + index)
        if char != "\\":
            out += char.encode()
            continue
        if index >= len(body):
            raise StatementError("invalid escape sequence (unrecognized character)", column)
        esc = body[index]
        index += 1
        if esc in _ESCAPES:
            out += _ESCAPES[esc].encode()
        elif esc in "xX":
            digits = re.match(r"[0-9a-fA-F]+", body[index:])
            if digits is None:
                raise StatementError("invalid hexadecimal escape sequence", column + index)
            out.append(int(digits.group(0), 16) & 0xFF)
            index += len(digits.group(0))
        elif esc in "01234567":
            digits = re.match(r"[0-7]{1,3}", body[index - 1 :])
            assert digits is not None
            out.append(int(digits.group(0), 8) & 0xFF)
            index += len(digits.group(0)) - 1
        else:
            raise StatementError("invalid escape sequence (unrecognized character)", column)
    return bytes(out)
