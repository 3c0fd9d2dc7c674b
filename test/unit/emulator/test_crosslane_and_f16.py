"""Cross-lane and 16-bit semantics against hand-computed results: DPP row shifts with and
without bound_ctrl and bank masks, broadcasts, ds_bpermute/ds_permute/ds_swizzle, v_perm_b32,
half-precision arithmetic with the upper half zeroed or kept, division helpers."""

from __future__ import annotations

import numpy as np

from luthier.emulator.state import Wave

from .asm import execute

U32 = np.uint32
M32 = 0xFFFFFFFF
LANES = np.arange(64, dtype=np.uint32)


def _lanes(wave: Wave) -> None:
    wave.v[0] = LANES + 100
    wave.v[1] = 7


def test_dpp_row_shr_with_bound_ctrl_reads_zero_at_row_starts() -> None:
    wave = execute("v_mov_b32_dpp v1, v0 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1",
                   _lanes)
    expected = np.where(LANES % 16 == 0, 0, LANES + 99)
    np.testing.assert_array_equal(wave.v[1], expected)


def test_dpp_without_bound_ctrl_keeps_old_where_the_source_is_missing() -> None:
    wave = execute("v_mov_b32_dpp v1, v0 row_shr:4 row_mask:0xf bank_mask:0xe", _lanes)
    # bank 0 (lanes 0-3 of each row) is masked off; lanes 4+ read 4 lanes back
    expected = np.where(LANES % 16 < 4, 7, LANES + 96)
    np.testing.assert_array_equal(wave.v[1], expected)


def test_dpp_feeds_an_alu_operation_and_row_bcast() -> None:
    def setup(wave: Wave) -> None:
        _lanes(wave)
        wave.v[2] = 1

    wave = execute("""
        v_add_u32_dpp v2, v0, v2 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
        v_mov_b32_dpp v1, v0 row_bcast:15 row_mask:0xa bank_mask:0xf
    """, setup)
    np.testing.assert_array_equal(wave.v[2], (LANES - LANES % 4 + 3 - LANES % 4) + 101)
    row = LANES // 16
    expected = np.where((row == 1) | (row == 3), 16 * row - 1 + 100, 7)
    np.testing.assert_array_equal(wave.v[1], expected)


def test_bpermute_reads_other_lanes_and_zero_from_inactive_ones() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = ((LANES + 1) % 64) * 4
        wave.v[1] = LANES * 10
        wave.exec_bits = (1 << 63) - 1  # lane 63 inactive

    wave = execute("ds_bpermute_b32 v2, v0, v1", setup)
    expected = ((LANES + 1) % 64) * 10
    expected[62] = 0  # lane 62 reads inactive lane 63
    np.testing.assert_array_equal(wave.v[2][:63], expected[:63])


def test_permute_writes_to_other_lanes() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = ((LANES + 1) % 64) * 4
        wave.v[1] = LANES * 10

    wave = execute("ds_permute_b32 v2, v0, v1", setup)
    np.testing.assert_array_equal(wave.v[2], ((LANES - 1) % 64) * 10)


def test_swizzle_bit_mask_and_quad_modes() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = LANES

    wave = execute("""
        ds_swizzle_b32 v1, v0 offset:swizzle(BITMASK_PERM,"0000p")
        ds_swizzle_b32 v2, v0 offset:swizzle(QUAD_PERM,1,0,3,2)
    """, setup)
    # "0000p": bits 4-1 of the lane forced to 0, bit 0 kept (within each 32 lanes)
    np.testing.assert_array_equal(wave.v[1], (LANES & U32(32)) | (LANES & U32(1)))
    np.testing.assert_array_equal(wave.v[2], LANES ^ 1)


def test_perm_b32_bytes_signs_and_constants() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 0x8899AABB
        wave.v[1] = 0x11223344
        wave.v[2] = 0x0C0B0700  # bytes: sel 0 (0x44), 7 (0x88), 11 (sign of bit 63), 12 (0)

    wave = execute("v_perm_b32 v3, v0, v1, v2", setup)
    assert wave.v[3][0] == 0x00FF8844


def test_f16_arithmetic_zeroes_the_upper_half() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 0xDEAD_0000 | int(np.float16(1.5).view(np.uint16))
        wave.v[1] = int(np.float16(2.25).view(np.uint16))
        wave.v[2] = 0xBEEF_0000

    wave = execute("""
        v_mul_f16_e32 v2, v0, v1
        v_cvt_f32_f16_e32 v3, v2
    """, setup)
    assert wave.v[2][0] >> 16 == 0
    assert wave.v[3].view(np.float32)[0] == 1.5 * 2.25


def test_fma_f16_op_sel_keeps_the_other_half() -> None:
    def setup(wave: Wave) -> None:
        half = int(np.float16(3.0).view(np.uint16))
        wave.v[0] = half << 16        # 3.0 in the high half
        wave.v[1] = half              # 3.0 in the low half
        wave.v[2] = 0x1234_0000

    wave = execute("v_fma_f16 v2, v0, v1, v1 op_sel:[1,0,0,0]", setup)
    assert wave.v[2][0] >> 16 == 0x1234
    assert np.uint16(wave.v[2][0] & 0xFFFF).view(np.float16) == 12.0


def test_division_sequence_helpers_in_range() -> None:
    def setup(wave: Wave) -> None:
        for index, value in ((0, 1.0), (2, 3.0)):
            bits = int(np.float64(value).view(np.uint64))
            wave.v[index], wave.v[index + 1] = bits & M32, bits >> 32

    wave = execute("""
        v_div_scale_f64 v[4:5], s[0:1], v[2:3], v[2:3], v[0:1]
        v_div_fixup_f64 v[6:7], v[0:1], 0, v[0:1]
    """, setup)
    scaled = wave.v[4].astype(np.uint64) | (wave.v[5].astype(np.uint64) << np.uint64(32))
    assert scaled.view(np.float64)[0] == 3.0  # nothing to scale in range
    assert (wave.s[0], wave.s[1]) == (0, 0)
    fixed = wave.v[6].astype(np.uint64) | (wave.v[7].astype(np.uint64) << np.uint64(32))
    assert np.isinf(fixed.view(np.float64)[0])  # x / 0 is infinite



def test_fma_mix_takes_f16_or_f32_sources() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = int(np.float16(1.5).view(np.uint16)) << 16   # f16 in the high half
        wave.v[1] = int(np.float32(2.0).view(U32))
        wave.v[2] = int(np.float32(0.25).view(U32))
        wave.v[3] = 0xABCD0000

    wave = execute("""
        v_fma_mix_f32 v4, v0, v1, v2 op_sel:[1,0,0] op_sel_hi:[1,0,0]
        v_fma_mixlo_f16 v3, v0, v1, v2 op_sel:[1,0,0] op_sel_hi:[1,0,0]
    """, setup)
    assert wave.v[4].view(np.float32)[0] == 3.25
    assert wave.v[3][0] >> 16 == 0xABCD
    assert np.uint16(wave.v[3][0] & 0xFFFF).view(np.float16) == 3.25


def test_d16_loads_and_stores_use_one_half() -> None:
    from luthier.emulator.memory import GlobalMemory

    memory = GlobalMemory()
    buffer = memory.allocate(8, "buf", np.array([0x1234, 0x80FF, 0, 0], np.uint16).tobytes())

    def setup(wave: Wave) -> None:
        wave.v[0], wave.v[1] = buffer.base & M32, buffer.base >> 32
        wave.v[2] = 0xAAAA_BBBB
        wave.v[3] = 0xCCCC_DDDD
        wave.exec_bits = 1

    wave = execute("""
        global_load_short_d16_hi v2, v[0:1], off
        global_load_sbyte_d16 v3, v[0:1], off offset:2
        global_store_short_d16_hi v[0:1], v2, off offset:4
    """, setup, memory=memory)
    assert wave.v[2][0] == 0x1234_BBBB
    assert wave.v[3][0] == 0xCCCC_FFFF  # 0xff sign-extended to 16 bits
    assert np.frombuffer(memory.read(buffer.base + 4, 2), np.uint16)[0] == 0x1234


def test_f16_min3_med3_and_exp() -> None:
    def half(value: float) -> int:
        return int(np.float16(value).view(np.uint16))

    def setup(wave: Wave) -> None:
        wave.v[0], wave.v[1], wave.v[2] = half(3.0), half(-1.0), half(2.0)
        wave.v[3] = 0xFFFF_0000

    wave = execute("""
        v_med3_f16 v3, v0, v1, v2
        v_min3_f16 v4, v0, v1, v2
        v_exp_f16_e32 v5, v0
    """, setup)
    assert wave.v[3][0] >> 16 == 0xFFFF  # VOP3 op_sel form keeps the high half
    assert np.uint16(wave.v[3][0] & 0xFFFF).view(np.float16) == 2.0
    assert np.uint16(wave.v[4][0] & 0xFFFF).view(np.float16) == -1.0
    assert np.uint16(wave.v[5][0] & 0xFFFF).view(np.float16) == 8.0


def test_gfx10_keeps_the_upper_half_where_gfx9_zeroes_it() -> None:
    """GFX9's 16-bit VOP2 operations zero the destination's upper half; from GFX10 every
    16-bit operation keeps it (wave32 here, all lanes: exec_lo)."""
    def setup(wave: Wave) -> None:
        wave.v[0] = U32(0xABCD0000)
        wave.v[1] = U32(0x0001FFFF)
        wave.v[2] = U32(0x00020003)

    gfx9 = execute("v_add_u16_e32 v0, v1, v2", setup)
    np.testing.assert_array_equal(gfx9.v[0], U32(0x0002))  # 0xffff + 3, upper half zeroed
    gfx10 = execute("v_add_nc_u16 v0, v1, v2", setup, target="gfx1030", lanes=32)
    np.testing.assert_array_equal(gfx10.v[0], U32(0xABCD0002))
    wrapped = execute("v_sub_nc_u16 v0, v2, v1", setup, target="gfx1030", lanes=32)
    np.testing.assert_array_equal(wrapped.v[0], U32(0xABCD0004))  # 3 - 0xffff wraps to 4


def test_vopd_halves_read_before_either_writes() -> None:
    """GFX11's dual issue: each half reads its operands before the other writes, so two
    moves across swap the registers, and an add reads the other half's old destination."""
    def setup(wave: Wave) -> None:
        wave.v[0] = LANES[:32] + 1000
        wave.v[1] = LANES[:32] + 2000
        wave.v[2] = U32(5)

    swapped = execute("v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v1, v0", setup,
                      target="gfx1100", lanes=32)
    np.testing.assert_array_equal(swapped.v[0], LANES[:32] + 2000)
    np.testing.assert_array_equal(swapped.v[1], LANES[:32] + 1000)
    added = execute("v_dual_mov_b32 v0, v2 :: v_dual_add_nc_u32 v1, v0, v2", setup,
                    target="gfx1100", lanes=32)
    np.testing.assert_array_equal(added.v[0], U32(5))
    np.testing.assert_array_equal(added.v[1], LANES[:32] + 1005)
