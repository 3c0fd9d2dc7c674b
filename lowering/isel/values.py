"""How a hook's SSA values live in registers: uniform or per lane, and which class.

A value is *uniform* when every lane of the wave has the same one (constants, SGPR reads,
scalar memory, exec-mask queries, arithmetic on uniform values) and *per lane* otherwise
(lane and work-item ids, VGPR reads, and what is computed from them). Uniform values live
in SGPRs and are computed by SALU instructions, which run once per wave whatever EXEC
holds; per-lane values live in VGPRs and are computed by VALU instructions for the active
lanes. Booleans follow LLVM's AMDGPU convention: a uniform ``i1`` is 0 or 1 in an SGPR; a
per-lane ``i1`` is a lane mask (one bit per lane, an SGPR pair in wave64).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.instr.attributes import integer_width
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import (
    AtomicOp,
    LaneIdOp,
    LoadOp,
    PopcountOp,
    ReadRegOp,
    WorkitemIdOp,
    WriteLaneOp,
)

#: Register classes by (uniform, width) for a wave64 target.
SGPR_CLASS = {1: "SReg_32", 32: "SReg_32", 64: "SReg_64"}
VGPR_CLASS = {32: "VGPR_32", 64: "VReg_64"}
LANE_MASK_CLASS = "SReg_64"


@dataclass(frozen=True, slots=True)
class Value:
    """Where an SSA value is: a constant not yet in a register, or a register."""

    width: int
    uniform: bool
    const: int | None = None
    reg: VirtRegAttr | None = None
    #: The ``global_addr`` intrinsic that computes ``reg``, while this value is its only
    #: reader: adding a constant then moves the address (the relocation's addend) instead
    #: of costing an addition (see :func:`~.arith.lower_add_sub`).
    address: MCIntrinsicOp | None = None

    def half(self, index: int) -> Value:
        """The low (0) or high (1) 32 bits of a 64-bit value."""
        if self.const is not None:
            return Value(32, True, const=(self.const >> (32 * index)) & 0xFFFFFFFF)
        assert self.reg is not None and self.width == 64
        return Value(32, self.uniform, reg=self.reg.part(index))


def width_of(value: SSAValue) -> int:
    width = integer_width(value.type)
    return width if width is not None else 0


def _reads_lane_register(op: ReadRegOp) -> bool:
    name = op.register.data
    return name.startswith(("v", "a")) and not name.startswith("vcc")


def divergent_values(body: list[Operation]) -> set[SSAValue]:
    """The per-lane values defined in ``body`` (and nested regions), in program order."""
    divergent: set[SSAValue] = set()

    def visit(ops: list[Operation], under_divergent_if: bool) -> None:
        for op in ops:
            if isinstance(op, scf.IfOp):
                cond_divergent = op.cond in divergent
                for region in op.regions:
                    for block in region.blocks:
                        visit(list(block.ops), under_divergent_if or cond_divergent)
                yielded = [y for region in op.regions for block in region.blocks
                           for y in block.ops if isinstance(y, scf.YieldOp)]
                for index, result in enumerate(op.results):
                    if cond_divergent or any(y.operands[index] in divergent for y in yielded):
                        divergent.add(result)
                continue
            if _is_divergent(op, divergent):
                divergent.update(op.results)

    visit(body, False)
    return divergent


def _is_divergent(op: Operation, divergent: set[SSAValue]) -> bool:
    if isinstance(op, LaneIdOp | WorkitemIdOp | WriteLaneOp):
        return True
    if isinstance(op, ReadRegOp):
        return _reads_lane_register(op)
    if isinstance(op, LoadOp):
        return op.address in divergent
    if isinstance(op, AtomicOp):
        return op.address in divergent or op.value in divergent
    if isinstance(op, PopcountOp):
        return op.value in divergent
    if op.name.startswith("instr."):
        return False  # ballot, readlane, readfirstlane, ids, kernarg...: one per wave
    return any(operand in divergent for operand in op.operands)
