"""Tokens of one AMDGPU assembly statement.

llvm-mc's generic lexer splits a statement into identifiers, integers, reals and
punctuation; the AMDGPU parser then reads operands token by token. We keep the same shape
(a flat token list with columns) so that diagnostics can point where llvm-mc points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class AsmSyntaxError(Exception):
    """A statement that cannot be read; carries llvm-mc's message and 0-based column."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True, slots=True)
class Token:
    """One token: ``kind`` is ``ident``, ``int``, ``real``, ``string``, ``punct`` or ``end``."""

    kind: str
    text: str
    column: int
    value: int | float = 0


_TOKEN = re.compile(r"""
    (?P<space>[ \t]+)
  | (?P<real>(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)
  | (?P<int>0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)
  | (?P<ident>[A-Za-z_.$][\w.$@]*)
  | (?P<string>"[^"]*")
  | (?P<punct><<|>>|&&|\|\||==|!=|<=|>=|[-+*/%&|^~!(),:\[\]<>=@{}])
""", re.VERBOSE)


def _int_value(text: str) -> int:
    lower = text.lower()
    if lower.startswith("0x"):
        return int(lower[2:], 16)
    if lower.startswith("0b"):
        return int(lower[2:], 2)
    if len(text) > 1 and text.startswith("0"):
        return int(text, 8)
    return int(text)


def tokenize(text: str, base_column: int = 0) -> list[Token]:
    """Split ``text`` into tokens; the list ends with an ``end`` token."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise AsmSyntaxError("unexpected token", base_column + pos)
        kind = match.lastgroup or ""
        piece = match.group()
        column = base_column + pos
        pos = match.end()
        if kind == "space":
            continue
        if kind == "int":
            try:
                tokens.append(Token("int", piece, column, _int_value(piece)))
            except ValueError:
                raise AsmSyntaxError("invalid decimal number", column) from None
        elif kind == "real":
            tokens.append(Token("real", piece, column, float(piece)))
        else:
            tokens.append(Token(kind, piece, column))
    tokens.append(Token("end", "", base_column + len(text)))
    return tokens
