"""Per-instruction semantics against values LLVM computes (issue 22, item 3).

Each case is an instruction and a C expression that computes, by the ISA's definition, the
same value on the host: x86-64, IEEE 754 binary arithmetic in round-to-nearest-even with
subnormals, which is the mode the emulator models (denormals on, IEEE mode: see
docs/emulator.md). ``clang_oracle`` evaluates every expression on every operand tuple
twice: **folded** (the operands are literals; the values are LLVM's constant folder's,
checked to leave nothing unfolded) and **at run time** (x86-64 SSE and glibc, compiled at
``-O2`` from the same source). The two must agree with each other, and the emulator must
agree with them bit for bit, except that a NaN result is compared as "a NaN": IEEE 754
leaves payloads to the implementation, and the two references already differ there (LLVM
folds ``inf - inf`` to 0x7FC00000, SSE gives 0xFFC00000, LLVM keeps an sNaN through
``fpext``).

The C of an instruction without a C operator (bit-field extracts, saturating conversions,
``v_fract``) is the ISA manual's pseudo-code or LLVM's own model of the instruction
(AMDGPU constant folding and pattern selection), cited at the case; operand classes where
the hardware's result is not what the C computes, or is not pinned down, are left out with
the reason next to them. Operands: a fixed-seed mix of random values (uniform bits, values
near 1, subnormals, the largest finite values, short mantissas that make exact ties) and
the edge cases of each type (0, -0, +-1, halves and ties, the smallest and largest
subnormal and normal, +-inf, quiet and signalling NaNs, INT_MIN, INT_MAX, UINT32_MAX,
integer-conversion boundaries, shift amounts of 32 and more). Each VALU instruction runs
over 64-lane batches in one program; each SALU instruction runs in a loop over lanes that
reads its operands with ``v_readlane`` and stores its results with ``v_writelane``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pytest

from luthier.emulator.state import Wave

from . import clang_oracle
from .asm import execute
from .clang_oracle import C_TYPES, Expression, Kind, Values

Bits = npt.NDArray[np.uint64]
Keep = Callable[[Bits], npt.NDArray[np.bool_]]
Draw = Callable[[int], Bits]

pytestmark = pytest.mark.skipif(not clang_oracle.available(),
                                reason="clang-19 is not on PATH (scripts/setup.sh installs it)")

RNG = np.random.default_rng(2203)
U64 = np.uint64

# -- operands ------------------------------------------------------------------------------

#: (mantissa bits, exponent bits) of the float kinds.
_FORMATS = {"f16": (10, 5), "f32": (23, 8), "f64": (52, 11)}

EDGES: dict[str, list[int]] = {
    "f16": [0x0000, 0x8000, 0x3C00, 0xBC00, 0x3800, 0xB800, 0x3E00, 0x4100, 0xC100,
            0x3BFF, 0x0001, 0x8001, 0x03FF, 0x0400, 0x8400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
            0x7E00, 0xFE00, 0x7E55, 0x7D00, 0x6400, 0x67FF, 0x7800, 0xF800, 0x77FF, 0x1400],
    "f32": [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3F000000, 0xBF000000,
            0x3FC00000, 0x40200000, 0xC0200000, 0x3EFFFFFF, 0x3F7FFFFF, 0x00000001,
            0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF,
            0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC12345,
            0x7F800001, 0xFFA00000, 0x4B000000, 0x4B000001, 0xCB7FFFFF, 0x4EFFFFFF,
            0x4F000000, 0xCF000000, 0xCF000001, 0x4F7FFFFF, 0x4F800000, 0x33800000,
            0x477FE000, 0x477FF000, 0x387FC000, 0x33000000, 0xC6FFFE00, 0x47000000],
    "f64": [0x0000000000000000, 0x8000000000000000, 0x3FF0000000000000, 0xBFF0000000000000,
            0x3FE0000000000000, 0xBFE0000000000000, 0x3FF8000000000000, 0x4004000000000000,
            0xC004000000000000, 0x3FDFFFFFFFFFFFFF, 0x0000000000000001, 0x8000000000000001,
            0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x8010000000000000, 0x7FEFFFFFFFFFFFFF,
            0xFFEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
            0xFFF8000000000000, 0x7FF8000012345678, 0x7FF0000000000001, 0x4330000000000000,
            0x4330000000000001, 0x41DFFFFFFFC00000, 0x41DFFFFFFFE00000, 0x41E0000000000000,
            0xC1E0000000000000, 0xC1E0000000100000, 0x41EFFFFFFFE00000, 0x41F0000000000000,
            0x47EFFFFFE0000000, 0x47EFFFFFF0000000, 0x3810000000000000, 0x36A0000000000000,
            0x3690000000000000, 0x3698000000000000, 0x380FFFFFF0000000],
    "u16": [0, 1, 2, 15, 16, 17, 0xFF, 0x100, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF],
    "u32": [0, 1, 2, 3, 31, 32, 33, 63, 64, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF,
            0x10000, 0x00800000, 0x00FFFFFF, 0x01000000, 0xFF800000, 0x7FFFFFFF, 0x80000000,
            0x80000001, 0xFFFFFFFE, 0xFFFFFFFF, 0x55555555, 0xAAAAAAAA, 0x12345678],
    "u64": [0, 1, 31, 32, 63, 64, 0xFFFFFFFF, 0x100000000, 0x80000000, 0x7FFFFFFFFFFFFFFF,
            0x8000000000000000, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFF00000000, 0x0123456789ABCDEF],
}
for _signed, _unsigned in (("i16", "u16"), ("i32", "u32"), ("i64", "u64")):
    EDGES[_signed] = EDGES[_unsigned]


def _bits(width: int, count: int) -> Bits:
    return RNG.integers(0, 1 << width, count, dtype=U64)


def floats(kind: str, count: int) -> Bits:
    """Random floats of ``kind``: any bits, values near 1 (whose sums and products
    interact), subnormals and the smallest normals, the largest finite values, moderate
    magnitudes; a third of them with short mantissas (exact ties, integers)."""
    mantissa_bits, exponent_bits = _FORMATS[kind]
    top = (1 << exponent_bits) - 1
    bias = top >> 1
    style = RNG.integers(0, 5, count)
    exponent = np.select(
        [style == 0, style == 1, style == 2, style == 3],
        [RNG.integers(0, top + 1, count), bias + RNG.integers(-12, 13, count),
         RNG.integers(0, 3, count), top - 1 - RNG.integers(0, 3, count)],
        bias + RNG.integers(-40, 41, count))
    exponent = np.clip(exponent, 0, top).astype(U64)
    mantissa = _bits(mantissa_bits, count)
    short = RNG.integers(0, 3, count) == 0
    mantissa = np.where(short, mantissa & ~U64((1 << max(mantissa_bits - 4, 0)) - 1), mantissa)
    sign = RNG.integers(0, 2, count, dtype=U64)
    width = 1 + exponent_bits + mantissa_bits
    return (sign << U64(width - 1)) | (exponent << U64(mantissa_bits)) | mantissa


def integers(width: int, count: int) -> Bits:
    """Random integers: uniform bits, small values, small negative values, single bits."""
    style = RNG.integers(0, 4, count)
    mask = U64((1 << width) - 1) if width < 64 else U64(0xFFFFFFFFFFFFFFFF)
    small = RNG.integers(0, 70, count, dtype=U64)
    negative = (~RNG.integers(0, 70, count, dtype=U64)) & mask
    one_bit = U64(1) << RNG.integers(0, width, count, dtype=U64)
    return np.select([style == 0, style == 1, style == 2], [small, negative, one_bit],
                     _bits(width, count)).astype(U64)


def draw_of(kind: str) -> Draw:
    if kind in _FORMATS:
        return functools.partial(floats, kind)
    return functools.partial(integers, C_TYPES[kind][1])


def uniform(low: int, high: int, *edges: int) -> Draw:
    """Integers in [low, high) (as two's complement bits), with ``edges`` mixed in."""
    def draw(count: int) -> Bits:
        values = RNG.integers(low, high, count)
        if edges:
            values = np.where(RNG.integers(0, 4, count) == 0, RNG.choice(edges, count), values)
        return values.astype(np.int64).view(U64)
    return draw


def tuples(kinds: Sequence[str], count: int = 1024, *,
           edges: Sequence[Sequence[int] | None] | None = None,
           draws: Sequence[Draw | None] | None = None, keep: Keep | None = None) -> Bits:
    """Operand tuples: every combination of the kinds' edge values when that is at most
    half of ``count`` (else a random half of them), then random tuples in which a quarter
    of the operands are edge values; the rows ``keep`` rejects are dropped."""
    chosen_edges = [np.array(e if e is not None else EDGES[k], U64)
                    for k, e in zip(kinds, edges or [None] * len(kinds), strict=True)]
    chosen_draws = [d if d is not None else draw_of(k)
                    for k, d in zip(kinds, draws or [None] * len(kinds), strict=True)]
    if math.prod(len(e) for e in chosen_edges) <= count // 2:
        edge_rows = np.array(list(itertools.product(*chosen_edges)), U64).reshape(
            -1, len(kinds))
    else:
        edge_rows = np.stack([RNG.choice(e, count // 2) for e in chosen_edges], axis=1)
    rest = count - len(edge_rows)
    random_rows = np.stack([
        np.where(RNG.integers(0, 4, rest) == 0, RNG.choice(e, rest), d(rest))
        for e, d in zip(chosen_edges, chosen_draws, strict=True)], axis=1).astype(U64)
    rows = np.concatenate([edge_rows, random_rows])
    return rows[keep(rows)] if keep is not None else rows


def _field(kind: str, bits: Bits) -> tuple[Bits, Bits, int]:
    """(exponent field, mantissa field, all-ones exponent) of float bits."""
    mantissa_bits, exponent_bits = _FORMATS[kind]
    top = (1 << exponent_bits) - 1
    return (bits >> U64(mantissa_bits)) & U64(top), bits & U64((1 << mantissa_bits) - 1), top


def is_nan(kind: str, bits: Bits) -> npt.NDArray[np.bool_]:
    exponent, mantissa, top = _field(kind, bits)
    return (exponent == top) & (mantissa != 0)


def is_snan(kind: str, bits: Bits) -> npt.NDArray[np.bool_]:
    quiet = U64(1 << (_FORMATS[kind][0] - 1))
    return is_nan(kind, bits) & ((bits & quiet) == 0)


def is_finite(kind: str, bits: Bits) -> npt.NDArray[np.bool_]:
    exponent, _, top = _field(kind, bits)
    return exponent != top


def is_zero(kind: str, bits: Bits) -> npt.NDArray[np.bool_]:
    exponent, mantissa, _ = _field(kind, bits)
    return (exponent == 0) & (mantissa == 0)


def min_max_operands(kind: str) -> Keep:
    """Operands on which IEEE-mode ``v_min``/``v_max`` agree with C's ``fmin``/``fmax``
    (LLVM's ``minnum``/``maxnum``): no signalling NaN (the hardware returns a quiet NaN,
    ``minnum`` the other operand) and no +0/-0 pair (C and LLVM 19's ``minnum`` may return
    either zero; the ISA orders -0 below +0)."""
    def keep(rows: Bits) -> npt.NDArray[np.bool_]:
        columns = [rows[:, k] for k in range(rows.shape[1])]
        good = ~np.any([is_snan(kind, c) for c in columns], axis=0)
        for x, y in itertools.combinations(columns, 2):
            good &= ~(is_zero(kind, x) & is_zero(kind, y) & (x != y))
        return good
    return keep


def all_finite(kind: str) -> Keep:
    return lambda rows: np.all([is_finite(kind, rows[:, k]) for k in range(rows.shape[1])],
                               axis=0)


# -- cases ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """``asm`` with ``{s0}``.. for the sources and ``{d0}``.. for the destinations;
    ``sources``/``dests`` say where each lives: ``v`` VGPR(s) of the operand's (result's)
    width, ``m`` a lane mask in an SGPR pair (operand/result 0 or 1 per lane), ``p`` one
    register holding two results of half its width (packed), ``s`` SGPR(s), ``c`` SCC."""

    asm: str
    expression: Expression
    operands: Bits
    sources: str
    dests: str

    @property
    def scalar(self) -> bool:
        return self.asm.startswith("s_")


CASES: list[Case] = []


def case(asm: str, operands: tuple[Kind, ...], results: tuple[tuple[Kind, str], ...], *,
         name: str | None = None, sources: str | None = None, dests: str | None = None,
         rows: Bits | None = None, count: int = 1024, runtime: bool = True) -> None:
    mnemonic = asm.split()[0].removesuffix("_e32").removesuffix("_e64")
    scalar = asm.startswith("s_")
    default = "s" if scalar else "v"
    expression = Expression(name or mnemonic, operands, results, runtime)
    rows = rows if rows is not None else tuples(operands, count)
    widths = [C_TYPES[kind][1] for kind in operands]
    rows = rows & np.array([(1 << w) - 1 for w in widths], U64)  # two's complement bits
    CASES.append(Case(asm, expression, rows,
                      sources or default * len(operands),
                      dests or default * len(results)))


#: C helpers of the expressions below.
PRELUDE = r"""
#define H(x) __builtin_bit_cast(_Float16, (uint16_t)(x))
#define F(x) __builtin_bit_cast(float, (uint32_t)(x))
/* AMDGPUISelLowering.cpp constantFoldBFE and AMDGPUInstCombineIntrinsic.cpp (ubfe/sbfe):
   offset and width are taken modulo the width, width 0 gives 0, a field that reaches past
   the top bit is the (arithmetic, for the signed form) shift by the offset. The CDNA ISA
   pseudo-code says the same: tmp = (S0.i32 >> offset) & mask; signext_from_bit(tmp, width). */
static inline uint32_t bfe_u32(uint32_t x, uint32_t offset, uint32_t width) {
  offset &= 31; width &= 31;
  if (width == 0) return 0;
  if (offset + width < 32) return (x << (32 - offset - width)) >> (32 - width);
  return x >> offset;
}
static inline int32_t bfe_i32(int32_t x, uint32_t offset, uint32_t width) {
  offset &= 31; width &= 31;
  if (width == 0) return 0;
  if (offset + width < 32) return (int32_t)((uint32_t)x << (32 - offset - width)) >> (32 - width);
  return x >> offset;
}
/* S_BFE_*: offset S1[4:0] (S1[5:0] for 64 bits), width S1[22:16]; the operands keep the
   width at most the operand width. */
static inline uint64_t sbfe_u(uint64_t x, uint32_t packed, unsigned bits) {
  uint32_t offset = packed & (bits - 1), width = (packed >> 16) & 127;
  if (width == 0) return 0;
  if (offset + width < bits) return (x << (64 - offset - width)) >> (64 - width);
  return x >> offset;
}
static inline int64_t sbfe_i(int64_t x, uint32_t packed, unsigned bits) {
  uint32_t offset = packed & (bits - 1), width = (packed >> 16) & 127;
  if (width == 0) return 0;
  if (offset + width < bits) return (int64_t)((uint64_t)x << (64 - offset - width)) >> (64 - width);
  return x >> offset;
}
/* f32_to_i32 and friends of the ISA manual: "out-of-range floating point values (including
   infinity) saturate. NAN is converted to 0." Truncation otherwise. */
static inline int32_t sat_i32(double x) {
  return x != x ? 0 : x >= 2147483647.0 ? 2147483647 : x <= -2147483648.0 ? (-2147483647 - 1)
       : (int32_t)x;
}
static inline uint32_t sat_u32(double x) {
  return x != x ? 0 : x >= 4294967295.0 ? 4294967295u : x <= 0.0 ? 0u : (uint32_t)x;
}
static inline int16_t sat_i16(float x) {
  return x != x ? 0 : x >= 32767.0f ? 32767 : x <= -32768.0f ? -32768 : (int16_t)x;
}
static inline uint16_t sat_u16(float x) {
  return x != x ? 0 : x >= 65535.0f ? 65535 : x <= 0.0f ? 0 : (uint16_t)x;
}
/* V_FRACT: LLVM selects it for minnum(x - floor(x), nextafter(1.0, 0.0)) (the OpenCL
   fract; AMDGPUCodeGenPrepare matchFractPat). */
static inline float fract_f32(float x) {
  return __builtin_fminf(x - __builtin_floorf(x), 0x1.fffffep-1f);
}
static inline double fract_f64(double x) {
  return __builtin_fmin(x - __builtin_floor(x), 0x1.fffffffffffffp-1);
}
static inline float fract_f16(float x) {
  return __builtin_fminf(x - __builtin_floorf(x), 0x1.ffcp-1f);
}
/* V_FREXP_*: LLVM selects them for llvm.frexp on GFX8+ (no fract bug) and folds
   amdgcn.frexp.exp of an infinity or NaN to 0 ("match instruction special case"). */
static inline float frexp_mant_f32(float x) { int e; return __builtin_frexpf(x, &e); }
static inline int32_t frexp_exp_f32(float x) {
  int e; __builtin_frexpf(x, &e); return __builtin_isfinite(x) ? e : 0;
}
static inline double frexp_mant_f64(double x) { int e; return __builtin_frexp(x, &e); }
static inline int32_t frexp_exp_f64(double x) {
  int e; __builtin_frexp(x, &e); return __builtin_isfinite(x) ? e : 0;
}
static inline uint32_t add_overflows(int32_t a, int32_t b) {
  int32_t r; return __builtin_add_overflow(a, b, &r);
}
static inline uint32_t sub_overflows(int32_t a, int32_t b) {
  int32_t r; return __builtin_sub_overflow(a, b, &r);
}
/* S_ABSDIFF_I32: "D0.i = S0.i - S1.i; if D0.i < 0 then D0.i = -D0.i", in 32 bits (the
   manual's examples: (0x80000000, 0x00000001) => 0x7fffffff). */
static inline uint32_t absdiff_i32(uint32_t a, uint32_t b) {
  uint32_t d = a - b; return (int32_t)d < 0 ? 0u - d : d;
}
static inline int64_t sext24(uint32_t x) { return (int32_t)(x << 8) >> 8; }
/* V_CMP_CLASS: mask bits 0..9 are sNaN, qNaN, -inf, -normal, -subnormal, -0, +0,
   +subnormal, +normal, +inf: the order of LLVM's FPClassTest, so each bit is one
   __builtin_isfpclass test. */
#define CLASS(x, m) ( \
  (((m) & 1) && __builtin_isfpclass(x, 1)) | (((m) & 2) && __builtin_isfpclass(x, 2)) | \
  (((m) & 4) && __builtin_isfpclass(x, 4)) | (((m) & 8) && __builtin_isfpclass(x, 8)) | \
  (((m) & 16) && __builtin_isfpclass(x, 16)) | (((m) & 32) && __builtin_isfpclass(x, 32)) | \
  (((m) & 64) && __builtin_isfpclass(x, 64)) | (((m) & 128) && __builtin_isfpclass(x, 128)) | \
  (((m) & 256) && __builtin_isfpclass(x, 256)) | (((m) & 512) && __builtin_isfpclass(x, 512)))
"""

U32: tuple[Kind, ...] = ("u32",)
U32x2: tuple[Kind, ...] = ("u32", "u32")
U32x3: tuple[Kind, ...] = ("u32", "u32", "u32")
I32x2: tuple[Kind, ...] = ("i32", "i32")
I32x3: tuple[Kind, ...] = ("i32", "i32", "i32")
F32: tuple[Kind, ...] = ("f32",)
F32x2: tuple[Kind, ...] = ("f32", "f32")
F32x3: tuple[Kind, ...] = ("f32", "f32", "f32")
F64: tuple[Kind, ...] = ("f64",)
F64x2: tuple[Kind, ...] = ("f64", "f64")
F16: tuple[Kind, ...] = ("f16",)
F16x2: tuple[Kind, ...] = ("f16", "f16")
SHIFT = uniform(0, 128, 0, 1, 31, 32, 33, 63, 64, 127)  # the hardware masks shift amounts

# VALU integer operations: C's unsigned (modulo 2^n) arithmetic and shifts by the masked
# amount are the ISA's definitions; signed ones are two's complement on both sides.
for _asm, _text in [
        ("v_add_u32_e32", "a + b"), ("v_sub_u32_e32", "a - b"), ("v_subrev_u32_e32", "b - a"),
        ("v_mul_lo_u32", "a * b"), ("v_mul_hi_u32", "(uint32_t)(((uint64_t)a * b) >> 32)"),
        ("v_and_b32_e32", "a & b"), ("v_or_b32_e32", "a | b"), ("v_xor_b32_e32", "a ^ b"),
        ("v_xnor_b32_e32", "~(a ^ b)"), ("v_min_u32_e32", "a < b ? a : b"),
        ("v_max_u32_e32", "a > b ? a : b"),
        ("v_mul_u32_u24_e32", "(a & 0xffffff) * (b & 0xffffff)"),
        ("v_mul_hi_u32_u24_e32", "(uint32_t)(((uint64_t)(a & 0xffffff) * (b & 0xffffff)) >> 32)"),
        ("v_mul_i32_i24_e32", "(uint32_t)(sext24(a) * sext24(b))"),
        ("v_mul_hi_i32_i24_e32", "(uint32_t)((uint64_t)(sext24(a) * sext24(b)) >> 32)"),
        ("v_bcnt_u32_b32", "__builtin_popcount(a) + b"),
        ("v_bfm_b32", "((1u << (a & 31)) - 1) << (b & 31)")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", U32x2, (("u32", _text),))
for _asm, _text in [("v_mul_hi_i32", "(int32_t)(((int64_t)a * b) >> 32)"),
                    ("v_min_i32_e32", "a < b ? a : b"), ("v_max_i32_e32", "a > b ? a : b")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", I32x2, (("i32", _text),))
for _asm, _kind, _text in [("v_lshlrev_b32_e32", "u32", "b << (a & 31)"),
                           ("v_lshrrev_b32_e32", "u32", "b >> (a & 31)"),
                           ("v_ashrrev_i32_e32", "i32", "b >> (a & 31)")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", ("u32", _kind), ((_kind, _text),),
         rows=tuples(("u32", _kind), draws=[SHIFT, None]))
for _asm, _kind, _text in [("v_lshlrev_b64", "u64", "b << (a & 63)"),
                           ("v_lshrrev_b64", "u64", "b >> (a & 63)"),
                           ("v_ashrrev_i64", "i64", "b >> (a & 63)")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", ("u32", _kind), ((_kind, _text),),
         rows=tuples(("u32", _kind), draws=[SHIFT, None]))
for _asm, _text in [("v_not_b32_e32", "~a"), ("v_bfrev_b32_e32", "__builtin_bitreverse32(a)"),
                    # AMDGPUffbh_u32 / AMDGPUffbl_b32: -1 (all ones) for 0
                    ("v_ffbh_u32_e32", "a ? (uint32_t)__builtin_clz(a) : 0xffffffffu"),
                    ("v_ffbl_b32_e32", "a ? (uint32_t)__builtin_ctz(a) : 0xffffffffu")]:
    case(f"{_asm} {{d0}}, {{s0}}", U32, (("u32", _text),), count=512)
_FIELD = uniform(0, 64, 0, 1, 16, 31, 32, 33)  # offsets and widths: taken modulo 32
case("v_bfe_u32 {d0}, {s0}, {s1}, {s2}", U32x3, (("u32", "bfe_u32(a, b, c)"),),
     rows=tuples(U32x3, draws=[None, _FIELD, _FIELD]))
case("v_bfe_i32 {d0}, {s0}, {s1}, {s2}", ("i32", "u32", "u32"), (("i32", "bfe_i32(a, b, c)"),),
     rows=tuples(U32x3, draws=[None, _FIELD, _FIELD]))
for _asm, _text in [
        ("v_bfi_b32", "(a & b) | (~a & c)"), ("v_add3_u32", "a + b + c"),
        ("v_lshl_add_u32", "(a << (b & 31)) + c"), ("v_add_lshl_u32", "(a + b) << (c & 31)"),
        ("v_lshl_or_b32", "(a << (b & 31)) | c"), ("v_and_or_b32", "(a & b) | c"),
        ("v_or3_b32", "a | b | c"), ("v_xad_u32", "(a ^ b) + c"),
        ("v_mad_u32_u24", "(a & 0xffffff) * (b & 0xffffff) + c"),
        ("v_alignbit_b32", "(uint32_t)((((uint64_t)a << 32) | b) >> (c & 31))"),
        ("v_alignbyte_b32", "(uint32_t)((((uint64_t)a << 32) | b) >> (8 * (c & 3)))"),
        ("v_sad_u32", "(a > b ? a - b : b - a) + c"),
        ("v_min3_u32", "a < b ? (a < c ? a : c) : (b < c ? b : c)"),
        ("v_med3_u32", "a > b ? (b > c ? b : a < c ? a : c) : (a > c ? a : b < c ? b : c)")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}, {{s2}}", U32x3, (("u32", _text),))
case("v_med3_i32 {d0}, {s0}, {s1}, {s2}", I32x3,
     (("i32", "a > b ? (b > c ? b : a < c ? a : c) : (a > c ? a : b < c ? b : c)"),))
case("v_max3_i32 {d0}, {s0}, {s1}, {s2}", I32x3,
     (("i32", "a > b ? (a > c ? a : c) : (b > c ? b : c)"),))
# Carries: the carry-out lane mask is the unsigned overflow of the 32-bit sum (borrow of
# the difference); the carry-in is a lane mask too.
case("v_add_co_u32_e64 {d0}, {d1}, {s0}, {s1}", U32x2,
     (("u32", "a + b"), ("u32", "(uint32_t)(a + b) < a")), dests="vm")
case("v_sub_co_u32_e64 {d0}, {d1}, {s0}, {s1}", U32x2, (("u32", "a - b"), ("u32", "a < b")),
     dests="vm")
case("v_subrev_co_u32_e64 {d0}, {d1}, {s0}, {s1}", U32x2, (("u32", "b - a"), ("u32", "b < a")),
     dests="vm")
_CARRY = tuples(U32x3, draws=[None, None, uniform(0, 2)], edges=[None, None, [0, 1]])
case("v_addc_co_u32_e64 {d0}, {d1}, {s0}, {s1}, {s2}", U32x3,
     (("u32", "a + b + c"), ("u32", "(uint32_t)((((uint64_t)a + b) + c) >> 32)")),
     sources="vvm", dests="vm", rows=_CARRY)
case("v_subb_co_u32_e64 {d0}, {d1}, {s0}, {s1}, {s2}", U32x3,
     (("u32", "a - b - c"), ("u32", "(uint64_t)b + c > a")), sources="vvm", dests="vm",
     rows=_CARRY)
case("v_cndmask_b32_e64 {d0}, {s0}, {s1}, {s2}", U32x3, (("u32", "c ? b : a"),),
     sources="vvm", rows=_CARRY)
case("v_mad_u64_u32 {d0}, {d1}, {s0}, {s1}, {s2}", ("u32", "u32", "u64"),
     (("u64", "(uint64_t)a * b + c"), ("u32", "(uint64_t)a * b + c < c")), dests="vm")
# The carry-out of the signed form is not compared (the ISA leaves it undescribed).
case("v_mad_i64_i32 {d0}, s[98:99], {s0}, {s1}, {s2}", ("i32", "i32", "i64"),
     (("i64", "(int64_t)((uint64_t)((int64_t)a * b) + (uint64_t)c)"),))
# 16-bit integer operations (the low halves of the registers).
for _asm, _text in [("v_add_u16_e32", "a + b"), ("v_sub_u16_e32", "a - b"),
                    ("v_mul_lo_u16_e32", "(uint32_t)a * b"),
                    ("v_lshlrev_b16_e32", "b << (a & 15)"), ("v_lshrrev_b16_e32", "b >> (a & 15)"),
                    ("v_max_u16_e32", "a > b ? a : b"), ("v_min_u16_e32", "a < b ? a : b")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", ("u16", "u16"), (("u16", _text),))
case("v_ashrrev_i16_e32 {d0}, {s0}, {s1}", ("u16", "i16"), (("i16", "b >> (a & 15)"),))
case("v_max_i16_e32 {d0}, {s0}, {s1}", ("i16", "i16"), (("i16", "a > b ? a : b"),))
case("v_mad_u16 {d0}, {s0}, {s1}, {s2}", ("u16", "u16", "u16"), (("u16", "(uint32_t)a * b + c"),))
case("v_pk_add_u16 {d0}, {s0}, {s1}", U32x2,
     (("u16", "a + b"), ("u16", "(a >> 16) + (b >> 16)")), dests="p")

# VALU compares: the lane mask of the relation; ordered float relations are false and the
# "n" (unordered) ones true on NaN, as in C.
for _relation, _text in [("lt", "a < b"), ("eq", "a == b"), ("ge", "a >= b"),
                         ("lg", "a < b || a > b"), ("o", "!__builtin_isunordered(a, b)"),
                         ("u", "__builtin_isunordered(a, b)"), ("nge", "!(a >= b)"),
                         ("neq", "!(a == b)"), ("nlt", "!(a < b)")]:
    case(f"v_cmp_{_relation}_f32_e64 {{d0}}, {{s0}}, {{s1}}", F32x2, (("u32", _text),),
         dests="m", count=512)
for _relation, _text in [("lt", "a < b"), ("neq", "!(a == b)")]:
    case(f"v_cmp_{_relation}_f64_e64 {{d0}}, {{s0}}, {{s1}}", F64x2, (("u32", _text),),
         dests="m", count=512)
    case(f"v_cmp_{_relation}_f16_e64 {{d0}}, {{s0}}, {{s1}}", F16x2, (("u32", _text),),
         dests="m", count=512)
case("v_cmp_lt_i32_e64 {d0}, {s0}, {s1}", I32x2, (("u32", "a < b"),), dests="m", count=512)
case("v_cmp_ge_u32_e64 {d0}, {s0}, {s1}", U32x2, (("u32", "a >= b"),), dests="m", count=512)
case("v_cmp_gt_i64_e64 {d0}, {s0}, {s1}", ("i64", "i64"), (("u32", "a > b"),), dests="m",
     count=512)
_CLASS_MASK = uniform(0, 1024, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 3, 0x3FF)
for _kind, _mnemonic in [("f32", "v_cmp_class_f32"), ("f64", "v_cmp_class_f64"),
                         ("f16", "v_cmp_class_f16")]:
    case(f"{_mnemonic}_e64 {{d0}}, {{s0}}, {{s1}}", (_kind, "u32"),
         (("u32", "CLASS(a, b)"),), dests="m",
         rows=tuples((_kind, "u32"), draws=[None, _CLASS_MASK], edges=[None, [1, 2, 3, 1023]]))

# f32 arithmetic: IEEE operations rounded to nearest even, subnormals kept, on every class
# of operand (a NaN result is compared as a NaN).
for _asm, _text in [("v_add_f32_e32", "a + b"), ("v_sub_f32_e32", "a - b"),
                    ("v_subrev_f32_e32", "b - a"), ("v_mul_f32_e32", "a * b")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", F32x2, (("f32", _text),))
# abs/neg input modifiers act on the sign bit.
case("v_add_f32_e64 {d0}, -{s0}, |{s1}|", F32x2, (("f32", "-a + __builtin_fabsf(b)"),),
     name="v_add_f32_neg_abs", count=512)
case("v_fma_f32 {d0}, {s0}, {s1}, {s2}", F32x3, (("f32", "__builtin_fmaf(a, b, c)"),),
     count=2048)
case("v_fma_f32 {d0}, -{s0}, {s1}, -|{s2}|", F32x3,
     (("f32", "__builtin_fmaf(-a, b, -__builtin_fabsf(c))"),), name="v_fma_f32_neg_abs",
     count=512)
for _asm, _text in [("v_min_f32_e32", "__builtin_fminf(a, b)"),
                    ("v_max_f32_e32", "__builtin_fmaxf(a, b)")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", F32x2, (("f32", _text),),
         rows=tuples(F32x2, keep=min_max_operands("f32")))
case("v_min3_f32 {d0}, {s0}, {s1}, {s2}", F32x3,
     (("f32", "__builtin_fminf(__builtin_fminf(a, b), c)"),),
     rows=tuples(F32x3, keep=min_max_operands("f32")))
case("v_max3_f32 {d0}, {s0}, {s1}, {s2}", F32x3,
     (("f32", "__builtin_fmaxf(__builtin_fmaxf(a, b), c)"),),
     rows=tuples(F32x3, keep=min_max_operands("f32")))
# Rounding to integral values: LLVM selects V_TRUNC/V_FLOOR/V_CEIL/V_RNDNE for ftrunc,
# ffloor, fceil and froundeven (VOP1Instructions.td).
for _suffix, _text in [("trunc", "__builtin_truncf(a)"), ("floor", "__builtin_floorf(a)"),
                       ("ceil", "__builtin_ceilf(a)"), ("rndne", "__builtin_roundevenf(a)")]:
    case(f"v_{_suffix}_f32_e32 {{d0}}, {{s0}}", F32, (("f32", _text),), count=768)
# v_fract of an infinity: LLVM's folder of amdgcn.fract says NaN, its pattern matcher
# (minnum(inf - inf, c) = c) says 0x3F7FFFFF; and the NaN check is outside the pattern.
# Finite operands only.
case("v_fract_f32_e32 {d0}, {s0}", F32, (("f32", "fract_f32(a)"),),
     rows=tuples(F32, 768, keep=all_finite("f32")))
case("v_frexp_mant_f32_e32 {d0}, {s0}", F32, (("f32", "frexp_mant_f32(a)"),), count=512)
case("v_frexp_exp_i32_f32_e32 {d0}, {s0}", F32, (("i32", "frexp_exp_f32(a)"),), count=512)
_EXPONENT = uniform(-320, 320, 0, 1, -1, 127, 128, -126, -149, -150, 149, 254, 300, -300,
                    1000, -1000, 2**31 - 1, -2**31)
case("v_ldexp_f32 {d0}, {s0}, {s1}", ("f32", "i32"), (("f32", "__builtin_ldexpf(a, b)"),),
     rows=tuples(("f32", "i32"), draws=[None, _EXPONENT], edges=[None, [0, 1, 2**32 - 1]]))
# Conversions: integer to float rounds to nearest even; float to integer truncates,
# saturates and sends NaN to 0 (the manual's f32_to_i32 and friends).
case("v_cvt_f32_i32_e32 {d0}, {s0}", ("i32",), (("f32", "(float)a"),), count=512)
case("v_cvt_f32_u32_e32 {d0}, {s0}", U32, (("f32", "(float)a"),), count=512)
case("v_cvt_i32_f32_e32 {d0}, {s0}", F32, (("i32", "sat_i32(a)"),), count=768)
case("v_cvt_u32_f32_e32 {d0}, {s0}", F32, (("u32", "sat_u32(a)"),), count=768)
case("v_cvt_flr_i32_f32_e32 {d0}, {s0}", F32, (("i32", "sat_i32(__builtin_floorf(a))"),),
     count=512)
# "f32_to_i32(floor(S0.f32 + 0.5F))": the f32 sum rounds first (0.49999997 gives 1).
case("v_cvt_rpi_i32_f32_e32 {d0}, {s0}", F32, (("i32", "sat_i32(__builtin_floorf(a + 0.5f))"),),
     count=512)
case("v_cvt_f64_f32_e32 {d0}, {s0}", F32, (("f64", "(double)a"),), count=512)
case("v_cvt_f32_f64_e32 {d0}, {s0}", F64, (("f32", "(float)a"),), count=768)
case("v_cvt_f64_i32_e32 {d0}, {s0}", ("i32",), (("f64", "(double)a"),), count=256)
case("v_cvt_f64_u32_e32 {d0}, {s0}", U32, (("f64", "(double)a"),), count=256)
case("v_cvt_i32_f64_e32 {d0}, {s0}", F64, (("i32", "sat_i32(a)"),), count=768)
case("v_cvt_u32_f64_e32 {d0}, {s0}", F64, (("u32", "sat_u32(a)"),), count=768)
case("v_cvt_f32_ubyte2_e32 {d0}, {s0}", U32, (("f32", "(float)((a >> 16) & 0xff)"),),
     count=256)
# Not compared: v_sqrt/v_rcp/v_rsq/v_exp/v_log/v_sin/v_cos (the hardware's are within
# 1 ulp, not correctly rounded; the emulator rounds correctly), v_mad/v_mac_f32 (not fused
# and flushing subnormals on GFX9), v_mul_legacy_f32 (DX9 zero rules, denormal handling
# undocumented), v_div_* (no C counterpart), clamp/omod (the sign of a clamped -0 is not
# pinned down).

# f64 arithmetic, as for f32.
case("v_add_f64 {d0}, {s0}, {s1}", F64x2, (("f64", "a + b"),))
case("v_add_f64 {d0}, {s0}, -{s1}", F64x2, (("f64", "a - b"),), name="v_add_f64_neg",
     count=512)
case("v_mul_f64 {d0}, {s0}, {s1}", F64x2, (("f64", "a * b"),))
case("v_mul_f64 {d0}, -|{s0}|, {s1}", F64x2, (("f64", "-__builtin_fabs(a) * b"),),
     name="v_mul_f64_neg_abs", count=512)
case("v_fma_f64 {d0}, {s0}, {s1}, {s2}", ("f64", "f64", "f64"),
     (("f64", "__builtin_fma(a, b, c)"),), count=2048)
for _asm, _text in [("v_min_f64", "__builtin_fmin(a, b)"), ("v_max_f64", "__builtin_fmax(a, b)")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", F64x2, (("f64", _text),),
         rows=tuples(F64x2, keep=min_max_operands("f64")))
for _suffix, _text in [("trunc", "__builtin_trunc(a)"), ("floor", "__builtin_floor(a)"),
                       ("ceil", "__builtin_ceil(a)"), ("rndne", "__builtin_roundeven(a)")]:
    case(f"v_{_suffix}_f64_e32 {{d0}}, {{s0}}", F64, (("f64", _text),), count=768)
case("v_fract_f64_e32 {d0}, {s0}", F64, (("f64", "fract_f64(a)"),),
     rows=tuples(F64, 768, keep=all_finite("f64")))
case("v_frexp_mant_f64_e32 {d0}, {s0}", F64, (("f64", "frexp_mant_f64(a)"),), count=512)
case("v_frexp_exp_i32_f64_e32 {d0}, {s0}", F64, (("i32", "frexp_exp_f64(a)"),), count=512)
case("v_ldexp_f64 {d0}, {s0}, {s1}", ("f64", "i32"), (("f64", "__builtin_ldexp(a, b)"),),
     rows=tuples(("f64", "i32"), draws=[None, uniform(-2200, 2200, 1023, 1024, -1022, -1074,
                                                       -1075, 2046, 2**31 - 1, -2**31)]))

# f16: _Float16 operations in the IR (-fexcess-precision=16). On x86-64 LLVM computes
# them in float and rounds back, which is exact for one +, -, * or conversion
# (24 >= 2 * 11 + 2 bits), but not for an FMA: the f16 FMAs are folded only.
for _asm, _text in [("v_add_f16_e32", "a + b"), ("v_sub_f16_e32", "a - b"),
                    ("v_mul_f16_e32", "a * b")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", F16x2, (("f16", _text),))
case("v_fma_f16 {d0}, {s0}, {s1}, {s2}", ("f16", "f16", "f16"),
     (("f16", "__builtin_fmaf16(a, b, c)"),), count=2048, runtime=False)
for _asm, _text in [("v_min_f16_e32", "__builtin_fminf(a, b)"),
                    ("v_max_f16_e32", "__builtin_fmaxf(a, b)")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", F16x2, (("f16", _text),),
         rows=tuples(F16x2, keep=min_max_operands("f16")))
for _suffix, _text in [("trunc", "__builtin_truncf(a)"), ("floor", "__builtin_floorf(a)"),
                       ("ceil", "__builtin_ceilf(a)"), ("rndne", "__builtin_roundevenf(a)")]:
    case(f"v_{_suffix}_f16_e32 {{d0}}, {{s0}}", F16, (("f16", _text),), count=512)
case("v_fract_f16_e32 {d0}, {s0}", F16, (("f16", "fract_f16(a)"),),
     rows=tuples(F16, 512, keep=all_finite("f16")))
case("v_frexp_mant_f16_e32 {d0}, {s0}", F16, (("f16", "frexp_mant_f32(a)"),), count=512)
case("v_frexp_exp_i16_f16_e32 {d0}, {s0}", F16, (("i16", "frexp_exp_f32(a)"),), count=512)
# V_LDEXP_F16 scales by 2 ** S1.i16 ("compare with the ldexp() function in C"; LLVM's
# operand is an i32 it clamps to the i16 range): exponents in that range, sign-extended.
case("v_ldexp_f16_e32 {d0}, {s0}, {s1}", ("f16", "i32"), (("f16", "__builtin_ldexpf(a, b)"),),
     rows=tuples(("f16", "i32"), edges=[None, [0, 1, 2**32 - 1]], draws=[
         None, uniform(-40, 40, 15, 16, -14, -24, -25, 30, 32767, -32768)]))
case("v_cvt_f16_f32_e32 {d0}, {s0}", F32, (("f16", "a"),), count=1024)
case("v_cvt_f32_f16_e32 {d0}, {s0}", F16, (("f32", "a"),), count=512)
case("v_cvt_f16_i16_e32 {d0}, {s0}", ("i16",), (("f16", "a"),), count=256)
case("v_cvt_f16_u16_e32 {d0}, {s0}", ("u16",), (("f16", "a"),), count=256)
case("v_cvt_i16_f16_e32 {d0}, {s0}", F16, (("i16", "sat_i16(a)"),), count=512)
case("v_cvt_u16_f16_e32 {d0}, {s0}", F16, (("u16", "sat_u16(a)"),), count=512)


def packed(kind: str) -> Draw:
    """Two random floats of ``kind`` side by side (the operands of packed instructions)."""
    width = C_TYPES[kind][1]
    return lambda count: floats(kind, count) | (floats(kind, count) << U64(width))


def packed_edges(kind: str, count: int) -> list[int]:
    width = C_TYPES[kind][1]
    return [lo | (hi << width) for lo, hi in itertools.product(EDGES[kind][:count], repeat=2)]


_PACKED_F16 = tuples(U32x2, draws=[packed("f16")] * 2, edges=[packed_edges("f16", 12)] * 2)
case("v_pk_add_f16 {d0}, {s0}, {s1}", U32x2,
     (("f16", "H(a) + H(b)"), ("f16", "H(a >> 16) + H(b >> 16)")), dests="p", rows=_PACKED_F16)
case("v_pk_mul_f16 {d0}, {s0}, {s1}", U32x2,
     (("f16", "H(a) * H(b)"), ("f16", "H(a >> 16) * H(b >> 16)")), dests="p", rows=_PACKED_F16)
case("v_pk_fma_f16 {d0}, {s0}, {s1}, {s1}", U32x2,
     (("f16", "__builtin_fmaf16(H(a), H(b), H(b))"),
      ("f16", "__builtin_fmaf16(H(a >> 16), H(b >> 16), H(b >> 16))")),
     dests="p", rows=_PACKED_F16, runtime=False)
case("v_pk_add_f32 {d0}, {s0}, {s1}", ("u64", "u64"),
     (("f32", "F(a) + F(b)"), ("f32", "F(a >> 32) + F(b >> 32)")), dests="p",
     rows=tuples(("u64", "u64"), 512, draws=[packed("f32")] * 2,
                 edges=[packed_edges("f32", 8)] * 2))

# SALU: the same arithmetic on one value per instruction; SCC as the ISA defines it
# (carry/borrow, signed overflow, "result is non-zero", the comparison).
_NONZERO = "({}) != 0"
for _asm, _results in [
        ("s_add_u32", (("u32", "a + b"), ("u32", "(uint32_t)(a + b) < a"))),
        ("s_sub_u32", (("u32", "a - b"), ("u32", "a < b"))),
        ("s_mul_i32", (("u32", "a * b"),)),
        ("s_mul_hi_u32", (("u32", "(uint32_t)(((uint64_t)a * b) >> 32)"),)),
        ("s_and_b32", (("u32", "a & b"), ("u32", _NONZERO.format("a & b")))),
        ("s_or_b32", (("u32", "a | b"), ("u32", _NONZERO.format("a | b")))),
        ("s_xor_b32", (("u32", "a ^ b"), ("u32", _NONZERO.format("a ^ b")))),
        ("s_andn2_b32", (("u32", "a & ~b"), ("u32", _NONZERO.format("a & ~b")))),
        ("s_nor_b32", (("u32", "~(a | b)"), ("u32", _NONZERO.format("~(a | b)")))),
        ("s_lshl_b32", (("u32", "a << (b & 31)"), ("u32", _NONZERO.format("a << (b & 31)")))),
        ("s_lshr_b32", (("u32", "a >> (b & 31)"), ("u32", _NONZERO.format("a >> (b & 31)")))),
        ("s_min_u32", (("u32", "a < b ? a : b"), ("u32", "a < b"))),
        ("s_max_u32", (("u32", "a > b ? a : b"), ("u32", "a > b"))),
        ("s_bfm_b32", (("u32", "((1u << (a & 31)) - 1) << (b & 31)"),)),
        ("s_lshl1_add_u32", (("u32", "(a << 1) + b"),
                             ("u32", "(((uint64_t)a << 1) + b) >> 32 != 0"))),
        ("s_lshl4_add_u32", (("u32", "(a << 4) + b"),
                             ("u32", "(((uint64_t)a << 4) + b) >> 32 != 0"))),
        ("s_pack_ll_b32_b16", (("u32", "(a & 0xffff) | (b << 16)"),)),
        ("s_pack_lh_b32_b16", (("u32", "(a & 0xffff) | (b & 0xffff0000)"),)),
        ("s_pack_hh_b32_b16", (("u32", "(a >> 16) | (b & 0xffff0000)"),))]:
    _dests = "s" if len(_results) == 1 else "sc"
    _rows = tuples(U32x2, 512, draws=[None, SHIFT]) if "sh" in _asm else tuples(U32x2, 512)
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", U32x2, _results,
         dests=_dests, rows=_rows)
for _asm, _results in [
        ("s_add_i32", (("i32", "(int32_t)((uint32_t)a + (uint32_t)b)"),
                       ("u32", "add_overflows(a, b)"))),
        ("s_sub_i32", (("i32", "(int32_t)((uint32_t)a - (uint32_t)b)"),
                       ("u32", "sub_overflows(a, b)"))),
        ("s_mul_hi_i32", (("i32", "(int32_t)(((int64_t)a * b) >> 32)"),)),
        ("s_min_i32", (("i32", "a < b ? a : b"), ("u32", "a < b"))),
        ("s_max_i32", (("i32", "a > b ? a : b"), ("u32", "a > b"))),
        ("s_absdiff_i32", (("u32", "absdiff_i32(a, b)"), ("u32", "absdiff_i32(a, b) != 0")))]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", I32x2, _results,
         dests="s" if len(_results) == 1 else "sc", count=512)
case("s_ashr_i32 {d0}, {s0}, {s1}", ("i32", "u32"),
     (("i32", "a >> (b & 31)"), ("u32", "(a >> (b & 31)) != 0")), dests="sc",
     rows=tuples(U32x2, 512, draws=[None, SHIFT]))
_SCC_IN = tuples(U32x3, 512, draws=[None, None, uniform(0, 2)], edges=[None, None, [0, 1]])
case("s_addc_u32 {d0}, {s0}, {s1}", U32x3,
     (("u32", "a + b + c"), ("u32", "(uint32_t)((((uint64_t)a + b) + c) >> 32)")),
     sources="ssc", dests="sc", rows=_SCC_IN)
case("s_subb_u32 {d0}, {s0}, {s1}", U32x3,
     (("u32", "a - b - c"), ("u32", "(uint64_t)b + c > a")), sources="ssc", dests="sc",
     rows=_SCC_IN)
case("s_cselect_b32 {d0}, {s0}, {s1}", U32x3, (("u32", "c ? a : b"),), sources="ssc",
     rows=_SCC_IN)
for _asm, _kind, _text in [("s_lshl_b64", "u64", "a << (b & 63)"),
                           ("s_lshr_b64", "u64", "a >> (b & 63)"),
                           ("s_ashr_i64", "i64", "a >> (b & 63)")]:
    case(f"{_asm} {{d0}}, {{s0}}, {{s1}}", (_kind, "u32"),
         ((_kind, _text), ("u32", _NONZERO.format(_text))), dests="sc",
         rows=tuples((_kind, "u32"), 512, draws=[None, SHIFT]))
case("s_and_b64 {d0}, {s0}, {s1}", ("u64", "u64"),
     (("u64", "a & b"), ("u32", _NONZERO.format("a & b"))), dests="sc", count=512)
case("s_bfm_b64 {d0}, {s0}, {s1}", U32x2, (("u64", "((1ull << (a & 63)) - 1) << (b & 63)"),),
     rows=tuples(U32x2, 512, draws=[SHIFT, SHIFT]))
# S_BFE: S1 packs the offset (bits 4:0, 5:0 for 64 bits) and the width (bits 22:16); the
# other bits are ignored and hold noise here. Widths stay at most the operand width: past
# it the manual's pseudo-code shifts by more than the width, which says nothing definite.


def _packed_field(bits: int) -> Draw:
    def draw(count: int) -> Bits:
        offset = RNG.integers(0, 2 * bits, count)
        width = RNG.integers(0, bits + 1, count)
        noise = RNG.integers(0, 1 << 32, count) & 0xFF80FFC0
        return ((offset | (width << 16) | noise) & 0xFFFFFFFF).astype(U64)
    return draw


for _bits_wide, _kinds in ((32, ("u32", "i32")), (64, ("u64", "i64"))):
    _fields = [(o | (w << 16)) for o in (0, 1, _bits_wide - 1) for w in (0, 1, _bits_wide)]
    for _kind in _kinds:
        _sign = "i" if _kind.startswith("i") else "u"
        _text = f"sbfe_{_sign}(a, b, {_bits_wide})"
        case(f"s_bfe_{_kind} {{d0}}, {{s0}}, {{s1}}", (_kind, "u32"),
             ((_kind, _text), ("u32", _NONZERO.format(_text))),
             dests="sc", rows=tuples((_kind, "u32"), 512, edges=[None, _fields],
                                     draws=[None, _packed_field(_bits_wide)]))
for _asm, _kind, _results in [
        ("s_not_b32", "u32", (("u32", "~a"), ("u32", "~a != 0"))),
        ("s_brev_b32", "u32", (("u32", "__builtin_bitreverse32(a)"),)),
        ("s_brev_b64", "u64", (("u64", "__builtin_bitreverse64(a)"),)),
        ("s_bcnt1_i32_b32", "u32", (("u32", "__builtin_popcount(a)"), ("u32", "a != 0"))),
        ("s_bcnt0_i32_b32", "u32", (("u32", "32 - __builtin_popcount(a)"), ("u32", "~a != 0"))),
        ("s_bcnt1_i32_b64", "u64", (("u32", "__builtin_popcountll(a)"), ("u32", "a != 0"))),
        # find first one from the LSB / leading zeros from the MSB: -1 when no bit is set
        ("s_ff1_i32_b32", "u32", (("u32", "a ? (uint32_t)__builtin_ctz(a) : 0xffffffffu"),)),
        ("s_ff0_i32_b32", "u32", (("u32", "~a ? (uint32_t)__builtin_ctz(~a) : 0xffffffffu"),)),
        ("s_ff1_i32_b64", "u64", (("u32", "a ? (uint32_t)__builtin_ctzll(a) : 0xffffffffu"),)),
        ("s_flbit_i32_b32", "u32", (("u32", "a ? (uint32_t)__builtin_clz(a) : 0xffffffffu"),)),
        ("s_flbit_i32_b64", "u64", (("u32", "a ? (uint32_t)__builtin_clzll(a) : 0xffffffffu"),)),
        # S_FLBIT_I32 (AMDGPUffbh_i32): bits equal to the sign bit counted from the MSB,
        # i.e. clrsb + 1; -1 when all bits are equal (0 and -1).
        ("s_flbit_i32", "i32", (("u32", "a == 0 || a == -1 ? 0xffffffffu"
                                        " : (uint32_t)__builtin_clrsb(a) + 1"),)),
        ("s_flbit_i32_i64", "i64", (("u32", "a == 0 || a == -1 ? 0xffffffffu"
                                            " : (uint32_t)__builtin_clrsbll(a) + 1"),)),
        ("s_abs_i32", "i32", (("u32", "a < 0 ? 0u - (uint32_t)a : (uint32_t)a"),
                              ("u32", "a != 0"))),
        ("s_sext_i32_i8", "u32", (("i32", "(int8_t)a"),)),
        ("s_sext_i32_i16", "u32", (("i32", "(int16_t)a"),))]:
    case(f"{_asm} {{d0}}, {{s0}}", (_kind,),
         _results,
         dests="s" if len(_results) == 1 else "sc", count=256)
for _asm, _kinds, _text in [
        ("s_cmp_lt_i32", I32x2, "a < b"), ("s_cmp_ge_i32", I32x2, "a >= b"),
        ("s_cmp_eq_u32", U32x2, "a == b"), ("s_cmp_gt_u32", U32x2, "a > b"),
        ("s_cmp_le_u32", U32x2, "a <= b"), ("s_cmp_lg_u64", ("u64", "u64"), "a != b"),
        ("s_bitcmp1_b32", U32x2, "(a >> (b & 31)) & 1"),
        ("s_bitcmp0_b64", ("u64", "u32"), "((a >> (b & 63)) & 1) == 0")]:
    case(f"{_asm} {{s0}}, {{s1}}", _kinds, (("u32", _text),), dests="c",
         rows=tuples(_kinds, 256, draws=[None, SHIFT] if "bit" in _asm else None))


# -- running the emulator ------------------------------------------------------------------

def _registers(width: int) -> int:
    return 2 if width == 64 else 1


def _name(file: str, index: int, count: int) -> str:
    return f"{file}{index}" if count == 1 else f"{file}[{index}:{index + count - 1}]"


def _result_widths(case: Case) -> list[int]:
    return [C_TYPES[kind][1] for kind, _ in case.expression.results]


def _lane_bits(column: Bits) -> int:
    return sum(1 << lane for lane, value in enumerate(column.tolist()) if value)


def _split(value: int, registers: int) -> list[int]:
    return [(value >> (32 * k)) & 0xFFFFFFFF for k in range(registers)]


def run_vector(case: Case) -> Bits:
    """The results of ``case.asm`` on every operand tuple: 64 tuples per copy of the
    instruction, up to 16 copies per program (with their own registers)."""
    kinds = case.expression.operands
    widths = _result_widths(case)
    source_registers = [_registers(C_TYPES[k][1]) for k in kinds]
    dest_registers: list[int] = []
    results_of_dest: list[list[int]] = []  # result columns per destination
    column = 0
    for dest in case.dests:
        if dest == "p":
            dest_registers.append(_registers(2 * widths[column]))
            results_of_dest.append([column, column + 1])
            column += 2
        else:
            dest_registers.append(_registers(widths[column]) if dest == "v" else 0)
            results_of_dest.append([column])
            column += 1
    per_batch_v = 1  # a batch may start at an odd register and align its pairs
    for registers in [r for r, w in zip(source_registers, case.sources, strict=True)
                      if w == "v"] + [r for r in dest_registers if r]:
        per_batch_v += per_batch_v % registers + registers
    per_batch_s = 2 * (case.sources.count("m") + case.dests.count("m"))
    batches = min(16, 256 // per_batch_v, 96 // max(per_batch_s, 1))
    rows = len(case.operands)
    padded = -(-rows // 64) * 64
    operands = np.concatenate([case.operands, np.repeat(case.operands[:1], padded - rows, 0)])
    out = np.zeros((padded, len(widths)), U64)
    for first in range(0, padded, 64 * batches):
        chunk = operands[first:first + 64 * batches]
        lines: list[str] = []
        fills: list[tuple[str, int, int, Bits]] = []  # (file, index, registers, values)
        reads: list[tuple[int, str, int, int, list[int]]] = []  # (batch, file, index, regs, cols)
        v = s = 0
        for batch in range(len(chunk) // 64):
            values = chunk[64 * batch:64 * batch + 64]
            names: dict[str, str] = {}
            for slot, (where, registers) in enumerate(
                    zip(case.sources, source_registers, strict=True)):
                if where == "v":
                    v += v % registers  # register tuples are 64-bit aligned on gfx90a
                    names[f"s{slot}"] = _name("v", v, registers)
                    fills.append(("v", v, registers, values[:, slot]))
                    v += registers
                else:
                    names[f"s{slot}"] = _name("s", s, 2)
                    fills.append(("m", s, 2, values[:, slot]))
                    s += 2
            for slot, (where, registers) in enumerate(
                    zip(case.dests, dest_registers, strict=True)):
                if where in "vp":
                    v += v % registers
                    names[f"d{slot}"] = _name("v", v, registers)
                    reads.append((batch, "v" if where == "v" else "p", v, registers,
                                  results_of_dest[slot]))
                    v += registers
                else:
                    names[f"d{slot}"] = _name("s", s, 2)
                    reads.append((batch, "m", s, 2, results_of_dest[slot]))
                    s += 2
            lines.append(case.asm.format(**names))

        def setup(wave: Wave, fills: list[tuple[str, int, int, Bits]] = fills) -> None:
            for file, index, registers, values in fills:
                if file == "m":
                    wave.s[index], wave.s[index + 1] = _split(_lane_bits(values), 2)
                    continue
                for k in range(registers):
                    wave.v[index + k] = ((values >> U64(32 * k)) & U64(0xFFFFFFFF)).astype(
                        np.uint32)

        wave = execute("\n".join(lines), setup)
        for batch, file, index, registers, columns in reads:
            at = first + 64 * batch
            if file == "m":
                mask = wave.s[index] | (wave.s[index + 1] << 32)
                out[at:at + 64, columns[0]] = [(mask >> lane) & 1 for lane in range(64)]
                continue
            value = wave.v[index].astype(U64)
            if registers == 2:
                value |= wave.v[index + 1].astype(U64) << U64(32)
            if file == "p":
                half = widths[columns[0]]
                out[at:at + 64, columns[0]] = value & U64((1 << half) - 1)
                out[at:at + 64, columns[1]] = (value >> U64(half)) & U64((1 << half) - 1)
            else:
                out[at:at + 64, columns[0]] = value & U64((1 << widths[columns[0]]) - 1
                                                          if widths[columns[0]] < 64 else
                                                          0xFFFFFFFFFFFFFFFF)
    return out[:rows]


def run_scalar(case: Case) -> Bits:
    """The results of the SALU ``case.asm`` on every operand tuple: a loop over the 64
    lanes reads a tuple from VGPR lanes into SGPRs (SCC from a compare), runs the
    instruction, and writes its results (SCC through ``s_cselect``) back into VGPR
    lanes; one loop per 64 tuples."""
    kinds = case.expression.operands
    widths = _result_widths(case)
    source_registers = [_registers(C_TYPES[k][1]) if w == "s" else 1
                        for k, w in zip(kinds, case.sources, strict=True)]
    dest_registers = [_registers(w) if d == "s" else 1
                      for w, d in zip(widths, case.dests, strict=True)]
    per_batch = sum(source_registers) + sum(dest_registers)
    batches = min(16, 250 // per_batch)
    rows = len(case.operands)
    padded = -(-rows // 64) * 64
    operands = np.concatenate([case.operands, np.repeat(case.operands[:1], padded - rows, 0)])
    out = np.zeros((padded, len(widths)), U64)
    lane = "m0"  # v_writelane may read an SGPR and M0 (one constant bus read plus M0)
    for first in range(0, padded, 64 * batches):
        chunk = operands[first:first + 64 * batches]
        lines: list[str] = []
        fills: list[tuple[int, int, Bits]] = []
        reads: list[tuple[int, int, int, int]] = []  # (batch, vgpr, registers, column)
        v = 0
        label = 1
        for batch in range(len(chunk) // 64):
            values = chunk[64 * batch:64 * batch + 64]
            lines += [f"s_mov_b32 {lane}, 0", f"s_branch ^bb{label}", f"^bb{label}:"]
            names: dict[str, str] = {}
            scc_in: list[str] = []
            for slot, (where, registers) in enumerate(
                    zip(case.sources, source_registers, strict=True)):
                fills.append((v, registers, values[:, slot]))
                if where == "s":
                    names[f"s{slot}"] = _name("s", 2 * slot, registers)
                    lines += [f"v_readlane_b32 s{2 * slot + k}, v{v + k}, {lane}"
                              for k in range(registers)]
                else:
                    lines.append(f"v_readlane_b32 s20, v{v}, {lane}")
                    scc_in = ["s_cmp_lg_u32 s20, 0"]
                v += registers
            lines += scc_in
            after: list[str] = []
            for slot, (where, registers) in enumerate(
                    zip(case.dests, dest_registers, strict=True)):
                reads.append((batch, v, registers, slot))
                if where == "s":
                    names[f"d{slot}"] = _name("s", 10 + 2 * slot, registers)
                    after += [f"v_writelane_b32 v{v + k}, s{10 + 2 * slot + k}, {lane}"
                              for k in range(registers)]
                else:
                    after = ["s_cselect_b32 s21, 1, 0", *after,
                             f"v_writelane_b32 v{v}, s21, {lane}"]
                v += registers
            lines.append(case.asm.format(**names))
            lines += after
            lines += [f"s_add_u32 {lane}, {lane}, 1", f"s_cmp_lt_u32 {lane}, 64",
                      f"s_cbranch_scc1 ^bb{label}, ^bb{label + 1}", f"^bb{label + 1}:"]
            label += 2
            # the next batch's preamble starts in the block after the loop

        def setup(wave: Wave, fills: list[tuple[int, int, Bits]] = fills) -> None:
            for index, registers, values in fills:
                for k in range(registers):
                    wave.v[index + k] = ((values >> U64(32 * k)) & U64(0xFFFFFFFF)).astype(
                        np.uint32)

        wave = execute("\n".join(lines), setup)
        for batch, index, registers, column in reads:
            at = first + 64 * batch
            value = wave.v[index].astype(U64)
            if registers == 2:
                value |= wave.v[index + 1].astype(U64) << U64(32)
            width = widths[column]
            out[at:at + 64, column] = value & (U64((1 << width) - 1) if width < 64
                                               else U64(0xFFFFFFFFFFFFFFFF))
    return out[:rows]


# -- comparing -----------------------------------------------------------------------------

def same(kind: str, x: Bits, y: Bits) -> npt.NDArray[np.bool_]:
    """Bitwise equality, except that any NaN equals any NaN."""
    if kind in _FORMATS:
        return (x == y) | (is_nan(kind, x) & is_nan(kind, y))
    return x == y


def _describe(case: Case, rows: npt.NDArray[np.intp], expected: Bits, got: Bits) -> str:
    lines = [f"{case.asm}: {len(rows)} of {len(case.operands)} tuples differ; first ones "
             f"(operands -> expected, emulator):"]
    for row in rows[:8].tolist():
        operands = ", ".join(f"0x{int(x):x}" for x in case.operands[row])
        lines.append(f"  ({operands}) -> "
                     f"{', '.join(f'0x{int(x):x}' for x in expected[row])}, "
                     f"{', '.join(f'0x{int(x):x}' for x in got[row])}")
    return "\n".join(lines)


def mismatches(case: Case, expected: Bits, got: Bits) -> npt.NDArray[np.intp]:
    good = np.ones(len(expected), np.bool_)
    for column, (kind, _) in enumerate(case.expression.results):
        good &= same(kind, expected[:, column], got[:, column])
    return np.flatnonzero(~good)


@pytest.fixture(scope="module")
def oracle() -> dict[str, Values]:
    """Every case's expression, folded and run by clang-19 (one compilation)."""
    return clang_oracle.evaluate([(c.expression, c.operands) for c in CASES], PRELUDE)


@pytest.mark.parametrize("case", CASES, ids=[c.expression.name for c in CASES])
def test_instruction_matches_clang(case: Case, oracle: dict[str, Values]) -> None:
    values = oracle[case.expression.name]
    if values.runtime is not None:
        disagree = mismatches(case, values.folded, values.runtime)
        assert not len(disagree), "LLVM's folder and the host disagree:\n" + _describe(
            case, disagree, values.folded, values.runtime)
    got = run_scalar(case) if case.scalar else run_vector(case)
    wrong = mismatches(case, values.folded, got)
    assert not len(wrong), _describe(case, wrong, values.folded, got)


def test_oracle_refuses_values_llvm_did_not_fold() -> None:
    """The folded values are LLVM's or nothing: an expression the folder cannot evaluate
    (a call to an unknown function) is an error, not a run-time value."""
    opaque = Expression("opaque", ("u32",), (("u32", "opaque(a)"),))
    with pytest.raises(clang_oracle.ClangError, match="did not constant-fold: opaque"):
        clang_oracle.evaluate([(opaque, np.array([[1]], U64))],
                              "extern uint32_t opaque(uint32_t);")
