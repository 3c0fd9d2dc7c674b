"""VALU semantics against hand-computed results: per-lane carries, partial EXEC (inactive
lanes keep their values and get 0 in lane masks), 64-bit shifts, modifiers, single-rounding
FMA, IEEE min/max, saturating conversions, compares with NaN, lane operations."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from luthier.emulator.state import Wave

from .asm import execute

U32 = np.uint32
LANES = np.arange(64, dtype=np.uint32)


def f32(value: float) -> int:
    return int(np.float32(value).view(U32))


def as_f32(bits: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    return bits.view(np.float32)


def test_add_co_carries_per_lane_into_vcc_and_addc_consumes_it() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 0xFFFFFFF0 + LANES  # lanes >= 16 carry when adding 16
        wave.v[1] = 16
        wave.v[2] = 7
        wave.v[3] = 0

    wave = execute("""
        v_add_co_u32_e32 v4, vcc, v0, v1
        v_addc_co_u32_e32 v5, vcc, v2, v3, vcc
    """, setup)
    first = (0xFFFFFFF0 + LANES.astype(np.int64)) % 2**32
    carry = first + 16 > 0xFFFFFFFF  # lanes 0..15
    assert carry.sum() == 16
    np.testing.assert_array_equal(wave.v[4], ((first + 16) % 2**32).astype(U32))
    np.testing.assert_array_equal(wave.v[5], 7 + carry.astype(U32))
    assert wave.vcc_bits == 0  # 7 + 0 + carry never carries


def test_carry_out_is_zero_in_inactive_lanes_and_their_results_stay() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 0xFFFFFFFF
        wave.v[1] = 1
        wave.v[2] = 0xABCD
        wave.exec_bits = 0x5  # lanes 0 and 2

    wave = execute("v_add_co_u32_e64 v2, s[0:1], v0, v1", setup)
    assert (wave.s[0], wave.s[1]) == (0x5, 0)
    assert wave.v[2][0] == 0 and wave.v[2][2] == 0
    assert wave.v[2][1] == 0xABCD and wave.v[2][63] == 0xABCD


def test_sub_co_borrow_and_subrev() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = LANES
        wave.v[1] = 10

    wave = execute("""
        v_sub_co_u32_e32 v2, vcc, v0, v1
        v_subrev_u32_e32 v3, v0, v1
    """, setup)
    np.testing.assert_array_equal(wave.v[2], (LANES - U32(10)))
    assert wave.vcc_bits == (1 << 10) - 1  # lanes 0..9 borrow
    np.testing.assert_array_equal(wave.v[3], U32(10) - LANES)


def test_multiplies_and_mad_u64() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 0xFFFFFFFF - LANES
        wave.v[1] = 0x12345678
        wave.v[2], wave.v[3] = 0xFFFFFFFF, 0xFFFFFFFF  # c = 2**64 - 1: the sum carries

    wave = execute("""
        v_mul_lo_u32 v4, v0, v1
        v_mul_hi_u32 v5, v0, v1
        v_mad_u64_u32 v[6:7], s[0:1], v0, v1, v[2:3]
    """, setup)
    product = (0xFFFFFFFF - LANES.astype(object)) * 0x12345678
    np.testing.assert_array_equal(wave.v[4], [int(p) & 0xFFFFFFFF for p in product])
    np.testing.assert_array_equal(wave.v[5], [int(p) >> 32 for p in product])
    total = [(int(p) + 2**64 - 1) for p in product]
    np.testing.assert_array_equal(wave.v[6], [t & 0xFFFFFFFF for t in total])
    np.testing.assert_array_equal(wave.v[7], [(t >> 32) & 0xFFFFFFFF for t in total])
    assert (wave.s[0], wave.s[1]) == (0xFFFFFFFF, 0xFFFFFFFF)  # every lane's sum overflows


def test_shifts_32_and_64_bit() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 0x80000000
        wave.v[1] = LANES  # shift amounts 0..63
        wave.v[2], wave.v[3] = 0x1, 0x80000000

    wave = execute("""
        v_ashrrev_i32_e32 v4, v1, v0
        v_lshrrev_b32_e32 v5, v1, v0
        v_lshlrev_b64 v[6:7], v1, v[2:3]
        v_ashrrev_i64 v[8:9], v1, v[2:3]
    """, setup)
    shift = LANES & 31
    np.testing.assert_array_equal(wave.v[4], (np.int32(-2**31) >> shift.astype(np.int32))
                                  .astype(np.int32).view(U32))
    np.testing.assert_array_equal(wave.v[5], U32(0x80000000) >> shift)
    value = np.uint64(0x80000000_00000001)
    wide = value << LANES.astype(np.uint64)
    np.testing.assert_array_equal(wave.v[6], (wide & np.uint64(0xFFFFFFFF)).astype(U32))
    np.testing.assert_array_equal(wave.v[7], (wide >> np.uint64(32)).astype(U32))
    arithmetic = np.int64(value.view(np.int64)) >> LANES.astype(np.int64)
    np.testing.assert_array_equal(wave.v[8], (arithmetic & 0xFFFFFFFF).astype(U32))


def test_bit_counts_scans_and_fields() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = np.where(LANES == 0, 0, U32(1) << (LANES & 31))

    wave = execute("""
        v_ffbh_u32_e32 v1, v0
        v_ffbl_b32_e32 v2, v0
        v_bfrev_b32_e32 v3, v0
        v_bfe_i32 v4, v0, 0, 31
        v_add3_u32 v5, v0, v0, 1
    """, setup)
    assert wave.v[1][0] == 0xFFFFFFFF and wave.v[2][0] == 0xFFFFFFFF
    for lane in range(1, 64):
        bit = lane & 31
        assert wave.v[1][lane] == 31 - bit and wave.v[2][lane] == bit
        assert wave.v[3][lane] == 1 << (31 - bit)
        expected = (1 << bit) if bit < 30 else (1 << bit) - (1 << 31)
        assert int(wave.v[4][lane]) == expected & 0xFFFFFFFF
    assert wave.v[5][1] == 5


def test_cndmask_selects_by_vcc_and_applies_abs_modifier() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = f32(-1.5)
        wave.v[1] = f32(-2.5)
        wave.vcc_bits = 0xAAAAAAAAAAAAAAAA
        wave.s[0], wave.s[1] = 0xF, 0

    wave = execute("""
        v_cndmask_b32_e32 v2, v0, v1, vcc
        v_cndmask_b32_e64 v3, v0, |v1|, s[0:1]
    """, setup)
    odd = (LANES & 1) == 1
    np.testing.assert_array_equal(as_f32(wave.v[2]), np.where(odd, -2.5, -1.5))
    np.testing.assert_array_equal(as_f32(wave.v[3]), np.where(LANES < 4, 2.5, -1.5))


def test_partial_exec_leaves_inactive_lanes_alone() -> None:
    def setup(wave: Wave) -> None:
        wave.v[1] = 99
        wave.exec_bits = 0xFF00

    wave = execute("v_mov_b32_e32 v1, 7", setup)
    np.testing.assert_array_equal(wave.v[1], np.where((LANES >= 8) & (LANES < 16), 7, 99))


def test_fma_f32_rounds_once() -> None:
    a = 1 + 2.0**-12  # a * a = 1 + 2**-11 + 2**-24: exactly a float32 midpoint
    c = 2.0**-70      # just above the midpoint: the single rounding goes up
    wave = execute("""
        v_fma_f32 v3, v0, v0, v1
        v_mul_f32_e32 v4, v0, v0
        v_add_f32_e32 v4, v4, v1
        v_fma_f32 v5, v0, v0, v2
    """, lambda w: (w.v.__setitem__(0, f32(a)), w.v.__setitem__(1, f32(c)),
                    w.v.__setitem__(2, f32(-1.0)))[-1])
    assert as_f32(wave.v[3])[0] == np.float32(1 + 2.0**-11 + 2.0**-23)
    assert as_f32(wave.v[4])[0] == np.float32(1 + 2.0**-11)  # two roundings
    assert as_f32(wave.v[5])[0] == np.float32(2.0**-11 + 2.0**-24)  # exact


def test_fma_f64_rounds_once() -> None:
    a, b, c = 1 + 2.0**-30, 1 + 2.0**-23, 2.0**-200

    def setup(wave: Wave) -> None:
        for index, value in ((0, a), (2, b), (4, c)):
            bits = int(np.float64(value).view(np.uint64))
            wave.v[index], wave.v[index + 1] = bits & 0xFFFFFFFF, bits >> 32

    wave = execute("v_fma_f64 v[6:7], v[0:1], v[2:3], v[4:5]", setup)
    got = (wave.v[6].astype(np.uint64) | (wave.v[7].astype(np.uint64) << np.uint64(32)))
    expected = float(Fraction(a) * Fraction(b) + Fraction(c))
    assert got.view(np.float64)[0] == expected
    assert expected != a * b + c  # the case needs the single rounding


def test_vop3_modifiers_clamp_and_omod() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = f32(0.75)
        wave.v[1] = f32(-2.0)

    wave = execute("""
        v_mul_f32_e64 v2, -v0, |v1|
        v_mul_f32_e64 v3, v0, v1 clamp
        v_add_f32_e64 v4, v0, v0 mul:2
        v_add_f32_e64 v5, v0, v0 div:2
    """, setup)
    assert as_f32(wave.v[2])[0] == -1.5
    assert as_f32(wave.v[3])[0] == 0.0
    assert as_f32(wave.v[4])[0] == 3.0
    assert as_f32(wave.v[5])[0] == 0.75


def test_ieee_min_max_ignore_nan_and_conversions_saturate() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = np.array([f32(np.nan), f32(-3.7), f32(5e9), f32(-1.0)] * 16, U32)
        wave.v[1] = f32(1.0)

    wave = execute("""
        v_max_f32_e32 v2, v0, v1
        v_min_f32_e32 v3, v0, v1
        v_cvt_u32_f32_e32 v4, v0
        v_cvt_i32_f32_e32 v5, v0
    """, setup)
    np.testing.assert_array_equal(as_f32(wave.v[2])[:4], [1.0, 1.0, 5e9, 1.0])
    np.testing.assert_array_equal(as_f32(wave.v[3])[:4],
                                  np.array([1.0, -3.7, 1.0, -1.0], np.float32))
    np.testing.assert_array_equal(wave.v[4][:4], [0, 0, 0xFFFFFFFF, 0])
    np.testing.assert_array_equal(wave.v[5][:4].view(np.int32), [0, -3, 2**31 - 1, -1])


def test_compares_with_nan_signedness_and_inactive_lanes() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = np.where(LANES == 0, f32(np.nan), f32(1.0)).astype(U32)
        wave.v[1] = f32(2.0)
        wave.v[2] = 0xFFFFFFFF
        wave.exec_bits = 0x7  # lanes 0-2

    wave = execute("""
        v_cmp_nlt_f32_e32 vcc, v0, v1
        v_cmp_lg_f32_e64 s[0:1], v0, v1
        v_cmp_gt_i32_e64 s[2:3], v2, 0
        v_cmp_gt_u32_e64 s[4:5], v2, 0
    """, setup)
    assert wave.vcc_bits == 0x1           # only the NaN lane is "not less"
    assert (wave.s[0], wave.s[1]) == (0x6, 0)  # lg is ordered: false for NaN
    assert (wave.s[2], wave.s[3]) == (0, 0)    # -1 > 0 is false signed
    assert (wave.s[4], wave.s[5]) == (0x7, 0)  # but true unsigned, in active lanes only


def test_cmpx_writes_exec_and_class_tests() -> None:
    def setup(wave: Wave) -> None:
        values = [np.inf, -0.0, 1e-40, np.nan, -5.0]
        wave.v[0] = np.array([f32(v) for v in values] + [f32(1.0)] * 59, U32)
        wave.v[1] = (1 << 9) | (1 << 5) | (1 << 4) | (1 << 1)  # +inf, -0, -denorm, qNaN

    wave = execute("""
        v_cmp_class_f32_e32 vcc, v0, v1
        v_cmpx_gt_f32_e32 vcc, 0, v0
    """, setup)
    assert (wave.s[106], wave.s[107]) == (0x10, 0)  # cmpx also writes VCC on GFX9
    assert wave.exec_bits == 0x10                   # only -5.0 < 0


def test_class_mask_result() -> None:
    def setup(wave: Wave) -> None:
        values = [np.inf, -0.0, 1e-40, np.nan, -5.0]
        wave.v[0] = np.array([f32(v) for v in values] + [f32(1.0)] * 59, U32)
        wave.v[1] = (1 << 9) | (1 << 5) | (1 << 7) | (1 << 1)  # +inf, -0, +denorm, qNaN

    wave = execute("v_cmp_class_f32_e32 vcc, v0, v1", setup)
    assert wave.vcc_bits == 0b01111


def test_lane_operations() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = LANES * 10
        wave.exec_bits = 0xF0
        wave.s[0] = 0x3

    wave = execute("""
        v_readfirstlane_b32 s1, v0
        v_readlane_b32 s2, v0, 35
        v_writelane_b32 v1, s0, 2
        v_mbcnt_lo_u32_b32 v2, -1, 0
        v_mbcnt_hi_u32_b32 v2, -1, v2
    """, setup)
    assert wave.s[1] == 40 and wave.s[2] == 350
    assert wave.v[1][2] == 3  # writelane ignores EXEC
    np.testing.assert_array_equal(wave.v[2][4:8], [4, 5, 6, 7])
    assert wave.v[2][0] == 0 and wave.v[2][8] == 0  # inactive lanes untouched


def test_sdwa_selects_a_byte() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 0x1234_5602
        wave.v[1] = 3

    wave = execute("v_lshlrev_b32_sdwa v1, v1, v0 dst_sel:DWORD dst_unused:UNUSED_PAD "
                   "src0_sel:DWORD src1_sel:BYTE_0", setup)
    assert wave.v[1][0] == 0x02 << 3


def test_wave32_masks_use_the_low_half() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = np.arange(32, dtype=U32)

    wave = execute("v_cmp_gt_u32_e32 vcc, 4, v0", setup, lanes=32)
    assert wave.vcc_bits == 0xF and wave.s[107] == 0


def test_class_of_halves() -> None:
    def setup(wave: Wave) -> None:
        values = [np.inf, -0.0, 1e-6, np.nan, -5.0]  # 1e-6 is an f16 denormal
        wave.v[0] = np.array([int(np.float16(v).view(np.uint16)) for v in values] + [0] * 59,
                             U32)
        wave.v[1] = (1 << 9) | (1 << 5) | (1 << 7) | (1 << 1)  # +inf, -0, +denorm, qNaN

    wave = execute("v_cmp_class_f16_e64 s[0:1], v0, v1", setup)
    assert (wave.s[0], wave.s[1]) == (0b01111, 0)


def _h(value: float) -> int:
    return int(np.float16(value).view(np.uint16))


def test_half_compares_take_abs_and_neg_on_the_half() -> None:
    """abs/neg of a 16-bit compare's source act on bit 15 of the half it reads, not on bit
    31 of the register (which the f16 operand does not hold)."""
    def setup(wave: Wave) -> None:
        wave.v[0] = U32(_h(2.0))
        wave.v[1] = U32(_h(1.0))
        wave.v[2] = U32(_h(-2.0))

    wave = execute("""
        v_cmp_lt_f16_e64 s[0:1], -v0, v1
        v_cmp_lt_f16_e64 s[2:3], |v2|, v1
        v_cmp_lt_f16_e64 s[4:5], -|v2|, v1
        v_cmp_class_f16_e64 s[6:7], -v0, 8
    """, setup)
    assert (wave.s[0], wave.s[1]) == (0xFFFFFFFF, 0xFFFFFFFF)  # -2 < 1
    assert (wave.s[2], wave.s[3]) == (0, 0)  # |-2| < 1 is false
    assert (wave.s[4], wave.s[5]) == (0xFFFFFFFF, 0xFFFFFFFF)  # -|-2| < 1
    assert (wave.s[6], wave.s[7]) == (0xFFFFFFFF, 0xFFFFFFFF)  # -2 is a negative normal


def test_sdwa_16_bit_operations_select_their_halves_and_place_their_result() -> None:
    """GFX9 SDWA forms of 16-bit operations read the word src*_sel names and write the
    result where dst_sel says, the rest as dst_unused says (what clang emits for scalar
    ``half`` code on gfx90a)."""
    def setup(wave: Wave) -> None:
        wave.v[1] = U32((_h(3.0) << 16) | _h(1.0))
        wave.v[2] = U32(f32(2.5))
        for index in (3, 4, 5, 6, 7):
            wave.v[index] = U32(0x12345678)

    preserve = "dst_unused:UNUSED_PRESERVE"
    wave = execute(f"""
        v_cvt_f32_f16_sdwa v3, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
        v_cvt_f16_f32_sdwa v4, v2 dst_sel:WORD_1 {preserve} src0_sel:DWORD
        v_mul_f16_sdwa v5, v1, v1 dst_sel:WORD_1 {preserve} src0_sel:WORD_1 src1_sel:WORD_0
        v_max_f16_sdwa v6, -v1, v1 dst_sel:WORD_0 {preserve} src0_sel:WORD_1 src1_sel:WORD_0
        v_add_u16_sdwa v7, v1, v1 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_1 \
src1_sel:WORD_1
    """, setup)
    assert int(wave.v[3][0]) == f32(3.0)
    assert int(wave.v[4][0]) == (_h(2.5) << 16) | 0x5678
    assert int(wave.v[5][0]) == (_h(3.0) << 16) | 0x5678  # 3 * 1
    assert int(wave.v[6][0]) == 0x1234_0000 | _h(1.0)  # max(-3, 1)
    assert int(wave.v[7][0]) == ((2 * _h(3.0)) & 0xFFFF) << 16


def test_sdwa_sext_sign_extends_an_integer_field_and_negates_nothing() -> None:
    """An integer SDWA source's ``sext`` is bit 0 of its modifiers (the bit a float
    source's ``neg`` takes): the selected field is sign-extended, and no sign bit flips."""
    def setup(wave: Wave) -> None:
        wave.v[1] = U32(0x8000_7FFF)
        wave.v[2] = U32(15)
        wave.v[3] = U32(0x0000_FFFF)

    pad = "dst_sel:DWORD dst_unused:UNUSED_PAD"
    wave = execute(f"""
        v_cmp_gt_i32_sdwa vcc, sext(v1), sext(v1) src0_sel:WORD_0 src1_sel:WORD_1
        v_ashrrev_i32_sdwa v4, v2, sext(v3) {pad} src0_sel:DWORD src1_sel:WORD_0
        v_add_u32_sdwa v5, sext(v1), v1 {pad} src0_sel:WORD_1 src1_sel:WORD_0
    """, setup)
    assert wave.vcc_bits == wave.full  # 32767 > -32768
    assert int(wave.v[4][0]) == 0xFFFF_FFFF  # -1 >> 15
    assert int(wave.v[5][0]) == (0x7FFF - 0x8000) & 0xFFFF_FFFF


def test_div_fixup_f16_puts_back_the_special_cases_of_a_half_division() -> None:
    """clang divides halves in f32 and ends with v_div_fixup_f16 quotient, denominator,
    numerator: the quotient with the numerator's over the denominator's sign, and IEEE's
    answers for NaN, 0/0, inf/inf, x/0, inf/x, 0/x and x/inf."""
    cases = [  # (quotient, denominator, numerator) -> result
        ((2.0, -4.0, 8.0), -2.0), ((0.5, 0.0, 1.0), np.inf), ((0.5, -0.0, 1.0), -np.inf),
        ((0.5, 0.0, 0.0), np.nan), ((0.5, np.inf, -np.inf), np.nan),
        ((0.5, 2.0, np.inf), np.inf), ((0.5, np.inf, 3.0), 0.0), ((0.5, -3.0, 0.0), -0.0),
        ((0.5, 2.0, np.nan), np.nan)]

    def setup(wave: Wave) -> None:
        for lane, ((q, d, n), _) in enumerate(cases):
            wave.v[0][lane], wave.v[1][lane], wave.v[2][lane] = _h(q), _h(d), _h(n)

    wave = execute("v_div_fixup_f16 v3, v0, v1, v2", setup)
    got = (wave.v[3][:len(cases)] & 0xFFFF).astype(np.uint16).view(np.float16)
    for lane, (_, want) in enumerate(cases):
        if np.isnan(want):
            assert np.isnan(got[lane]), lane
        else:
            assert got[lane] == want and np.signbit(got[lane]) == np.signbit(want), lane
