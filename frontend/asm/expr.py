"""Expressions of directives, and their value once labels are known.

This is the assembler's arithmetic over its own symbol table (``.long .Lend-foo``,
``.set n, 4*k``, ``.p2align 8``): every node keeps its column for diagnostics, and
:class:`Evaluator` folds it to a linear value. An instruction's symbolic operand is not
written in this form: the MC layer parses it into its typed tree
(``luthier.amdgpu_dialects.mc.asm_expr.SymExpr``, what ``#amdgpu_mc.sym`` holds), and the
assembler converts that tree into an :class:`Expr` only when it records the instruction's
fixup for evaluation.

An expression is parsed into a small tree as soon as its statement is read, and evaluated
when the values it needs exist: immediately for operands that must be absolute
(``.p2align 8``, ``.amdhsa_next_free_vgpr 4``), at the end for data and fixups that may name
labels defined later. Evaluation gives a *linear* value, ``constant + sum(coeff * symbol)``,
which is what an assembler can express: differences of labels in one section fold into
constants (``.Lfunc_end0-foo``), a lone symbol (plus constant) becomes a relocation.
Operator precedence is the one LLVM uses for ELF targets (``|``/``&``/``^`` bind tighter than
``+``/``-``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from luthier.frontend.asm.errors import StatementError

_TOKEN = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)"
    r"|(?P<char>'(?:\\.|[^'\\])')"
    r"|(?P<sym>[A-Za-z_.$][\w.$]*(?:@[A-Za-z0-9_]+)*)"
    r"|(?P<op><<|>>|==|!=|<>|<=|>=|&&|\|\||[-+*/%&|^~!<>()]))"
)

#: Binary operators by precedence level, lowest first (LLVM's GNU-style table).
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("==", "!=", "<>", "<", "<=", ">", ">="),
    ("+", "-"),
    ("|", "&", "^", "!"),
    ("*", "/", "%", "<<", ">>"),
)
_MASK64 = (1 << 64) - 1


@dataclass(frozen=True)
class Expr:
    """``num`` (``value``), ``sym`` (``name`` and ``variant``, like ``rel32@lo``), a unary
    operator (``left``) or a binary operator (``left`` and ``right``); ``column`` is where it
    starts, for diagnostics."""

    op: str
    column: int
    value: int = 0
    name: str = ""
    variant: str = ""
    left: Expr | None = None
    right: Expr | None = None

    def symbols(self) -> list[str]:
        """Every symbol name the expression mentions, in order."""
        if self.op == "sym":
            return [self.name]
        found: list[str] = []
        for child in (self.left, self.right):
            if child is not None:
                found += child.symbols()
        return found


def parse_expr(text: str, column: int, dot: Callable[[], str]) -> Expr:
    """Parse all of ``text`` as one expression; ``dot()`` names a label at the current
    location, called when the expression uses ``.``."""
    parser = _Parser(text, column, dot)
    expr = parser.binary(0)
    if parser.peek() is not None:
        raise StatementError("unexpected token", parser.column_of_next())
    return expr


class _Parser:
    def __init__(self, text: str, column: int, dot: Callable[[], str]) -> None:
        self.text = text
        self.base = column
        self.dot = dot
        self.tokens: list[tuple[str, str, int]] = []
        position = 0
        while position < len(text):
            if not text[position:].strip():
                break
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                where = position + len(text[position:]) - len(text[position:].lstrip())
                raise StatementError("unexpected token in expression", column + where)
            kind = match.lastgroup
            assert kind is not None
            self.tokens.append((kind, match.group(kind), column + match.start(kind)))
            position = match.end()
        self.index = 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def column_of_next(self) -> int:
        token = self.peek()
        return token[2] if token is not None else self.base + len(self.text)

    def binary(self, level: int) -> Expr:
        if level == len(_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while (
            (token := self.peek()) is not None and token[0] == "op" and token[1] in _LEVELS[level]
        ):
            self.index += 1
            right = self.binary(level + 1)
            left = Expr(token[1], left.column, left=left, right=right)
        return left

    def unary(self) -> Expr:
        token = self.peek()
        if token is None:
            raise StatementError("unknown token in expression", self.column_of_next())
        kind, text, column = token
        self.index += 1
        if kind == "op" and text in ("-", "+", "~", "!"):
            return Expr(text, column, left=self.unary())
        if kind == "op" and text == "(":
            inner = self.binary(0)
            closing = self.peek()
            if closing is None or closing[1] != ")":
                raise StatementError(
                    "expected ')' in parentheses expression", self.column_of_next()
                )
            self.index += 1
            return inner
        if kind == "num":
            return Expr("num", column, value=_number(text))
        if kind == "char":
            body = text[1:-1]
            return Expr("num", column, value=ord(body[-1]) if body.startswith("\\") else ord(body))
        if kind == "sym":
            name, _, variant = text.partition("@")
            if name == ".":
                name = self.dot()
            return Expr("sym", column, name=name, variant=variant.lower())
        raise StatementError("unknown token in expression", column)


def _number(text: str) -> int:
    lower = text.lower()
    if lower.startswith("0x"):
        return int(lower, 16)
    if lower.startswith("0b"):
        return int(lower[2:], 2)
    if len(lower) > 1 and lower.startswith("0"):
        try:
            return int(lower, 8)
        except ValueError:
            raise StatementError(f"invalid octal number '{text}'") from None
    return int(lower)


# --- evaluation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Definition:
    """What a symbol is when an expression is evaluated: a label (``section``, ``offset``), a
    variable set with ``.set`` (``variable``), or undefined (neither)."""

    section: str | None = None
    offset: int = 0
    variable: Expr | None = None


#: A symbol term: (name, variant).
Term = tuple[str, str]


@dataclass
class Linear:
    """``constant + sum(coeff * term)``; ``sections`` knows the section of defined terms."""

    constant: int = 0
    terms: dict[Term, int] = field(default_factory=lambda: dict[Term, int]())

    @property
    def is_absolute(self) -> bool:
        return not self.terms


class Evaluator:
    """Evaluates expressions against the symbol definitions known at the time of the call."""

    def __init__(self, lookup: Callable[[str], Definition]) -> None:
        self.lookup = lookup
        self._expanding: set[str] = set()

    def absolute(self, expr: Expr) -> int:
        """The value of an expression that must not depend on any relocatable symbol."""
        value = self.evaluate(expr)
        if not value.is_absolute:
            raise StatementError("expected absolute expression", expr.column)
        return value.constant

    def evaluate(self, expr: Expr) -> Linear:
        value = self._evaluate(expr)
        self._fold(value)
        return value

    def _evaluate(self, expr: Expr) -> Linear:
        if expr.op == "num":
            return Linear(expr.value)
        if expr.op == "sym":
            return self._symbol(expr)
        assert expr.left is not None
        left = self.evaluate(expr.left)
        if expr.right is None:
            if expr.op == "+":
                return left
            if expr.op == "-":
                return _scale(left, -1)
            return Linear(
                self._require(
                    left, expr.left, ~left.constant if expr.op == "~" else int(not left.constant)
                )
            )
        right = self.evaluate(expr.right)
        if expr.op == "+":
            return _add(left, right)
        if expr.op == "-":
            return _add(left, _scale(right, -1))
        if expr.op == "*" and (left.is_absolute or right.is_absolute):
            return (
                _scale(right, left.constant) if left.is_absolute else _scale(left, right.constant)
            )
        self._require(left, expr.left, 0)
        self._require(right, expr.right, 0)
        return Linear(_binary(expr, left.constant, right.constant))

    @staticmethod
    def _require(value: Linear, expr: Expr, result: int) -> int:
        if not value.is_absolute:
            raise StatementError("expected absolute expression", expr.column)
        return result

    def _symbol(self, expr: Expr) -> Linear:
        definition = self.lookup(expr.name)
        if definition.variable is not None and not expr.variant:
            if expr.name in self._expanding:
                raise StatementError(
                    f"cyclic dependency detected for symbol '{expr.name}'", expr.column
                )
            self._expanding.add(expr.name)
            try:
                return self.evaluate(definition.variable)
            finally:
                self._expanding.discard(expr.name)
        return Linear(0, {(expr.name, expr.variant): 1})

    def _fold(self, value: Linear) -> None:
        """Fold terms whose coefficients cancel within one section into the constant."""
        by_section: dict[str, list[tuple[Term, int, int]]] = {}
        for term, coeff in value.terms.items():
            definition = self.lookup(term[0])
            if term[1] or definition.section is None or definition.variable is not None:
                continue
            by_section.setdefault(definition.section, []).append((term, coeff, definition.offset))
        for members in by_section.values():
            if sum(coeff for _, coeff, _ in members) != 0:
                continue
            for term, coeff, offset in members:
                value.constant += coeff * offset
                del value.terms[term]


def _add(left: Linear, right: Linear) -> Linear:
    terms = dict(left.terms)
    for term, coeff in right.terms.items():
        terms[term] = terms.get(term, 0) + coeff
        if terms[term] == 0:
            del terms[term]
    return Linear(left.constant + right.constant, terms)


def _scale(value: Linear, factor: int) -> Linear:
    if factor == 0:
        return Linear(0)
    return Linear(value.constant * factor, {t: c * factor for t, c in value.terms.items()})


def _signed(value: int) -> int:
    value &= _MASK64
    return value - (1 << 64) if value >> 63 else value


def _binary(expr: Expr, a: int, b: int) -> int:
    op = expr.op
    if op in ("/", "%"):
        if b == 0:
            raise StatementError("division by zero", expr.column)
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return quotient if op == "/" else a - quotient * b
    results: dict[str, Callable[[], int]] = {
        "*": lambda: a * b,
        "<<": lambda: _signed(a << (b & 63)),
        ">>": lambda: a >> (b & 63),
        "&": lambda: a & b,
        "|": lambda: a | b,
        "^": lambda: a ^ b,
        "!": lambda: a | ~b,
        "&&": lambda: int(bool(a) and bool(b)),
        "||": lambda: int(bool(a) or bool(b)),
        "==": lambda: -int(a == b),
        "!=": lambda: -int(a != b),
        "<>": lambda: -int(a != b),
        "<": lambda: -int(a < b),
        "<=": lambda: -int(a <= b),
        ">": lambda: -int(a > b),
        ">=": lambda: -int(a >= b),
    }
    return _signed(results[op]())
