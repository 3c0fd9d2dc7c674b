"""The typed symbolic operand expression: text round trip, tree shape, parts, bad input."""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.mc.asm_expr import (
    BinaryExpr,
    ConstantExpr,
    SymbolReference,
    SymbolRefExpr,
    UnaryExpr,
)
from luthier.amdgpu_dialects.mc.asm_lexer import AsmSyntaxError
from luthier.amdgpu_dialects.mc.asm_operands import parse_symbolic_expression
from luthier.amdgpu_dialects.mc.asm_parser import parser_for

CANONICAL = [
    "label",
    ".LBB0_1",
    "sym@abs32@lo",
    "counter@rel32@lo+4",
    "counter@rel32@hi+12",
    "_Z4polyfff@rel32@lo-8",
    "ext@gotpcrel32@hi",
    "(BB2+4)-BB1",
    "-(a+b)",
    "~sym",
    "-sym",
    "(a*2)+b",
    "a-(b-c)",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_text_prints_back_identically(text: str) -> None:
    assert parse_symbolic_expression(text).text() == text


def test_text_is_normalised_as_llvm_prints_it() -> None:
    assert parse_symbolic_expression("sym + 0x10").text() == "sym+16"
    assert parse_symbolic_expression("sym+(2*3)").text() == "sym+6"
    assert parse_symbolic_expression("a*2+b").text() == "(a*2)+b"


def test_the_tree_has_llvm_mcexpr_shape() -> None:
    assert parse_symbolic_expression("sym@rel32@lo+4") == BinaryExpr(
        "+", SymbolRefExpr("sym", "rel32@lo"), ConstantExpr(4))
    assert parse_symbolic_expression("(BB2+4)-BB1") == BinaryExpr(
        "-", BinaryExpr("+", SymbolRefExpr("BB2"), ConstantExpr(4)), SymbolRefExpr("BB1"))
    # A negative constant is a unary minus on a positive one, as LLVM keeps it.
    assert parse_symbolic_expression("sym+-4") == BinaryExpr(
        "+", SymbolRefExpr("sym"), UnaryExpr("-", ConstantExpr(4)))


def test_the_statement_parser_gives_the_same_tree() -> None:
    matched = parser_for("gfx90a").parse_statement("s_add_u32 s0, s0, table@rel32@lo+4")
    assert [fixup.expr for fixup in matched.fixups] == [
        parse_symbolic_expression("table@rel32@lo+4")]
    branch = parser_for("gfx90a").parse_statement("s_branch .LBB0_2")
    assert [fixup.expr for fixup in branch.fixups] == [SymbolRefExpr(".LBB0_2")]


@pytest.mark.parametrize(("text", "parts"), [
    ("label", SymbolReference("label", "", 0)),
    ("sym@abs32@hi", SymbolReference("sym", "abs32@hi", 0)),
    ("counter@rel32@lo+4", SymbolReference("counter", "rel32@lo", 4)),
    ("counter@rel32@hi-12", SymbolReference("counter", "rel32@hi", -12)),
])
def test_symbol_variant_addend_parts(text: str, parts: SymbolReference) -> None:
    expr = parse_symbolic_expression(text)
    assert expr.reference == parts
    assert parts.expr == expr
    assert parts.expr.text() == text


@pytest.mark.parametrize("text", ["(BB2+4)-BB1", "4+sym", "sym-other", "-sym", "sym+-4",
                                  "sym*2"])
def test_other_shapes_have_no_parts(text: str) -> None:
    assert parse_symbolic_expression(text).reference is None


def test_changing_the_addend_gives_the_text_llvm_writes() -> None:
    parts = parse_symbolic_expression("table@rel32@lo+4").reference
    assert parts is not None
    assert SymbolReference(parts.symbol, parts.variant, 8).expr.text() == "table@rel32@lo+8"
    assert SymbolReference(parts.symbol, parts.variant, -2).expr.text() == "table@rel32@lo-2"
    assert SymbolReference(parts.symbol, parts.variant, 0).expr.text() == "table@rel32@lo"


def test_fixup_kind_follows_llvm_rule() -> None:
    assert parse_symbolic_expression("label").needs_pc_relative()
    assert parse_symbolic_expression("sym@rel32@lo+4").needs_pc_relative()
    assert not parse_symbolic_expression("sym@abs32@lo").needs_pc_relative()
    assert not parse_symbolic_expression("sym@ABS32@HI").needs_pc_relative()
    assert not parse_symbolic_expression("a-b").needs_pc_relative()


@pytest.mark.parametrize(("text", "message"), [
    ("", "not a valid operand."),
    ("4", "expected an expression that names a symbol"),
    ("2*3+1", "expected an expression that names a symbol"),
    ("sym+", "not a valid operand."),
    ("sym)", "unexpected token"),
    ("sym sym", "unexpected token"),
    ("v0", "not a valid operand."),
    ("sym+1.5", "invalid operand for instruction"),
])
def test_invalid_text_is_rejected(text: str, message: str) -> None:
    with pytest.raises(AsmSyntaxError) as error:
        parse_symbolic_expression(text)
    assert error.value.message == message
