"""VALU operations outside the main families: signed add/sub with clamp, 16x16-bit
multiply-adds, pack conversions (``v_cvt_pk*``, round-toward-zero ``v_cvt_pkrtz_f16_f32``),
dot products (``v_dot*``), sums of absolute differences, ``v_lerp_u8``, ``v_swap_b32``,
``v_ffbh_i32``.

Integer ``clamp`` saturates to the result type; without it results wrap. Dot products sum
exactly (integers in Python-width int64, halves in float64) and round or saturate once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.semantics.valu_float import _round_to_odd_sum  # pyright: ignore
from luthier.emulator.semantics.vop import base_name, destination, source
from luthier.emulator.state import Vec, Wave

U32 = np.uint32
I64 = np.int64
OP_SEL_0 = 4
OP_SEL_1 = 8


def _clamp_flag(inst: Instruction) -> bool:
    return bool(inst.get("clamp", 0)) if inst.desc.has("clamp") else False


def _signed(read: Callable[[Wave], Vec]) -> Callable[[Wave], Vec]:
    return lambda wave: np.asarray(read(wave), U32).view(np.int32).astype(I64)


@semantics("v_add_i32", "v_sub_i32")
def _add_sub_i32(inst: Instruction) -> Step:
    a, b = _signed(source(inst, "src0")), _signed(source(inst, "src1"))
    subtract = base_name(inst.mnemonic) == "v_sub_i32"
    clamp = _clamp_flag(inst)
    write = destination(inst)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        total = a(wave) - b(wave) if subtract else a(wave) + b(wave)
        if clamp:
            total = np.clip(total, -2**31, 2**31 - 1)
        write(wave, (total & I64(0xFFFFFFFF)).astype(U32))
        return following

    return step


def _half(read: Callable[[Wave], Vec], high: bool, signed: bool) -> Callable[[Wave], Vec]:
    shift = U32(16 if high else 0)

    def value(wave: Wave) -> Vec:
        bits = ((np.asarray(read(wave), U32) >> shift) & U32(0xFFFF)).astype(np.uint16)
        return (bits.view(np.int16) if signed else bits).astype(I64)

    return value


@semantics("v_mad_u32_u16", "v_mad_i32_i16")
def _mad_32_16(inst: Instruction) -> Step:
    """D = S0.16 * S1.16 + S2.32 (op_sel picks the halves of S0 and S1)."""
    signed = base_name(inst.mnemonic) == "v_mad_i32_i16"
    op_sel = int(inst.get("op_sel", 0) or 0)
    halves: list[Callable[[Wave], Vec]] = []
    for index, slot in enumerate(("src0", "src1")):
        modifiers = int(inst.get(f"{slot}_modifiers", 0) or 0)
        high = bool(modifiers & OP_SEL_0) or bool((op_sel >> index) & 1)
        halves.append(_half(inst.vector(slot, 32), high, signed))
    addend = source(inst, "src2")

    def c(wave: Wave) -> Vec:
        bits = np.asarray(addend(wave), U32)
        return bits.view(np.int32).astype(I64) if signed else bits.astype(I64)
    clamp = _clamp_flag(inst)
    write = destination(inst)
    following = inst.next_pc
    low, high_ = (-2**31, 2**31 - 1) if signed else (0, 2**32 - 1)

    def step(wave: Wave) -> int:
        total = halves[0](wave) * halves[1](wave) + c(wave)
        if clamp:
            total = np.clip(total, low, high_)
        write(wave, (total & I64(0xFFFFFFFF)).astype(U32))
        return following

    return step


def f16_toward_zero(value: Vec) -> Vec:
    """float32 -> float16 rounded toward zero (the largest finite half for overflow)."""
    value = np.asarray(value, np.float32)
    nearest = value.astype(np.float16)
    overshoot = np.abs(nearest.astype(np.float32)) > np.abs(value)
    stepped = np.nextafter(nearest, np.float16(0))
    result = np.where(overshoot & ~np.isnan(value), stepped, nearest)
    return result.astype(np.float16)


def _pack(low: Vec, high: Vec) -> Vec:
    return (np.asarray(low).astype(np.uint16).astype(U32)
            | (np.asarray(high).astype(np.uint16).astype(U32) << U32(16)))


def _norm(value: Vec, signed: bool) -> Vec:
    value = np.nan_to_num(np.asarray(value, np.float32).astype(np.float64), nan=0.0)
    if signed:
        return np.rint(np.clip(value, -1.0, 1.0) * 32767).astype(np.int16).view(np.uint16)
    return np.rint(np.clip(value, 0.0, 1.0) * 65535).astype(np.uint16)


_PACKS: dict[str, tuple[str, Callable[[Vec, Vec], Vec]]] = {
    # name -> (source view, packer of (S0, S1) into {S1: high, S0: low})
    "v_cvt_pkrtz_f16_f32": ("f32", lambda a, b: _pack(f16_toward_zero(a).view(np.uint16),
                                                      f16_toward_zero(b).view(np.uint16))),
    "v_cvt_pknorm_i16_f32": ("f32", lambda a, b: _pack(_norm(a, True), _norm(b, True))),
    "v_cvt_pknorm_u16_f32": ("f32", lambda a, b: _pack(_norm(a, False), _norm(b, False))),
    "v_cvt_pk_u16_u32": ("u32", lambda a, b: _pack(np.minimum(a, 0xFFFF),
                                                   np.minimum(b, 0xFFFF))),
    "v_cvt_pk_i16_i32": ("i32", lambda a, b: _pack(
        np.clip(a, -32768, 32767).astype(np.int16).view(np.uint16),
        np.clip(b, -32768, 32767).astype(np.int16).view(np.uint16))),
}


@semantics(*_PACKS)
def _cvt_pack(inst: Instruction) -> Step:
    view, fn = _PACKS[base_name(inst.mnemonic)]
    a, b = source(inst, "src0"), source(inst, "src1")
    write = destination(inst)
    following = inst.next_pc

    def typed(value: Vec) -> Vec:
        bits = np.asarray(value, U32)
        if view == "f32":
            return bits.view(np.float32)
        return bits.view(np.int32).astype(I64) if view == "i32" else bits.astype(I64)

    def step(wave: Wave) -> int:
        write(wave, fn(typed(a(wave)), typed(b(wave))))
        return following

    return step


@semantics("v_cvt_pk_u8_f32")
def _cvt_pk_u8(inst: Instruction) -> Step:
    """Byte S1[1:0] of S2 replaced by S0 converted to u8 (rounded to nearest, saturated)."""
    a, b, c = source(inst, "src0"), source(inst, "src1"), source(inst, "src2")
    write = destination(inst)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        value = np.asarray(a(wave), U32).view(np.float32).astype(np.float64)
        byte = np.rint(np.clip(np.nan_to_num(value, nan=0.0), 0, 255)).astype(U32)
        shift = (np.asarray(b(wave), U32) & U32(3)) * U32(8)
        old = np.asarray(c(wave), U32)
        write(wave, (old & ~(U32(0xFF) << shift)) | (byte << shift))
        return following

    return step


def _bytes(value: Vec, count: int, width: int, signed: bool) -> list[Vec]:
    """The ``count`` fields of ``width`` bits of each lane's 32 bits, as int64."""
    bits = np.asarray(value, U32).astype(I64)
    fields: list[Vec] = []
    for k in range(count):
        field = (bits >> I64(width * k)) & I64((1 << width) - 1)
        if signed:
            field = np.where(field >> I64(width - 1) != 0, field - I64(1 << width), field)
        fields.append(field)
    return fields


#: dot name -> (fields per source, field width, signed); the ``c`` forms accumulate into
#: their destination, which is their src2
_INT_DOTS: dict[str, tuple[int, int, bool]] = {
    "v_dot2_i32_i16": (2, 16, True), "v_dot2_u32_u16": (2, 16, False),
    "v_dot4_i32_i8": (4, 8, True), "v_dot4_u32_u8": (4, 8, False),
    "v_dot8_i32_i4": (8, 4, True), "v_dot8_u32_u4": (8, 4, False),
    "v_dot2c_i32_i16": (2, 16, True), "v_dot4c_i32_i8": (4, 8, True),
    "v_dot8c_i32_i4": (8, 4, True),
}


@semantics(*_INT_DOTS)
def _int_dot(inst: Instruction) -> Step:
    count, width, signed = _INT_DOTS[base_name(inst.mnemonic)]
    a, b = source(inst, "src0"), source(inst, "src1")
    c = source(inst, "src2")
    clamp = _clamp_flag(inst)
    write = destination(inst)
    low, high = (-2**31, 2**31 - 1) if signed else (0, 2**32 - 1)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        accumulator = np.asarray(c(wave), U32)
        total = accumulator.view(np.int32).astype(I64) if signed else accumulator.astype(I64)
        for x, y in zip(_bytes(a(wave), count, width, signed),
                        _bytes(b(wave), count, width, signed), strict=True):
            total = total + x * y
        if clamp:
            total = np.clip(total, low, high)
        write(wave, (total & I64(0xFFFFFFFF)).astype(U32))
        return following

    return step


@semantics("v_dot2_f32_f16", "v_dot2c_f32_f16")
def _f16_dot(inst: Instruction) -> Step:
    """S0.h[0] * S1.h[0] + S0.h[1] * S1.h[1] + S2.f32 in float64 (the products are exact,
    their sum rounds only when their magnitudes are far apart), rounded to odd with S2, then
    to f32. How the hardware rounds the three-term sum is not documented; this is exact
    whenever the two products' sum is."""
    a, b, c = source(inst, "src0"), source(inst, "src1"), source(inst, "src2")
    negate = [int(inst.get(f"{slot}_modifiers", 0) or 0) for slot in ("src0", "src1")]
    write = destination(inst)
    if _clamp_flag(inst):
        raise inst.unsupported("clamp of v_dot2_f32_f16 is not modelled")
    following = inst.next_pc

    def halves(value: Vec, modifiers: int) -> tuple[Vec, Vec]:
        bits = np.asarray(value, U32)
        low = (bits & U32(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float64)
        high = (bits >> U32(16)).astype(np.uint16).view(np.float16).astype(np.float64)
        return (-low if modifiers & 1 else low), (-high if modifiers & 2 else high)

    def step(wave: Wave) -> int:
        a0, a1 = halves(a(wave), negate[0])
        b0, b1 = halves(b(wave), negate[1])
        first = a0 * b0 + a1 * b1
        accumulator = np.asarray(c(wave), U32).view(np.float32).astype(np.float64)
        write(wave, np.asarray(_round_to_odd_sum(first, accumulator)).astype(
            np.float32).view(U32))
        return following

    return step


def _sad_fields(a: Vec, b: Vec, count: int, width: int) -> Vec:
    total = np.zeros(np.broadcast(np.asarray(a), np.asarray(b)).shape, I64)
    for x, y in zip(_bytes(a, count, width, False), _bytes(b, count, width, False),
                    strict=True):
        total = total + np.abs(x - y)
    return total


@semantics("v_sad_u8", "v_sad_hi_u8", "v_sad_u16", "v_msad_u8", "v_lerp_u8")
def _sad(inst: Instruction) -> Step:
    a, b, c = source(inst, "src0"), source(inst, "src1"), source(inst, "src2")
    name = inst.mnemonic
    write = destination(inst)
    following = inst.next_pc

    def compute(wave: Wave) -> Vec:
        x, y = a(wave), b(wave)
        accumulator = np.asarray(c(wave), U32).astype(I64)
        if name == "v_sad_u16":
            return _sad_fields(x, y, 2, 16) + accumulator
        if name == "v_lerp_u8":
            rounding = _bytes(c(wave), 4, 8, False)
            result = np.zeros_like(accumulator)
            for k, (p, q, r) in enumerate(zip(_bytes(x, 4, 8, False), _bytes(y, 4, 8, False),
                                              rounding, strict=True)):
                result = result | (((p + q + (r & I64(1))) >> I64(1)) << I64(8 * k))
            return result
        if name == "v_msad_u8":  # masked: reference bytes (S0) that are 0 do not count
            total = np.zeros_like(accumulator)
            for p, q in zip(_bytes(x, 4, 8, False), _bytes(y, 4, 8, False), strict=True):
                total = total + np.where(p == 0, I64(0), np.abs(p - q))
            return total + accumulator
        total = _sad_fields(x, y, 4, 8)
        return (total << I64(16)) + accumulator if name == "v_sad_hi_u8" else \
            total + accumulator

    def step(wave: Wave) -> int:
        write(wave, (compute(wave) & I64(0xFFFFFFFF)).astype(U32))
        return following

    return step


@semantics("v_swap_b32")
def _swap(inst: Instruction) -> Step:
    _, first, _ = inst.vdst()
    _, second, _ = inst.vdst("vdst1")
    following = inst.next_pc

    def step(wave: Wave) -> int:
        a, b = wave.v[first].copy(), wave.v[second].copy()
        wave.write_v(first, b)
        wave.write_v(second, a)
        return following

    return step


@semantics("v_ffbh_i32")
def _ffbh_i32(inst: Instruction) -> Step:
    """Leading bits equal to the sign bit, counted from bit 30 down (the position of the
    first bit that differs from the sign); -1 when all 32 bits are equal."""
    read = source(inst, "src0")
    write = destination(inst)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        bits = np.asarray(read(wave), U32)
        positive = np.where(bits >> U32(31) != 0, ~bits, bits)
        _, length = np.frexp(positive.astype(np.float64))
        result = np.where(positive == 0, U32(0xFFFFFFFF), U32(32) - length.astype(U32))
        write(wave, result.astype(U32))
        return following

    return step
