"""Which values of a hook are per lane: the divergence of ``instr`` code.

A value is *uniform* when every lane of the wave has the same one (constants, SGPR reads,
scalar memory, exec-mask queries, arithmetic on uniform values) and *per lane* otherwise
(lane and work-item ids, VGPR reads, a ``per_lane`` atomic's old value, and what is
computed from them; an ``scf.if`` on a per-lane condition gives per-lane results).
Instruction selection puts uniform values in SGPRs and per-lane ones in VGPRs; the HIP
importer checks that code it makes run once per wave reads no per-lane value.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from luthier.amdgpu_dialects.instr.ops import (
    AtomicOp,
    LaneIdOp,
    LoadOp,
    PopcountOp,
    ReadRegOp,
    WorkitemIdOp,
    WriteLaneOp,
)


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
        return op.address in divergent or op.value in divergent or op.per_lane is not None
    if isinstance(op, PopcountOp):
        return op.value in divergent
    if op.name.startswith("instr."):
        return False  # ballot, readlane, readfirstlane, ids, kernarg...: one per wave
    return any(operand in divergent for operand in op.operands)
