"""Symbolic operand expressions (``label``, ``sym@abs32@lo``, ``(BB2+4)-BB1``).

An operand that names a symbol cannot be encoded yet: llvm-mc emits the instruction with
a fixup for the linker/assembler backend and prints the expression back. We keep such an
expression as a small tree, print it the way LLVM's ``MCExpr::print`` does (parentheses
around non-trivial sub-expressions) and tell which fixup kind it needs.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SymExpr:
    """``op`` is ``sym`` (``name``), ``const`` (``value``), a unary (``-``, ``~``, ``!``,
    ``+`` with ``left``) or a binary operator (``left`` ``op`` ``right``)."""

    op: str
    name: str = ""
    value: int = 0
    left: SymExpr | None = None
    right: SymExpr | None = None

    @property
    def is_leaf(self) -> bool:
        return self.op in ("sym", "const")

    def text(self) -> str:
        if self.op == "sym":
            return self.name
        if self.op == "const":
            return str(self.value)
        if self.right is None:
            assert self.left is not None
            inner = self.left.text()
            binary = not self.left.is_leaf and self.left.right is not None
            return self.op + (f"({inner})" if binary else inner)
        assert self.left is not None
        left = self.left.text() if self.left.is_leaf else f"({self.left.text()})"
        if self.op == "+" and self.right.op == "const" and self.right.value < 0:
            return left + str(self.right.value)
        right = self.right.text() if self.right.is_leaf else f"({self.right.text()})"
        return left + self.op + right

    def needs_pc_relative(self) -> bool:
        """LLVM's rule: symbols are PC-relative unless ``@abs32``; differences are not."""
        if self.op == "sym":
            return not self.name.lower().endswith(("@abs32@lo", "@abs32@hi"))
        if self.op == "const":
            return False
        if self.right is None:
            assert self.left is not None
            return self.left.needs_pc_relative()
        if self.op == "-":
            return False
        assert self.left is not None
        return self.left.needs_pc_relative() or self.right.needs_pc_relative()


def lift(value: int | SymExpr) -> SymExpr:
    """An operand of a symbolic expression; a negative constant was written as a unary
    minus, and LLVM keeps (and prints) it so."""
    if isinstance(value, SymExpr):
        return value
    if value < 0:
        return SymExpr("-", left=SymExpr("const", value=-value))
    return SymExpr("const", value=value)


@dataclass(frozen=True, slots=True)
class Fixup:
    """A field left for later: ``size`` bytes at ``offset`` hold ``expr`` of ``kind``."""

    offset: int
    size: int
    expr: SymExpr
    kind: str
    #: What the printer shows for the placeholder value; replaced by the expression.
    placeholder_text: str
