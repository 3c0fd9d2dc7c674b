"""VALU floating point: f32 and f64 arithmetic, FMA, min/max, conversions, packed f32.

NumPy's float32/float64 arithmetic is IEEE round-to-nearest-even, which is what the
hardware does with denormals enabled (the mode every corpus kernel runs in). FMA must round
once: NumPy has none, so :func:`fma32` computes the exact product in float64 and rounds the
sum to odd before the final rounding to float32 (53 >= 24 + 2 bits makes that exact), and
:func:`fma64` uses Boldo and Melquiond's emulation (error-free product and sum, then one
round-to-odd addition) where its hypotheses hold, exact rational arithmetic elsewhere.
``v_min``/``v_max`` follow IEEE mode: a NaN operand yields the other operand.
Float-to-integer conversions truncate, saturate and send NaN to 0. Transcendental
approximations (``v_rcp``, ``v_sqrt``...) are computed correctly rounded, within the
hardware's documented error of 1 ulp.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from luthier.emulator.semantics.registry import DPP_CAPABLE, Instruction, Step, semantics
from luthier.emulator.semantics.vop import (
    base_name,
    destination,
    float_output,
    mask_destination,
    source,
)
from luthier.emulator.state import Vec, Wave, lanes_of

F32 = np.float32
F64 = np.float64
U32 = np.uint32
U64 = np.uint64
I32 = np.int32
INF = np.inf


def _round_to_odd_sum(x: Vec, y: Vec) -> Vec:
    """x + y rounded to odd in float64: the nearest-even sum, moved one ulp toward the
    exact sum when it was inexact and its last bit is even."""
    total = x + y
    back = total - x
    error = (x - (total - back)) + (y - back)
    even = (np.asarray(total, F64).view(U64) & U64(1)) == 0
    fix = (error != 0) & even & np.isfinite(total)
    toward = np.where(error > 0, INF, -INF)
    return np.where(fix, np.nextafter(total, toward), total)


_F32_TAIL = U64((1 << 29) - 1)      # float64 mantissa bits below float32 precision
_F32_MIDPOINT = U64(1 << 28)
_F32_SMALLEST_NORMAL = F64(2.0**-126)


def fma32(a: Vec, b: Vec, c: Vec) -> Vec:
    """a * b + c with one rounding to float32.

    The product is exact in float64; rounding the float64 sum again to float32 can only
    differ from one rounding when the float64 sum lies exactly halfway between two float32
    values (or is a float32 subnormal, whose rounding position is higher). Only then is the
    sum rounded to odd first, which makes the second rounding exact."""
    product = np.asarray(a, F32).astype(F64) * np.asarray(b, F32).astype(F64)
    addend = np.asarray(c, F32).astype(F64)
    total = product + addend
    tail = np.asarray(total, F64).view(U64) & _F32_TAIL
    if not np.any(tail == _F32_MIDPOINT) and not np.any(
            np.abs(total) < _F32_SMALLEST_NORMAL):
        return total.astype(F32)
    return _round_to_odd_sum(product, addend).astype(F32)


_SPLIT = F64(134217729.0)  # 2**27 + 1 (Veltkamp)


def _two_product(a: Vec, b: Vec) -> tuple[Vec, Vec]:
    product = a * b
    ta = _SPLIT * a
    a_high = ta - (ta - a)
    a_low = a - a_high
    tb = _SPLIT * b
    b_high = tb - (tb - b)
    b_low = b - b_high
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def _two_sum(a: Vec, b: Vec) -> tuple[Vec, Vec]:
    total = a + b
    back = total - a
    return total, (a - (total - back)) + (b - back)


#: Magnitudes within which the error-free transformations of :func:`fma64` are exact: no
#: overflow in the Veltkamp split (2**27 |x|) or the sums, and no underflow: the product's
#: error term is a multiple of ulp(a) ulp(b), and the result must be a normal number.
_FMA64_LOW = F64(2.0**-900)
_FMA64_HIGH = F64(2.0**960)


def _fma64_lane(a: float, b: float, c: float) -> float:
    """a * b + c rounded once, to nearest even: exact rational arithmetic (CPython's integer
    true division is correctly rounded, subnormals included, and raises OverflowError past
    the largest finite value). Non-finite operands keep NumPy's result (NaN propagation as
    before), except a finite product plus an infinity, which is that infinity."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c
    if not math.isfinite(c):
        return c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        # an exact zero sum is +0 in round-to-nearest, but -0 + -0 is -0 (IEEE 754 6.3)
        negative_product = (a == 0 or b == 0) and math.copysign(1.0, a) != math.copysign(1.0, b)
        return -0.0 if negative_product and math.copysign(1.0, c) < 0 else 0.0
    try:
        value = exact.numerator / exact.denominator
    except OverflowError:
        return math.inf if exact > 0 else -math.inf
    return value if value != 0 else (0.0 if exact > 0 else -0.0)  # underflow keeps the sign


def fma64(a: Vec, b: Vec, c: Vec) -> Vec:
    """a * b + c with one rounding to float64.

    Boldo and Melquiond's emulation (error-free product and sum, one round-to-odd
    addition) where its hypotheses hold: operands, product and result of normal magnitude
    away from overflow (``_FMA64_LOW``..``_FMA64_HIGH``; c may be 0). Other lanes (zeros,
    subnormals, huge values, infinities, NaNs: rare in kernels) go through
    :func:`_fma64_lane`, one at a time. The emulation alone gets those wrong: a product
    that overflows the split or the sum falls back to two roundings (``-max * 2**52 +
    inf`` is NaN instead of inf), an error term in the subnormal range is not exact (an
    ulp off), and a zero result loses its sign."""
    a, b, c = np.broadcast_arrays(np.asarray(a, F64), np.asarray(b, F64), np.asarray(c, F64))
    with np.errstate(all="ignore"):
        product_high, product_low = _two_product(a, b)
        sum_high, sum_low = _two_sum(c, product_high)
        result = np.asarray(sum_high + _round_to_odd_sum(sum_low, product_low), F64)

    def normal(x: Vec) -> Vec:
        magnitude = np.abs(x)
        return (magnitude >= _FMA64_LOW) & (magnitude <= _FMA64_HIGH)

    safe = normal(a) & normal(b) & normal(product_high) & (normal(c) | (c == 0)) \
        & normal(result)
    if np.all(safe):
        return result
    result = result.copy()
    for index in np.flatnonzero(~safe).tolist():
        result.flat[index] = _fma64_lane(float(a.flat[index]), float(b.flat[index]),
                                         float(c.flat[index]))
    return result


def _max(a: Vec, b: Vec) -> Vec:
    return np.fmax(a, b)


def _min(a: Vec, b: Vec) -> Vec:
    return np.fmin(a, b)


def _to_int(value: Vec, low: float, high: float, dtype: type[np.integer[Any]]) -> Vec:
    truncated = np.trunc(np.asarray(value, F64))
    clipped = np.clip(np.where(np.isnan(truncated), 0.0, truncated), low, high)
    return clipped.astype(dtype)


def _fract(value: Vec, dtype: type[np.floating[Any]]) -> Vec:
    largest_below_one = np.nextafter(dtype(1), dtype(0))
    result = np.minimum(value - np.floor(value), largest_below_one)
    return np.where(np.isinf(value), dtype(np.nan), result)


def _frexp_mant(value: Vec) -> Vec:
    mantissa, _ = np.frexp(value)
    return np.where(np.isfinite(value), mantissa, value)


def _frexp_exp(value: Vec) -> Vec:
    _, exponent = np.frexp(value)
    return np.where(np.isfinite(value), exponent, 0).astype(I32).view(U32)


def _legacy_mul(a: Vec, b: Vec) -> Vec:
    return np.where((a == 0) | (b == 0), F32(0), a * b)


def _cvt_ubyte(byte: int) -> Callable[[Vec], Vec]:
    return lambda a: ((np.asarray(a, U32) >> U32(8 * byte)) & U32(0xFF)).astype(F32)


# name -> (input kind per source, result kind, fn). Kinds: f32, f64, u32, i32.
_F1 = ("f32",)
_F2 = ("f32", "f32")
_F3 = ("f32", "f32", "f32")
_D1 = ("f64",)
_D2 = ("f64", "f64")
_D3 = ("f64", "f64", "f64")

Unary = Callable[[Vec], Vec]
Binary = Callable[[Vec, Vec], Vec]
Ternary = Callable[[Vec, Vec, Vec], Vec]

UNARY: dict[str, tuple[tuple[str, ...], str, Unary]] = {
    "v_sqrt_f32": (_F1, "f32", np.sqrt),
    "v_rsq_f32": (_F1, "f32", lambda a: F32(1) / np.sqrt(a)),
    "v_rcp_f32": (_F1, "f32", lambda a: F32(1) / a),
    "v_rcp_iflag_f32": (_F1, "f32", lambda a: F32(1) / a),
    "v_exp_f32": (_F1, "f32", np.exp2),
    "v_log_f32": (_F1, "f32", np.log2),
    "v_sin_f32": (_F1, "f32", lambda a: np.sin(a.astype(F64) * 2 * np.pi).astype(F32)),
    "v_cos_f32": (_F1, "f32", lambda a: np.cos(a.astype(F64) * 2 * np.pi).astype(F32)),
    "v_floor_f32": (_F1, "f32", np.floor),
    "v_ceil_f32": (_F1, "f32", np.ceil),
    "v_trunc_f32": (_F1, "f32", np.trunc),
    "v_rndne_f32": (_F1, "f32", np.rint),
    "v_fract_f32": (_F1, "f32", lambda a: _fract(a, F32)),
    "v_frexp_mant_f32": (_F1, "f32", _frexp_mant),
    "v_frexp_exp_i32_f32": (_F1, "u32", _frexp_exp),
    "v_cvt_f32_i32": (("i32",), "f32", lambda a: a.astype(F32)),
    "v_cvt_f32_u32": (("u32",), "f32", lambda a: a.astype(F32)),
    "v_cvt_u32_f32": (_F1, "u32", lambda a: _to_int(a, 0, 4294967295, U32)),
    "v_cvt_i32_f32": (_F1, "u32", lambda a: _to_int(
        a, -2147483648, 2147483647, I32).view(U32)),
    "v_cvt_flr_i32_f32": (_F1, "u32", lambda a: _to_int(
        np.floor(a), -2147483648, 2147483647, I32).view(U32)),
    "v_cvt_rpi_i32_f32": (_F1, "u32", lambda a: _to_int(
        np.floor(a + F32(0.5)), -2147483648, 2147483647, I32).view(U32)),
    "v_cvt_f32_ubyte0": (("u32",), "f32", _cvt_ubyte(0)),
    "v_cvt_f32_ubyte1": (("u32",), "f32", _cvt_ubyte(1)),
    "v_cvt_f32_ubyte2": (("u32",), "f32", _cvt_ubyte(2)),
    "v_cvt_f32_ubyte3": (("u32",), "f32", _cvt_ubyte(3)),
    "v_cvt_f32_f64": (_D1, "f32", lambda a: a.astype(F32)),
    "v_cvt_f64_f32": (_F1, "f64", lambda a: a.astype(F64)),
    "v_cvt_f64_i32": (("i32",), "f64", lambda a: a.astype(F64)),
    "v_cvt_f64_u32": (("u32",), "f64", lambda a: a.astype(F64)),
    "v_cvt_i32_f64": (_D1, "u32", lambda a: _to_int(
        a, -2147483648, 2147483647, I32).view(U32)),
    "v_cvt_u32_f64": (_D1, "u32", lambda a: _to_int(a, 0, 4294967295, U32)),
    "v_sqrt_f64": (_D1, "f64", np.sqrt),
    "v_rsq_f64": (_D1, "f64", lambda a: F64(1) / np.sqrt(a)),
    "v_rcp_f64": (_D1, "f64", lambda a: F64(1) / a),
    "v_floor_f64": (_D1, "f64", np.floor),
    "v_ceil_f64": (_D1, "f64", np.ceil),
    "v_trunc_f64": (_D1, "f64", np.trunc),
    "v_rndne_f64": (_D1, "f64", np.rint),
    "v_fract_f64": (_D1, "f64", lambda a: _fract(a, F64)),
    "v_frexp_mant_f64": (_D1, "f64", _frexp_mant),
    "v_frexp_exp_i32_f64": (_D1, "u32", _frexp_exp),
}
BINARY: dict[str, tuple[tuple[str, ...], str, Binary]] = {
    "v_add_f32": (_F2, "f32", lambda a, b: a + b),
    "v_sub_f32": (_F2, "f32", lambda a, b: a - b),
    "v_subrev_f32": (_F2, "f32", lambda a, b: b - a),
    "v_mul_f32": (_F2, "f32", lambda a, b: a * b),
    "v_mul_legacy_f32": (_F2, "f32", _legacy_mul),
    "v_max_f32": (_F2, "f32", _max),
    "v_min_f32": (_F2, "f32", _min),
    "v_ldexp_f32": (("f32", "i32"), "f32", lambda a, b: np.ldexp(
        a, np.clip(b, -1000, 1000).astype(I32)).astype(F32)),
    "v_add_f64": (_D2, "f64", lambda a, b: a + b),
    "v_mul_f64": (_D2, "f64", lambda a, b: a * b),
    "v_max_f64": (_D2, "f64", _max),
    "v_min_f64": (_D2, "f64", _min),
    "v_ldexp_f64": (("f64", "i32"), "f64", lambda a, b: np.ldexp(
        a, np.clip(b, -3000, 3000).astype(I32))),
}
TERNARY: dict[str, tuple[tuple[str, ...], str, Ternary]] = {
    "v_fma_f32": (_F3, "f32", fma32),
    "v_fmac_f32": (_F3, "f32", fma32),
    "v_mad_f32": (_F3, "f32", lambda a, b, c: a * b + c),
    "v_mac_f32": (_F3, "f32", lambda a, b, c: a * b + c),
    "v_max3_f32": (_F3, "f32", lambda a, b, c: np.fmax(np.fmax(a, b), c)),
    "v_min3_f32": (_F3, "f32", lambda a, b, c: np.fmin(np.fmin(a, b), c)),
    "v_med3_f32": (_F3, "f32", lambda a, b, c: np.fmax(
        np.fmin(a, b), np.fmin(np.fmax(a, b), c))),
    "v_fma_f64": (_D3, "f64", fma64),
    "v_fmac_f64": (_D3, "f64", fma64),
}
FLOAT_OPS: dict[str, tuple[tuple[str, ...], str, Unary | Binary | Ternary]] = {
    **UNARY, **BINARY, **TERNARY}

_VIEWS: dict[str, tuple[int, Callable[[Vec], Vec]]] = {
    "f32": (32, lambda bits: np.asarray(bits, U32).view(F32)),
    "f64": (64, lambda bits: np.asarray(bits, U64).view(F64)),
    "u32": (32, lambda bits: np.asarray(bits, U32)),
    "i32": (32, lambda bits: np.asarray(bits, U32).view(I32)),
}


def _identity(value: Vec) -> Vec:
    return value


def _typed(inst: Instruction, slot: str, kind: str) -> Callable[[Wave], Vec]:
    bits, view = _VIEWS[kind]
    read = source(inst, slot, bits)
    return lambda wave: view(read(wave))


DPP_CAPABLE.update(name for name, (kinds, result, _) in FLOAT_OPS.items()
                   if result != "f64" and "f64" not in kinds)


@semantics(*FLOAT_OPS)
def _float_op(inst: Instruction) -> Step:
    name = base_name(inst.mnemonic)
    kinds, result, _ = FLOAT_OPS[name]
    slots = ("src0", "src1", "src2")[:len(kinds)]
    readers = [_typed(inst, slot, kind) for slot, kind in zip(slots, kinds, strict=True)]
    bits = 64 if result == "f64" else 32
    write = destination(inst, bits=bits)
    post: Callable[[Vec], Vec] = _identity
    if result == "f64":
        post = float_output(inst, F64)
    elif result == "f32":
        post = float_output(inst, F32)
    dtype = {"f32": F32, "f64": F64, "u32": U32}[result]
    raw = U64 if bits == 64 else U32
    following = inst.next_pc

    def finish(wave: Wave, value: Vec) -> None:
        write(wave, np.asarray(post(np.asarray(value, dtype)), dtype).view(raw))

    if name in UNARY:
        unary = UNARY[name][2]
        (r0,) = readers

        def step1(wave: Wave) -> int:
            finish(wave, unary(r0(wave)))
            return following
        return step1
    if name in BINARY:
        binary = BINARY[name][2]
        r0, r1 = readers

        def step2(wave: Wave) -> int:
            finish(wave, binary(r0(wave), r1(wave)))
            return following
        return step2
    ternary = TERNARY[name][2]
    r0, r1, r2 = readers

    def step3(wave: Wave) -> int:
        finish(wave, ternary(r0(wave), r1(wave), r2(wave)))
        return following

    return step3


# -- packed f32 (VOP3P) --------------------------------------------------------------------

OP_SEL = 4
OP_SEL_HI = 8
NEG_HI = 2

def _add(a: Vec, b: Vec) -> Vec:
    return a + b


def _mul(a: Vec, b: Vec) -> Vec:
    return a * b


_PACKED: dict[str, Callable[..., Vec]] = {
    "v_pk_add_f32": _add,
    "v_pk_mul_f32": _mul,
    "v_pk_fma_f32": fma32,
}


def _half(inst: Instruction, slot: str, high: bool) -> Callable[[Wave], Vec]:
    """One f32 half of a packed operand, picked by op_sel/op_sel_hi, negated by
    neg_lo/neg_hi (bits of ``<slot>_modifiers``)."""
    read = inst.vector(slot, 64)
    modifiers = inst.get(f"{slot}_modifiers", 0)
    take_high = bool(modifiers & (OP_SEL_HI if high else OP_SEL))
    negate = bool(modifiers & (NEG_HI if high else 1))
    shift = U64(32 if take_high else 0)
    sign = U32(0x80000000 if negate else 0)

    def half(wave: Wave) -> Vec:
        bits = ((np.asarray(read(wave), U64) >> shift) & U64(0xFFFFFFFF)).astype(U32)
        return (bits ^ sign).view(F32)

    return half


@semantics(*_PACKED)
def _packed(inst: Instruction) -> Step:
    fn = _PACKED[base_name(inst.mnemonic)]
    slots = [slot for slot in ("src0", "src1", "src2") if inst.desc.has(slot)]
    low = [_half(inst, slot, False) for slot in slots]
    high = [_half(inst, slot, True) for slot in slots]
    _, index, _ = inst.vdst()
    if inst.get("clamp", 0):
        raise inst.unsupported("clamp of packed f32 is not modelled")
    following = inst.next_pc

    def step(wave: Wave) -> int:
        result_low = np.asarray(fn(*(read(wave) for read in low)), F32)
        result_high = np.asarray(fn(*(read(wave) for read in high)), F32)
        wave.write_v(index, result_low.view(U32))
        wave.write_v(index + 1, result_high.view(U32))
        return following

    return step


# -- FMA/MAD with an inline literal K (VOP2 madmk/madak/fmamk/fmaak) -----------------------

_WITH_K: dict[str, tuple[tuple[str, str, str], Ternary]] = {
    # (slots as a, b, c of a * b + c, with "imm" the literal K) -> rounding
    "v_madmk_f32": (("src0", "imm", "src1"), lambda a, b, c: a * b + c),
    "v_madak_f32": (("src0", "src1", "imm"), lambda a, b, c: a * b + c),
    "v_fmamk_f32": (("src0", "imm", "src1"), fma32),
    "v_fmaak_f32": (("src0", "src1", "imm"), fma32),
}


@semantics(*_WITH_K)
def _with_k(inst: Instruction) -> Step:
    slots, fn = _WITH_K[base_name(inst.mnemonic)]
    a, b, c = (_typed(inst, slot, "f32") for slot in slots)
    write = destination(inst)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        write(wave, np.asarray(fn(a(wave), b(wave), c(wave)), F32).view(U32))
        return following

    return step


# -- division helpers (v_div_scale, v_div_fmas, v_div_fixup) -------------------------------

#: Per format: (float type, bits type, exponent bias, scale exponent of div_scale and
#: div_fmas, mantissa bits, exponent-difference threshold of div_scale).
_DIV = {"f32": (F32, U32, 127, 64, 23, 96), "f64": (F64, U64, 1023, 128, 52, 768)}


def _exponent(value: Vec, kind: str) -> Vec:
    float_type, int_type, _, _, mantissa, _ = _DIV[kind]
    bits = np.asarray(value, float_type).view(int_type)
    width = 8 if kind == "f32" else 11
    return ((bits >> int_type(mantissa)) & int_type((1 << width) - 1)).astype(np.int64)


def _div_scale(kind: str, s0: Vec, s1: Vec, s2: Vec) -> tuple[Vec, Vec]:
    """V_DIV_SCALE: S0 is the value to scale (the denominator or the numerator), S1 the
    denominator, S2 the numerator. Scales by 2**+-scale when the quotient would leave the
    range of normals; VCC says that div_fmas must undo the scaling of the quotient.

    The ISA documents' pseudo-code, with two corrections that make LLVM's ``fdiv``
    expansion give the IEEE quotient for every input, as the GPUs do (their correctly
    rounded division passes conformance): whether 1/S1 is a denormal is asked of the
    reciprocal in f64 (the RDNA3 document says so for f32; in f32 itself, 1/FLT_MAX would
    scale the denominator out of range), and where both 1/S1 and S2/S1 are denormals the
    denominator is scaled *down* (the documents say up, which overflows 1/DBL_MAX's
    denominator; down gives a normal quotient estimate, which div_fmas' rule then scales
    back by 2**-scale).
    """
    float_type, _, _, scale, mantissa, threshold = _DIV[kind]
    tiny = np.finfo(float_type).tiny
    s0, s1, s2 = (np.asarray(x, float_type) for x in (s0, s1, s2))
    result = s0.copy()
    flag = np.zeros(np.broadcast(s0, s1, s2).shape, np.bool_)
    result, flag = np.broadcast_to(result, flag.shape).copy(), flag
    up = np.ldexp(s0, scale).astype(float_type)
    down = np.ldexp(s0, -scale).astype(float_type)
    exp1, exp2 = _exponent(s1, kind), _exponent(s2, kind)
    with np.errstate(all="ignore"):
        reciprocal = float_type(1) / s1
        quotient = s2 / s1
    rcp_tiny_limit = tiny
    zero = (s1 == 0) | (s2 == 0)
    huge = ~zero & (exp2 - exp1 >= threshold)
    denormal_denominator = ~zero & ~huge & (np.abs(s1) < tiny)
    rest = ~zero & ~huge & ~denormal_denominator
    both = rest & (np.abs(reciprocal) < rcp_tiny_limit) & (np.abs(quotient) < tiny)
    rcp_tiny = rest & ~both & (np.abs(reciprocal) < rcp_tiny_limit)
    quotient_tiny = rest & ~both & ~rcp_tiny & (np.abs(quotient) < tiny)
    numerator_tiny = rest & ~both & ~rcp_tiny & ~quotient_tiny & (exp2 <= mantissa + 1)
    result = np.where(zero, float_type(np.nan), result)
    result = np.where(huge & (s0 == s1), up, result)
    result = np.where(both & (s0 == s1), down, result)
    result = np.where(denormal_denominator, up, result)
    result = np.where(rcp_tiny, down, result)
    result = np.where(quotient_tiny & (s0 == s2), up, result)
    result = np.where(numerator_tiny, up, result)
    flag = huge | both | quotient_tiny
    return result.astype(float_type), flag


@semantics("v_div_scale_f32", "v_div_scale_f64")
def _div_scale_op(inst: Instruction) -> Step:
    kind = inst.mnemonic[-3:]
    a, b, c = (_typed(inst, slot, kind) for slot in ("src0", "src1", "src2"))
    write = destination(inst, bits=64 if kind == "f64" else 32)
    flags = mask_destination(inst, "sdst")
    raw = U64 if kind == "f64" else U32
    following = inst.next_pc

    def step(wave: Wave) -> int:
        value, flag = _div_scale(kind, a(wave), b(wave), c(wave))
        flags(wave, np.broadcast_to(flag, (wave.lanes,)))
        write(wave, value.view(raw))
        return following

    return step


@semantics("v_div_fmas_f32", "v_div_fmas_f64")
def _div_fmas(inst: Instruction) -> Step:
    """fma(S0, S1, S2), rescaled where VCC is set (v_div_scale scaled an operand): by
    2**scale when S2 (the quotient estimate) has a biased exponent above the bias, else by
    2**-scale (scale 128 for f64, 64 for f32)."""
    kind = inst.mnemonic[-3:]
    a, b, c = (_typed(inst, slot, kind) for slot in ("src0", "src1", "src2"))
    write = destination(inst, bits=64 if kind == "f64" else 32)
    fused = fma64 if kind == "f64" else fma32
    float_type, raw, bias, scale = _DIV[kind][0], _DIV[kind][1], _DIV[kind][2], _DIV[kind][3]
    following = inst.next_pc

    def step(wave: Wave) -> int:
        a_value, b_value, c_value = a(wave), b(wave), c(wave)
        value = np.asarray(fused(a_value, b_value, c_value), float_type)
        vcc = lanes_of(wave.vcc_bits, wave.lanes)
        exponent = np.where(_exponent(c_value, kind) > bias, scale, -scale)
        scaled = np.ldexp(value, exponent).astype(float_type)
        # The scaling is part of the one rounding: where the scaled result leaves the
        # normal range (a denormal quotient), rounding the fma first would round twice.
        tiny = np.finfo(float_type).tiny
        for lane in np.flatnonzero(vcc & np.isfinite(value) & (value != 0)
                                   & ~(np.abs(scaled) >= tiny)):
            first, second, third = (float(np.broadcast_to(x, vcc.shape)[lane])
                                    for x in (a_value, b_value, c_value))
            scaled[lane] = _scaled_fma_lane(first, second, third, int(exponent[lane]),
                                            float_type)
        write(wave, np.where(vcc, scaled, value).astype(float_type).view(raw))
        return following

    return step


def _scaled_fma_lane(a: float, b: float, c: float, exponent: int, float_type: type) -> float:
    """(a * b + c) * 2**exponent rounded once to ``float_type`` (nearest even), for a
    finite, nonzero a * b + c whose scaled value is below the smallest normal."""
    exact = (Fraction(a) * Fraction(b) + Fraction(c)) * Fraction(2) ** exponent
    # Below the smallest normal the spacing is the smallest denormal's: round to it.
    unit = Fraction(2) ** (-149 if float_type is F32 else -1074)
    steps = exact / unit
    whole = math.floor(steps)
    rest = steps - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
        whole += 1
    value = float(whole * unit)
    return value if value != 0 else math.copysign(0.0, float(exact))


#: V_DIV_FIXUP's underflow threshold: a numerator exponent this far below the
#: denominator's (biased exponents) gives a zero quotient.
_FIXUP_UNDERFLOW = {"f32": 150, "f64": 1075}


@semantics("v_div_fixup_f32", "v_div_fixup_f64")
def _div_fixup(inst: Instruction) -> Step:
    """The quotient S0 of numerator S2 over denominator S1, with the IEEE special cases
    (NaN, zeros, infinities) put back and the sign of S2/S1."""
    kind = inst.mnemonic[-3:]
    a, b, c = (_typed(inst, slot, kind) for slot in ("src0", "src1", "src2"))
    write = destination(inst, bits=64 if kind == "f64" else 32)
    float_type, raw = (F64, U64) if kind == "f64" else (F32, U32)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        quotient, denominator, numerator = (np.asarray(x, float_type)
                                            for x in (a(wave), b(wave), c(wave)))
        negative = np.signbit(denominator) ^ np.signbit(numerator)
        magnitude = np.abs(quotient)
        nan = np.isnan(numerator) | np.isnan(denominator) | (
            (denominator == 0) & (numerator == 0)) | (
            np.isinf(denominator) & np.isinf(numerator))
        infinite = ~nan & ((denominator == 0) | np.isinf(numerator))
        zero = ~nan & ~infinite & (np.isinf(denominator) | (numerator == 0))
        rest = ~nan & ~infinite & ~zero
        # Far below the smallest denormal: zero. A quotient the scaled steps overflowed
        # (their inf - inf is a NaN here, as it is on the GPU): the overflow, infinity in
        # round-to-nearest.
        underflow = rest & (_exponent(numerator, kind) - _exponent(denominator, kind)
                            < -_FIXUP_UNDERFLOW[kind])
        overflow = rest & ~underflow & np.isnan(quotient)
        magnitude = np.where(infinite | overflow, float_type(np.inf), magnitude)
        magnitude = np.where(zero | underflow, float_type(0), magnitude)
        result = np.where(negative, -magnitude, magnitude)
        result = np.where(nan, float_type(np.nan), result).astype(float_type)
        write(wave, result.view(raw))
        return following

    return step
