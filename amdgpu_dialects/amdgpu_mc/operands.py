"""Non-register operands of ``amdgpu_mc`` instructions, and the MC <-> attribute mapping.

An instruction op keeps one attribute per operand slot of its ISA record, in the record's
order (the order of LLVM's MCInst): a register (:mod:`.registers`), an immediate
(``builtin.int``), an immediate that was encoded as a trailing literal dword
(:class:`LiteralAttr`, so re-encoding is exact where LLVM would pick an inline constant), a
symbolic expression that a relocation or the layout resolves (:class:`SymbolOperandAttr`), or
``builtin.none`` for a slot the encoding does not use.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects.builtin import IntAttr, NoneAttr, NoneType
from xdsl.ir import Attribute, Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.mc.asm_expr import SymExpr
from luthier.amdgpu_dialects.mc.asm_lexer import AsmSyntaxError
from luthier.amdgpu_dialects.mc.asm_operands import parse_symbolic_expression
from luthier.amdgpu_dialects.mc.operand_decoders import Literal, Operand


@irdl_attr_definition
class LiteralAttr(Data[int]):
    """An immediate encoded as a trailing 32-bit literal (``0xffffffff``, not ``-1``)."""

    name = "amdgpu_mc.lit"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> int:
        with parser.in_angle_brackets():
            return parser.parse_integer(allow_boolean=False)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(str(self.data))


@irdl_attr_definition
class SymbolOperandAttr(Data[SymExpr]):
    """A symbolic operand: the MC layer's typed expression (``global_var@rel32@lo+4``).

    The IR text is the expression in LLVM's syntax, read once by the MC operand parser and
    printed back from the tree; passes take its parts from the tree
    (``attr.data.reference``: symbol, variant, addend).
    """

    name = "amdgpu_mc.sym"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> SymExpr:
        with parser.in_angle_brackets():
            start = parser.pos
            text = parser.parse_str_literal()
            try:
                return parse_symbolic_expression(text)
            except AsmSyntaxError as error:
                parser.raise_error(f"'{text}' is not a symbolic operand: {error.message}",
                                   start, parser.pos)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.data.text())


@irdl_attr_definition
class BranchLabelAttr(Data[str]):
    """The target of a branch into another function's code: the name of an
    ``amdgpu_mc.label`` there (``second+0x10``). Hand-written code may share a tail between
    kernels this way; a branch inside its own function names a block instead.
    """

    name = "amdgpu_mc.label_ref"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        with parser.in_angle_brackets():
            return parser.parse_str_literal()

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.data)

    @property
    def function(self) -> str:
        """The function the label is in (its name is ``<function>+<offset>``)."""
        return label_function(self.data)


def label_function(label: str) -> str:
    """The function a label named ``<function>+<offset>`` is in."""
    return label.rpartition("+")[0]


NONE = NoneAttr()


def is_absent(attr: Attribute) -> bool:
    """An unused operand slot. xDSL prints ``NoneAttr`` as ``none``, which parses back as
    the ``none`` type, so IR that went through the generic form holds either."""
    return isinstance(attr, NoneAttr | NoneType)
_int_attrs: dict[int, IntAttr] = {}
_literal_attrs: dict[int, LiteralAttr] = {}


def operand_attribute(value: Operand) -> Attribute:
    """The attribute of a decoded MC operand (interned: operands repeat a lot)."""
    if value is None:
        return NONE
    if isinstance(value, str):
        return PhysRegAttr.get_register(value)
    if isinstance(value, Literal):
        attr = _literal_attrs.get(value)
        if attr is None:
            attr = _literal_attrs[value] = LiteralAttr(int(value))
        return attr
    attr = _int_attrs.get(value)
    if attr is None:
        attr = _int_attrs[value] = IntAttr(value)
    return attr


class NotMCOperandError(ValueError):
    """An operand attribute without an MC value yet (virtual register, symbol)."""


def mc_operand(attr: Attribute) -> Operand:
    """The MC operand value of an attribute; raises :class:`NotMCOperandError` for
    attributes that need allocation or layout first."""
    if isinstance(attr, PhysRegAttr):
        return attr.data
    if isinstance(attr, IntAttr):
        return cast(int, attr.data)  # pyright: ignore[reportUnknownMemberType]
    if isinstance(attr, LiteralAttr):
        return Literal(attr.data)
    if is_absent(attr):
        return None
    if isinstance(attr, VirtRegAttr):
        raise NotMCOperandError(f"virtual register {attr.text} is not allocated")
    if isinstance(attr, SymbolOperandAttr):
        raise NotMCOperandError(f"symbolic operand {attr.data.text()} is not resolved")
    raise NotMCOperandError(f"{attr} is not an instruction operand")
