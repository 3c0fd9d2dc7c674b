"""``#amdgpu_mc.sym`` holds the MC layer's typed expression: read once from IR text (generic
attribute or instruction syntax), printed back identically, its parts read from the tree."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.mc.asm_expr import (
    BinaryExpr,
    ConstantExpr,
    SymbolReference,
    SymbolRefExpr,
)


def _context() -> Context:
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    return context


def _printed(attr: SymbolOperandAttr) -> str:
    stream = StringIO()
    Printer(stream=stream).print_attribute(attr)
    return stream.getvalue()


@pytest.mark.parametrize("text", ["table@rel32@lo+4", "(BB2+4)-BB1", "ext@gotpcrel32@hi",
                                  ".LBB0_3"])
def test_generic_form_round_trips(text: str) -> None:
    written = f'#amdgpu_mc.sym<"{text}">'
    attr = Parser(_context(), written).parse_attribute()
    assert isinstance(attr, SymbolOperandAttr)
    assert attr.data.text() == text
    assert _printed(attr) == written


def test_the_parameter_is_the_typed_tree() -> None:
    attr = Parser(_context(), '#amdgpu_mc.sym<"table@rel32@hi+12">').parse_attribute()
    assert isinstance(attr, SymbolOperandAttr)
    assert attr.data == BinaryExpr("+", SymbolRefExpr("table", "rel32@hi"), ConstantExpr(12))
    assert attr.data.reference == SymbolReference("table", "rel32@hi", 12)
    assert attr == SymbolOperandAttr(SymbolReference("table", "rel32@hi", 12).expr)


@pytest.mark.parametrize(("text", "message"), [
    ("42", "'42' is not a symbolic operand: expected an expression that names a symbol"),
    ("sym+", "'sym+' is not a symbolic operand: not a valid operand."),
])
def test_invalid_generic_form_is_a_parse_error(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)):
        Parser(_context(), f'#amdgpu_mc.sym<"{text}">').parse_attribute()


def test_instruction_syntax_holds_the_same_tree_and_prints_it_back() -> None:
    lines = ["amdgpu_mc.s_add_u32 s0, s0, hits@rel32@lo+4",
             "amdgpu_mc.s_addc_u32 s1, s1, hits@rel32@hi+12"]
    body = "\n".join(f"    {line}" for line in lines)
    text = ('amdgpu_mc.code_object "amdgcn-amd-amdhsa--gfx90a" <{code_object_version = 5 : '
            'i64, elf_type = "dyn", e_flags = 0 : i64, abi_version = 3 : i64}> {\n'
            '  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {\n'
            f"{body}\n    amdgpu_mc.s_endpgm\n  }}\n}}")
    module = Parser(_context(), text).parse_module()
    assert isinstance(module, ModuleOp)
    ops = [op for op in module.walk() if isinstance(op, InstructionOpBase)]
    symbols = [attr.data for op in ops for attr in op.mc_operands.data
               if isinstance(attr, SymbolOperandAttr)]
    assert [expr.reference for expr in symbols] == [
        SymbolReference("hits", "rel32@lo", 4), SymbolReference("hits", "rel32@hi", 12)]
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    printed = stream.getvalue()
    for line in lines:
        assert line in printed
