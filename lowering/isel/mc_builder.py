"""Build ``amdgpu_mc`` instructions from assembly syntax, with virtual registers.

Lowerings write the instructions they emit as LLVM assembly (``s_add_u32``, operands,
modifiers), which is how an AMDGPU engineer thinks of them and what the ISA records are
matched from. Virtual registers cannot be assembled, so each one is written as a stand-in
physical register of its file and width, the statement is matched by the target's own
assembler (which picks the record and checks the operands: register classes, the constant
bus, literal rules), and the stand-ins are put back as the virtual registers in the slots
they landed in. Matches are cached per statement shape, so a pass that emits the same
sequence at ten thousand points assembles it once.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute

from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    InstructionOpBase,
    build_instruction,
)
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr, operand_attribute
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.frontend.mc.asm_matcher import BRANCH_PLACEHOLDER, LITERAL_PLACEHOLDER
from luthier.frontend.mc.asm_parser import AsmParseError, parser_for
from luthier.lowering.mc.printer import printer_for

#: An operand as a lowering writes it: a virtual register, a physical register or other
#: assembly token (``exec``, ``v[2:3]``, ``off``, ``counter@rel32@lo+4``), or an integer.
MCOperand = VirtRegAttr | PhysRegAttr | SymbolOperandAttr | str | int

#: Where stand-ins for virtual registers start, per file (far above what hand-written
#: physical operands in lowerings name: those are special registers and a few spill slots).
_STAND_IN_BASE = {"s": 40, "v": 128, "a": 128}


class MCBuildError(ValueError):
    """The target's assembler rejects a statement a lowering built (a lowering bug or an
    operand combination the target does not have)."""


def vreg_units(vreg: VirtRegAttr, processor: str) -> tuple[str, int]:
    """The file prefix and the number of 32-bit units of a virtual register operand."""
    rclass = load_target(processor).register_classes.get(vreg.register_class)
    if rclass is None:
        raise MCBuildError(f"{vreg.text}: {processor} has no register class "
                           f"{vreg.register_class}")
    sub = vreg.sub_units
    units = rclass.width // 32 if sub is None else sub[1]
    return rclass.files[0], units


def _stand_in(prefix: str, index: int, units: int) -> str:
    return f"{prefix}{index}" if units == 1 else f"{prefix}[{index}:{index + units - 1}]"


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
        vregs: list[VirtRegAttr] = []
        texts: list[str] = []
        stand_ins: list[str] = []
        bases: dict[int, int] = {}
        next_index = dict(_STAND_IN_BASE)
        for operand in operands:
            if isinstance(operand, VirtRegAttr):
                prefix, units = vreg_units(operand.whole(), self.processor)
                base = bases.get(operand.number)
                if base is None:
                    base = next_index[prefix]
                    base += -base % min(units, 4)
                    next_index[prefix] = base + units
                    bases[operand.number] = base
                first, count = operand.sub_units or (0, units)
                text = _stand_in(prefix, base + first, count)
                texts.append(text)
                if text not in stand_ins:
                    stand_ins.append(text)
                    vregs.append(operand)
            elif isinstance(operand, PhysRegAttr | SymbolOperandAttr):
                texts.append(operand.data)
            else:
                texts.append(str(operand))
        statement = mnemonic + (" " + ", ".join(texts) if texts else "")
        if modifiers:
            statement += " " + modifiers
        template = _match(self.processor, statement, tuple(stand_ins))
        slots = [vregs[slot] if isinstance(slot, int) else slot for slot in template.slots]
        return build_instruction(template.mnemonic, template.opcode, slots)


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
        slots[inst.operands.index(placeholder)] = SymbolOperandAttr(fixup.expr.text())
    for position, value in enumerate(inst.operands):
        if isinstance(value, str) and value in stand_ins:
            slots[position] = stand_ins.index(value)
    mnemonic = printer_for(processor).mnemonic(inst.desc)
    return _Template(mnemonic, inst.desc.name, tuple(slots))
