"""Scalar ALU semantics against hand-computed results: carries, borrows, signed overflow,
SCC, bit operations, compares, EXEC manipulation."""

from __future__ import annotations

import numpy as np
import pytest

from luthier.emulator.state import Wave

from .asm import execute

M32 = 0xFFFFFFFF


def regs(**values: int):  # noqa: ANN201  (a wave setup)
    """A setup that sets SGPRs: ``regs(s0=1, s1=2)``."""

    def setup(wave: Wave) -> None:
        for name, value in values.items():
            wave.s[int(name[1:])] = value & M32

    return setup


def test_add_u32_carry_and_addc_chain_make_a_64_bit_add() -> None:
    wave = execute("""
        s_add_u32 s4, s0, s2
        s_addc_u32 s5, s1, s3
    """, regs(s0=0xFFFFFFFF, s1=0x1, s2=0x2, s3=0x10))
    assert (wave.s[4], wave.s[5]) == (0x1, 0x12)
    assert wave.scc == 0


def test_add_u32_sets_scc_on_carry_out() -> None:
    wave = execute("s_add_u32 s2, s0, s1", regs(s0=0x80000000, s1=0x80000000))
    assert wave.s[2] == 0 and wave.scc == 1


def test_sub_u32_and_subb_borrow() -> None:
    wave = execute("""
        s_sub_u32 s4, s0, s2
        s_subb_u32 s5, s1, s3
    """, regs(s0=0, s1=5, s2=1, s3=2))
    assert (wave.s[4], wave.s[5]) == (M32, 2)  # 0x5_00000000 - 0x2_00000001
    assert wave.scc == 0


@pytest.mark.parametrize(("a", "b", "total", "overflow"), [
    (0x7FFFFFFF, 1, 0x80000000, 1),
    (-1, 1, 0, 0),
    (-0x80000000, -1, 0x7FFFFFFF, 1),
    (100, -200, (-100) & M32, 0),
])
def test_add_i32_scc_is_signed_overflow(a: int, b: int, total: int, overflow: int) -> None:
    wave = execute("s_add_i32 s2, s0, s1", regs(s0=a, s1=b))
    assert wave.s[2] == total and wave.scc == overflow


def test_sub_i32_overflow_and_addk_sign_extends() -> None:
    wave = execute("""
        s_sub_i32 s2, s0, s1
        s_mov_b32 s3, 10
        s_addk_i32 s3, 0xfff0
    """, regs(s0=0x80000000, s1=1))
    assert wave.s[2] == 0x7FFFFFFF
    assert wave.s[3] == (10 - 16) & M32 and wave.scc == 0


def test_multiplies() -> None:
    wave = execute("""
        s_mul_i32 s2, s0, s1
        s_mul_hi_u32 s3, s0, s1
        s_movk_i32 s4, 0x8000
    """, regs(s0=0x10000, s1=0x30001))
    assert wave.s[2] == (0x10000 * 0x30001) & M32
    assert wave.s[3] == (0x10000 * 0x30001) >> 32
    assert wave.s[4] == 0xFFFF8000


def test_shifts_and_scc_nonzero() -> None:
    wave = execute("""
        s_lshl_b64 s[2:3], s[0:1], 33
        s_ashr_i32 s4, s1, 4
        s_lshr_b32 s5, s1, 31
    """, regs(s0=0x80000001, s1=0x80000000))
    assert (wave.s[2], wave.s[3]) == (0, 2)
    assert wave.s[4] == 0xF8000000 and wave.s[5] == 1
    assert wave.scc == 1


def test_bitfield_extract_signed_and_unsigned() -> None:
    # s1 = offset 4 | width 8 << 16
    wave = execute("""
        s_bfe_u32 s2, s0, s1
        s_bfe_i32 s3, s0, s1
    """, regs(s0=0x00000F80, s1=4 | (8 << 16)))
    assert wave.s[2] == 0xF8 and wave.s[3] == 0xFFFFFFF8


def test_bit_scans_counts_and_reverse() -> None:
    wave = execute("""
        s_ff1_i32_b64 s4, s[0:1]
        s_ff1_i32_b64 s5, s[2:3]
        s_flbit_i32_b32 s6, s0
        s_bcnt1_i32_b64 s7, s[0:1]
        s_brev_b32 s8, s0
    """, regs(s0=0, s1=0x10, s2=0, s3=0))
    assert wave.s[4] == 36
    assert wave.s[5] == M32  # no bit set: -1
    assert wave.s[6] == M32
    assert wave.s[7] == 1 and wave.scc == 1
    assert wave.s[8] == 0


def test_compares_signed_unsigned_and_select() -> None:
    wave = execute("""
        s_cmp_lt_i32 s0, s1
        s_cselect_b32 s2, 1, 2
        s_cmp_lt_u32 s0, s1
        s_cselect_b32 s3, 1, 2
        s_cmpk_gt_u32 s1, 0x7
        s_cselect_b64 s[4:5], -1, 0
    """, regs(s0=-5, s1=3))
    assert wave.s[2] == 1  # -5 < 3 signed
    assert wave.s[3] == 2  # 0xfffffffb > 3 unsigned
    assert (wave.s[4], wave.s[5]) == (0, 0)  # 3 > 7 is false


def test_min_max_set_scc_when_the_first_operand_wins() -> None:
    wave = execute("""
        s_min_i32 s2, s0, s1
        s_max_u32 s3, s0, s1
    """, regs(s0=-1, s1=7))
    assert wave.s[2] == M32 and wave.s[3] == M32 and wave.scc == 1


def test_and_saveexec_saves_old_exec_and_masks() -> None:
    def setup(wave: Wave) -> None:
        wave.exec_bits = 0xFFFF_0000_FFFF_0000
        wave.s[0], wave.s[1] = 0x0000_FF00, 0x0F00_0000

    wave = execute("""
        s_and_saveexec_b64 s[2:3], s[0:1]
    """, setup)
    assert (wave.s[2], wave.s[3]) == (0xFFFF0000, 0xFFFF0000)
    assert wave.exec_bits == 0x0F00_0000_0000_0000
    assert wave.scc == 1


def test_andn2_saveexec_and_exec_restore() -> None:
    def setup(wave: Wave) -> None:
        wave.exec_bits = 0x0F
        wave.s[0], wave.s[1] = 0xFF, 0

    wave = execute("""
        s_andn2_saveexec_b64 s[2:3], s[0:1]
        s_or_b64 exec, exec, s[2:3]
    """, setup)
    assert (wave.s[2], wave.s[3]) == (0x0F, 0)
    assert wave.exec_bits == 0xFF


def test_saveexec_to_zero_clears_scc() -> None:
    wave = execute("s_and_saveexec_b64 s[2:3], s[0:1]", regs(s0=0, s1=0))
    assert wave.exec_bits == 0 and wave.scc == 0


def test_gfx12_scalar_float_operations() -> None:
    """GFX12's SALU floats compute what their VALU twins do for one value: f32 arithmetic
    rounded to nearest even, conversions that truncate, saturate and give 0 for NaN; and
    the 64-bit add that leaves SCC alone."""
    def setup(wave: Wave) -> None:
        wave.s[0] = 0x3FC00000  # 1.5
        wave.s[1] = 0x40200000  # 2.5
        wave.s[2] = 0x7FC00000  # NaN
        wave.s[3] = 0xCF000000  # -2^31
        wave.s[4], wave.s[5] = 0xFFFFFFFF, 0x00000001
        wave.s[6], wave.s[7] = 0x00000001, 0x00000000
        wave.scc = 1

    wave = execute("""
        s_add_f32 s10, s0, s1
        s_mul_f32 s11, s0, s1
        s_cvt_u32_f32 s12, s1
        s_cvt_u32_f32 s13, s2
        s_cvt_u32_f32 s14, s3
        s_cvt_f32_i32 s15, s3
        s_add_nc_u64 s[16:17], s[4:5], s[6:7]
    """, setup, target="gfx1201", lanes=32)
    assert wave.s[10] == 0x40800000  # 4.0
    assert wave.s[11] == 0x40700000  # 3.75
    assert wave.s[12] == 2  # truncated
    assert wave.s[13] == 0  # NaN
    assert wave.s[14] == 0  # saturated at 0
    assert wave.s[15] == 0xCE440000  # the bits 0xcf000000 as the integer -822083584
    assert (wave.s[16], wave.s[17]) == (0, 2)
    assert wave.scc == 1


def _bits32(value: float) -> int:
    return int(np.array([value], np.float32).view(np.uint32)[0])


def _bits16(value: float) -> int:
    return int(np.array([value], np.float16).view(np.uint16)[0])


def test_gfx12_scalar_float_compares_fmas_roundings_and_halves() -> None:
    """The GFX12 SALU float forms clang emits for uniform float code: compares set SCC as
    IEEE says (NaN unordered), the FMAs round once, roundings and f16 conversions."""
    def setup(wave: Wave) -> None:
        wave.s[0], wave.s[1] = _bits32(2.5), _bits32(-1.5)
        wave.s[2] = 0x7FC00000  # NaN
        wave.s[3] = _bits32(1.0 + 2.0 ** -12)
        wave.s[4] = _bits16(1.5) | _bits16(-3.0) << 16
        wave.s[5] = _bits16(0.25)
        wave.s[6] = _bits32(1.0)

    def scc_of(line: str) -> int:
        return execute(line, setup, target="gfx1200", lanes=32).scc

    assert scc_of("s_cmp_gt_f32 s0, s1") == 1
    assert scc_of("s_cmp_lt_f32 s0, s2") == 0  # NaN: unordered
    assert scc_of("s_cmp_nge_f32 s0, s2") == 1
    assert scc_of("s_cmp_u_f32 s2, s0") == 1
    assert scc_of("s_cmp_lg_f16 s4, s5") == 1
    wave = execute("""
        s_fmaak_f32 s10, s3, s3, 0xbf800000
        s_fmac_f32 s6, s0, s1
        s_floor_f32 s11, s1
        s_rndne_f32 s12, s0
        s_cvt_f32_f16 s13, s4
        s_cvt_hi_f32_f16 s14, s4
        s_cvt_f16_f32 s15, s0
        s_add_f16 s16, s4, s5
        s_cvt_pk_rtz_f16_f32 s17, s3, s1
        s_maximum_f32 s18, s0, s2
        s_max_num_f32 s19, s0, s2
    """, setup, target="gfx1200", lanes=32)
    assert wave.s[10] == _bits32(2.0 ** -11 + 2.0 ** -24)  # (1+e)^2 - 1 rounded once, not twice
    assert wave.s[6] == _bits32(1.0 - 3.75)  # s6 = 2.5 * -1.5 + s6
    assert wave.s[11] == _bits32(-2.0)
    assert wave.s[12] == _bits32(2.0)  # ties to even
    assert wave.s[13] == _bits32(1.5)
    assert wave.s[14] == _bits32(-3.0)
    assert wave.s[15] == _bits16(2.5)  # zero-extended
    assert wave.s[16] == _bits16(1.75)
    assert wave.s[17] == _bits16(1.0) | _bits16(-1.5) << 16  # 1 + 2**-12 toward zero
    assert wave.s[18] == 0x7FC00000  # NaN propagates through maximum
    assert wave.s[19] == _bits32(2.5)  # max_num takes the number
