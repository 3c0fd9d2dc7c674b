"""Register naming for the GFX9 operand encoding space.

Source operands of GCN3/CDNA encodings share one 9-bit value space (10 bits with the AGPR
bit): SGPRs, special registers, inline constants, the literal marker and VGPRs. This module
turns (value, width) pairs into the register names LLVM prints, so the decoder and printer
agree with ``llvm-objdump`` on every spelling.
"""

from __future__ import annotations

from luthier.amdgpu_dialects.isa.target import TargetISA

# Encoding values of the GFX9 source operand space.
SGPR_MAX = 101
TTMP_MIN = 108
TTMP_MAX = 123
INLINE_INT_MIN = 128
INLINE_INT_POSITIVE_MAX = 192
INLINE_INT_MAX = 208
INLINE_FP_MIN = 240
INLINE_FP_MAX = 248
LITERAL = 255
VGPR_MIN = 256
VGPR_MAX = 511
AGPR_BIT = 512

#: Special registers named by a 32-bit operand.
SPECIAL_32: dict[int, str] = {
    102: "flat_scratch_lo", 103: "flat_scratch_hi", 104: "xnack_mask_lo",
    105: "xnack_mask_hi", 106: "vcc_lo", 107: "vcc_hi", 108: "tba_lo", 109: "tba_hi",
    110: "tma_lo", 111: "tma_hi", 124: "m0", 125: "null", 126: "exec_lo", 127: "exec_hi",
    235: "src_shared_base", 236: "src_shared_limit", 237: "src_private_base",
    238: "src_private_limit", 239: "src_pops_exiting_wave_id", 251: "src_vccz",
    252: "src_execz", 253: "src_scc", 254: "src_lds_direct",
}

#: Special registers named by a 64-bit operand.
SPECIAL_64: dict[int, str] = {
    102: "flat_scratch", 104: "xnack_mask", 106: "vcc", 108: "tba", 110: "tma", 125: "null",
    126: "exec", 235: "src_shared_base", 236: "src_shared_limit", 237: "src_private_base",
    238: "src_private_limit", 239: "src_pops_exiting_wave_id", 251: "src_vccz",
    252: "src_execz", 253: "src_scc",
}



def special_registers(generation: int, is64: bool) -> dict[int, str]:
    """The special registers of the source operand space on an ISA generation.

    From GFX10 on, encodings 102..105 are ordinary SGPRs (no flat_scratch/xnack_mask
    operands); GFX11 swapped ``m0`` (124 -> 125) and ``null`` (125 -> 124)."""
    table = dict(SPECIAL_64 if is64 else SPECIAL_32)
    if generation >= 10:
        for value in range(102, 106):
            table.pop(value, None)
    if generation >= 11:
        table.pop(124, None)
        table.pop(125, None)
        table[124] = "null"
        if not is64:
            table[125] = "m0"
    return table


def sgpr_max(generation: int) -> int:
    """The last SGPR encoding of the source operand space (s105 from GFX10 on)."""
    return 105 if generation >= 10 else SGPR_MAX


#: Registers that read as values rather than as storage (LLVM's ``isInlineValue``); the
#: printer does not check them against the operand's register class.
INLINE_VALUE_REGISTERS = frozenset({
    "src_shared_base", "src_shared_limit", "src_private_base", "src_private_limit",
    "src_pops_exiting_wave_id", "src_vccz", "src_execz", "src_scc", "null",
})


_SGPR_OPERAND_DWORDS = frozenset({1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 16})
_TTMP_OPERAND_DWORDS = frozenset({1, 2, 4, 8, 9, 10, 11, 12, 16})


def tuple_name(prefix: str, start: int, dwords: int) -> str:
    """``v7``, ``v[0:1]``, ``ttmp[4:7]``: LLVM's spelling of a register or tuple."""
    if dwords == 1:
        return f"{prefix}{start}"
    return f"{prefix}[{start}:{start + dwords - 1}]"


class RegisterNamer:
    """Names registers of one target by file, index and width, as LLVM's register classes do.

    The tables give, for each file and width, how many tuples exist and how far apart
    their first registers are; an index past the last tuple is not a register (the
    disassembler rejects it).
    """

    def __init__(self, isa: TargetISA) -> None:
        self._tuples = isa.register_tuples
        self._cache: dict[tuple[str, int, int], str | None] = {}

    def vector(self, prefix: str, index: int, dwords: int) -> str | None:
        """A VGPR (``v``) or AGPR (``a``) tuple starting at ``index``, or None if invalid."""
        key = (prefix, index, dwords)
        cached = self._cache.get(key, "")
        if cached != "":
            return cached
        name: str | None
        if dwords == 1:
            name = f"{prefix}{index}" if 0 <= index < 256 else None
        else:
            count, stride = self._tuples[prefix].get(dwords, (0, 1))
            name = (tuple_name(prefix, index * stride, dwords)
                    if 0 <= index < count else None)
        self._cache[key] = name
        return name

    def scalar(self, prefix: str, value: int, dwords: int) -> str | None:
        """An SGPR (``s``) or TTMP (``ttmp``) tuple named by encoding ``value``.

        Like LLVM, a misaligned value is rounded down to the tuple that contains it (64-bit
        tuples are 2-aligned, wider ones 4-aligned) rather than rejected.
        """
        # LLVM has no 1024-bit SGPR class nor 96/160-bit TTMP classes for operands; such
        # operands fall back to the 32-bit class (a single register).
        if dwords not in (_SGPR_OPERAND_DWORDS if prefix == "s" else _TTMP_OPERAND_DWORDS):
            dwords = 1
        key = (prefix, value, dwords)
        cached = self._cache.get(key, "")
        if cached != "":
            return cached
        name: str | None
        if dwords == 1:
            limit = 106 if prefix == "s" else 16
            name = f"{prefix}{value}" if value < limit else None
        else:
            shift = 1 if dwords == 2 else 2
            count, stride = self._tuples[prefix].get(dwords, (0, 1))
            index = value >> shift
            name = tuple_name(prefix, index * stride, dwords) if index < count else None
        self._cache[key] = name
        return name
