"""Scalar float operations (GFX12, and GFX11.5): f32 and f16 arithmetic, rounding,
conversions and compares in SGPRs.

They compute what their VALU twins do for one lane: ``s_add_f32`` is ``v_add_f32`` on one
value (round to nearest even, IEEE-754 single; NumPy's float32 arithmetic rounds the same
way), ``s_min_num_f32``/``s_max_num_f32`` return the other operand of a NaN while
``s_minimum_f32``/``s_maximum_f32`` return the NaN (and order -0 below +0), the FMAs
(``s_fmac_f32``, ``s_fmaak_f32`` with a literal addend, ``s_fmamk_f32`` with a literal
factor) round once, and the float-to-integer conversions truncate, saturate at the
integer's range and give 0 for NaN, as ``v_cvt_u32_f32``/``v_cvt_i32_f32`` do. The
``s_cmp_*_f32``/``_f16`` compares set SCC as the VALU compares set a lane's bit
(:data:`.vopc.FLOAT_RELATIONS`).

A 16-bit operation reads the low half of its SGPRs and writes its result zero-extended:
what the ISA leaves of the upper half is not modelled, and code compiled by LLVM never
reads it (it treats the register as holding a 16-bit value).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.semantics.valu_f16 import fma16
from luthier.emulator.semantics.valu_float import fma32
from luthier.emulator.semantics.valu_misc import f16_toward_zero
from luthier.emulator.semantics.vopc import FLOAT_RELATIONS
from luthier.emulator.state import Wave

F32 = np.float32
F16 = np.float16
M32 = 0xFFFFFFFF


def _f32(bits: int) -> np.float32:
    return np.array([bits & M32], np.uint32).view(F32)[0]


def _bits(value: float | np.float32) -> int:
    return int(np.array([value], F32).view(np.uint32)[0])


def _f16(bits: int) -> np.float16:
    return np.array([bits & 0xFFFF], np.uint16).view(F16)[0]


def _bits16(value: float | np.floating[Any]) -> int:
    return int(np.array([value], F16).view(np.uint16)[0])


def _minimum(a: np.floating[Any], b: np.floating[Any]) -> np.floating[Any]:
    """IEEE 754-2019 minimum: a NaN operand gives NaN; -0 is below +0."""
    if np.isnan(a) or np.isnan(b):
        return a + b  # a quiet NaN
    if a == b:
        return a if np.signbit(a) else b
    return min(a, b)


def _maximum(a: np.floating[Any], b: np.floating[Any]) -> np.floating[Any]:
    """IEEE 754-2019 maximum: a NaN operand gives NaN; +0 is above -0."""
    if np.isnan(a) or np.isnan(b):
        return a + b
    if a == b:
        return b if np.signbit(a) else a
    return max(a, b)


def _to_int(value: np.float32, low: int, high: int) -> int:
    if np.isnan(value):
        return 0
    return int(min(max(np.trunc(np.float64(value)), low), high)) & M32


BINARY: dict[str, Callable[[np.float32, np.float32], np.float32]] = {
    "s_add_f32": lambda a, b: a + b,
    "s_sub_f32": lambda a, b: a - b,
    "s_mul_f32": lambda a, b: a * b,
    "s_min_num_f32": np.fmin,
    "s_max_num_f32": np.fmax,
    "s_minimum_f32": _minimum,
    "s_maximum_f32": _maximum,
}
#: f16 operations: computed in float32 and rounded to half once (24 >= 2 * 11 + 2 bits make
#: that double rounding exact for +, -, *).
BINARY16: dict[str, Callable[[np.float32, np.float32], np.float32]] = {
    "s_add_f16": lambda a, b: a + b,
    "s_sub_f16": lambda a, b: a - b,
    "s_mul_f16": lambda a, b: a * b,
    "s_min_num_f16": np.fmin,
    "s_max_num_f16": np.fmax,
    "s_minimum_f16": _minimum,
    "s_maximum_f16": _maximum,
}
UNARY: dict[str, Callable[[int], int]] = {
    "s_cvt_f32_i32": lambda a: _bits(np.float32(a - (1 << 32) if a >> 31 else a)),
    "s_cvt_f32_u32": lambda a: _bits(np.float32(a)),
    "s_cvt_u32_f32": lambda a: _to_int(_f32(a), 0, M32),
    "s_cvt_i32_f32": lambda a: _to_int(_f32(a), -(1 << 31), (1 << 31) - 1),
    "s_ceil_f32": lambda a: _bits(np.ceil(_f32(a))),
    "s_floor_f32": lambda a: _bits(np.floor(_f32(a))),
    "s_trunc_f32": lambda a: _bits(np.trunc(_f32(a))),
    "s_rndne_f32": lambda a: _bits(np.rint(_f32(a))),
    "s_ceil_f16": lambda a: _bits16(np.ceil(_f16(a))),
    "s_floor_f16": lambda a: _bits16(np.floor(_f16(a))),
    "s_trunc_f16": lambda a: _bits16(np.trunc(_f16(a))),
    "s_rndne_f16": lambda a: _bits16(np.rint(_f16(a))),
    "s_cvt_f32_f16": lambda a: _bits(F32(_f16(a))),
    "s_cvt_hi_f32_f16": lambda a: _bits(F32(_f16(a >> 16))),
    "s_cvt_f16_f32": lambda a: _bits16(F16(_f32(a))),
}


@semantics(*BINARY, *BINARY16)
def _binary(inst: Instruction) -> Step:
    """An f32 operation, or an f16 one computed in float32 and rounded to half once."""
    half = inst.mnemonic in BINARY16
    fn = BINARY16[inst.mnemonic] if half else BINARY[inst.mnemonic]
    decode: Callable[[int], np.float32] = (lambda bits: F32(_f16(bits))) if half else _f32
    encode: Callable[[np.float32], int] = (lambda value: _bits16(F16(value))) if half \
        else _bits
    read0, read1 = inst.scalar("src0", 32), inst.scalar("src1", 32)
    index, _ = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        with np.errstate(all="ignore"):
            wave.s[index] = encode(fn(decode(read0(wave)), decode(read1(wave))))
        return following

    return step


@semantics(*UNARY)
def _unary(inst: Instruction) -> Step:
    fn = UNARY[inst.mnemonic]
    read = inst.scalar("src0", 32)
    index, _ = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        wave.s[index] = fn(read(wave))
        return following

    return step


#: FMA -> the slots of its factors and addend (``imm``: the literal; ``sdst``: the
#: destination's own value, for the accumulating forms), and its width.
_FMAS: dict[str, tuple[tuple[str, str, str], int]] = {
    "s_fmac_f32": (("src0", "src1", "sdst"), 32),
    "s_fmaak_f32": (("src0", "src1", "imm"), 32),
    "s_fmamk_f32": (("src0", "imm", "src1"), 32),
    "s_fmac_f16": (("src0", "src1", "sdst"), 16),
}


@semantics(*_FMAS)
def _fma(inst: Instruction) -> Step:
    slots, width = _FMAS[inst.mnemonic]
    index, _ = inst.sdst()

    def own(wave: Wave) -> int:
        return int(wave.s[index])

    reads: list[Callable[[Wave], int]] = [own if slot == "sdst" else inst.scalar(slot, 32)
                                          for slot in slots]
    following = inst.next_pc

    def step(wave: Wave) -> int:
        a, b, c = (read(wave) for read in reads)
        with np.errstate(all="ignore"):
            if width == 32:
                result = fma32(np.array([_f32(a)]), np.array([_f32(b)]), np.array([_f32(c)]))
                wave.s[index] = _bits(result[0])
            else:
                result = fma16(np.array([_f16(a)]), np.array([_f16(b)]), np.array([_f16(c)]))
                wave.s[index] = _bits16(result[0])
        return following

    return step


@semantics("s_cvt_pk_rtz_f16_f32")
def _pack_rtz(inst: Instruction) -> Step:
    """Both f32 sources to f16 rounded toward zero, src0 in the low half."""
    read0, read1 = inst.scalar("src0", 32), inst.scalar("src1", 32)
    index, _ = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        with np.errstate(all="ignore"):
            halves = f16_toward_zero(np.array([_f32(read0(wave)), _f32(read1(wave))], F32))
        low, high = (int(bits) for bits in halves.view(np.uint16))
        wave.s[index] = low | high << 16
        return following

    return step


def _compare_names() -> list[str]:
    return [f"s_cmp_{relation}_{kind}" for relation in FLOAT_RELATIONS
            if relation not in ("f", "t", "tru") for kind in ("f32", "f16")]


@semantics(*_compare_names())
def _compare(inst: Instruction) -> Step:
    """SCC = the relation of the two sources (IEEE on NaN)."""
    _, _, relation, kind = inst.mnemonic.split("_")
    fn = FLOAT_RELATIONS[relation]
    read0, read1 = inst.scalar("src0", 32), inst.scalar("src1", 32)
    value = _f32 if kind == "f32" else _f16
    following = inst.next_pc

    def step(wave: Wave) -> int:
        with np.errstate(all="ignore"):
            wave.scc = int(bool(fn(np.asarray(value(read0(wave))),
                                   np.asarray(value(read1(wave))))))
        return following

    return step
