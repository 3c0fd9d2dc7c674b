"""Build ``amdgpu_mc`` instructions from assembly syntax, with virtual registers.

Lowerings write the instructions they emit as LLVM assembly (``s_add_u32``, operands,
modifiers), which is how an AMDGPU engineer thinks of them and what the ISA records are
matched from. Virtual registers cannot be assembled, so each one is written as a stand-in
physical register of its file and width that no other operand uses (see
``amdgpu_mc/vreg_syntax.py``); the target's own assembler matches the statement (picking
the record and checking the operands: register classes, the constant bus, literal
rules), and the stand-ins are put back as the virtual registers in the slots they landed
in. Matches are cached per statement shape, so a pass that emits the same sequence at ten
thousand points assembles it once.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute, Block

from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    InstructionOpBase,
    branch_opcode,
    build_instruction,
)
from luthier.amdgpu_dialects.amdgpu_mc.operands import (
    NONE,
    SymbolOperandAttr,
    operand_attribute,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.vreg_syntax import (
    VRegSyntaxError,
    stand_ins,
    taken_units,
)
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.asm_matcher import BRANCH_PLACEHOLDER, LITERAL_PLACEHOLDER
from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parser_for
from luthier.amdgpu_dialects.mc.printer import printer_for

#: An operand as a lowering writes it: a virtual register, a physical register or other
#: assembly token (``exec``, ``v[2:3]``, ``off``, ``counter@rel32@lo+4``), or an integer.
MCOperand = VirtRegAttr | PhysRegAttr | SymbolOperandAttr | str | int


class MCBuildError(ValueError):
    """The target's assembler rejects a statement a lowering built (a lowering bug or an
    operand combination the target does not have)."""


@dataclass(frozen=True, slots=True)
class _Template:
    """A matched statement: the record and each slot's attribute, with the slots that
    hold stand-in ``k`` marked by ``k`` (an int) instead of an attribute."""

    mnemonic: str
    opcode: str
    slots: tuple[Attribute | int, ...]


class MCBuilder:
    """Makes instruction ops for one processor."""

    def __init__(self, processor: str) -> None:
        self.processor = processor

    def inst(self, mnemonic: str, operands: Sequence[MCOperand] = (),
             modifiers: str = "") -> InstructionOpBase:
        """``mnemonic operands... modifiers`` as an op; virtual registers where given."""
        vregs = [operand for operand in operands if isinstance(operand, VirtRegAttr)]
        physical = [operand.data if isinstance(operand, PhysRegAttr) else operand
                    for operand in operands if isinstance(operand, PhysRegAttr | str)]
        try:
            names = stand_ins(vregs, self.processor, taken_units(physical))
        except VRegSyntaxError as error:
            raise MCBuildError(f"{self.processor}: {mnemonic}: {error}") from None
        texts: list[str] = []
        for operand in operands:
            if isinstance(operand, VirtRegAttr):
                texts.append(names[operand])
            elif isinstance(operand, PhysRegAttr):
                texts.append(operand.data)
            elif isinstance(operand, SymbolOperandAttr):
                texts.append(operand.data.text())
            else:
                texts.append(str(operand))
        statement = mnemonic + (" " + ", ".join(texts) if texts else "")
        if modifiers:
            statement += " " + modifiers
        order = list(dict.fromkeys(names.values()))
        by_name = {name: vreg for vreg, name in names.items()}
        template = _match(self.processor, statement, tuple(order))
        slots = [by_name[order[slot]] if isinstance(slot, int) else slot
                 for slot in template.slots]
        return build_instruction(template.mnemonic, template.opcode, slots)


    def branch(self, mnemonic: str, successors: Sequence[Block]) -> InstructionOpBase:
        """A branch to blocks (taken target, then the fall-through of a conditional)."""
        opcode = branch_opcode(self.processor, mnemonic)
        if opcode is None:
            raise MCBuildError(f"'{mnemonic}' is not a branch of {self.processor}")
        slots = len(load_target(self.processor).by_name[opcode].operands)
        return build_instruction(mnemonic, opcode, [NONE] * slots, successors)


@functools.lru_cache(maxsize=4096)
def _match(processor: str, statement: str, stand_ins: tuple[str, ...]) -> _Template:
    try:
        matched = parser_for(processor).parse_statement(statement)
    except AsmParseError as error:
        raise MCBuildError(f"{processor}: '{statement}': {error.message}") from None
    inst = matched.inst
    slots: list[Attribute | int] = [operand_attribute(value) for value in inst.operands]
    for fixup in matched.fixups:
        placeholder = BRANCH_PLACEHOLDER if fixup.kind == "fixup_si_sopp_br" \
            else LITERAL_PLACEHOLDER
        slots[inst.operands.index(placeholder)] = SymbolOperandAttr(fixup.expr)
    for position, value in enumerate(inst.operands):
        if isinstance(value, str) and value in stand_ins:
            slots[position] = stand_ins.index(value)
    mnemonic = printer_for(processor).mnemonic(inst.desc)
    return _Template(mnemonic, inst.desc.name, tuple(slots))
