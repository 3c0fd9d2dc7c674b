"""The assembler on gfx1030 (RDNA2, wave32): statements whose GFX10 syntax differs from GFX9.

Every expected text and encoding is what ``llvm-mc-19 --show-encoding
--triple=amdgcn-amd-amdhsa --mcpu=gfx1030`` prints for the statement.
"""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parser_for
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for

GFX1030_CASES: list[tuple[str, str, str]] = [
    ("v_add_co_ci_u32 v3, vcc_lo, v3, v4, vcc_lo",
     "v_add_co_ci_u32_e32 v3, vcc_lo, v3, v4, vcc_lo", "03090650"),
    ("v_cmpx_f_f32_e64 v1, v2", "v_cmpx_f_f32_e64 v1, v2", "7e0010d401050200"),
    ("v_cndmask_b32_dpp v5, v1, v2, vcc_lo row_share:1 row_mask:0xf bank_mask:0xf",
     "v_cndmask_b32_dpp v5, v1, v2, vcc_lo row_share:1 row_mask:0xf bank_mask:0xf",
     "fa040a02015101ff"),
    ("v_mov_b32_dpp v0, v1 dpp8:[7,6,5,4,3,2,1,0] fi:1",
     "v_mov_b32_dpp v0, v1 dpp8:[7,6,5,4,3,2,1,0] fi:1", "ea02007e01773905"),
    ("v_bfe_u32 v0, 0x1234, v1, v2", "v_bfe_u32 v0, 0x1234, v1, v2",
     "000048d5ff020a0434120000"),
    ("s_load_dword s5, s[2:3], s0 glc dlc", "s_load_dword s5, s[2:3], s0 glc dlc",
     "414101f400000000"),
    ("tbuffer_load_format_d16_x v0, off, s[0:3], format:22, 0",
     "tbuffer_load_format_d16_x v0, off, s[0:3], 0 format:[BUF_FMT_32_FLOAT]",
     "0000b0e800002080"),
    ("image_load v[0:3], v[1:2], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
     "image_load v[0:3], v[1:2], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
     "081f00f001000000"),
    ("s_mov_b32 s105, s104", "s_mov_b32 s105, s104", "6803e9be"),
    ("v_cmp_lt_i32 vcc_lo, s1, v2", "v_cmp_lt_i32_e32 vcc_lo, s1, v2", "0104027d"),
    # Unnamed counters stay at the target's maximum: lgkmcnt is 6 bits from GFX10 on.
    ("s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)", "703f8cbf"),
    ("s_waitcnt lgkmcnt(16)", "s_waitcnt lgkmcnt(16)", "7fd08cbf"),
    # GFX10 hardware register and message names; HW_REG_HW_ID is HW_ID1's alias.
    ("s_getreg_b32 s2, hwreg(HW_REG_FLAT_SCR_LO)", "s_getreg_b32 s2, hwreg(HW_REG_FLAT_SCR_LO)",
     "14f802b9"),
    ("s_setreg_b32 hwreg(HW_REG_HW_ID), s2", "s_setreg_b32 hwreg(HW_REG_HW_ID1), s2",
     "17f882b9"),
    ("s_sendmsg sendmsg(MSG_GET_DDID)", "s_sendmsg sendmsg(MSG_GET_DDID)", "0b0090bf"),
    ("s_waitcnt_depctr depctr_hold_cnt(0)", "s_waitcnt_depctr depctr_hold_cnt(0)",
     "1fffa3bf"),
    ("s_waitcnt_depctr depctr_sa_sdst(1) & depctr_va_vdst(1) & depctr_va_sdst(1) & "
     "depctr_va_ssrc(1) & depctr_va_vcc(1) & depctr_vm_vsrc(1)",
     "s_waitcnt_depctr depctr_va_vdst(1) depctr_va_sdst(1) depctr_vm_vsrc(1)", "8713a3bf"),
    # Exports: targets, off sources and the enable mask, compr's packed sources.
    ("exp pos4 v3, v2, v1, v0", "exp pos4 v3, v2, v1, v0", "0f0100f803020100"),
    ("exp mrt0 v4, off, v2, off done vm", "exp mrt0 v4, off, v2, off done vm",
     "051800f804000200"),
    ("exp mrt0 v1, v1, v2, v2 compr", "exp mrt0 v1, v1, v2, v2 compr", "0f0400f801020000"),
    ("exp null v4, v3, v2, v1", "exp null v4, v3, v2, v1", "9f0000f804030201"),
    # GFX9's split format names select the unified format.
    ("tbuffer_store_format_xyzw v[1:4], v1, s[4:7], s0 format:[BUF_NUM_FORMAT_SNORM, "
     "BUF_DATA_FORMAT_16] idxen",
     "tbuffer_store_format_xyzw v[1:4], v1, s[4:7], s0 format:[BUF_FMT_16_SNORM] idxen",
     "002047e801010100"),
    # Literals in VOP3: v_fma_mix's inline-typed sources, VOP2-profile v_writelane.
    ("v_fma_mix_f32 v5, 0x1c8a, v2, 0x1c8a", "v_fma_mix_f32 v5, 0x1c8a, v2, 0x1c8a",
     "050020ccff04fe038a1c0000"),
    ("v_writelane_b32 v255, 0xaf123456, vcc_hi", "v_writelane_b32 v255, 0xaf123456, vcc_hi",
     "ff0061d7ffd60000563412af"),
]


@pytest.mark.parametrize(("line", "text", "encoding"), GFX1030_CASES)
def test_gfx1030_statements_assemble_as_llvm_mc(line: str, text: str, encoding: str) -> None:
    inst = parser_for("gfx1030").parse(line)
    assert printer_for("gfx1030").print(inst) == text
    assert encoder_for("gfx1030").encode(inst).hex() == encoding


def test_gfx9_keeps_its_limits() -> None:
    # s102..s105 and dlc are GFX10 additions: gfx90a still rejects them.
    with pytest.raises(AsmParseError):
        parser_for("gfx90a").parse("s_mov_b32 s105, s104")
    with pytest.raises(AsmParseError):
        parser_for("gfx90a").parse("s_load_dword s5, s[2:3], s0 glc dlc")


GFX1100_CASES: list[tuple[str, str, str]] = [
    # Two scalar values on the constant bus (GFX10+); null is not one.
    ("v_add3_u32 v5, exec_hi, null, vcc_lo", "v_add3_u32 v5, exec_hi, null, vcc_lo",
     "050055d67ff8a801"),
    ("v_movreld_b32 v5, s1", "v_movreld_b32_e32 v5, s1", "01840a7e"),
    # A renamed mnemonic (v_cvt_flr -> v_cvt_floor) with a VOP3 DPP suffix.
    ("v_cvt_flr_i32_f32_e64_dpp v5, v1 quad_perm:[3,2,1,0]",
     "v_cvt_floor_i32_f32_e64_dpp v5, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf",
     "05008dd5fa000000011b00ff"),
    ("s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)", "f70389bf"),
    ("s_waitcnt vmcnt(0), expcnt(0)", "s_waitcnt vmcnt(0) expcnt(0)", "f00389bf"),
    ("s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(SALU_CYCLE_1)",
     "s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(SALU_CYCLE_1)", "910487bf"),
    # GFX11 message ids are 8 bits; the MSG_RTN_ names.
    ("s_sendmsg sendmsg(16)", "s_sendmsg sendmsg(16, 0, 0)", "1000b6bf"),
    ("s_sendmsg_rtn_b32 s0, sendmsg(MSG_RTN_GET_DOORBELL)",
     "s_sendmsg_rtn_b32 s0, sendmsg(MSG_RTN_GET_DOORBELL)", "804c80be"),
    ("s_getreg_b32 s0, hwreg(HW_REG_PERF_SNAPSHOT_PC_LO)",
     "s_getreg_b32 s0, hwreg(HW_REG_PERF_SNAPSHOT_PC_LO)", "12f880b8"),
    ("tbuffer_load_format_xyzw v[4:7], off, s[8:11], 0, format:[BUF_DATA_FORMAT_2_10_10_10, "
     "BUF_NUM_FORMAT_SNORM] offset:4095",
     "tbuffer_load_format_xyzw v[4:7], off, s[8:11], 0 format:[BUF_FMT_2_10_10_10_SNORM] "
     "offset:4095", "ff8f29e900040280"),
    ("lds_param_load v1, attr0.x wait_vdst:15", "lds_param_load v1, attr0.x wait_vdst:15",
     "01000fce"),
    ("v_interp_p10_f16_f32 v0, v1, v2, v3 wait_exp:0",
     "v_interp_p10_f16_f32 v0, v1, v2, v3 wait_exp:0", "000002cd01050e04"),
    # No op_sel_hi operand: OP_SEL_1 is op_sel's destination bit, not a default.
    ("v_dot2_f16_f16 v5, -src_scc, |vcc_lo|, -1 op_sel:[0,0,1,0]",
     "v_dot2_f16_f16 v5, -src_scc, |vcc_lo|, -1 op_sel:[0,0,1,0]", "052266d6fdd40423"),
    # bf16 literals; fp32's 1/(2*pi) is bf16's inline constant.
    ("v_dot2_bf16_bf16 v5, v1, v2, 100.0", "v_dot2_bf16_bf16 v5, v1, v2, 0x42c8",
     "050067d60105fe03c8420000"),
    ("v_dot2_bf16_bf16 v2, v0, 0.15915494, v2", "v_dot2_bf16_bf16 v2, v0, 0.15915494, v2",
     "020067d600f10904"),
    # One literal dword for an f64 source (its high half) and an i32 one.
    ("v_ldexp_f64 v[254:255], 0xaf123456, 0xaf123456 clamp div:2",
     "v_ldexp_f64 v[254:255], 0xaf123456, 0xaf123456 clamp div:2",
     "fe802bd7fffe0118563412af"),
    ("image_load v0, v[2:4], s[0:7] dmask:0x1 dim:2D_ARRAY",
     "image_load v0, v[2:4], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY", "140100f002000000"),
    # Dual issue (VOPD): two halves joined by ::, one literal shared by both K operands.
    ('v_dual_add_f32 v255, v4, v2 :: v_dual_add_f32 v6, v1, v3',
     'v_dual_add_f32 v255, v4, v2 :: v_dual_add_f32 v6, v1, v3', "040508c9010706ff"),
    ('v_dual_fmaak_f32 v255, src_scc, v255, 0xaf123456 :: '
     'v_dual_fmamk_f32 v6, -1, 0xaf123456, v255',
     'v_dual_fmaak_f32 v255, src_scc, v255, 0xaf123456 :: '
     'v_dual_fmamk_f32 v6, -1, 0xaf123456, v255', "fdfe45c8c1fe07ff563412af"),
    ('v_dual_add_f32 v6, null, v5 :: v_dual_and_b32 v255, 0xaf123456, v4',
     'v_dual_add_f32 v6, null, v5 :: v_dual_and_b32 v255, 0xaf123456, v4',
     "7c0a24c9ff08fe06563412af"),
    ('v_dual_fmac_f32 v255, v4, v2 :: v_dual_cndmask_b32 v6, v1, v3',
     'v_dual_fmac_f32 v255, v4, v2 :: v_dual_cndmask_b32 v6, v1, v3', "040512c8010706ff"),
    # GFX11 DPP: bound_ctrl:0 is the bit's value, not sp3's "set" spelling.
    ('v_floor_f16 v127, -|v127| row_xmask:15 row_mask:0x3 bank_mask:0x0 bound_ctrl:0 fi:1',
     'v_floor_f16_dpp v127, -|v127| row_xmask:15 row_mask:0x3 bank_mask:0x0 fi:1',
     "fab6fe7e7f6f3530"),
    ('v_floor_f16 v127, -|v127| row_xmask:15 row_mask:0x3 bank_mask:0x0 bound_ctrl:1 fi:1',
     'v_floor_f16_dpp v127, -|v127| row_xmask:15 row_mask:0x3 bank_mask:0x0 bound_ctrl:1 '
     'fi:1', "fab6fe7e7f6f3d30"),
    # True16 operands: 16-bit halves of VGPRs (v_mov_b16 has only this form in LLVM 19).
    ("v_mov_b16 v25.h, v4.l", "v_mov_b16_e32 v25.h, v4.l", "0439327f"),
    ("v_mov_b16_e32 v5.l, 0x3c00", "v_mov_b16_e32 v5.l, 0x3c00", "ff380a7e003c0000"),
    ("v_mov_b16_e32 v5.h, s7", "v_mov_b16_e32 v5.h, s7", "07380a7f"),
    ("v_mov_b16_dpp v3.h, v4.l quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
     "v_mov_b16_dpp v3.h, v4.l quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
     "fa38067f04b100ff"),
]


@pytest.mark.parametrize(("line", "text", "encoding"), GFX1100_CASES)
def test_gfx1100_statements_assemble_as_llvm_mc(line: str, text: str, encoding: str) -> None:
    inst = parser_for("gfx1100").parse(line)
    assert printer_for("gfx1100").print(inst) == text
    assert encoder_for("gfx1100").encode(inst).hex() == encoding


@pytest.mark.parametrize(("line", "message"), [
    ("v_dual_mul_f32 v11, v1, v2 :: v_dual_mul_f32 v13, v5, v6",
     "one dst register must be even and the other odd"),
    ("v_dual_mul_f32 v10, v1, v2 :: v_dual_mul_f32 v11, v5, v6",
     "src0 operands must use different VGPR banks"),
    ("v_dual_mul_f32 v10, v1, v2 :: v_dual_mul_f32 v11, v4, v6",
     "src1 operands must use different VGPR banks"),
    ("v_dual_cndmask_b32 v10, s1, v2 :: v_dual_mul_f32 v11, s3, v7",
     "invalid operand \\(violates constant bus restrictions\\)"),
    ("v_dual_add_f32 v255, v4, v2 :: v_add_f32 v6, v1, v3", "invalid VOPDY instruction"),
])
def test_vopd_rules(line: str, message: str) -> None:
    with pytest.raises(AsmParseError, match=message):
        parser_for("gfx1100").parse(line)


@pytest.mark.parametrize(("line", "message"), [
    ("s_sendmsg sendmsg(MSG_GET_DDID)", "specified message id is not supported on this GPU"),
    ("s_delay_alu instid0(VALU_DEP_9)", "invalid value name VALU_DEP_9"),
    ("s_waitcnt_depctr depctr_va_vdst(16)", "invalid value for depctr_va_vdst"),
    ("s_waitcnt_depctr depctr_va_vdst(1) depctr_va_vdst(1)",
     "duplicate counter name depctr_va_vdst"),
    ("exp pos5 v3, v2, v1, v0", "invalid exp target"),
    ("exp null v3, v2, v1, v0", "exp target is not supported on this GPU"),
])
def test_gfx1100_symbolic_operand_errors(line: str, message: str) -> None:
    with pytest.raises(AsmParseError, match=message):
        parser_for("gfx1100").parse(line)


@pytest.mark.parametrize(("line", "column"), [
    ("v_mov_b16_e32 v1, v2", 14),  # a 16-bit slot takes a half, not a whole VGPR
    ("v_mov_b16_e32 v1.h, v[2:3]", 20),  # nor a tuple
    ("s_mov_b32 s1.l, 0", 10),  # only VGPRs have halves
    ("v_add_f32 v1, v2.l, v3", 14),  # nor does a 32-bit slot take one
])
def test_true16_halves_go_where_llvm_mc_takes_them(line: str, column: int) -> None:
    """llvm-mc-19 (no -mattr) refuses these, at these 0-based columns."""
    with pytest.raises(AsmParseError, match="invalid operand for instruction") as error:
        parser_for("gfx1100").parse(line)
    assert error.value.column == column


def test_vopd_is_wave32_only() -> None:
    with pytest.raises(AsmParseError):
        parser_for("gfx1100", 64).parse(
            "v_dual_add_f32 v255, v4, v2 :: v_dual_add_f32 v6, v1, v3")


def test_gfx10_plus_allows_one_unique_literal() -> None:
    with pytest.raises(AsmParseError, match="only one unique literal operand is allowed"):
        parser_for("gfx1100").parse("v_add3_u32 v5, 0x1234, 0x5678, v1")


@pytest.mark.parametrize(("line", "text", "encoding"), [
    ("buffer_load_b32 v5, off, s[8:11], s3 offset:8388607",
     "buffer_load_b32 v5, off, s[8:11], s3 offset:8388607", "030005c405108000 00ffff7f"),
    ("buffer_load_b32 v5, off, s[8:11], s3 offset:-4",
     "buffer_load_b32 v5, off, s[8:11], s3 offset:-4", "030005c405108000 00fcffff"),
])
def test_gfx1200_buffer_offsets_are_24_bit_signed(line: str, text: str, encoding: str) -> None:
    inst = parser_for("gfx1200").parse(line)
    assert printer_for("gfx1200").print(inst) == text
    assert encoder_for("gfx1200").encode(inst).hex() == encoding.replace(" ", "")
    with pytest.raises(AsmParseError, match="expected a 24-bit signed offset"):
        parser_for("gfx1200").parse("buffer_load_b32 v5, off, s[8:11], s3 offset:8388608")


GFX1200_CASES: list[tuple[str, str, str]] = [
    # GFX12 cache policy: th: and scope:, in either order; RT_RETURN is RETURN.
    ("buffer_atomic_add_u64 v[5:6], off, s[8:11], s3 offset:8388607 th:TH_ATOMIC_RT_RETURN "
     "scope:SCOPE_SE",
     "buffer_atomic_add_u64 v[5:6], off, s[8:11], s3 offset:8388607 th:TH_ATOMIC_RETURN "
     "scope:SCOPE_SE", "03c010c40510940000ffff7f"),
    ("tbuffer_store_d16_format_xy v4, off, ttmp[4:7], s3 format:[BUF_FMT_32_32_FLOAT] "
     "offset:8388607 th:TH_STORE_BYPASS scope:SCOPE_SYS",
     "tbuffer_store_d16_format_xy v4, off, ttmp[4:7], s3 format:[BUF_FMT_32_32_FLOAT] "
     "offset:8388607 th:TH_STORE_BYPASS scope:SCOPE_SYS", "034023c404e03c1900ffff7f"),
    ("s_buffer_load_b512 s[20:35], s[96:99], s0 offset:0x0 th:TH_LOAD_LU scope:SCOPE_SE",
     "s_buffer_load_b512 s[20:35], s[96:99], s0 offset:0x0 th:TH_LOAD_LU scope:SCOPE_SE",
     "3085a2f500000000"),
    ("global_load_b32 v1, v[3:4], off scope:SCOPE_DEV th:TH_LOAD_NT",
     "global_load_b32 v1, v[3:4], off th:TH_LOAD_NT scope:SCOPE_DEV",
     "7c0005ee0100180003000000"),
    ("s_getreg_b32 s0, hwreg(HW_REG_EXCP_FLAG_USER)",
     "s_getreg_b32 s0, hwreg(HW_REG_EXCP_FLAG_USER)", "12f880b8"),
    ("export mrt0 v4, v3, v2, v1 done", "export mrt0 v4, v3, v2, v1 done", "0f0800f804030201"),
    ("ds_direct_load v2 wait_va_vdst:14 wait_vm_vsrc:1",
     "ds_direct_load v2 wait_va_vdst:14 wait_vm_vsrc:1", "02009ece"),
    ("v_cvt_sr_fp8_f32 v1, v2, v3 byte_sel:3 quad_perm:[3,2,1,0]",
     "v_cvt_sr_fp8_f32_e64_dpp v1, v2, v3 byte_sel:3 quad_perm:[3,2,1,0] row_mask:0xf "
     "bank_mask:0xf", "01606bd7fa060200021b00ff"),
    ("v_swmmac_i32_16x16x32_iu4 v[3:10], v0, v[1:2], v11 index_key:1",
     "v_swmmac_i32_16x16x32_iu4 v[3:10], v0, v[1:2], v11 index_key:1", "034855cc00032e1c"),
    # A GFX12 alias whose target LLVM names in upper case.
    ("v_max_f64 v[5:6], v[1:2], v[2:3]", "v_max_num_f64_e32 v[5:6], v[1:2], v[2:3]",
     "01050a1c"),
    # GFX12 SMEM: the offset next to an SGPR offset is optional.
    ("s_load_b256 s[20:27], s[2:3], vcc_lo", "s_load_b256 s[20:27], s[2:3], vcc_lo offset:0x0",
     "016500f4000000d4"),
    # Image address lists: the VIMAGE/VSAMPLE fields, a wide last address, one register.
    ("image_sample_c_l_o v[64:67], [v32, v33, v34, v[35:37]], s[4:11], s[4:7] dmask:0xf "
     "dim:SQ_RSRC_IMG_2D_ARRAY",
     "image_sample_c_l_o v[64:67], [v32, v33, v34, v[35:37]], s[4:11], s[4:7] dmask:0xf "
     "dim:SQ_RSRC_IMG_2D_ARRAY", "0500cbe74008000220212223"),
    ("image_load v[0:2], [v4, v5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY th:TH_LOAD_HT "
     "scope:SCOPE_SE r128 a16 tfe d16",
     "image_load v[0:2], [v4, v5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY th:TH_LOAD_HT "
     "scope:SCOPE_SE r128 a16 tfe d16", "7500c0d30010a40004050000"),
    ("image_load v[0:3], [v4], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D",
     "image_load v[0:3], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D", "0000c0d30010000004000000"),
]


@pytest.mark.parametrize(("line", "text", "encoding"), GFX1200_CASES)
def test_gfx1200_statements_assemble_as_llvm_mc(line: str, text: str, encoding: str) -> None:
    inst = parser_for("gfx1200").parse(line)
    assert printer_for("gfx1200").print(inst) == text
    assert encoder_for("gfx1200").encode(inst).hex() == encoding


@pytest.mark.parametrize(("line", "message"), [
    ("buffer_load_b32 v5, off, s[8:11], s3 th:TH_STORE_NT",
     "invalid th value for load instructions"),
    ("buffer_load_b32 v5, off, s[8:11], s3 th:TH_LOAD_BYPASS",
     "scope and th combination is not valid"),
    ("buffer_load_b32 v5, off, s[8:11], s3 th:TH_LOAD_LU scope:SCOPE_SYS",
     "scope and th combination is not valid"),
    ("buffer_atomic_add_u32 v5, off, s[8:11], s3 th:TH_LOAD_NT",
     "invalid th value for atomic instructions"),
    ("buffer_load_b32 v5, off, s[8:11], s3 scope:SCOPE_XX", "invalid scope value"),
    ("buffer_load_b32 v5, off, s[8:11], s3 th:TH_LOAD_RT_WB", "invalid th value"),
    ("s_load_b32 s5, s[2:3], s0 th:TH_LOAD_NT_HT", "invalid th value for SMEM instruction"),
])
def test_gfx1200_cache_policy_rules(line: str, message: str) -> None:
    with pytest.raises(AsmParseError, match=message):
        parser_for("gfx1200").parse(line)


@pytest.mark.parametrize(("target", "line", "text", "encoding"), [
    ("gfx1100", "image_load v[1:4], [v2, v3], s[4:11] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
     "image_load v[1:4], [v2, v3], s[4:11] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
     "850f00f00201010003000000"),
    ("gfx1030", "image_sample v[0:3], [v4, v6, v8], s[0:7], s[8:11] dmask:0xf "
     "dim:SQ_RSRC_IMG_3D",
     "image_sample  v[0:3], [v4, v6, v8], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D",
     "120f80f00400400006080000"),
])
def test_nsa_image_addresses(target: str, line: str, text: str, encoding: str) -> None:
    inst = parser_for(target).parse(line)
    assert printer_for(target).print(inst) == text
    assert encoder_for(target).encode(inst).hex() == encoding


def test_ucode_version_symbols() -> None:
    # LLVM's assembler prints s_version's value in hex; ours prints the disassembler's
    # expression, which parses back to the same value.
    inst = parser_for("gfx1200").parse("s_version UC_VERSION_GFX12 | UC_VERSION_W32_BIT")
    assert encoder_for("gfx1200").encode(inst).hex() == "094080b0"
    text = printer_for("gfx1200").print(inst)
    assert encoder_for("gfx1200").encode(parser_for("gfx1200").parse(text)).hex() == "094080b0"


@pytest.mark.parametrize(("line", "encoding"), [
    ("v_mad_u64_u32 v[0:1], null, s6, s0, v[0:1]", "007d76d506000004"),
    ("v_cndmask_b32_e64 v0, v1, v2, null", "000001d50105f601"),
])
def test_wave64_null_fills_a_lane_mask(line: str, encoding: str) -> None:
    inst = parser_for("gfx1030", 64).parse(line)
    assert printer_for("gfx1030", 64).print(inst) == line
    assert encoder_for("gfx1030", 64).encode(inst).hex() == encoding


@pytest.mark.parametrize(("target", "line", "message"), [
    ("gfx1100", "lds_param_load v1, attr0.x wait_vdst:16", "invalid wait_vdst value."),
    ("gfx1200", "v_swmmac_i32_16x16x32_iu4 v[3:10], v0, v[1:2], v11 index_key:2",
     "out of range index_key"),
    ("gfx1100", "tbuffer_load_format_x v4, off, s[8:11], 0, "
     "format:[BUF_DATA_FORMAT_8, BUF_DATA_FORMAT_16]", "duplicate data format"),
])
def test_named_operand_ranges(target: str, line: str, message: str) -> None:
    with pytest.raises(AsmParseError, match=message):
        parser_for(target).parse(line)


@pytest.mark.parametrize("line", [
    "v_add_co_u32 v2, vcc, s4, v0",
    "v_add_co_u32 v2, s[0:1], s4, v0",
    "v_cmp_eq_u32_e64 s[0:1], v0, v1",
    "v_cndmask_b32_e64 v0, v1, v2, vcc",
    "v_add_co_ci_u32_e64 v0, vcc_lo, v1, v2, vcc",
])
def test_wave32_lane_masks_are_one_sgpr(line: str) -> None:
    """A lane mask is one SGPR in wave32 (llvm-mc-19 refuses each of these on gfx1100),
    and these read back in wave64, where the pairs are the masks; null is either."""
    with pytest.raises(AsmParseError):
        parser_for("gfx1100").parse(line)
    parser_for("gfx1100", 64).parse(line.replace("vcc_lo", "vcc"))
    parser_for("gfx1100").parse("v_add_co_u32 v2, null, s4, v0")
    parser_for("gfx1100", 64).parse("v_add_co_u32 v2, null, s4, v0")


# GFX12's named-barrier id takes any 32-bit inline constant, floats too, and no literal
# (llvm-mc-19's ``isSplitBarrier``); found re-assembling llvm-mc's disassembly of random
# words.
@pytest.mark.parametrize(("line", "encoding"), [
    ("s_barrier_signal -2.0", "f54e80be"),
    ("s_barrier_signal 0.5", "f04e80be"),
    ("s_barrier_signal 0.15915494", "f84e80be"),
    ("s_barrier_signal 0x3e22f983", "f84e80be"),
    ("s_barrier_signal -16", "d04e80be"),
    ("s_barrier_signal 0xffffffff", "c14e80be"),
    ("s_barrier_signal_isfirst -2.0", "f54f80be"),
    ("s_barrier_init -2.0", "f55180be"),
])
def test_gfx1200_barrier_ids_are_inline_constants(line: str, encoding: str) -> None:
    inst = parser_for("gfx1200").parse(line)
    assert encoder_for("gfx1200").encode(inst).hex() == encoding


@pytest.mark.parametrize("line", ["s_barrier_signal 0x1234", "s_barrier_signal -17",
                                  "s_barrier_signal 65", "s_barrier_signal 2.5",
                                  "s_barrier_signal 0x100000000"])
def test_gfx1200_barrier_ids_take_no_literal(line: str) -> None:
    with pytest.raises(AsmParseError, match="invalid operand for instruction"):
        parser_for("gfx1200").parse(line)


@pytest.mark.parametrize("target", ["gfx908", "gfx1030"])
def test_the_null_export_target_is_not_the_null_register(target: str) -> None:
    """``exp null`` names export target 9 before GFX11, on GFX9 too, where the register
    ``null`` does not exist (and stays refused as a source)."""
    inst = parser_for(target).parse("exp null v214, off, off, off done")
    assert printer_for(target).print(inst) == "exp null v214, off, off, off done"
    word = "c4" if target == "gfx908" else "f8"
    assert encoder_for(target).encode(inst).hex() == f"910800{word}d6000000"
    if target == "gfx908":
        with pytest.raises(AsmParseError, match="'null' operand is not supported"):
            parser_for(target).parse("exp mrt0 null, off, off, off")
