"""Spellings of immediates and special operands, as ``llvm-mc-19`` prints them.

Each expected string was checked by decoding an instruction that carries the value with
``llvm-mc-19 --disassemble`` (for instance ``s_waitcnt``, ``s_getreg_b32``, ``s_sendmsg``,
``ds_swizzle_b32``, ``v_mov_b32_dpp``; literal operands of ``s_mov_b32``, ``s_mov_b64``,
``v_cvt_f32_f64``, ``v_add_f16`` and ``v_add_u16``).
"""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.mc import operand_printers as P
from luthier.amdgpu_dialects.mc.printer import imm32, imm64, imm_fp16, imm_int16, print_immediate


@pytest.mark.parametrize(("value", "text"), [
    (0x40, "64"),                  # largest positive inline integer
    (0xFFFFFFF0, "-16"),           # smallest negative inline integer
    (0xFFFFFFEF, "0xffffffef"),    # -17 is not inline: printed as hex
    (0x41, "0x41"),
    (0x3F800000, "1.0"),
    (0xBF000000, "-0.5"),
    (0x3E22F983, "0.15915494"),    # 1/(2*pi), an inline constant on GFX8+
    (0x40490FDB, "0x40490fdb"),    # pi is not
    (0x12345678, "0x12345678"),
])
def test_imm32(value: int, text: str) -> None:
    assert imm32(value) == text


@pytest.mark.parametrize(("value", "is_fp", "text"), [
    (0x12345678, False, "0x12345678"),
    (0xFFFFFFF0, False, "0xfffffff0"),          # a 32-bit literal is not sign-extended
    (0x80000000, False, "0x80000000"),
    (0xFFFFFFFFFFFFFFF0, False, "-16"),
    (0x3FF0000000000000, True, "1.0"),
    (0x3FC45F306DC9C882, True, "0.15915494309189532"),
    # An fp64 literal holds the high dword; the printer shows that dword.
    (0x4049000000000000, True, "0x40490000"),
    (0x1234567800000000, True, "0x12345678"),
])
def test_imm64(value: int, is_fp: bool, text: str) -> None:
    assert imm64(value, is_fp) == text


@pytest.mark.parametrize(("value", "text"), [
    (0x3C00, "1.0"),
    (0xBC00, "-1.0"),
    (0x3118, "0.15915494"),
    (0xFFF0, "-16"),
    (0x41, "0x41"),
    (0x4248, "0x4248"),
    (0x8000, "0x8000"),
    (0x12345678, "0x5678"),        # only the low half of the literal dword is the operand
])
def test_imm_fp16(value: int, text: str) -> None:
    assert imm_fp16(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (0x3C00, "0x3c00"),            # integer operands get no float names
    (0xFFF0, "0xfff0"),
    (0x40, "64"),
    (0x12345678, "0x5678"),
])
def test_imm_int16(value: int, text: str) -> None:
    assert imm_int16(value) == text


def test_print_immediate_dispatches_on_operand_type() -> None:
    assert print_immediate(0x3C00, "OPERAND_REG_IMM_FP16") == "1.0"
    assert print_immediate(0x3C00, "OPERAND_REG_IMM_INT16") == "0x3c00"
    assert print_immediate(0x3F800000, "OPERAND_REG_IMM_INT32") == "1.0"
    assert print_immediate(0x4049000000000000, "OPERAND_REG_IMM_FP64") == "0x40490000"
    with pytest.raises(ValueError, match="unexpected immediate operand type"):
        print_immediate(0, "OPERAND_NOT_A_TYPE")


@pytest.mark.parametrize(("imm", "text"), [
    (0x0000, "vmcnt(0) expcnt(0) lgkmcnt(0)"),
    (0x0F70, "vmcnt(0)"),
    (0xC07F, "lgkmcnt(0)"),
    (0x0F00, "vmcnt(0) expcnt(0)"),
    (0x0070, "vmcnt(0) lgkmcnt(0)"),
    (0x0F7F, "vmcnt(15)"),
    (0x4F70, "vmcnt(16)"),         # vmcnt's high bits live in 15:14
    (0x1234, "vmcnt(4) expcnt(3) lgkmcnt(2)"),
    (0xCF7F, "vmcnt(63) expcnt(7) lgkmcnt(15)"),  # all at their maximum: all printed
])
def test_waitcnt(imm: int, text: str) -> None:
    assert P.waitcnt_gfx9(imm) == text


@pytest.mark.parametrize(("imm", "gfx940", "text"), [
    (0x0001, False, "hwreg(HW_REG_MODE, 0, 1)"),
    (0xF80F, False, "hwreg(HW_REG_SH_MEM_BASES)"),     # full width at offset 0: id only
    (0xF8C1, False, "hwreg(HW_REG_MODE, 3, 32)"),
    (0x1886, False, "hwreg(HW_REG_LDS_ALLOC, 2, 4)"),
    (0x0803, True, "hwreg(HW_REG_TRAPSTS, 0, 2)"),
    (0x0014, False, "hwreg(20, 0, 1)"),                # XCC_ID is gfx940-only
    (0x0014, True, "hwreg(HW_REG_XCC_ID, 0, 1)"),
    (0x0018, True, "hwreg(HW_REG_SQ_PERF_SNAPSHOT_PC_HI, 0, 1)"),
    (0x0019, True, "hwreg(25, 0, 1)"),
    (0x003F, False, "hwreg(63, 0, 1)"),
])
def test_hwreg(imm: int, gfx940: bool, text: str) -> None:
    assert P.hwreg(imm, gfx940) == text


@pytest.mark.parametrize(("imm", "text"), [
    (0x0001, "sendmsg(MSG_INTERRUPT)"),
    (0x0004, "sendmsg(MSG_SAVEWAVE)"),
    (0x0022, "sendmsg(MSG_GS, GS_OP_EMIT, 0)"),
    (0x0122, "sendmsg(MSG_GS, GS_OP_EMIT, 1)"),
    (0x0003, "sendmsg(MSG_GS_DONE, GS_OP_NOP)"),
    (0x0333, "sendmsg(MSG_GS_DONE, GS_OP_EMIT_CUT, 3)"),
    (0x001F, "sendmsg(MSG_SYSMSG, SYSMSG_OP_ECC_ERR_INTERRUPT)"),
    (0x0002, "sendmsg(2, 0, 0)"),       # MSG_GS needs an operation
    (0x0010, "sendmsg(0, 1, 0)"),
    (0x012F, "sendmsg(15, 2, 1)"),
    (0x00F0, "240"),                    # does not fit the fields: plain number
    (0xFFFF, "65535"),
])
def test_sendmsg(imm: int, text: str) -> None:
    assert P.sendmsg(imm) == text


@pytest.mark.parametrize(("imm", "text"), [
    (0x0000, ""),
    (0x80E4, " offset:swizzle(QUAD_PERM,0,1,2,3)"),
    (0x801B, " offset:swizzle(QUAD_PERM,3,2,1,0)"),
    (0x041F, " offset:swizzle(SWAP,1)"),
    (0x0C1F, " offset:swizzle(REVERSE,4)"),
    (0x001C, " offset:swizzle(BROADCAST,4,0)"),
    (0x01E0, " offset:swizzle(BROADCAST,32,15)"),
    (0x003F, ' offset:swizzle(BITMASK_PERM,"pppp1")'),
    (0x421F, ' offset:swizzle(BITMASK_PERM,"0pppp")'),
    (0x7FFF, ' offset:swizzle(BITMASK_PERM,"00000")'),
    (0xAAAA, " offset:43690"),          # bit 15 set, not QUAD_PERM: raw offset
    (0x8100, " offset:33024"),
])
def test_swizzle(imm: int, text: str) -> None:
    assert P.swizzle(imm) == text


@pytest.mark.parametrize(("imm", "text"), [
    (0x0E4, "quad_perm:[0,1,2,3]"),
    (0x01B, "quad_perm:[3,2,1,0]"),
    (0x101, "row_shl:1"),
    (0x10F, "row_shl:15"),
    (0x111, "row_shr:1"),
    (0x121, "row_ror:1"),
    (0x130, "wave_shl:1"),
    (0x134, "wave_rol:1"),
    (0x138, "wave_shr:1"),
    (0x13C, "wave_ror:1"),
    (0x140, "row_mirror"),
    (0x141, "row_half_mirror"),
    (0x142, "row_bcast:15"),
    (0x143, "row_bcast:31"),
    (0x150, "row_newbcast:0"),
    (0x15F, "row_newbcast:15"),
])
def test_dpp_ctrl(imm: int, text: str) -> None:
    assert P.dpp_ctrl(imm, True, False) == text


def test_mtbuf_format() -> None:
    assert P.mtbuf_format(0x01) == ""   # the default (BUF_DATA_FORMAT_8, UNORM)
    assert P.mtbuf_format(0x04) == " format:[BUF_DATA_FORMAT_32]"
    assert P.mtbuf_format(0x74) == " format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]"
    assert P.mtbuf_format(0x41) == " format:[BUF_NUM_FORMAT_UINT]"
