"""Less common VALU/SALU/LDS semantics against hand-computed results: signed add with
clamp, 16-bit multiply-add, pack conversions (round toward zero, saturation), dot products,
SAD and lerp, v_swap under partial EXEC, sign-bit scans, bit set/quad/WQM masks, M0-relative
SGPR moves, 64-bit and reverse-subtract LDS atomics."""

from __future__ import annotations

import numpy as np

from luthier.emulator.state import M0, Wave

from .asm import execute

U32 = np.uint32
LANES = np.arange(64, dtype=np.uint32)


def _set(**values: int):  # noqa: ANN202  (a wave setup)
    """Set v<N> (all lanes) and s<N>: ``_set(v0=1, s2=3)``."""

    def setup(wave: Wave) -> None:
        for name, value in values.items():
            if name[0] == "v":
                wave.v[int(name[1:])] = value & 0xFFFFFFFF
            else:
                wave.s[int(name[1:])] = value & 0xFFFFFFFF

    return setup


def test_signed_add_clamps_or_wraps() -> None:
    wave = execute("""
        v_add_i32 v2, v0, v1 clamp
        v_add_i32 v3, v0, v1
        v_sub_i32 v4, v1, v0 clamp
    """, _set(v0=0x7FFFFFF0, v1=0x20))
    assert wave.v[2][0] == 0x7FFFFFFF
    assert wave.v[3][0] == 0x80000010
    assert wave.v[4][0] == (0x20 - 0x7FFFFFF0) & 0xFFFFFFFF  # no overflow: unclamped


def test_mad_u32_u16_picks_halves() -> None:
    wave = execute("v_mad_u32_u16 v3, v0, v1, v2 op_sel:[1,0,0,0]",
                   _set(v0=0x0003_FFFF, v1=0x0001_0005, v2=7))
    assert wave.v[3][0] == 3 * 5 + 7


def test_pack_conversions() -> None:
    above = float(np.nextafter(np.float32(1.0009765625), np.float32(2)))  # just above 1+2^-10
    wave = execute("""
        v_cvt_pkrtz_f16_f32 v2, v0, v1
        v_cvt_pk_i16_i32 v3, v4, v5
    """, _set(v0=int(np.float32(above).view(U32)), v1=int(np.float32(-1e6).view(U32)),
              v4=-70000, v5=1234))
    low = np.uint16(wave.v[2][0] & 0xFFFF).view(np.float16)
    high = np.uint16(wave.v[2][0] >> 16).view(np.float16)
    assert low == np.float16(1.0009765625)  # toward zero, not up
    assert high == np.float16(-65504.0)       # overflow toward zero: the largest half
    assert wave.v[3][0] == (1234 << 16) | 0x8000


def test_dot_products() -> None:
    a = np.array([1, -2, 3, -128], np.int8).view(np.uint32)[0]
    b = np.array([5, 6, -7, -1], np.int8).view(np.uint32)[0]
    halves = int(np.array([1.5, -2.0], np.float16).view(U32)[0])
    wave = execute("""
        v_dot4_i32_i8 v3, v0, v1, v2
        v_dot2c_f32_f16_e32 v4, v5, v5
    """, _set(v0=int(a), v1=int(b), v2=100, v4=int(np.float32(0.25).view(U32)), v5=halves))
    assert wave.v[3][0].view(np.int32) == 100 + 5 - 12 - 21 + 128
    assert wave.v[4][0].view(np.float32) == 0.25 + 2.25 + 4.0


def test_sad_and_lerp() -> None:
    wave = execute("""
        v_sad_u8 v3, v0, v1, v2
        v_lerp_u8 v4, v0, v1, v6
    """, _set(v0=0x10_20_30_40, v1=0x18_10_30_41, v2=1000, v6=0x01_00_01_00))
    assert wave.v[3][0] == 1000 + 8 + 16 + 0 + 1
    assert wave.v[4][0] == (((0x10 + 0x18 + 1) >> 1) << 24) | (((0x20 + 0x10) >> 1) << 16) \
        | (((0x30 + 0x30 + 1) >> 1) << 8) | ((0x40 + 0x41) >> 1)


def test_swap_respects_exec() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = LANES
        wave.v[1] = LANES + 100
        wave.exec_bits = 0x3

    wave = execute("v_swap_b32 v0, v1", setup)
    assert wave.v[0][:3].tolist() == [100, 101, 2]
    assert wave.v[1][:3].tolist() == [0, 1, 102]


def test_ffbh_i32_counts_sign_bits() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = np.array([0, 0xFFFFFFFF, 1, 0xFFFFFFFE, 0x40000000, 0x80000000] + [0] * 58,
                             U32)

    wave = execute("v_ffbh_i32_e32 v1, v0", setup)
    assert wave.v[1][:6].tolist() == [0xFFFFFFFF, 0xFFFFFFFF, 31, 31, 1, 1]


def test_scalar_bit_masks_and_relative_moves() -> None:
    def setup(wave: Wave) -> None:
        wave.s[1] = 33
        wave.s[4], wave.s[5] = 0x0000_1020, 0x8000_0000
        wave.s[20], wave.s[21], wave.s[22] = 11, 22, 33
        wave.s[M0] = 2

    wave = execute("""
        s_mov_b64 s[6:7], 0
        s_bitset1_b64 s[6:7], s1
        s_quadmask_b64 s[2:3], s[4:5]
        s_wqm_b64 s[8:9], s[4:5]
        s_movrels_b32 s10, s20
        s_movreld_b32 s30, s20
    """, setup)
    assert (wave.s[6], wave.s[7]) == (0, 2)
    assert (wave.s[2], wave.s[3]) == ((1 << 1) | (1 << 3) | (1 << 15), 0)
    assert (wave.s[8], wave.s[9]) == (0x0000_F0F0, 0xF000_0000)
    assert wave.s[10] == 33 and wave.s[32] == 11


def test_lds_64_bit_and_reverse_atomics() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 0
        wave.v[1] = 0
        wave.v[2], wave.v[3] = 0xFFFFFFFF, 0  # add 0xffffffff to a 64-bit counter
        wave.v[5] = 10
        wave.v[6] = 8
        wave.exec_bits = 0b11

    wave = execute("""
        ds_add_u64 v0, v[2:3]
        ds_rsub_rtn_u32 v4, v6, v5 offset:8
        ds_wrxchg_rtn_b32 v7, v6, v5 offset:8
    """, setup)
    lds = wave.workgroup.lds.data
    assert int.from_bytes(lds[0:8].tobytes(), "little") == 2 * 0xFFFFFFFF
    assert wave.v[4][:2].tolist() == [0, 10]  # 10 - 0, then 10 - 10 = 0
    assert wave.v[7][:2].tolist() == [0, 10]
