"""16-bit VALU: half-precision float and 16-bit integer operations, packed f16 (VOP3P) and
``v_pack_b32_f16``.

A 16-bit operand is the low half of its 32-bit register (or the high half where
``op_sel`` asks, or the word an SDWA ``src*_sel`` names: :func:`.vop.half_source`). On GFX9
the VOP1/VOP2 16-bit operations (and their VOP3 forms, and the ``_legacy`` VOP3 ones) zero
the upper half of the destination (an SDWA form then places that 32-bit result as
``dst_sel``/``dst_unused`` say); the VOP3 operations with
``op_sel`` (``v_fma_f16``, ``v_mad_u16``...) keep the other half and write the half
``op_sel[3]`` names. From GFX10 every 16-bit operation keeps the other half (the target's
``zeroes_high_16_bits``). Half-precision results are rounded once: NumPy computes float16
math in float32, and 24 >= 2 * 11 + 2 bits makes that double rounding exact for +, -, *,
sqrt; the FMA rounds the float64 sum to odd first, as :func:`.valu_float.fma32` does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from luthier.amdgpu_dialects.amdgpu_mc.registers import vgpr_half
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.emulator.operands import half_reader, half_target
from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.semantics.valu_float import _round_to_odd_sum  # pyright: ignore
from luthier.emulator.semantics.vop import (
    ABS,
    NEG,
    OP_SEL_0,
    OP_SEL_1,
    base_name,
    destination,
    half_source,
    is_dpp,
    is_sdwa,
    mask_source,
    source,
)
from luthier.emulator.state import Vec, Wave

F16 = np.float16
U16 = np.uint16
I16 = np.int16
U32 = np.uint32



def fma16(a: Vec, b: Vec, c: Vec) -> Vec:
    product = a.astype(np.float64) * b.astype(np.float64)
    return _round_to_odd_sum(product, c.astype(np.float64)).astype(F16)


Unary = Callable[[Vec], Vec]
Binary = Callable[[Vec, Vec], Vec]
Ternary = Callable[[Vec, Vec, Vec], Vec]

# name -> (operand kinds (h: f16, u: u16, i: i16, f: f32), result kind, fn)
UNARY: dict[str, tuple[str, str, Unary]] = {
    "v_exp_f16": ("h", "h", lambda a: np.exp2(a.astype(np.float32)).astype(F16)),
    "v_log_f16": ("h", "h", lambda a: np.log2(a.astype(np.float32)).astype(F16)),
    "v_sin_f16": ("h", "h", lambda a: np.sin(a.astype(np.float64) * 2 * np.pi).astype(F16)),
    "v_cos_f16": ("h", "h", lambda a: np.cos(a.astype(np.float64) * 2 * np.pi).astype(F16)),
    "v_fract_f16": ("h", "h", lambda a: np.where(
        np.isinf(a), F16(np.nan), np.minimum(a - np.floor(a), np.nextafter(F16(1), F16(0))))),
    "v_frexp_mant_f16": ("h", "h", lambda a: np.where(np.isfinite(a), np.frexp(a)[0], a)),
    "v_frexp_exp_i16_f16": ("h", "i", lambda a: np.where(
        np.isfinite(a), np.frexp(a.astype(np.float32))[1], 0).astype(I16)),
    "v_cvt_norm_i16_f16": ("h", "i", lambda a: np.rint(np.clip(np.nan_to_num(
        a.astype(np.float64), nan=0.0), -1.0, 1.0) * 32767).astype(I16)),
    "v_cvt_norm_u16_f16": ("h", "u", lambda a: np.rint(np.clip(np.nan_to_num(
        a.astype(np.float64), nan=0.0), 0.0, 1.0) * 65535).astype(U16)),
    "v_sqrt_f16": ("h", "h", np.sqrt),
    "v_rcp_f16": ("h", "h", lambda a: F16(1) / a),
    "v_rsq_f16": ("h", "h", lambda a: F16(1) / np.sqrt(a)),
    "v_floor_f16": ("h", "h", np.floor),
    "v_ceil_f16": ("h", "h", np.ceil),
    "v_trunc_f16": ("h", "h", np.trunc),
    "v_rndne_f16": ("h", "h", np.rint),
    "v_cvt_f16_f32": ("f", "h", lambda a: a.astype(F16)),
    "v_cvt_f32_f16": ("h", "f", lambda a: a.astype(np.float32)),
    "v_cvt_f16_i16": ("i", "h", lambda a: a.astype(F16)),
    "v_cvt_f16_u16": ("u", "h", lambda a: a.astype(F16)),
    "v_cvt_i16_f16": ("h", "i", lambda a: np.clip(np.nan_to_num(np.trunc(
        a.astype(np.float32)), nan=0.0), -32768, 32767).astype(I16)),
    "v_cvt_u16_f16": ("h", "u", lambda a: np.clip(np.nan_to_num(np.trunc(
        a.astype(np.float32)), nan=0.0), 0, 65535).astype(U16)),
    "v_not_b16": ("u", "u", lambda a: ~a),
}
BINARY: dict[str, tuple[str, str, Binary]] = {
    "v_add_f16": ("hh", "h", lambda a, b: a + b),
    "v_sub_f16": ("hh", "h", lambda a, b: a - b),
    "v_subrev_f16": ("hh", "h", lambda a, b: b - a),
    "v_mul_f16": ("hh", "h", lambda a, b: a * b),
    "v_max_f16": ("hh", "h", np.fmax),
    "v_min_f16": ("hh", "h", np.fmin),
    "v_ldexp_f16": ("hi", "h", lambda a, b: np.ldexp(a.astype(np.float32),
                                                      b.astype(np.int32)).astype(F16)),
    "v_add_u16": ("uu", "u", lambda a, b: a + b),
    "v_sub_u16": ("uu", "u", lambda a, b: a - b),
    "v_subrev_u16": ("uu", "u", lambda a, b: b - a),
    "v_add_nc_u16": ("uu", "u", lambda a, b: a + b),
    "v_sub_nc_u16": ("uu", "u", lambda a, b: a - b),
    "v_mul_lo_u16": ("uu", "u", lambda a, b: a * b),
    "v_lshlrev_b16": ("uu", "u", lambda a, b: b << (a & U16(15))),
    "v_lshrrev_b16": ("uu", "u", lambda a, b: b >> (a & U16(15))),
    "v_ashrrev_i16": ("ui", "i", lambda a, b: b >> (a & U16(15)).astype(I16)),
    "v_max_u16": ("uu", "u", np.maximum),
    "v_min_u16": ("uu", "u", np.minimum),
    "v_max_i16": ("ii", "i", np.maximum),
    "v_min_i16": ("ii", "i", np.minimum),
    "v_and_b16": ("uu", "u", lambda a, b: a & b),
    "v_or_b16": ("uu", "u", lambda a, b: a | b),
    "v_xor_b16": ("uu", "u", lambda a, b: a ^ b),
}
def div_fixup16(quotient: Vec, denominator: Vec, numerator: Vec) -> Vec:
    """``v_div_fixup_f16``: the quotient S0 of numerator S2 over denominator S1 (what
    clang's half division computes in f32 and converts), with the IEEE special cases put
    back (a NaN operand, 0/0 and inf/inf give NaN; x/0 and inf/x infinity; 0/x and x/inf
    zero) and the sign of S2/S1."""
    negative = np.signbit(denominator) ^ np.signbit(numerator)
    nan = np.isnan(numerator) | np.isnan(denominator) | ((denominator == 0) & (
        numerator == 0)) | (np.isinf(denominator) & np.isinf(numerator))
    infinite = ~nan & ((denominator == 0) | np.isinf(numerator))
    zero = ~nan & ~infinite & (np.isinf(denominator) | (numerator == 0))
    magnitude = np.abs(np.asarray(quotient, F16))
    magnitude = np.where(infinite, F16(np.inf), np.where(zero, F16(0), magnitude))
    result = np.where(negative, -magnitude, magnitude)
    return np.where(nan, F16(np.nan), result).astype(F16)


TERNARY: dict[str, tuple[str, str, Ternary]] = {
    "v_div_fixup_f16": ("hhh", "h", div_fixup16),
    "v_min3_f16": ("hhh", "h", lambda a, b, c: np.fmin(np.fmin(a, b), c)),
    "v_max3_f16": ("hhh", "h", lambda a, b, c: np.fmax(np.fmax(a, b), c)),
    "v_med3_f16": ("hhh", "h", lambda a, b, c: np.fmax(np.fmin(a, b),
                                                       np.fmin(np.fmax(a, b), c))),
    "v_min3_i16": ("iii", "i", lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_i16": ("iii", "i", lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_med3_i16": ("iii", "i", lambda a, b, c: np.maximum(np.minimum(a, b),
                                                          np.minimum(np.maximum(a, b), c))),
    "v_min3_u16": ("uuu", "u", lambda a, b, c: np.minimum(np.minimum(a, b), c)),
    "v_max3_u16": ("uuu", "u", lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    "v_med3_u16": ("uuu", "u", lambda a, b, c: np.maximum(np.minimum(a, b),
                                                          np.minimum(np.maximum(a, b), c))),
    "v_fma_f16": ("hhh", "h", fma16),
    "v_fma_legacy_f16": ("hhh", "h", fma16),
    "v_fmac_f16": ("hhh", "h", fma16),
    "v_mad_f16": ("hhh", "h", lambda a, b, c: a * b + c),
    "v_mad_legacy_f16": ("hhh", "h", lambda a, b, c: a * b + c),
    "v_mac_f16": ("hhh", "h", lambda a, b, c: a * b + c),
    "v_mad_u16": ("uuu", "u", lambda a, b, c: a * b + c),
    "v_mad_legacy_u16": ("uuu", "u", lambda a, b, c: a * b + c),
    "v_mad_i16": ("iii", "i", lambda a, b, c: a * b + c),
    "v_mad_legacy_i16": ("iii", "i", lambda a, b, c: a * b + c),
}
OPS: dict[str, tuple[str, str, Unary | Binary | Ternary]] = {**UNARY, **BINARY, **TERNARY}

#: VOP3 operations that keep the other half of the destination (GFX9 op_sel forms).
_KEEP_OTHER_HALF = {"v_fma_f16", "v_mad_f16", "v_mad_u16", "v_mad_i16", "v_div_fixup_f16",
                    "v_min3_f16", "v_max3_f16", "v_med3_f16", "v_min3_i16", "v_max3_i16",
                    "v_med3_i16", "v_min3_u16", "v_max3_u16", "v_med3_u16"}

_DTYPES = {"h": F16, "u": U16, "i": I16}


def _half_reader(inst: Instruction, slot: str, kind: str, index: int) -> Callable[[Wave], Vec]:
    """Source ``slot`` (operand ``index``) as ``kind``: a 32-bit float ("f", as
    :func:`.vop.source` reads it) or a 16-bit value of the half :func:`.vop.half_source`
    picks (a true16 name, SDWA select or op_sel), abs/neg on its own sign for "h"."""
    if kind == "f":
        read = source(inst, slot, 32)
        return lambda wave: np.asarray(read(wave), U32).view(np.float32)
    bits = half_source(inst, slot, index, kind == "h")
    dtype = _DTYPES[kind]
    return lambda wave: bits(wave).astype(U16).view(dtype)


def _half_destination(inst: Instruction, name: str) -> tuple[int, bool, bool]:
    """(VGPR, whether the other half is kept, whether the high half is written) of a 16-bit
    result: a real-true16 half (``v1.h``), or the half op_sel names where the target keeps
    the other one (``zeroes_high_16_bits``)."""
    half = vgpr_half(value) if isinstance(value := inst.get("vdst"), str) else None
    if half is not None:
        return half[0], True, half[1]
    _, target, _ = inst.vdst()
    src0_modifiers = int(inst.get("src0_modifiers", 0) or 0) \
        if inst.desc.has("src0_modifiers") else 0
    program = inst.program
    keep = name in _KEEP_OTHER_HALF or (program is not None and not subtarget_for(
        program.processor).zeroes_high_16_bits)
    write_high = keep and (bool((inst.op_sel() >> 3) & 1) or bool(src0_modifiers & OP_SEL_1))
    return target, keep, write_high


@semantics(*OPS)
def _op16(inst: Instruction) -> Step:
    name = base_name(inst.mnemonic)
    kinds, result, _ = OPS[name]
    slots = ("src0", "src1", "src2")
    if name in ("v_fmac_f16", "v_mac_f16"):
        slots = ("src0", "src1", "vdst")
    readers = [_half_reader(inst, slot, kind, index)
               for index, (slot, kind) in enumerate(zip(slots, kinds, strict=False))]
    target, keep, write_high = _half_destination(inst, name)
    clamp = bool(inst.get("clamp", 0)) if inst.desc.has("clamp") else False
    if clamp:
        raise inst.unsupported("clamp of 16-bit operations is not modelled")
    # SDWA (GFX9): the 32-bit result, its upper half zero, goes where dst_sel says.
    sdwa = destination(inst) if is_sdwa(inst) else None
    following = inst.next_pc

    def compute(wave: Wave) -> Vec:
        if name in UNARY:
            return UNARY[name][2](readers[0](wave))
        if name in BINARY:
            return BINARY[name][2](readers[0](wave), readers[1](wave))
        return TERNARY[name][2](readers[0](wave), readers[1](wave), readers[2](wave))

    def step(wave: Wave) -> int:
        value = np.asarray(compute(wave))
        if result == "f":
            bits = value.astype(np.float32).view(U32)
        else:
            half = value.astype(_DTYPES[result]).view(U16).astype(U32)
            if sdwa is not None or not keep:
                bits = half
            elif write_high:
                bits = (wave.v[target] & U32(0xFFFF)) | (half << U32(16))
            else:
                bits = (wave.v[target] & U32(0xFFFF0000)) | half
        if sdwa is not None:
            sdwa(wave, bits)
        else:
            wave.write_v(target, bits)
        return following

    return step


@semantics("v_cndmask_b16")
def _cndmask16(inst: Instruction) -> Step:
    """``v_cndmask_b16`` (GFX11+, VOP3): src1 where the mask's lane bit is set, else src0;
    halves chosen by op_sel, the other half of the destination kept."""
    low, high = _half_reader(inst, "src0", "u", 0), _half_reader(inst, "src1", "u", 1)
    select = mask_source(inst, "src2")
    target, _, write_high = _half_destination(inst, "v_cndmask_b16")
    following = inst.next_pc

    def step(wave: Wave) -> int:
        half = np.where(select(wave), high(wave), low(wave)).view(U16).astype(U32)
        bits = (wave.v[target] & U32(0xFFFF)) | (half << U32(16)) if write_high \
            else (wave.v[target] & U32(0xFFFF0000)) | half
        wave.write_v(target, bits)
        return following

    return step


@semantics("v_mov_b16")
def _mov_b16(inst: Instruction) -> Step:
    """``v_mov_b16`` (GFX11+; LLVM 19 has only its true16 form): its operands name 16-bit
    halves (``v_mov_b16_e32 v25.h, v4.l``), and the other half of the destination is kept."""
    if is_dpp(inst):
        raise inst.unsupported("the DPP forms of v_mov_b16 are not modelled")
    read = half_reader(inst.get("src0"))
    index, high = half_target(inst.get("vdst"))
    keep = U32(0xFFFF if high else 0xFFFF0000)
    shift = U32(16 if high else 0)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        wave.write_v(index, (wave.v[index] & keep) | (read(wave) << shift))
        return following

    return step


@semantics("v_pack_b32_f16")
def _pack(inst: Instruction) -> Step:
    low = _half_reader(inst, "src0", "h", 0)
    high = _half_reader(inst, "src1", "h", 1)
    _, target, _ = inst.vdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        lo = np.asarray(low(wave)).view(U16).astype(U32)
        hi = np.asarray(high(wave)).view(U16).astype(U32)
        wave.write_v(target, lo | (hi << U32(16)))
        return following

    return step


_PACKED_BINARY: dict[str, tuple[str, Binary]] = {
    "v_pk_add_f16": ("h", lambda a, b: a + b),
    "v_pk_mul_f16": ("h", lambda a, b: a * b),
    "v_pk_max_f16": ("h", np.fmax),
    "v_pk_min_f16": ("h", np.fmin),
    "v_pk_add_u16": ("u", lambda a, b: a + b),
    "v_pk_sub_u16": ("u", lambda a, b: a - b),
    "v_pk_mul_lo_u16": ("u", lambda a, b: a * b),
    "v_pk_add_i16": ("i", lambda a, b: a + b),
    "v_pk_sub_i16": ("i", lambda a, b: a - b),
    "v_pk_lshlrev_b16": ("u", lambda a, b: b << (a & U16(15))),
    "v_pk_lshrrev_b16": ("u", lambda a, b: b >> (a & U16(15))),
    "v_pk_max_i16": ("i", np.maximum),
    "v_pk_min_i16": ("i", np.minimum),
    "v_pk_max_u16": ("u", np.maximum),
    "v_pk_min_u16": ("u", np.minimum),
}
_PACKED_TERNARY: dict[str, tuple[str, Ternary]] = {
    "v_pk_fma_f16": ("h", fma16),
}
_PACKED: dict[str, tuple[str, Binary | Ternary]] = {**_PACKED_BINARY, **_PACKED_TERNARY}


def _packed_half(inst: Instruction, slot: str, kind: str, high: bool) -> Callable[[Wave], Vec]:
    read = inst.vector(slot, 32)
    modifiers = int(inst.get(f"{slot}_modifiers", 0) or 0)
    take_high = bool(modifiers & (OP_SEL_1 if high else OP_SEL_0))
    negate = kind == "h" and bool(modifiers & (ABS if high else NEG))  # neg_hi / neg_lo
    shift = U32(16 if take_high else 0)
    dtype = _DTYPES[kind]

    def half(wave: Wave) -> Vec:
        bits = ((np.asarray(read(wave), U32) >> shift) & U32(0xFFFF)).astype(U16)
        if negate:
            bits = bits ^ U16(0x8000)
        return bits.view(dtype)

    return half


@semantics(*_PACKED)
def _packed16(inst: Instruction) -> Step:
    name = inst.mnemonic
    kind, _ = _PACKED[name]
    slots = [slot for slot in ("src0", "src1", "src2") if inst.desc.has(slot)]
    low = [_packed_half(inst, slot, kind, False) for slot in slots]
    high = [_packed_half(inst, slot, kind, True) for slot in slots]
    _, target, _ = inst.vdst()
    if inst.get("clamp", 0):
        raise inst.unsupported("clamp of packed 16-bit operations is not modelled")
    dtype = _DTYPES[kind]
    following = inst.next_pc

    def compute(wave: Wave, readers: list[Callable[[Wave], Vec]]) -> Vec:
        if name in _PACKED_BINARY:
            return _PACKED_BINARY[name][1](readers[0](wave), readers[1](wave))
        return _PACKED_TERNARY[name][1](readers[0](wave), readers[1](wave), readers[2](wave))

    def step(wave: Wave) -> int:
        lo = np.asarray(compute(wave, low)).astype(dtype).view(U16)
        hi = np.asarray(compute(wave, high)).astype(dtype).view(U16)
        wave.write_v(target, lo.astype(U32) | (hi.astype(U32) << U32(16)))
        return following

    return step


# -- mixed-precision FMA (VOP3P v_fma_mix*) -------------------------------------------------

def _mix_source(inst: Instruction, slot: str) -> Callable[[Wave], Vec]:
    """A source of v_fma_mix: f16 (a half picked by op_sel) when its op_sel_hi bit is set,
    else f32; neg and abs (neg_hi) apply after the conversion, as float64."""
    read = inst.vector(slot, 32)
    modifiers = int(inst.get(f"{slot}_modifiers", 0) or 0)
    is_half = bool(modifiers & OP_SEL_1)
    shift = U32(16 if modifiers & OP_SEL_0 else 0)

    def value(wave: Wave) -> Vec:
        bits = np.asarray(read(wave), U32)
        if is_half:
            number = ((bits >> shift) & U32(0xFFFF)).astype(U16).view(F16).astype(np.float64)
        else:
            number = bits.view(np.float32).astype(np.float64)
        if modifiers & ABS:
            number = np.abs(number)
        if modifiers & NEG:
            number = -number
        return number

    return value


@semantics("v_fma_mix_f32", "v_fma_mixlo_f16", "v_fma_mixhi_f16")
def _fma_mix(inst: Instruction) -> Step:
    a, b, c = (_mix_source(inst, slot) for slot in ("src0", "src1", "src2"))
    _, target, _ = inst.vdst()
    result = inst.mnemonic.rsplit("_", 1)[0].removeprefix("v_fma_")  # mix, mixlo, mixhi
    if inst.get("clamp", 0):
        raise inst.unsupported("clamp of v_fma_mix is not modelled")
    following = inst.next_pc

    def step(wave: Wave) -> int:
        product = a(wave) * b(wave)  # exact: at most 48 significant bits
        exact_to_odd = _round_to_odd_sum(product, c(wave))
        if result == "mix":
            wave.write_v(target, np.asarray(exact_to_odd).astype(np.float32).view(U32))
            return following
        half = np.asarray(exact_to_odd).astype(F16).view(U16).astype(U32)
        old = wave.v[target]
        merged = (old & U32(0xFFFF0000)) | half if result == "mixlo" else \
            (old & U32(0xFFFF)) | (half << U32(16))
        wave.write_v(target, merged)
        return following

    return step
