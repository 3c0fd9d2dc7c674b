"""Spellings of special immediate operands: waitcnt, hwreg, sendmsg, swizzle, formats, DPP.

These are the spellings that ``llvm-mc``/``llvm-objdump`` print for GFX9 (GCN3/CDNA) and the
RDNA generations (GFX10, GFX11, GFX12: functions take the ISA generation where a layout or
a name differs); the facts (field layouts, symbolic names) come from the ISA documents and
LLVM's AMDGPU target.
"""

from __future__ import annotations

HWREG_NAMES_GFX9: dict[int, str] = {
    1: "HW_REG_MODE", 2: "HW_REG_STATUS", 3: "HW_REG_TRAPSTS", 4: "HW_REG_HW_ID",
    5: "HW_REG_GPR_ALLOC", 6: "HW_REG_LDS_ALLOC", 7: "HW_REG_IB_STS",
    15: "HW_REG_SH_MEM_BASES", 16: "HW_REG_TBA_LO", 17: "HW_REG_TBA_HI",
    18: "HW_REG_TMA_LO", 19: "HW_REG_TMA_HI",
}
HWREG_NAMES_GFX940: dict[int, str] = {
    20: "HW_REG_XCC_ID", 21: "HW_REG_SQ_PERF_SNAPSHOT_DATA",
    22: "HW_REG_SQ_PERF_SNAPSHOT_DATA1", 23: "HW_REG_SQ_PERF_SNAPSHOT_PC_LO",
    24: "HW_REG_SQ_PERF_SNAPSHOT_PC_HI",
}

SENDMSG_NAMES_GFX9: dict[int, str] = {
    1: "MSG_INTERRUPT", 2: "MSG_GS", 3: "MSG_GS_DONE", 4: "MSG_SAVEWAVE",
    5: "MSG_STALL_WAVE_GEN", 6: "MSG_HALT_WAVES", 7: "MSG_ORDERED_PS_DONE",
    8: "MSG_EARLY_PRIM_DEALLOC", 9: "MSG_GS_ALLOC_REQ", 10: "MSG_GET_DOORBELL",
    15: "MSG_SYSMSG",
}
SYSMSG_OP_NAMES_GFX9: dict[int, str] = {
    1: "SYSMSG_OP_ECC_ERR_INTERRUPT", 2: "SYSMSG_OP_REG_RD", 4: "SYSMSG_OP_TTRACE_PC",
}
GS_OP_NAMES: dict[int, str] = {0: "GS_OP_NOP", 1: "GS_OP_CUT", 2: "GS_OP_EMIT",
                               3: "GS_OP_EMIT_CUT"}
MSG_GS, MSG_GS_DONE, MSG_SYSMSG = 2, 3, 15

DFMT_NAMES = (
    "BUF_DATA_FORMAT_INVALID", "BUF_DATA_FORMAT_8", "BUF_DATA_FORMAT_16",
    "BUF_DATA_FORMAT_8_8", "BUF_DATA_FORMAT_32", "BUF_DATA_FORMAT_16_16",
    "BUF_DATA_FORMAT_10_11_11", "BUF_DATA_FORMAT_11_11_10", "BUF_DATA_FORMAT_10_10_10_2",
    "BUF_DATA_FORMAT_2_10_10_10", "BUF_DATA_FORMAT_8_8_8_8", "BUF_DATA_FORMAT_32_32",
    "BUF_DATA_FORMAT_16_16_16_16", "BUF_DATA_FORMAT_32_32_32", "BUF_DATA_FORMAT_32_32_32_32",
    "BUF_DATA_FORMAT_RESERVED_15",
)
NFMT_NAMES_GFX9 = (
    "BUF_NUM_FORMAT_UNORM", "BUF_NUM_FORMAT_SNORM", "BUF_NUM_FORMAT_USCALED",
    "BUF_NUM_FORMAT_SSCALED", "BUF_NUM_FORMAT_UINT", "BUF_NUM_FORMAT_SINT",
    "BUF_NUM_FORMAT_RESERVED_6", "BUF_NUM_FORMAT_FLOAT",
)
DFMT_DEFAULT, NFMT_DEFAULT = 1, 0

SDWA_SEL_NAMES = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD")
SDWA_DST_UNUSED_NAMES = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE")
GPR_IDX_NAMES = ("SRC0", "SRC1", "SRC2", "DST")


def waitcnt_gfx9(imm: int) -> str:
    """``s_waitcnt`` operand: vmcnt is split over bits 3:0 and 15:14 on GFX9."""
    return waitcnt(imm, 9)


def waitcnt(imm: int, generation: int) -> str:
    """``s_waitcnt`` operand. GFX9/GFX10 split vmcnt over bits 3:0 and 15:14 (expcnt 6:4,
    lgkmcnt 11:8, 13:8 on GFX10); GFX11 packs vmcnt 15:10, lgkmcnt 9:4, expcnt 2:0."""
    if generation >= 11:
        vmcnt, expcnt, lgkmcnt = (imm >> 10) & 0x3F, imm & 0x7, (imm >> 4) & 0x3F
        vm_max, lgkm_max = 63, 63
    else:
        vmcnt = (imm & 0xF) | ((imm >> 14) & 0x3) << 4
        expcnt = (imm >> 4) & 0x7
        lgkm_max = 63 if generation >= 10 else 15
        lgkmcnt = (imm >> 8) & lgkm_max
        vm_max = 63
    default_vm, default_exp, default_lgkm = vmcnt == vm_max, expcnt == 7, lgkmcnt == lgkm_max
    print_all = default_vm and default_exp and default_lgkm
    parts: list[str] = []
    if not default_vm or print_all:
        parts.append(f"vmcnt({vmcnt})")
    if not default_exp or print_all:
        parts.append(f"expcnt({expcnt})")
    if not default_lgkm or print_all:
        parts.append(f"lgkmcnt({lgkmcnt})")
    return " ".join(parts)


_HWREG_COMMON = {1: "HW_REG_MODE", 2: "HW_REG_STATUS", 5: "HW_REG_GPR_ALLOC",
                 6: "HW_REG_LDS_ALLOC", 7: "HW_REG_IB_STS", 23: "HW_REG_HW_ID1",
                 24: "HW_REG_HW_ID2"}
HWREG_NAMES_GFX10: dict[int, str] = {
    **_HWREG_COMMON, 3: "HW_REG_TRAPSTS", 15: "HW_REG_SH_MEM_BASES", 16: "HW_REG_TBA_LO",
    17: "HW_REG_TBA_HI", 18: "HW_REG_TMA_LO", 19: "HW_REG_TMA_HI",
    20: "HW_REG_FLAT_SCR_LO", 21: "HW_REG_FLAT_SCR_HI", 25: "HW_REG_POPS_PACKER",
    29: "HW_REG_SHADER_CYCLES",
}
HWREG_NAMES_GFX11: dict[int, str] = {
    **_HWREG_COMMON, 3: "HW_REG_TRAPSTS", 15: "HW_REG_SH_MEM_BASES",
    18: "HW_REG_PERF_SNAPSHOT_PC_LO", 19: "HW_REG_PERF_SNAPSHOT_PC_HI",
    20: "HW_REG_FLAT_SCR_LO", 21: "HW_REG_FLAT_SCR_HI", 27: "HW_REG_PERF_SNAPSHOT_DATA",
    29: "HW_REG_SHADER_CYCLES",
}
HWREG_NAMES_GFX12: dict[int, str] = {
    **_HWREG_COMMON, 4: "HW_REG_STATE_PRIV", 10: "HW_REG_PERF_SNAPSHOT_DATA",
    11: "HW_REG_PERF_SNAPSHOT_PC_LO", 12: "HW_REG_PERF_SNAPSHOT_PC_HI",
    15: "HW_REG_PERF_SNAPSHOT_DATA1", 16: "HW_REG_PERF_SNAPSHOT_DATA2",
    17: "HW_REG_EXCP_FLAG_PRIV", 18: "HW_REG_EXCP_FLAG_USER", 19: "HW_REG_TRAP_CTRL",
    20: "HW_REG_SCRATCH_BASE_LO", 21: "HW_REG_SCRATCH_BASE_HI",
    29: "HW_REG_SHADER_CYCLES_LO", 30: "HW_REG_SHADER_CYCLES_HI",
    31: "HW_REG_DVGPR_ALLOC_LO", 32: "HW_REG_DVGPR_ALLOC_HI",
}
_HWREG_BY_GENERATION = {10: HWREG_NAMES_GFX10, 11: HWREG_NAMES_GFX11, 12: HWREG_NAMES_GFX12}


def hwreg(imm: int, gfx940: bool, generation: int = 9) -> str:
    reg_id, offset, width = imm & 0x3F, (imm >> 6) & 0x1F, ((imm >> 11) & 0x1F) + 1
    if generation >= 10:
        name = _HWREG_BY_GENERATION[min(generation, 12)].get(reg_id)
    else:
        name = HWREG_NAMES_GFX9.get(reg_id) or (
            HWREG_NAMES_GFX940.get(reg_id) if gfx940 else None)
    text = name or str(reg_id)
    if width != 32 or offset != 0:
        text += f", {offset}, {width}"
    return f"hwreg({text})"


SENDMSG_NAMES_GFX10: dict[int, str] = {**SENDMSG_NAMES_GFX9, 11: "MSG_GET_DDID"}
_SENDMSG_RTN: dict[int, str] = {
    128: "MSG_RTN_GET_DOORBELL", 129: "MSG_RTN_GET_DDID", 130: "MSG_RTN_GET_TMA",
    131: "MSG_RTN_GET_REALTIME", 132: "MSG_RTN_SAVE_WAVE", 133: "MSG_RTN_GET_TBA",
    134: "MSG_RTN_GET_TBA_TO_PC",
}
SENDMSG_NAMES_GFX11: dict[int, str] = {
    1: "MSG_INTERRUPT", 2: "MSG_HS_TESSFACTOR", 3: "MSG_DEALLOC_VGPRS",
    5: "MSG_STALL_WAVE_GEN", 6: "MSG_HALT_WAVES", 9: "MSG_GS_ALLOC_REQ", 15: "MSG_SYSMSG",
    **_SENDMSG_RTN,
}
SENDMSG_NAMES_GFX12: dict[int, str] = {
    1: "MSG_INTERRUPT", 2: "MSG_HS_TESSFACTOR", 3: "MSG_DEALLOC_VGPRS",
    9: "MSG_GS_ALLOC_REQ", 15: "MSG_SYSMSG", **_SENDMSG_RTN, 135: "MSG_RTN_GET_SE_AID_ID",
}


def sendmsg(imm: int, generation: int = 9) -> str:
    if generation >= 11:
        # GFX11 widened the message id to 8 bits and dropped the operation and stream.
        msg_id = imm & 0xFF
        name = (SENDMSG_NAMES_GFX12 if generation >= 12 else SENDMSG_NAMES_GFX11).get(msg_id)
        if name is not None and msg_id != MSG_SYSMSG:
            return f"sendmsg({name})"
        if msg_id == imm:
            return f"sendmsg({msg_id}, 0, 0)"
        return str(imm)
    msg_id, op_id, stream = imm & 0xF, (imm >> 4) & 0x7, (imm >> 8) & 0x3
    name = (SENDMSG_NAMES_GFX10 if generation == 10 else SENDMSG_NAMES_GFX9).get(msg_id)
    requires_op = msg_id in (MSG_GS, MSG_GS_DONE, MSG_SYSMSG)
    if name is not None:
        if requires_op:
            op_name = (SYSMSG_OP_NAMES_GFX9 if msg_id == MSG_SYSMSG else GS_OP_NAMES).get(op_id)
            valid_op = op_name is not None and not (msg_id == MSG_GS and op_id == 0)
        else:
            op_name, valid_op = None, op_id == 0
        if valid_op:
            if msg_id == MSG_GS:
                valid_stream = stream < 4
            elif msg_id == MSG_GS_DONE:
                valid_stream = stream == 0 if op_id == 0 else stream < 4
            else:
                valid_stream = stream == 0
            if valid_stream:
                text = f"sendmsg({name}"
                if requires_op:
                    text += f", {op_name}"
                    if msg_id in (MSG_GS, MSG_GS_DONE) and op_id != 0:
                        text += f", {stream}"
                return text + ")"
    if msg_id | (op_id << 4) | (stream << 8) == imm:
        return f"sendmsg({msg_id}, {op_id}, {stream})"
    return str(imm)


def swizzle(imm: int) -> str:
    """``ds_swizzle_b32`` offset, with the symbolic swizzle macros LLVM recognises."""
    if imm == 0:
        return ""
    if imm & 0xFF00 == 0x8000:
        lanes = [(imm >> (2 * i)) & 3 for i in range(4)]
        return " offset:swizzle(QUAD_PERM," + ",".join(str(x) for x in lanes) + ")"
    if imm & 0x8000 == 0:
        and_mask, or_mask, xor_mask = imm & 0x1F, (imm >> 5) & 0x1F, (imm >> 10) & 0x1F
        if and_mask == 0x1F and or_mask == 0 and xor_mask.bit_count() == 1:
            return f" offset:swizzle(SWAP,{xor_mask})"
        if and_mask == 0x1F and or_mask == 0 and xor_mask > 0 and _pow2(xor_mask + 1):
            return f" offset:swizzle(REVERSE,{xor_mask + 1})"
        group = 0x1F - and_mask + 1
        if group > 1 and _pow2(group) and or_mask < group and xor_mask == 0:
            return f" offset:swizzle(BROADCAST,{group},{or_mask})"
        probe0 = ((0 & and_mask) | or_mask) ^ xor_mask
        probe1 = ((0x1F & and_mask) | or_mask) ^ xor_mask
        bits = ""
        for bit in (16, 8, 4, 2, 1):
            p0, p1 = probe0 & bit, probe1 & bit
            if p0 == p1:
                bits += "1" if p0 else "0"
            else:
                bits += "i" if p0 else "p"
        return f' offset:swizzle(BITMASK_PERM,"{bits}")'
    return f" offset:{imm & 0xFFFF}"


def _pow2(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def mtbuf_format(imm: int) -> str:
    """GFX9 MTBUF ``format`` (dfmt in bits 3:0, nfmt in 6:4); empty when default."""
    if imm == DFMT_DEFAULT | (NFMT_DEFAULT << 4):
        return ""
    dfmt, nfmt = imm & 0xF, (imm >> 4) & 0x7
    parts: list[str] = []
    if dfmt != DFMT_DEFAULT:
        parts.append(DFMT_NAMES[dfmt])
    if nfmt != NFMT_DEFAULT:
        parts.append(NFMT_NAMES_GFX9[nfmt])
    return " format:[" + ",".join(parts) + "]"


def dpp_ctrl(imm: int, gfx90a: bool, dp_alu: bool, generation: int = 9) -> str:
    """The ``dpp_ctrl`` field (GFX10 dropped the wave shifts and row broadcasts and added
    row_share/row_xmask)."""
    if generation >= 10:
        return _dpp_ctrl_gfx10(imm, dp_alu)
    if dp_alu and not 0x150 <= imm <= 0x15F:
        return " /* DP ALU dpp only supports row_newbcast */"
    if imm <= 0xFF:
        return "quad_perm:[" + ",".join(str((imm >> s) & 3) for s in (0, 2, 4, 6)) + "]"
    if 0x101 <= imm <= 0x10F:
        return f"row_shl:{imm & 0xF}"
    if 0x111 <= imm <= 0x11F:
        return f"row_shr:{imm & 0xF}"
    if 0x121 <= imm <= 0x12F:
        return f"row_ror:{imm & 0xF}"
    fixed = {0x130: "wave_shl:1", 0x134: "wave_rol:1", 0x138: "wave_shr:1",
             0x13C: "wave_ror:1", 0x140: "row_mirror", 0x141: "row_half_mirror",
             0x142: "row_bcast:15", 0x143: "row_bcast:31"}
    if imm in fixed:
        return fixed[imm]
    if 0x150 <= imm <= 0x15F:
        if gfx90a:
            return f"row_newbcast:{imm & 0xF}"
        return " /* row_newbcast/row_share is not supported on ASICs earlier than GFX90A/GFX10 */"
    if 0x160 <= imm <= 0x16F:
        return "/* row_xmask is not supported on ASICs earlier than GFX10 */"
    return "/* Invalid dpp_ctrl value */"


def _dpp_ctrl_gfx10(imm: int, dp_alu: bool) -> str:
    if dp_alu and not 0x150 <= imm <= 0x15F:
        return " /* DP ALU dpp only supports row_newbcast */"
    if imm <= 0xFF:
        return "quad_perm:[" + ",".join(str((imm >> s) & 3) for s in (0, 2, 4, 6)) + "]"
    for first, name in ((0x101, "row_shl"), (0x111, "row_shr"), (0x121, "row_ror"),
                        (0x150, "row_share"), (0x160, "row_xmask")):
        if first - (first & 0xF) <= imm <= first - (first & 0xF) + 0xF and imm >= first:
            return f"{name}:{imm & 0xF}"
    removed = {0x130: "wave_shl", 0x134: "wave_rol", 0x138: "wave_shr", 0x13C: "wave_ror",
               0x142: "row_bcast", 0x143: "row_bcast"}
    if imm in removed:
        return f"/* {removed[imm]} is not supported starting from GFX10 */"
    if imm == 0x140:
        return "row_mirror"
    if imm == 0x141:
        return "row_half_mirror"
    return "/* Invalid dpp_ctrl value */"


def dpp8(imm: int) -> str:
    """DPP8's lane selects: eight 3-bit fields."""
    return "dpp8:[" + ",".join(str((imm >> (3 * i)) & 7) for i in range(8)) + "]"


#: MIMG ``dim`` field values (GFX10+), as LLVM's MIMGDimInfo suffixes.
MIMG_DIMS = ("1D", "2D", "3D", "CUBE", "1D_ARRAY", "2D_ARRAY", "2D_MSAA", "2D_MSAA_ARRAY")


def mimg_dim(imm: int) -> str:
    return " dim:SQ_RSRC_IMG_" + (MIMG_DIMS[imm] if 0 <= imm < len(MIMG_DIMS) else str(imm))


#: ``s_waitcnt_depctr`` fields: name, maximum, default, bit offset, width (GFX10.3+).
DEPCTR_FIELDS = (
    ("depctr_hold_cnt", 1, 1, 7, 1), ("depctr_sa_sdst", 1, 1, 0, 1),
    ("depctr_va_vdst", 15, 15, 12, 4), ("depctr_va_sdst", 7, 7, 9, 3),
    ("depctr_va_ssrc", 1, 1, 8, 1), ("depctr_va_vcc", 1, 1, 1, 1),
    ("depctr_vm_vsrc", 7, 7, 2, 3),
)


def depctr(imm: int, has_hold_cnt: bool) -> str:
    """``s_waitcnt_depctr``: its named counters when every bit belongs to one of them and
    holds a value in range; otherwise the hex value."""
    imm &= 0xFFFF
    fields = [f for f in DEPCTR_FIELDS if has_hold_cnt or f[0] != "depctr_hold_cnt"]
    covered = 0
    for _, maximum, _, offset, width in fields:
        covered |= ((1 << width) - 1) << offset
        if (imm >> offset) & ((1 << width) - 1) > maximum:
            return f"0x{imm:x}"
    if imm & ~covered & 0xFFFF:
        return f"0x{imm:x}"
    values = [(name, (imm >> offset) & ((1 << width) - 1), default)
              for name, _, default, offset, width in fields]
    non_default = any(value != default for _, value, default in values)
    return " ".join(f"{name}({value})" for name, value, default in values
                    if value != default or not non_default)


DELAY_IDS = ("NO_DEP", "VALU_DEP_1", "VALU_DEP_2", "VALU_DEP_3", "VALU_DEP_4",
              "TRANS32_DEP_1", "TRANS32_DEP_2", "TRANS32_DEP_3", "FMA_ACCUM_CYCLE_1",
              "SALU_CYCLE_1", "SALU_CYCLE_2", "SALU_CYCLE_3")
DELAY_SKIPS = ("SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4")


def delay_alu(imm: int) -> str:
    """``s_delay_alu``: instid0 (bits 3:0), instskip (6:4), instid1 (10:7)."""
    parts: list[str] = []
    for shift, mask, key, names, bad in (
            (0, 0xF, "instid0", DELAY_IDS, "/* invalid instid value */"),
            (4, 0x7, "instskip", DELAY_SKIPS, "/* invalid instskip value */"),
            (7, 0xF, "instid1", DELAY_IDS, "/* invalid instid value */")):
        value = (imm >> shift) & mask
        if value:
            parts.append(f"{key}({names[value] if value < len(names) else bad})")
    return " | ".join(parts) or "0"


#: ``s_version`` microcode versions (bits 7:0) and flag bits, as LLVM names them.
UC_VERSIONS = {0: "UC_VERSION_GFX7", 4: "UC_VERSION_GFX10", 6: "UC_VERSION_GFX11",
                9: "UC_VERSION_GFX12"}
UC_VERSION_BITS = ((13, "UC_VERSION_W64_BIT"), (14, "UC_VERSION_W32_BIT"),
                    (15, "UC_VERSION_MDP_BIT"))


def ucode_version(imm: int) -> str | None:
    """``s_version``'s operand as LLVM's disassembler spells it (an or-expression of the
    version symbol and the flag bits), or None when bits outside those fields are set."""
    imm &= 0xFFFF
    if imm & 0x1F00:
        return None
    text = UC_VERSIONS.get(imm & 0xFF, str(imm & 0xFF))
    parts = 1
    for bit, name in UC_VERSION_BITS:
        if imm >> bit & 1:
            text = (f"({text})" if parts > 1 else text) + "|" + name
            parts += 1
    return text


def gpr_idx_mode(imm: int) -> str:
    if imm & ~0xF:
        return hex(imm)
    return "gpr_idx(" + ",".join(n for i, n in enumerate(GPR_IDX_NAMES) if imm & (1 << i)) + ")"


def exp_target(imm: int, generation: int = 9) -> str:
    """Export target: GFX10 added pos4 and prim; GFX11 dropped null and the parameters
    and added dual_src_blend0/1."""
    target = imm & 0x3F
    if target <= 7:
        return f" mrt{target}"
    if target == 8:
        return " mrtz"
    if target == 9 and generation < 11:
        return " null"
    if 12 <= target <= 15 or (target == 16 and generation >= 10):
        return f" pos{target - 12}"
    if target == 20 and generation >= 10:
        return " prim"
    if target in (21, 22) and generation >= 11:
        return f" dual_src_blend{target - 21}"
    if 32 <= target <= 63 and generation < 11:
        return f" param{target - 32}"
    return f" invalid_target_{target}"
