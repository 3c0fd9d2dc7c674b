"""The bits LLVM's encoder sets in an instruction word beyond its record's fixed bits and
operands: the canonical value of bits the record leaves undefined.

The encoder writes them; the decoder compares a word's undefined bits with them, so that a
word whose undefined bits differ (``MCInst.unmodelled``) re-encodes to itself.
"""

from __future__ import annotations

from luthier.amdgpu_dialects.isa.target import InstrDef


def implicit_bits(inst: InstrDef, generation: int = 9) -> int:
    """Bits LLVM's emitter sets beyond the operands: unused op_sel_hi bits of VOP3P; on
    GFX10+, EXEC's code (0x7E) in the don't-care sdst field of VOP3-encoded ``v_cmpx``
    (which the ISA documents ask for)."""
    if generation >= 10 and "VOP3" in inst.classes and "VOPC" not in inst.classes \
            and "EXEC" in inst.defs and not inst.has("sdst") and inst.size >= 8 \
            and inst.mask & 0xFF == 0:
        return 0x7E
    if "VOP3P" not in inst.classes and inst.name not in (
            "V_ACCVGPR_READ_B32_vi", "V_ACCVGPR_WRITE_B32_vi"):
        return 0
    hi0, hi1, hi2 = 1 << 59, 1 << 60, 1 << 14
    if inst.has("op_sel_hi"):
        if inst.has("src2"):
            return 0
        if inst.has("src1"):
            return hi2
        if inst.has("src0"):
            return hi1 | hi2
    return hi0 | hi1 | hi2
