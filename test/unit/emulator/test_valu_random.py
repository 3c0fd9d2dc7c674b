"""VALU integer operations on random operands against per-lane Python integer arithmetic
(written from the ISA's definitions, independently of the NumPy implementation)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from luthier.emulator.state import Wave

from .asm import execute

M32 = 0xFFFFFFFF
RNG = np.random.default_rng(99)


def s32(value: int) -> int:
    return value - (1 << 32) if value & 0x80000000 else value


def _bfe(value: int, offset: int, width: int, signed: bool) -> int:
    offset, width = offset & 31, width & 31
    if width == 0:
        return 0
    if signed:
        value = s32(value)  # the ISA shifts the signed operand arithmetically
    field = (value >> offset) & ((1 << width) - 1)
    if signed and field >> (width - 1):
        field -= 1 << width
    return field & M32


CASES: dict[str, tuple[str, Callable[[int, int, int], int]]] = {
    "v_mul_hi_i32 v3, v0, v1": ("", lambda a, b, c: ((s32(a) * s32(b)) >> 32) & M32),
    "v_mul_hi_u32 v3, v0, v1": ("", lambda a, b, c: (a * b) >> 32),
    "v_mul_u32_u24_e32 v3, v0, v1": ("", lambda a, b, c: ((a & 0xFFFFFF) * (b & 0xFFFFFF))
                                     & M32),
    "v_mul_i32_i24_e32 v3, v0, v1": ("", lambda a, b, c: (
        (((a & 0xFFFFFF) ^ 0x800000) - 0x800000) * (((b & 0xFFFFFF) ^ 0x800000) - 0x800000))
        & M32),
    "v_bfe_u32 v3, v0, v1, v2": ("", lambda a, b, c: _bfe(a, b, c, False)),
    "v_bfe_i32 v3, v0, v1, v2": ("", lambda a, b, c: _bfe(a, b, c, True)),
    "v_alignbit_b32 v3, v0, v1, v2": ("", lambda a, b, c: (((a << 32) | b) >> (c & 31)) & M32),
    "v_alignbyte_b32 v3, v0, v1, v2": ("", lambda a, b, c: (((a << 32) | b) >> (8 * (c & 3)))
                                       & M32),
    "v_lshl_add_u32 v3, v0, v1, v2": ("", lambda a, b, c: ((a << (b & 31)) + c) & M32),
    "v_add_lshl_u32 v3, v0, v1, v2": ("", lambda a, b, c: ((a + b) << (c & 31)) & M32),
    "v_xad_u32 v3, v0, v1, v2": ("", lambda a, b, c: ((a ^ b) + c) & M32),
    "v_med3_i32 v3, v0, v1, v2": ("", lambda a, b, c: sorted([s32(a), s32(b), s32(c)])[1]
                                  & M32),
    "v_max3_u32 v3, v0, v1, v2": ("", lambda a, b, c: max(a, b, c)),
    "v_bfi_b32 v3, v0, v1, v2": ("", lambda a, b, c: ((a & b) | (~a & c)) & M32),
    "v_bcnt_u32_b32 v3, v0, v1": ("", lambda a, b, c: (bin(a).count("1") + b) & M32),
    "v_sad_u32 v3, v0, v1, v2": ("", lambda a, b, c: (abs(a - b) + c) & M32),
    "v_subbrev_co_u32_e64 v3, s[0:1], v0, v1, s[2:3]": (
        "borrow", lambda a, b, c: (b - a - c) & M32),
}


@pytest.mark.parametrize("line", list(CASES))
def test_against_python_integers(line: str) -> None:
    kind, reference = CASES[line]
    values = RNG.integers(0, 2**32, (3, 64), dtype=np.uint64).astype(np.uint32)
    values[:, :4] = [[0, M32, 0x80000000, 1]] * 3  # edge values in the first lanes
    carries = int(RNG.integers(0, 2**63))

    def setup(wave: Wave) -> None:
        wave.v[0], wave.v[1], wave.v[2] = values
        wave.s[2], wave.s[3] = carries & M32, carries >> 32

    wave = execute(line, setup)
    for lane in range(64):
        a, b, c = (int(values[k, lane]) for k in range(3))
        if kind == "borrow":
            c = (carries >> lane) & 1
        assert int(wave.v[3][lane]) == reference(a, b, c), (line, lane, a, b, c)
    if kind == "borrow":
        borrows = sum(1 << lane for lane in range(64)
                      if int(values[1, lane]) - int(values[0, lane]) - ((carries >> lane) & 1)
                      < 0)
        assert wave.s[0] | (wave.s[1] << 32) == borrows


def test_fma_rounds_once_on_random_and_midpoint_operands() -> None:
    """f32 and f64 FMA against exact rational arithmetic, including products that land
    exactly on float32 midpoints plus tiny addends (where two roundings go wrong)."""
    from fractions import Fraction

    from .common import fma32_reference

    a = RNG.standard_normal(64).astype(np.float32)
    b = RNG.standard_normal(64).astype(np.float32)
    c = (RNG.standard_normal(64) * 1e-3).astype(np.float32)
    for lane in range(0, 16):  # (1 + 2^-12 * k)^2 style products on midpoints, tiny addends
        a[lane] = b[lane] = np.float32(1 + 2.0**-12 * (2 * lane + 1))
        c[lane] = np.float32((-1) ** lane * 2.0 ** (-60 - lane))
    c[16:20] = -a[16:20] * b[16:20]  # massive cancellation
    wide = [RNG.standard_normal(64) for _ in range(3)]

    def setup(wave: Wave) -> None:
        wave.v[0], wave.v[1], wave.v[2] = (x.view(np.uint32) for x in (a, b, c))
        for base, values in zip((10, 12, 14), wide, strict=True):
            bits = values.view(np.uint64)
            wave.v[base] = (bits & np.uint64(M32)).astype(np.uint32)
            wave.v[base + 1] = (bits >> np.uint64(32)).astype(np.uint32)

    wave = execute("""
        v_fma_f32 v3, v0, v1, v2
        v_fma_f64 v[16:17], v[10:11], v[12:13], v[14:15]
    """, setup)
    np.testing.assert_array_equal(wave.v[3].view(np.float32), fma32_reference(a, b, c))
    got = (wave.v[16].astype(np.uint64) | (wave.v[17].astype(np.uint64) << np.uint64(32)))
    expected = [float(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                for x, y, z in zip(*wide, strict=True)]
    np.testing.assert_array_equal(got.view(np.float64), expected)
