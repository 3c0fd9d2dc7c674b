"""Symbolic operand expressions (``label``, ``sym@abs32@lo``, ``(BB2+4)-BB1``): their one form.

An operand that names a symbol cannot be encoded yet: llvm-mc emits the instruction with
a fixup for the linker/assembler backend and prints the expression back. We keep such an
expression as a small typed tree, the shape of LLVM's ``MCExpr`` (:class:`SymbolRefExpr`,
:class:`ConstantExpr`, :class:`UnaryExpr`, :class:`BinaryExpr`), print it the way
``MCExpr::print`` does (parentheses around non-trivial sub-expressions) and tell which fixup
kind it needs.

This tree is the only form an instruction's symbolic operand takes: the MC parser
(:func:`~luthier.amdgpu_dialects.mc.asm_operands.parse_symbolic_expression` and the
statement parser) produces it, a :class:`Fixup` carries it, and the ``amdgpu_mc.sym``
attribute holds it as its value, so passes read its parts (:attr:`SymExpr.reference`)
instead of re-reading text. Directive arithmetic of the assembler frontend (``.long a-b``,
``.set``), which is evaluated over the assembler's symbol table, is a different concept with
its own tree (``luthier.frontend.asm.expr.Expr``); an instruction's fixup enters that
evaluator once, when the assembler records it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass


class SymExpr(ABC):
    """An expression that names at least one symbol (a constant only as a sub-expression)."""

    __slots__ = ()

    @abstractmethod
    def text(self) -> str:
        """The expression as LLVM prints it (and parses it back)."""

    @abstractmethod
    def needs_pc_relative(self) -> bool:
        """LLVM's rule for the fixup kind: symbols are PC-relative unless ``@abs32``;
        differences are not."""

    @property
    def reference(self) -> SymbolReference | None:
        """The parts of the common ``symbol@variant+addend`` form, or None for any other
        shape (a difference of labels, a constant first...)."""
        return None


@dataclass(frozen=True, slots=True)
class SymbolRefExpr(SymExpr):
    """A symbol with an optional LLVM variant kind (``name@rel32@lo``)."""

    name: str
    #: The variant kind without the leading ``@`` (``rel32@lo``), as written; "" for none.
    variant: str = ""

    @classmethod
    def from_identifier(cls, identifier: str) -> SymbolRefExpr:
        """Split an assembly identifier (``sym@rel32@lo``) at its first ``@``, as LLVM's
        parser does."""
        name, _, variant = identifier.partition("@")
        return cls(name, variant)

    def text(self) -> str:
        return f"{self.name}@{self.variant}" if self.variant else self.name

    def needs_pc_relative(self) -> bool:
        return not f"@{self.variant}".lower().endswith(("@abs32@lo", "@abs32@hi"))

    @property
    def reference(self) -> SymbolReference:
        return SymbolReference(self.name, self.variant, 0)


@dataclass(frozen=True, slots=True)
class ConstantExpr(SymExpr):
    """An integer inside a symbolic expression (``4`` in ``sym+4``)."""

    value: int

    def text(self) -> str:
        return str(self.value)

    def needs_pc_relative(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class UnaryExpr(SymExpr):
    """``-x``, ``+x``, ``~x`` or ``!x``."""

    op: str
    operand: SymExpr

    def text(self) -> str:
        inner = self.operand.text()
        return self.op + (f"({inner})" if isinstance(self.operand, BinaryExpr) else inner)

    def needs_pc_relative(self) -> bool:
        return self.operand.needs_pc_relative()


@dataclass(frozen=True, slots=True)
class BinaryExpr(SymExpr):
    """``left op right``, ``op`` one of the assembler's binary operators."""

    op: str
    left: SymExpr
    right: SymExpr

    def text(self) -> str:
        left = _operand_text(self.left)
        if self.op == "+" and isinstance(self.right, ConstantExpr) and self.right.value < 0:
            return left + str(self.right.value)
        return left + self.op + _operand_text(self.right)

    def needs_pc_relative(self) -> bool:
        if self.op == "-":
            return False
        return self.left.needs_pc_relative() or self.right.needs_pc_relative()

    @property
    def reference(self) -> SymbolReference | None:
        if self.op not in ("+", "-") or not isinstance(self.left, SymbolRefExpr) \
                or not isinstance(self.right, ConstantExpr):
            return None
        addend = self.right.value if self.op == "+" else -self.right.value
        return SymbolReference(self.left.name, self.left.variant, addend)


def _operand_text(expr: SymExpr) -> str:
    """A binary operator's operand: parenthesised unless it is a symbol or a constant."""
    if isinstance(expr, SymbolRefExpr | ConstantExpr):
        return expr.text()
    return f"({expr.text()})"


@dataclass(frozen=True, slots=True)
class SymbolReference:
    """The parts of a ``symbol@variant+addend`` expression (see :attr:`SymExpr.reference`):
    what PC-relative address computations and relocations need."""

    symbol: str
    #: LLVM's variant kind without the leading ``@`` (``rel32@lo``, ``gotpcrel32@hi``...).
    variant: str
    addend: int

    @property
    def expr(self) -> SymExpr:
        """The expression with these parts, shaped as the MC parser reads its text
        (``sym@rel32@lo-4`` is a subtraction of 4): no addend when it is zero."""
        symbol = SymbolRefExpr(self.symbol, self.variant)
        if not self.addend:
            return symbol
        return BinaryExpr("+" if self.addend > 0 else "-", symbol, ConstantExpr(abs(self.addend)))


def lift(value: int | SymExpr) -> SymExpr:
    """An operand of a symbolic expression; a negative constant was written as a unary
    minus, and LLVM keeps (and prints) it so."""
    if isinstance(value, SymExpr):
        return value
    if value < 0:
        return UnaryExpr("-", ConstantExpr(-value))
    return ConstantExpr(value)


@dataclass(frozen=True, slots=True)
class Fixup:
    """A field left for later: ``size`` bytes at ``offset`` hold ``expr`` of ``kind``."""

    offset: int
    size: int
    expr: SymExpr
    kind: str
    #: What the printer shows for the placeholder value; replaced by the expression.
    placeholder_text: str
