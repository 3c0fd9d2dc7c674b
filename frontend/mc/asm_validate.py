"""Checks LLVM's assembler makes on a matched instruction (``validateInstruction``).

Matching only asks whether each operand fits its slot; some rules look at the whole
instruction or at the target: the GFX9 constant bus (one SGPR or literal per VALU
instruction), 64-bit alignment of VGPR/AGPR tuples on gfx90a and later, registers and
modifiers the processor lacks. A violation is reported like llvm-mc reports it and the
statement is rejected.
"""

from __future__ import annotations

from dataclasses import dataclass

from luthier.amdgpu_dialects.isa.target import TargetISA
from luthier.frontend.mc.asm_matcher import LITERAL_PLACEHOLDER
from luthier.frontend.mc.asm_operands import Item
from luthier.frontend.mc.decoder import MCInst
from luthier.lowering.mc.encoder import is_inline_constant

_VALU_CLASSES = frozenset({"VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "SDWA", "DPP"})
_TRAP_REGISTERS = frozenset({"tba", "tba_lo", "tba_hi", "tma", "tma_lo", "tma_hi"})


@dataclass(frozen=True, slots=True)
class ValidationError(Exception):
    """A rule violation: llvm-mc's ``message`` at 0-based ``column`` (-1: the mnemonic)."""

    message: str
    column: int


class Validator:
    """The whole-instruction rules of one target."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        self.align_vgpr_tuples = isa.is_gfx90a
        self.has_lds_direct = not isa.is_gfx90a

    def check_items(self, items: list[Item]) -> None:
        """Rules about what was written, whatever instruction it matched."""
        for item in items:
            text = item.text.lower()
            if item.kind == "reg" and text in _TRAP_REGISTERS:
                raise ValidationError("register not available on this GPU", item.column)
            if item.kind == "reg" and text == "null":
                raise ValidationError("'null' operand is not supported on this GPU",
                                      item.column)
            if item.kind == "reg" and text == "src_lds_direct" and not self.has_lds_direct:
                raise ValidationError("lds_direct is not supported on this GPU", item.column)

    def check(self, inst: MCInst, columns: dict[int, int]) -> None:
        """``columns`` maps operand indices to where they were written."""
        desc = inst.desc
        if self.align_vgpr_tuples:
            for value in inst.operands:
                if isinstance(value, str) and value[:2] in ("v[", "a[") \
                        and int(value[2:].split(":", 1)[0]) % 2:
                    raise ValidationError(
                        "invalid register class: vgpr tuples must be 64 bit aligned", -1)
        if desc.classes & _VALU_CLASSES:
            self._constant_bus(inst, columns)

    def _constant_bus(self, inst: MCInst, columns: dict[int, int]) -> None:
        """GFX9 VALU instructions read at most one SGPR or literal value."""
        desc = inst.desc
        used: set[str | int] = set()
        for implicit in ("VCC", "M0"):
            if implicit in desc.uses:
                used.add(implicit.lower())
        for name in ("src0", "src1", "src2"):
            index = desc.index.get(name)
            if index is None:
                continue
            value = inst.operands[index]
            key: str | int
            if isinstance(value, str):
                if value[:1] in ("v", "a") and value not in ("vcc", "vcc_lo", "vcc_hi"):
                    continue
                if value == "m0" and name == "src1" and desc.mnemonic == "v_writelane_b32":
                    continue  # the lane select may be m0 next to an SGPR value
                key = value
            elif isinstance(value, int):
                operand_type = desc.operands[index].kind.operand_type
                if value == LITERAL_PLACEHOLDER or not is_inline_constant(value, operand_type):
                    if operand_type in ("OPERAND_IMMEDIATE", "OPERAND_UNKNOWN"):
                        continue
                    key = value
                else:
                    continue
            else:
                continue
            if key in used:
                continue
            if used:
                raise ValidationError("invalid operand (violates constant bus restrictions)",
                                      columns.get(index, -1))
            used.add(key)
