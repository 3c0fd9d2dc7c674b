"""The state of selecting one payload: blocks being filled, values, virtual registers.

Lowerings (:mod:`.arith`, :mod:`.memory`, :mod:`.intrinsics`, :mod:`.control`) call the
helpers here to put operands in the register file an instruction wants: ``sreg`` (an SGPR
for SALU), ``vsrc`` (a VALU source: VGPR, SGPR or inline constant, within the one-SGPR
constant bus of GFX9), ``vreg`` (a VGPR), ``mask`` (a lane mask).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Block, Operation, SSAValue

from luthier.amdgpu_dialects.amdgpu_mc.builder import BuildOperand, InstBuilder
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import FallthroughOp
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.lowering.isel.values import SGPR_CLASS, VGPR_CLASS, Value


class SelectionError(ValueError):
    """A hook the selector cannot lower (an unsupported op or operand); the pass adds the
    hook, function and instruction to the message."""


def is_inline(value: int, width: int = 32) -> bool:
    """Whether ``value`` is an integer inline constant (-16..64) for a ``width`` operand."""
    signed = value - (1 << width) if value >= 1 << (width - 1) else value
    return -16 <= signed <= 64


def signed32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


#: GFX9 names the selector uses -> their GFX10+ names (no-carry adds became ``_nc``, the
#: carry-in forms ``_co_ci``; GFX10's assembler knows only the new names).
_GFX10_NAMES = {
    "v_add_u32_e32": "v_add_nc_u32_e32", "v_add_u32_e64": "v_add_nc_u32_e64",
    "v_sub_u32_e32": "v_sub_nc_u32_e32", "v_sub_u32_e64": "v_sub_nc_u32_e64",
    "v_subrev_u32_e32": "v_subrev_nc_u32_e32", "v_subrev_u32_e64": "v_subrev_nc_u32_e64",
    "v_addc_co_u32_e32": "v_add_co_ci_u32_e32", "v_addc_co_u32_e64": "v_add_co_ci_u32_e64",
    "v_subb_co_u32_e32": "v_sub_co_ci_u32_e32", "v_subb_co_u32_e64": "v_sub_co_ci_u32_e64",
    "v_subbrev_co_u32_e32": "v_subrev_co_ci_u32_e32",
    "v_subbrev_co_u32_e64": "v_subrev_co_ci_u32_e64",
}


class Selector:
    """Builds the machine code of one payload."""

    def __init__(self, processor: str, wavefront_size: int | None = None) -> None:
        self.builder = InstBuilder(processor, wavefront_size)
        self.processor = processor
        #: A lane mask's register class, and the wave's EXEC and VCC (the builder's).
        self.lane_mask_class = self.builder.lane_mask_class
        self.exec_mask = self.builder.exec_mask
        self.vcc = self.builder.vcc
        self.mask_op = self.builder.mask_op
        self._names = _GFX10_NAMES if subtarget_for(processor).major >= 10 else {}
        self.blocks: list[Block] = [Block()]
        self.block = self.blocks[0]
        self.values: dict[SSAValue, Value] = {}
        self._next_vreg = 0

    # -- emission ------------------------------------------------------------------------

    def new(self, register_class: str) -> VirtRegAttr:
        vreg = VirtRegAttr.of(self._next_vreg, register_class)
        self._next_vreg += 1
        return vreg

    def emit(self, mnemonic: str, operands: Sequence[BuildOperand] = (), *,
             flags: Sequence[str] = ()) -> InstructionOpBase:
        op = self.builder.inst(self._names.get(mnemonic, mnemonic), operands, flags=flags)
        self.block.add_op(op)
        return op

    def add(self, op: Operation) -> None:
        self.block.add_op(op)

    def start(self, block: Block) -> None:
        """Continue in ``block``, laid out after the blocks made so far (blocks are made
        before they are filled, so branches can name blocks that come later)."""
        self.blocks.append(block)
        self.block = block

    def branch(self, mnemonic: str, target: Block, fallthrough: Block | None = None) -> None:
        """End the current block with ``mnemonic`` to ``target`` (and, for a conditional
        branch, the fall-through block)."""
        successors = [target] if fallthrough is None else [target, fallthrough]
        self.block.add_op(self.builder.branch(mnemonic, successors))

    def fall_into(self, block: Block) -> None:
        """End the current block by falling through into ``block``, and continue there."""
        self.block.add_op(FallthroughOp(block))
        self.start(block)

    # -- values ----------------------------------------------------------------------------

    def value(self, ssa: SSAValue) -> Value:
        return self.values[ssa]

    def define(self, ssa: SSAValue, value: Value) -> None:
        self.values[ssa] = value

    def sreg(self, value: Value) -> VirtRegAttr:
        """``value`` in an SGPR (constants are moved there)."""
        if value.reg is not None:
            if not value.uniform:
                raise SelectionError("a per-lane value is used where the wave needs one value "
                                     "(an SGPR operand)")
            return value.reg
        assert value.const is not None
        if value.width == 64:
            reg = self.new(SGPR_CLASS[64])
            low, high = value.const & 0xFFFFFFFF, (value.const >> 32) & 0xFFFFFFFF
            if is_inline(value.const, 64):
                self.emit("s_mov_b64", [reg, _imm(value.const, 64)])
            else:
                self.emit("s_mov_b32", [reg.part(0), signed32(low)])
                self.emit("s_mov_b32", [reg.part(1), signed32(high)])
            return reg
        reg = self.new(SGPR_CLASS[32])
        self.emit("s_mov_b32", [reg, signed32(value.const)])
        return reg

    def ssrc(self, value: Value) -> BuildOperand:
        """A SALU source: an SGPR or an immediate (32-bit; SALU takes one literal)."""
        if value.const is not None and value.width <= 32:
            return signed32(value.const)
        if value.const is not None and is_inline(value.const, 64):
            return _imm(value.const, 64)
        return self.sreg(value)

    def vreg(self, value: Value) -> VirtRegAttr:
        """``value`` in a VGPR (uniform values are copied, per half for 64 bits)."""
        if value.reg is not None and not value.uniform:
            return value.reg
        if value.width == 64:
            reg = self.new(VGPR_CLASS[64])
            for index in (0, 1):
                self.emit("v_mov_b32_e32", [reg.part(index), self._mov_source(value.half(index))])
            return reg
        reg = self.new(VGPR_CLASS[32])
        self.emit("v_mov_b32_e32", [reg, self._mov_source(value)])
        return reg

    def _mov_source(self, value: Value) -> BuildOperand:
        if value.const is not None:
            return signed32(value.const)
        assert value.reg is not None
        return value.reg

    def vsrcs(self, values: Sequence[Value], width: int = 32,
              mask_operand: bool = False) -> list[BuildOperand]:
        """Sources of one VALU (VOP3) instruction: VGPRs, inline constants, and at most one
        SGPR (GFX9's constant bus); other SGPRs and literals are copied to VGPRs. With
        ``mask_operand`` the instruction also reads a lane mask (a carry-in, a select
        mask), which takes the bus: every source must then be a VGPR or inline."""
        sgpr: VirtRegAttr | None = None
        sources: list[BuildOperand] = []
        for value in values:
            if value.const is not None and is_inline(value.const, width):
                sources.append(_imm(value.const, width))
            elif value.reg is not None and not value.uniform:
                sources.append(value.reg)
            elif value.reg is not None and not mask_operand and (sgpr is None
                                                                 or sgpr == value.reg):
                sgpr = value.reg
                sources.append(value.reg)
            else:
                sources.append(self.vreg(value))
        return sources

    def mask(self, value: Value) -> BuildOperand:
        """A boolean as a lane mask: per-lane booleans are masks already; a uniform one
        becomes EXEC or 0."""
        if not value.uniform:
            assert value.reg is not None
            return value.reg
        mask = self.new(self.lane_mask_class)
        if value.const is not None:
            self.emit(self.mask_op("s_mov"), [mask, self.exec_mask if value.const & 1 else 0])
            return mask
        self.emit("s_cmp_lg_u32", [self.sreg(value), 0])
        self.emit(self.mask_op("s_cselect"), [mask, self.exec_mask, 0])
        return mask


def _imm(value: int, width: int) -> int:
    """An immediate operand's assembly value (signed, as the assembler reads it)."""
    if width == 64:
        value &= (1 << 64) - 1
        return value - (1 << 64) if value >= 1 << 63 else value
    return signed32(value)
