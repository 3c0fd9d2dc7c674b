"""``lower-intrinsics``: ``instr.mc_intrinsic`` ops to machine code.

=====================  ==========================================================
lane_id                ``v_mbcnt_lo_u32_b32 t, -1, 0`` + ``v_mbcnt_hi_u32_b32 d, -1, t``
                       (the first alone in wave32)
first_active_lane      ``s_ff1_i32_b64 d, exec`` (-1 when EXEC is empty)
ballot                 ``s_and_b64 d, mask, exec`` (an i64: in wave32 ``s_and_b32`` of
                       ``exec_lo`` and a zero high half)
popcount               ``s_bcnt1_i32_b32/b64`` (uniform), ``v_bcnt_u32_b32`` (per lane)
readfirstlane          ``v_readfirstlane_b32``
readlane / writelane   ``v_readlane_b32`` / ``v_mov_b32`` + ``v_writelane_b32`` (lane in M0)
global_addr            ``s_getpc_b64`` + ``s_add_u32``/``s_addc_u32`` with
                       ``sym@rel32@lo+4`` / ``sym@rel32@hi+12`` (PC-relative: the three
                       stay together, so the layout can resolve the offsets); a constant
                       the selector moved into its ``offset`` adds to both addends
=====================  ==========================================================

Intrinsics that read state the kernel had at entry (``kernarg``, ``workgroup_id``,
``workitem_id``, ``grid_dim``, ``block_dim``) read the homes ``place-sva`` chose (see
:mod:`luthier.passes.preamble.state_access`); in a kernel without homes (``place-sva`` not
run) they stay, and ``splice-payloads`` refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.builder import EXEC, M0, InstBuilder, MCBuildError, reg
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import KernelOp
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.instr.points import (
    describe_point,
    enclosing_code_object,
    enclosing_function,
    payloads,
)
from luthier.amdgpu_dialects.mc.asm_expr import SymbolReference
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.lowering.progress import over
from luthier.passes.instrument.virtualize import max_vreg
from luthier.passes.preamble.homes import has_homes
from luthier.passes.preamble.state_access import StateAccessError, expand_state
from luthier.passes.preamble.sva import STATE_INTRINSICS

_EXEC_LO = reg("exec_lo")


def _vregs(registers: list[VirtRegAttr | object]) -> list[VirtRegAttr]:
    out: list[VirtRegAttr] = []
    for register in registers:
        assert isinstance(register, VirtRegAttr), register
        out.append(register)
    return out


def expand(op: MCIntrinsicOp, builder: InstBuilder, fresh: list[int]) -> list[InstructionOpBase]:
    """The instructions of one intrinsic (``fresh[0]``: the next free vreg number)."""
    defs, uses = _vregs(list(op.def_registers)), _vregs(list(op.use_registers))
    name = op.intrinsic.data

    def temp(register_class: str) -> VirtRegAttr:
        fresh[0] += 1
        return VirtRegAttr.of(fresh[0] - 1, register_class)

    inst = builder.inst
    wave32 = (builder.wavefront_size or subtarget_for(builder.processor).default_wave_size) == 32
    if name == "lane_id":
        if wave32:  # the lanes below this one are all in the low half
            return [inst("v_mbcnt_lo_u32_b32", [defs[0], -1, 0])]
        low = temp("VGPR_32")
        return [inst("v_mbcnt_lo_u32_b32", [low, -1, 0]),
                inst("v_mbcnt_hi_u32_b32", [defs[0], -1, low])]
    if name == "first_active_lane":
        if wave32:
            return [inst("s_ff1_i32_b32", [defs[0], _EXEC_LO])]
        return [inst("s_ff1_i32_b64", [defs[0], EXEC])]
    if name == "ballot":
        if wave32:
            return [inst("s_and_b32", [defs[0].part(0), uses[0], _EXEC_LO]),
                    inst("s_mov_b32", [defs[0].part(1), 0])]
        return [inst("s_and_b64", [defs[0], uses[0], EXEC])]
    if name == "popcount":
        source = uses[0]
        if source.register_class.startswith("S"):
            suffix = "b64" if source.register_class == "SReg_64" else "b32"
            return [inst(f"s_bcnt1_i32_{suffix}", [defs[0], source])]
        if source.register_class == "VReg_64":
            low = temp("VGPR_32")
            return [inst("v_bcnt_u32_b32", [low, source.part(0), 0]),
                    inst("v_bcnt_u32_b32", [defs[0], source.part(1), low])]
        return [inst("v_bcnt_u32_b32", [defs[0], source, 0])]
    if name == "readfirstlane":
        return [inst("v_readfirstlane_b32", [defs[0], uses[0]])]
    if name == "readlane":
        return [inst("v_readlane_b32", [defs[0], uses[0], uses[1]])]
    if name == "writelane":
        # GFX9 reads one SGPR per VALU instruction, M0 aside: the lane goes through M0
        # (saved around the payload by save-payload-state where the application needs it).
        return [inst("v_mov_b32_e32", [defs[0], uses[2]]),
                inst("s_mov_b32", [M0, uses[1]]),
                inst("v_writelane_b32", [defs[0], uses[0], M0])]
    if name == "global_addr":
        symbol = op.param("symbol")
        assert isinstance(symbol, StringAttr)
        offset = op.attributes.get("offset")
        moved = offset.value.data if isinstance(offset, IntegerAttr) else 0
        address = defs[0]
        low = SymbolOperandAttr(SymbolReference(symbol.data, "rel32@lo", 4 + moved).expr)
        high = SymbolOperandAttr(SymbolReference(symbol.data, "rel32@hi", 12 + moved).expr)
        return [inst("s_getpc_b64", [address]),
                inst("s_add_u32", [address.part(0), address.part(0), low]),
                inst("s_addc_u32", [address.part(1), address.part(1), high])]
    return []


@dataclass(frozen=True)
class LowerIntrinsicsPass(ModulePass):
    """Expand every intrinsic that does not need the kernel's entry state."""

    name = "lower-intrinsics"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for payload in over("lower-intrinsics", list(payloads(op)), "payload"):
            lower_payload_intrinsics(payload)


def lower_payload_intrinsics(payload: PayloadOp) -> None:
    """Expand the intrinsics of one payload (those reading entry state only where its
    kernel has homes)."""
    code_object = enclosing_code_object(payload)
    assert code_object is not None
    builder = InstBuilder(*code_object.target_key)
    fresh = [max_vreg(payload) + 1]
    kernel = enclosing_function(payload)
    with_homes = isinstance(kernel, KernelOp) and has_homes(kernel)
    for intrinsic in [child for child in payload.body.walk()
                      if isinstance(child, MCIntrinsicOp)]:
        block = intrinsic.parent_block()
        assert block is not None
        try:
            if intrinsic.intrinsic.data not in STATE_INTRINSICS:
                expanded = expand(intrinsic, builder, fresh)
            elif with_homes:
                assert isinstance(kernel, KernelOp)
                expanded = expand_state(intrinsic, builder, fresh, kernel)
            else:
                continue
        except (MCBuildError, StateAccessError) as error:
            raise PassFailedException(f"lower-intrinsics: {describe_point(payload)}: "
                                      f"{error}") from None
        for inst in expanded:
            block.insert_op_before(inst, intrinsic)
        intrinsic.detach()
        intrinsic.erase()
