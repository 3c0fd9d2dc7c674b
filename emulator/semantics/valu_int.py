"""VALU integer and bitwise operations, moves, carries, ``v_cndmask``, lane operations.

Every operation works on whole lane vectors (uint32, or uint64 for the 64-bit forms);
results are written to the active lanes only. Shift amounts take the low 5 (6 for 64-bit)
bits, as the hardware does; the ``rev`` forms take the shift amount from src0.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from luthier.emulator.semantics.registry import DPP_CAPABLE, Instruction, Step, semantics
from luthier.emulator.semantics.vop import (
    base_name,
    destination,
    mask_destination,
    mask_source,
    source,
)
from luthier.emulator.state import Vec, Wave

U32 = np.uint32
U64 = np.uint64
I32 = np.int32
I64 = np.int64
M24 = U32(0xFFFFFF)
SH5 = U32(31)
SH6 = U64(63)


def _i32(value: Vec) -> Vec:
    return np.asarray(value, U32).view(I32)


def _u32(value: Vec) -> Vec:
    return np.asarray(value).astype(U32)


def _sext24(value: Vec) -> Vec:
    return ((np.asarray(value, U32) << U32(8)).view(I32) >> I32(8)).astype(I64)


def _bfe_u32(a: Vec, b: Vec, c: Vec) -> Vec:
    offset = (b & SH5).astype(U64)
    width = (c & SH5).astype(U64)
    return _u32((a.astype(U64) >> offset) & ((U64(1) << width) - U64(1)))


def _bfe_i32(a: Vec, b: Vec, c: Vec) -> Vec:
    """``tmp = (S0.i32 >> offset) & mask; signext_from_bit(tmp, width)`` (CDNA ISA): the
    shift is arithmetic, so a field reaching past bit 31 is sign-extended from bit 31 (as
    LLVM folds it: ``ashr(S0, offset)`` when offset + width >= 32)."""
    offset = (b & SH5).astype(I64)
    width = (c & SH5).astype(I64)
    field = (_i32(a).astype(I64) >> offset) & ((I64(1) << width) - I64(1))
    sign = (field >> np.maximum(width - 1, 0)) & I64(1)
    signed = np.where((width > 0) & (sign == 1), field - (I64(1) << width), field)
    return _u32(np.where(width == 0, I64(0), signed) & I64(0xFFFFFFFF))


def _bit_length(a: Vec) -> Vec:
    """Bits needed for each value (0 for 0): the exponent frexp gives, exact for 32 bits."""
    _, exponent = np.frexp(np.asarray(a, U32).astype(np.float64))
    return exponent.astype(U32)


def _ffbh(a: Vec) -> Vec:
    a = np.asarray(a, U32)
    return np.where(a == 0, U32(0xFFFFFFFF), U32(32) - _bit_length(a)).astype(U32)


def _ffbl(a: Vec) -> Vec:
    a = np.asarray(a, U32)
    lowest = a & (~a + U32(1))
    return np.where(a == 0, U32(0xFFFFFFFF), _bit_length(lowest) - U32(1)).astype(U32)


def _bfrev(a: Vec) -> Vec:
    a = np.asarray(a, U32)
    as_bytes = np.atleast_1d(a).astype("<u4").view(np.uint8)
    reversed_bits = np.unpackbits(as_bytes, bitorder="little").reshape(-1, 32)[:, ::-1]
    return np.packbits(reversed_bits, axis=1, bitorder="little").view("<u4").reshape(
        np.shape(a)).astype(U32)


def _med3(a: Vec, b: Vec, c: Vec) -> Vec:
    return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))


Unary = Callable[[Vec], Vec]
Binary = Callable[[Vec, Vec], Vec]
Ternary = Callable[[Vec, Vec, Vec], Vec]

# name -> (width of the value operands and result, fn); 64-bit forms take 32-bit shift
# amounts, which their readers widen.
UNARY: dict[str, tuple[int, Unary]] = {
    "v_mov_b32": (32, lambda a: a),
    "v_not_b32": (32, lambda a: ~a),
    "v_bfrev_b32": (32, _bfrev),
    "v_ffbh_u32": (32, _ffbh),
    "v_ffbl_b32": (32, _ffbl),
    "v_mov_b64": (64, lambda a: a),
}
BINARY: dict[str, tuple[int, Binary]] = {
    "v_add_u32": (32, lambda a, b: a + b),
    "v_sub_u32": (32, lambda a, b: a - b),
    "v_subrev_u32": (32, lambda a, b: b - a),
    # GFX10+ spell the carry-less forms with _nc.
    "v_add_nc_u32": (32, lambda a, b: a + b),
    "v_sub_nc_u32": (32, lambda a, b: a - b),
    "v_subrev_nc_u32": (32, lambda a, b: b - a),
    "v_and_b32": (32, lambda a, b: a & b),
    "v_or_b32": (32, lambda a, b: a | b),
    "v_xor_b32": (32, lambda a, b: a ^ b),
    "v_xnor_b32": (32, lambda a, b: ~(a ^ b)),
    "v_lshlrev_b32": (32, lambda a, b: b << (a & SH5)),
    "v_lshrrev_b32": (32, lambda a, b: b >> (a & SH5)),
    "v_ashrrev_i32": (32, lambda a, b: (_i32(b) >> _i32(a & SH5)).view(U32)),
    "v_mul_lo_u32": (32, lambda a, b: _u32(a.astype(U64) * b.astype(U64))),
    "v_mul_lo_i32": (32, lambda a, b: _u32(a.astype(U64) * b.astype(U64))),
    "v_mul_hi_u32": (32, lambda a, b: _u32((a.astype(U64) * b.astype(U64)) >> U64(32))),
    "v_mul_hi_i32": (32, lambda a, b: _u32(
        (_i32(a).astype(I64) * _i32(b).astype(I64)) >> I64(32))),
    "v_mul_u32_u24": (32, lambda a, b: (a & M24) * (b & M24)),
    "v_mul_hi_u32_u24": (32, lambda a, b: _u32(
        ((a & M24).astype(U64) * (b & M24).astype(U64)) >> U64(32))),
    "v_mul_i32_i24": (32, lambda a, b: _u32(_sext24(a) * _sext24(b))),
    "v_mul_hi_i32_i24": (32, lambda a, b: _u32((_sext24(a) * _sext24(b)) >> I64(32))),
    "v_max_i32": (32, lambda a, b: np.maximum(_i32(a), _i32(b)).view(U32)),
    "v_min_i32": (32, lambda a, b: np.minimum(_i32(a), _i32(b)).view(U32)),
    "v_max_u32": (32, lambda a, b: np.maximum(a, b)),
    "v_min_u32": (32, lambda a, b: np.minimum(a, b)),
    "v_bcnt_u32_b32": (32, lambda a, b: np.bitwise_count(a).astype(U32) + b),
    "v_bfm_b32": (32, lambda a, b: _u32(
        ((U64(1) << (a & SH5).astype(U64)) - U64(1)) << (b & SH5).astype(U64))),
    "v_lshlrev_b64": (64, lambda a, b: b << (a.astype(U64) & SH6)),
    "v_lshrrev_b64": (64, lambda a, b: b >> (a.astype(U64) & SH6)),
    "v_ashrrev_i64": (64, lambda a, b: (b.view(I64) >> (a.astype(I64) & I64(63))).view(U64)),
}
TERNARY: dict[str, tuple[int, Ternary]] = {
    "v_mad_u32_u24": (32, lambda a, b, c: (a & M24) * (b & M24) + c),
    "v_mad_i32_i24": (32, lambda a, b, c: _u32(_sext24(a) * _sext24(b) + _i32(c))),
    "v_add3_u32": (32, lambda a, b, c: a + b + c),
    "v_lshl_add_u32": (32, lambda a, b, c: (a << (b & SH5)) + c),
    "v_add_lshl_u32": (32, lambda a, b, c: (a + b) << (c & SH5)),
    "v_lshl_or_b32": (32, lambda a, b, c: (a << (b & SH5)) | c),
    "v_and_or_b32": (32, lambda a, b, c: (a & b) | c),
    "v_or3_b32": (32, lambda a, b, c: a | b | c),
    "v_xor3_b32": (32, lambda a, b, c: a ^ b ^ c),
    "v_xad_u32": (32, lambda a, b, c: (a ^ b) + c),
    "v_bfe_u32": (32, _bfe_u32),
    "v_bfe_i32": (32, _bfe_i32),
    "v_bfi_b32": (32, lambda a, b, c: (a & b) | (~a & c)),
    "v_alignbit_b32": (32, lambda a, b, c: _u32(
        ((a.astype(U64) << U64(32)) | b.astype(U64)) >> (c & SH5).astype(U64))),
    "v_alignbyte_b32": (32, lambda a, b, c: _u32(
        ((a.astype(U64) << U64(32)) | b.astype(U64)) >> ((c & U32(3)) * U32(8)).astype(U64))),
    "v_min3_i32": (32, lambda a, b, c: np.minimum(np.minimum(_i32(a), _i32(b)),
                                                        _i32(c)).view(U32)),
    "v_max3_i32": (32, lambda a, b, c: np.maximum(np.maximum(_i32(a), _i32(b)),
                                                        _i32(c)).view(U32)),
    "v_min3_u32": (32, lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_u32": (32, lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_med3_i32": (32, lambda a, b, c: _med3(_i32(a), _i32(b), _i32(c)).view(U32)),
    "v_med3_u32": (32, _med3),
    "v_sad_u32": (32, lambda a, b, c: _u32(np.abs(a.astype(I64) - b.astype(I64))) + c),
    "v_lshl_add_u64": (64, lambda a, b, c: (a << (b.astype(U64) & U64(7))) + c),
}
INT_OPS: dict[str, tuple[int, Unary | Binary | Ternary]] = {**UNARY, **BINARY, **TERNARY}
_SLOTS = {**dict.fromkeys(UNARY, ("src0",)), **dict.fromkeys(BINARY, ("src0", "src1")),
          **dict.fromkeys(TERNARY, ("src0", "src1", "src2"))}


DPP_CAPABLE.update(name for name, (bits, _) in INT_OPS.items() if bits == 32)
DPP_CAPABLE.add("v_cndmask_b32")


@semantics(*INT_OPS)
def _int_op(inst: Instruction) -> Step:
    name = base_name(inst.mnemonic)
    bits, _ = INT_OPS[name]
    slots = _SLOTS[name]
    readers = [source(inst, slot) for slot in slots]
    if bits == 64:
        readers = [_as(reader, 64 if inst.bits(slot) == 64 else 32)
                   for reader, slot in zip(readers, slots, strict=True)]
    write = destination(inst, bits=bits)
    following = inst.next_pc
    if inst.get("clamp", 0) and inst.desc.has("clamp"):
        raise inst.unsupported("integer clamp is not modelled")
    if name in UNARY:
        unary = UNARY[name][1]
        (r0,) = readers

        def step1(wave: Wave) -> int:
            write(wave, unary(r0(wave)))
            return following
        return step1
    if name in BINARY:
        binary = BINARY[name][1]
        r0, r1 = readers

        def step2(wave: Wave) -> int:
            write(wave, binary(r0(wave), r1(wave)))
            return following
        return step2
    ternary = TERNARY[name][1]
    r0, r1, r2 = readers

    def step3(wave: Wave) -> int:
        write(wave, ternary(r0(wave), r1(wave), r2(wave)))
        return following

    return step3


def _as(reader: Callable[[Wave], Vec], bits: int) -> Callable[[Wave], Vec]:
    dtype = U64 if bits == 64 else U32
    return lambda wave: np.asarray(reader(wave), dtype)


# -- carries -----------------------------------------------------------------------------

#: GFX10+ names of GFX9's carry-in forms.
_CARRY_IN_NAMES = {"v_add_co_ci_u32": "v_addc_co_u32", "v_sub_co_ci_u32": "v_subb_co_u32",
                   "v_subrev_co_ci_u32": "v_subbrev_co_u32"}


@semantics("v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32",
           "v_subb_co_u32", "v_subbrev_co_u32", *_CARRY_IN_NAMES)
def _carry(inst: Instruction) -> Step:
    name = base_name(inst.mnemonic)
    name = _CARRY_IN_NAMES.get(name, name)
    r0, r1 = source(inst, "src0"), source(inst, "src1")
    if name in ("v_subrev_co_u32", "v_subbrev_co_u32"):
        r0, r1 = r1, r0
    write = destination(inst)
    carry_out = mask_destination(inst, "sdst")
    carry_in = mask_source(inst, "src2") if name in (
        "v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32") else None
    adds = name.startswith("v_add")
    following = inst.next_pc

    def step(wave: Wave) -> int:
        a = np.asarray(r0(wave), U32).astype(I64)
        b = np.asarray(r1(wave), U32).astype(I64)
        c = carry_in(wave).astype(I64) if carry_in is not None else I64(0)
        if adds:
            total = a + b + c
            out = total > I64(0xFFFFFFFF)
        else:
            total = a - b - c
            out = total < 0
        result = (total & I64(0xFFFFFFFF)).astype(U32)
        carry_out(wave, out)
        write(wave, result)
        return following

    return step


@semantics("v_mad_u64_u32", "v_mad_i64_i32")
def _mad64(inst: Instruction) -> Step:
    signed = base_name(inst.mnemonic) == "v_mad_i64_i32"
    r0, r1 = source(inst, "src0", 32), source(inst, "src1", 32)
    r2 = source(inst, "src2", 64)
    write = destination(inst, bits=64)
    carry_out = mask_destination(inst, "sdst")
    following = inst.next_pc

    def step(wave: Wave) -> int:
        c = np.asarray(r2(wave), U64)
        if signed:
            product = (_i32(r0(wave)).astype(I64) * _i32(r1(wave)).astype(I64)).view(U64)
            total = product + c
            p, q = product.view(I64), c.view(I64)
            t = np.asarray(total).view(I64)
            out = ((p ^ t) & (q ^ t)) < 0
        else:
            product = np.asarray(r0(wave), U32).astype(U64) * np.asarray(r1(wave), U32)
            total = product + c
            out = total < product
        carry_out(wave, out)
        write(wave, total)
        return following

    return step


@semantics("v_cndmask_b32")
def _cndmask(inst: Instruction) -> Step:
    r0, r1 = source(inst, "src0"), source(inst, "src1")
    select = mask_source(inst, "src2")
    write = destination(inst)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        write(wave, np.where(select(wave), r1(wave), r0(wave)).astype(U32))
        return following

    return step


# -- lane operations ---------------------------------------------------------------------

@semantics("v_readfirstlane_b32")
def _readfirstlane(inst: Instruction) -> Step:
    file, index, _ = _vector_source(inst, "src0")
    target, _ = inst.sdst("vdst")
    following = inst.next_pc

    def step(wave: Wave) -> int:
        bits = wave.exec_bits
        lane = (bits & -bits).bit_length() - 1 if bits else 0
        registers = wave.v if file == "v" else wave.a
        wave.s[target] = int(registers[index, lane])
        return following

    return step


def _vector_source(inst: Instruction, name: str) -> tuple[str, int, int]:
    return inst.vdst(name)


@semantics("v_readlane_b32")
def _readlane(inst: Instruction) -> Step:
    file, index, _ = _vector_source(inst, "src0")
    lane_of = inst.scalar("src1", 32)
    target, _ = inst.sdst("vdst")
    following = inst.next_pc

    def step(wave: Wave) -> int:
        registers = wave.v if file == "v" else wave.a
        wave.s[target] = int(registers[index, lane_of(wave) & (wave.lanes - 1)])
        return following

    return step


@semantics("v_writelane_b32")
def _writelane(inst: Instruction) -> Step:
    value_of = inst.scalar("src0", 32)
    lane_of = inst.scalar("src1", 32)
    _, index, _ = inst.vdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        wave.v[index, lane_of(wave) & (wave.lanes - 1)] = value_of(wave)
        return following

    return step


@semantics("v_mbcnt_lo_u32_b32", "v_mbcnt_hi_u32_b32")
def _mbcnt(inst: Instruction) -> Step:
    high = "hi" in inst.mnemonic
    r0, r1 = source(inst, "src0"), source(inst, "src1")
    write = destination(inst)
    following = inst.next_pc
    masks: dict[int, Vec] = {}

    def lane_masks(lanes: int) -> Vec:
        found = masks.get(lanes)
        if found is None:
            below = (U64(1) << np.arange(lanes, dtype=U64)) - U64(1)
            part = (below >> U64(32)) if high else (below & U64(0xFFFFFFFF))
            found = masks[lanes] = part.astype(U32)
        return found

    def step(wave: Wave) -> int:
        counted = np.bitwise_count(np.asarray(r0(wave), U32) & lane_masks(wave.lanes))
        write(wave, counted.astype(U32) + r1(wave))
        return following

    return step


@semantics("v_accvgpr_write_b32", "v_accvgpr_read_b32", "v_accvgpr_mov_b32")
def _accvgpr(inst: Instruction) -> Step:
    read = source(inst, "src0")
    write = destination(inst)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        write(wave, read(wave))
        return following

    return step


@semantics("v_pk_mov_b32")
def _pk_mov(inst: Instruction) -> Step:
    """D.lo = op_sel[0] ? S0.hi : S0.lo; D.hi = op_sel[1] ? S1.hi : S1.lo (op_sel[i] is
    bit 2 of src<i>_modifiers in LLVM's operand form)."""
    r0, r1 = inst.vector("src0", 64), inst.vector("src1", 64)
    sel0 = bool(inst.get("src0_modifiers", 0) & 4)
    sel1 = bool(inst.get("src1_modifiers", 0) & 4)
    _, index, _ = inst.vdst()
    following = inst.next_pc
    shift0, shift1 = U64(32 if sel0 else 0), U64(32 if sel1 else 0)

    def step(wave: Wave) -> int:
        low = _u32((np.asarray(r0(wave), U64) >> shift0) & U64(0xFFFFFFFF))
        high = _u32((np.asarray(r1(wave), U64) >> shift1) & U64(0xFFFFFFFF))
        wave.write_v(index, low)
        wave.write_v(index + 1, high)
        return following

    return step


@semantics("v_nop")
def _v_nop(inst: Instruction) -> Step:
    following = inst.next_pc
    return lambda wave: following
