"""Scalar float operations (GFX12, and GFX11.5): f32 arithmetic and conversions in SGPRs.

They compute what their VALU twins do for one lane: ``s_add_f32`` is ``v_add_f32`` on one
value (round to nearest even, IEEE-754 single; NumPy's float32 arithmetic rounds the same
way), ``s_min_num_f32``/``s_max_num_f32`` return the other operand of a NaN, and the
float-to-integer conversions truncate, saturate at the integer's range and give 0 for NaN,
as ``v_cvt_u32_f32``/``v_cvt_i32_f32`` do.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.state import Wave

F32 = np.float32
M32 = 0xFFFFFFFF


def _f32(bits: int) -> np.float32:
    return np.array([bits & M32], np.uint32).view(F32)[0]


def _bits(value: float | np.float32) -> int:
    return int(np.array([value], F32).view(np.uint32)[0])


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
}
UNARY: dict[str, Callable[[int], int]] = {
    "s_cvt_f32_i32": lambda a: _bits(np.float32(a - (1 << 32) if a >> 31 else a)),
    "s_cvt_f32_u32": lambda a: _bits(np.float32(a)),
    "s_cvt_u32_f32": lambda a: _to_int(_f32(a), 0, M32),
    "s_cvt_i32_f32": lambda a: _to_int(_f32(a), -(1 << 31), (1 << 31) - 1),
}


@semantics(*BINARY)
def _binary(inst: Instruction) -> Step:
    fn = BINARY[inst.mnemonic]
    read0, read1 = inst.scalar("src0", 32), inst.scalar("src1", 32)
    index, _ = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        with np.errstate(all="ignore"):
            wave.s[index] = _bits(fn(_f32(read0(wave)), _f32(read1(wave))))
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
