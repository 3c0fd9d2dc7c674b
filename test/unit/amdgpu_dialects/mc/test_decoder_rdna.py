"""Disassembly of the RDNA targets (gfx1030, gfx1100, gfx1200/gfx1201) on real words.

Every expected text and encoding is what ``llvm-mc-19 --disassemble --show-encoding
--triple=amdgcn-amd-amdhsa --mcpu=<target>`` prints for the bytes (wave32, the default): the
words cover what differs from GFX9 (implied ``vcc_lo``, VOP3 ``v_cmpx`` with its EXEC
destination, DPP8/DPP16, unified buffer formats, NSA image addresses, VOPD, 96-bit VOP3
DPP, 16-bit VGPR halves, GFX12's 24-bit signed offsets and cache policy...).
"""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.decoder import DecodeError, decoder_for
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for

#: (target, bytes as llvm-mc's test files write them, text llvm-mc prints).
GOLDEN: list[tuple[str, str, str]] = [
    ("gfx1030", "0x01,0x05,0x0a,0x4a", "v_add_nc_u32_e32 v5, v1, v2"),
    ("gfx1030", "0x03,0x09,0x06,0x50", "v_add_co_ci_u32_e32 v3, vcc_lo, v3, v4, vcc_lo"),
    ("gfx1030", "0x7e,0x00,0xf8,0xd4,0xc1,0x04,0x02,0x00", "v_cmpx_u_f16_e64 -1, v2"),
    ("gfx1030", "0xe9,0x04,0x0a,0x02,0x01,0x88,0xc6,0xfa",
     "v_cndmask_b32_dpp v5, v1, v2, vcc_lo dpp8:[0,1,2,3,4,5,6,7]"),
    ("gfx1030", "0xfa,0x04,0x0a,0x02,0x01,0x51,0x01,0xff",
     "v_cndmask_b32_dpp v5, v1, v2, vcc_lo row_share:1 row_mask:0xf bank_mask:0xf"),
    ("gfx1030", "0x00,0x00,0xb0,0xe8,0x00,0x00,0x20,0x80",
     "tbuffer_load_format_d16_x v0, off, s[0:3], 0 format:[BUF_FMT_32_FLOAT]"),
    ("gfx1030", "0x07,0x9f,0x98,0xf1,0x32,0x27,0x03,0x00,0x2e,0x17,0x11,0x10,0x0f,0x15,0x14,"
     "0x13,0x25,0x28,0x00,0x00",
     "image_bvh_intersect_ray v[39:42], [v50, v46, v23, v17, v16, v15, v21, v20, v19, v37, "
     "v40], s[12:15]"),
    ("gfx1030", "0x7f,0xc0,0x8c,0xbf", "s_waitcnt lgkmcnt(0)"),
    ("gfx1030", "0x00,0x00,0x08,0xf4,0x00,0x00,0x00,0xfa", "s_load_dwordx4 s[0:3], s[0:1], null"),
    ("gfx1030", "0x05,0x10,0x77,0xd7,0x01,0x05,0x0c,0x00",
     "v_permlane16_b32 v5, v1, s2, s3 op_sel:[0,1]"),
    ("gfx1030", "0x01,0x01,0x00,0xf8,0x01,0x00,0x00,0x00", "exp pos4 v1, off, off, off"),
    ("gfx1100", "0x04,0x05,0x02,0xc9,0x01,0x07,0x06,0xff,0x56,0x34,0x12,0xaf",
     "v_dual_add_f32 v255, v4, v2 :: v_dual_fmaak_f32 v6, v1, v3, 0xaf123456"),
    ("gfx1100", "0x05,0x00,0x55,0xd6,0xfa,0x04,0x0e,0x04,0x01,0x1b,0x00,0xff",
     "v_add3_u32_e64_dpp v5, v1, v2, v3 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf"),
    ("gfx1100", "0x91,0x00,0x87,0xbf",
     "s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(VALU_DEP_1)"),
    ("gfx1100", "0x80,0x00,0xb6,0xbf", "s_sendmsg sendmsg(MSG_RTN_GET_DOORBELL)"),
    ("gfx1100", "0x07,0xfc,0x89,0xbf", "s_waitcnt lgkmcnt(0)"),
    ("gfx1100", "0xee,0x39,0x74,0x7f", "v_mov_b16_e32 v58.h, v110.h"),
    ("gfx1100", "0x7c,0x00,0x80,0xbe", "s_mov_b32 s0, null"),
    ("gfx1200", "0x03,0x00,0x22,0xc4,0x04,0x10,0x80,0x00,0x00,0xff,0xff,0x7f",
     "tbuffer_load_d16_format_x v4, off, s[8:11], s3 offset:8388607"),
    ("gfx1200", "0x7c,0x40,0x16,0xec,0x01,0x00,0x10,0x01,0x00,0x00,0xee,0x85",
     "flat_atomic_pk_add_f16 v1, v[0:1], v2 offset:-8000000 th:TH_ATOMIC_RETURN"),
    ("gfx1200", "0x09,0x40,0x80,0xb0", "s_version UC_VERSION_GFX12|UC_VERSION_W32_BIT"),
    ("gfx1200", "0xc7,0x81,0x04,0xf4,0xff,0xff,0x7f,0xfa",
     "s_prefetch_inst s[14:15], 0x7fffff, m0, 7"),
    ("gfx1200", "0x00,0x00,0xc7,0xbf", "s_wait_kmcnt 0x0"),
    ("gfx1201", "0x01,0x00,0x46,0xbf", "s_cmp_ge_f32 s1, s0"),
]

#: Words llvm-mc-19 rejects on the target: they must not decode as anything.
INVALID: list[tuple[str, str]] = [
    # A 16-bit VOP1 whose destination (v133) is outside its v0..v127 class.
    ("gfx1100", "0xfd,0xb8,0x0a,0x7f"),
    # DPP8 with a fetch-inactive marker other than 0xE9/0xEA in the src0 field.
    ("gfx1030", "0xe8,0x04,0x0a,0x02,0x01,0x88,0xc6,0xfa"),
    # A trailing word that is no instruction on gfx1030 (llvm-mc's warning case).
    ("gfx1030", "0x11,0x22,0x33,0x44"),
]


def _bytes(text: str) -> bytes:
    return bytes(int(token, 16) for token in text.split(","))


@pytest.mark.parametrize(("target", "data", "text"), GOLDEN)
def test_rdna_words_disassemble_as_llvm_mc(target: str, data: str, text: str) -> None:
    raw = _bytes(data)
    inst = decoder_for(target).decode(raw)
    assert inst.size == len(raw)
    assert printer_for(target).print(inst) == text
    # llvm-mc re-encodes what it decoded; these words are canonical, so the same bytes.
    assert encoder_for(target).encode(inst) == raw


@pytest.mark.parametrize(("target", "data"), INVALID)
def test_rdna_invalid_words_are_rejected(target: str, data: str) -> None:
    with pytest.raises(DecodeError):
        decoder_for(target).decode(_bytes(data))


def test_rdna_targets_are_wave32_by_default() -> None:
    for target in ("gfx1030", "gfx1100", "gfx1200", "gfx1201"):
        isa = load_target(target)
        assert isa.wavefront_size == 32
        assert "FeatureWavefrontSize32" in isa.features
        assert isa.generation == isa.subtarget.major


def test_gfx1201_is_served_by_gfx1200s_table_under_its_own_name() -> None:
    gfx1200, gfx1201 = load_target("gfx1200"), load_target("gfx1201")
    assert gfx1201.name == "gfx1201"
    assert gfx1201.features == gfx1200.features
    assert [i.name for i in gfx1201.instructions] == [i.name for i in gfx1200.instructions]


@pytest.mark.parametrize(("target", "data", "text"), [
    # s_mov_b32 (SOP1 op 3 on GFX10, op 0 on GFX11) from source encodings 124 and 125: GFX11
    # swapped m0 and null.
    ("gfx1030", "0x7c,0x03,0x80,0xbe", "s_mov_b32 s0, m0"),
    ("gfx1030", "0x7d,0x03,0x80,0xbe", "s_mov_b32 s0, null"),
    ("gfx1100", "0x7c,0x00,0x80,0xbe", "s_mov_b32 s0, null"),
    ("gfx1100", "0x7d,0x00,0x80,0xbe", "s_mov_b32 s0, m0"),
])
def test_generation_selects_the_source_operand_specials(
    target: str, data: str, text: str
) -> None:
    assert printer_for(target).print(decoder_for(target).decode(_bytes(data))) == text


#: (target, bytes, text) as ``llvm-mc-19 ... -mattr=+wavefrontsize64`` prints them.
WAVE64: list[tuple[str, str, str]] = [
    ("gfx1030", "0x03,0x09,0x06,0x50", "v_add_co_ci_u32_e32 v3, vcc, v3, v4, vcc"),
    ("gfx1030", "0x01,0x05,0x04,0x7c", "v_cmp_eq_f32_e32 vcc, v1, v2"),
    ("gfx1030", "0xfa,0x04,0x0a,0x02,0x01,0x51,0x01,0xff",
     "v_cndmask_b32_dpp v5, v1, v2, vcc row_share:1 row_mask:0xf bank_mask:0xf"),
    ("gfx1100", "0x01,0x05,0x04,0x7c", "v_cmp_eq_f16_e32 vcc, v1, v2"),
]


@pytest.mark.parametrize(("target", "data", "text"), WAVE64)
def test_wave64_words_disassemble_as_llvm_mc(target: str, data: str, text: str) -> None:
    raw = _bytes(data)
    inst = decoder_for(target, 64).decode(raw)
    assert printer_for(target, 64).print(inst) == text
    assert encoder_for(target, 64).encode(inst) == raw


def test_wave64_has_no_dual_issue() -> None:
    # VOPD is a wave32 encoding: llvm-mc rejects this word in wave64, decodes it in wave32.
    raw = _bytes("0x04,0x05,0x02,0xc9,0x01,0x07,0x06,0xff,0x56,0x34,0x12,0xaf")
    assert decoder_for("gfx1100").decode(raw).size == 12
    with pytest.raises(DecodeError):
        decoder_for("gfx1100", 64).decode(raw)


def test_gfx9_has_no_wave32() -> None:
    assert load_target("gfx90a").wavefront_size == 64
    with pytest.raises(ValueError, match="wavefrontsize32"):
        load_target("gfx90a", 32)
