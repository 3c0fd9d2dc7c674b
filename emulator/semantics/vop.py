"""Shared machinery of the VALU families: sources with input modifiers, destinations with
output modifiers, SDWA selection, lane-mask destinations (VCC or an SGPR pair).

Input modifiers are applied to the bits: ``abs`` clears and ``neg`` flips the sign bit of
the operand's width, which is what the hardware does for every type (also for
``v_cndmask_b32``, whose modifiers LLVM uses to fold ``fabs``/``fneg``); a 16-bit operand's
sign is bit 15 of its half (:func:`half_source`). An integer operand's modifiers (SDWA's
``sext``) are another field: bit 0 sign-extends the selected bits and nothing is negated.
``clamp`` and ``omod`` of float results are applied in the float domain before the write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from luthier.amdgpu_dialects.amdgpu_mc.registers import vgpr_half
from luthier.emulator.operands import VectorRead
from luthier.emulator.semantics.dpp import dpp_lanes
from luthier.emulator.semantics.registry import Instruction
from luthier.emulator.state import VCC, Vec, Wave, bits_of

NEG = 1
ABS = 2
#: In a VOP3 source's modifiers (GFX9): the high half of a 16-bit source (OP_SEL_0), of the
#: destination (OP_SEL_1, on src0's).
OP_SEL_0 = 4
OP_SEL_1 = 8
#: In an integer source's modifiers (SDWA ``sext(v1)``), bit 0 sign-extends the selected
#: field; it is the bit a float source's ``neg`` takes (LLVM's SISrcMods::SEXT).
SEXT = 1

_SIGN = {32: np.uint32(0x80000000), 64: np.uint64(1 << 63)}
_MAGNITUDE = {32: np.uint32(0x7FFFFFFF), 64: np.uint64((1 << 63) - 1)}

#: Encoding suffixes that do not change what an instruction computes.
SUFFIXES = ("_e32", "_e64", "_sdwa", "_dpp")


def base_name(mnemonic: str) -> str:
    for suffix in SUFFIXES:
        if mnemonic.endswith(suffix):
            return mnemonic[: -len(suffix)]
    return mnemonic


def is_sdwa(inst: Instruction) -> bool:
    return inst.desc.has("src0_sel") or inst.desc.has("dst_sel")


def is_dpp(inst: Instruction) -> bool:
    return inst.desc.has("dpp_ctrl")


def _dpp_read(inst: Instruction, read: VectorRead) -> VectorRead:
    source_lanes, exists, _, bound = dpp_lanes(inst)

    def moved(wave: Wave) -> Vec:
        values = np.broadcast_to(read(wave), (wave.lanes,))[source_lanes]
        if bound:
            values = np.where(exists & wave.active()[source_lanes], values, 0).astype(
                values.dtype)
        return values

    return moved


def source(inst: Instruction, name: str, bits: int | None = None) -> VectorRead:
    """Slot ``name`` as a lane vector, with its abs/neg (and SDWA select, DPP lane move)
    applied."""
    width = bits or inst.bits(name)
    read = inst.vector(name, width)
    if name == "src0" and is_dpp(inst):
        read = _dpp_read(inst, read)
    modifiers, integer = _modifiers(inst, name)
    selection = inst.get(f"{name}_sel", 6) if inst.desc.has(f"{name}_sel") else 6
    if selection != 6:
        read = _select(read, selection, integer and bool(modifiers & SEXT))
    if not integer and modifiers & (ABS | NEG) and width in (32, 64):
        sign, magnitude = _SIGN[width], _MAGNITUDE[width]
        inner = read
        if modifiers & ABS and modifiers & NEG:
            return lambda wave: (inner(wave) & magnitude) | sign
        if modifiers & ABS:
            return lambda wave: inner(wave) & magnitude
        return lambda wave: inner(wave) ^ sign
    return read


def half_source(inst: Instruction, name: str, index: int, float_modifiers: bool) -> VectorRead:
    """Slot ``name`` as a 16-bit operand: uint32 lanes holding its 16 bits. The half is the
    one a real-true16 operand names (``v0.h``), the SDWA select, or the high one where the
    VOP3 form's op_sel bit ``index`` (or OP_SEL_0 of the slot's modifiers) says so; DPP
    moves src0's lanes first. With ``float_modifiers``, ``abs``/``neg`` act on bit 15 (they
    would act on bit 31 of the register, which the operand does not hold)."""
    read = inst.vector(name, 32)
    if name == "src0" and is_dpp(inst):
        read = _dpp_read(inst, read)
    modifiers, integer = _modifiers(inst, name)
    selection = inst.get(f"{name}_sel", 6) if inst.desc.has(f"{name}_sel") else 6
    value = inst.get(name)
    named = isinstance(value, str) and vgpr_half(value) is not None
    shift = np.uint32(0)
    if selection != 6:
        read = _select(read, selection, integer and bool(modifiers & SEXT))
    elif not named and not integer and (modifiers & OP_SEL_0 or (inst.op_sel() >> index) & 1):
        shift = np.uint32(16)
    low = np.uint32(0xFFFF)
    inner = read

    def half(wave: Wave) -> Vec:
        return (np.asarray(inner(wave), np.uint32) >> shift) & low

    if integer or not float_modifiers or not modifiers & (ABS | NEG):
        return half
    clear = np.uint32(0x7FFF) if modifiers & ABS else low
    flip = np.uint32(0x8000) if modifiers & NEG else np.uint32(0)
    return lambda wave: (half(wave) & clear) ^ flip


def _modifiers(inst: Instruction, name: str) -> tuple[int, bool]:
    """Slot ``name``'s modifiers, and whether they are an integer operand's (``sext``, bit 0)
    rather than a float operand's (``neg``, ``abs``, ``op_sel``): the record's slot says,
    by how LLVM prints it."""
    slot = f"{name}_modifiers"
    if not inst.desc.has(slot):
        return 0, False
    integer = any(operand.name == slot
                  and operand.kind.print_method == "printOperandAndIntInputMods"
                  for operand in inst.desc.operands)
    return int(inst.get(slot, 0) or 0), integer


def _select(read: VectorRead, selection: int, sign_extend: bool) -> VectorRead:
    """SDWA source select: BYTE_0..3 (0-3), WORD_0/1 (4, 5), DWORD (6)."""
    if selection <= 3:
        shift, width = 8 * selection, 8
    else:
        shift, width = 16 * (selection - 4), 16
    mask = np.uint32((1 << width) - 1)
    if not sign_extend:
        return lambda wave: (read(wave) >> np.uint32(shift)) & mask
    up = 32 - width

    def signed(wave: Wave) -> Vec:
        field = ((read(wave) >> np.uint32(shift)) & mask) << np.uint32(up)
        return (field.view(np.int32) >> np.int32(up)).view(np.uint32)

    return signed


Write = Callable[[Wave, Vec], None]


def destination(inst: Instruction, name: str = "vdst", bits: int = 32) -> Write:
    """A writer of a VALU result (uint32 or uint64 bits) into ``name`` under EXEC."""
    file, index, _ = inst.vdst(name)
    if is_dpp(inst):
        if bits != 32 or file != "v":
            raise inst.unsupported("DPP on 64-bit or AGPR results is not modelled")
        return _dpp_destination(inst, index)
    if bits == 64:
        if file == "a":
            def write_a64(wave: Wave, value: Vec) -> None:
                value = np.asarray(value, np.uint64)
                wave.write_a(index, (value & np.uint64(0xFFFFFFFF)).astype(np.uint32))
                wave.write_a(index + 1, (value >> np.uint64(32)).astype(np.uint32))
            return write_a64
        return lambda wave, value: wave.write_v64(index, value)
    if file == "a":
        return lambda wave, value: wave.write_a(index, value)
    if is_sdwa(inst) and inst.desc.has("dst_sel"):
        return _sdwa_destination(index, inst.get("dst_sel", 6), inst.get("dst_unused", 0))
    return lambda wave, value: wave.write_v(index, value)


def _dpp_destination(inst: Instruction, index: int) -> Write:
    """Writes only lanes the row/bank masks enable and whose source lane was valid (or
    all of those with bound_ctrl, which read 0 instead)."""
    source_lanes, exists, enabled, bound = dpp_lanes(inst)

    def write(wave: Wave, value: Vec) -> None:
        active = wave.active()
        mask = active & enabled
        if not bound:
            mask = mask & exists & active[source_lanes]
        np.copyto(wave.v[index], value, casting="unsafe", where=mask)

    return write


def _sdwa_destination(index: int, selection: int, unused: int) -> Write:
    if selection == 6:
        return lambda wave, value: wave.write_v(index, value)
    if selection <= 3:
        shift, width = 8 * selection, 8
    else:
        shift, width = 16 * (selection - 4), 16
    field = np.uint32(((1 << width) - 1) << shift)

    def write(wave: Wave, value: Vec) -> None:
        placed = (np.asarray(value, np.uint32) << np.uint32(shift)) & field
        if unused == 2:  # UNUSED_PRESERVE
            placed = placed | (wave.v[index] & ~field)
        elif unused == 1:  # UNUSED_SEXT: copy the field's sign into the bits above it
            top = 32 - shift - width
            placed = ((placed << np.uint32(top)).view(np.int32) >> np.int32(top)).view(
                np.uint32)
        wave.write_v(index, placed)

    return write


def float_output(inst: Instruction, dtype: type[np.floating[Any]]) -> Callable[[Vec], Vec]:
    """``omod`` then ``clamp`` of a float result (identity when neither is set)."""
    omod = inst.get("omod", 0) if inst.desc.has("omod") else 0
    clamp = inst.get("clamp", 0) if inst.desc.has("clamp") else 0
    scale = {0: None, 1: 2.0, 2: 4.0, 3: 0.5}[omod]
    if scale is None and not clamp:
        return lambda value: value
    factor = dtype(scale) if scale is not None else None

    def apply(value: Vec) -> Vec:
        if factor is not None:
            value = value * factor
        if clamp:
            value = np.where(np.isnan(value), dtype(0), np.clip(value, dtype(0), dtype(1)))
        return value.astype(dtype)

    return apply


MaskWrite = Callable[[Wave, Vec], None]


def mask_destination(inst: Instruction, name: str = "sdst") -> MaskWrite:
    """A writer of a per-lane boolean into a lane mask: ``name`` when the encoding has it
    (VOP3), else VCC (VOP2/VOPC). Inactive lanes get 0."""
    if inst.desc.has(name) and inst.get(name) is not None:
        index, dwords = inst.sdst(name)
    else:
        index, dwords = VCC, 2

    def write(wave: Wave, flags: Vec) -> None:
        bits = bits_of(np.asarray(flags, np.bool_) & wave.active())
        wave.s[index] = bits & 0xFFFFFFFF
        if dwords > 1 and wave.lanes == 64:
            wave.s[index + 1] = bits >> 32

    return write


def mask_source(inst: Instruction, name: str) -> Callable[[Wave], Vec]:
    """A lane mask operand (carry-in, cndmask select) as a boolean lane vector; VCC when
    the encoding has no such slot."""
    from luthier.emulator.operands import scalar_reader
    from luthier.emulator.state import lanes_of

    if inst.desc.has(name) and inst.get(name) is not None:
        read = scalar_reader(inst.get(name), 64)
        return lambda wave: lanes_of(read(wave) & wave.full, wave.lanes)
    return lambda wave: lanes_of(wave.vcc_bits, wave.lanes)
