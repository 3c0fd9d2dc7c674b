"""``scf.if`` to branches: SCC branches when the condition is uniform, EXEC masking when
it is per lane.

A uniform condition branches the whole wave (``s_cmp_lg_u32 c, 0`` + ``s_cbranch_scc0``).
A per-lane condition runs both sides with EXEC narrowed to the lanes that take each::

      s_and_saveexec_b64 saved, cond     ; EXEC = lanes taking "then"
      s_cbranch_execz ^else
    ^then: ...
    ^else:
      s_andn2_b64 exec, saved, cond      ; EXEC = lanes taking "else"
      s_cbranch_execz ^join
      ...
    ^join:
      s_mov_b64 exec, saved

A side that no lane takes is skipped, so a once-per-wave store inside it does not run.
Results are copied into one register per result on each side; per-lane booleans cross the
join as 0/1 in a VGPR (a lane mask written under a narrowed EXEC would lose the other
side's lanes) and become a mask again after it.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, Region, SSAValue

from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.lowering.isel.selector import Selector
from luthier.lowering.isel.values import (
    SGPR_CLASS,
    VGPR_CLASS,
    Value,
    width_of,
)

LowerOps = Callable[[Selector, list[Operation]], None]


def _body(region: Region) -> tuple[list[Operation], list[SSAValue]]:
    """The ops of a single-block ``scf.if`` side and the values it yields."""
    block = region.blocks.first
    if block is None:
        return [], []
    ops = list(block.ops)
    yielded: list[SSAValue] = []
    if ops and isinstance(ops[-1], scf.YieldOp):
        yielded = list(ops[-1].operands)
        ops = ops[:-1]
    return ops, yielded


def lower_if(sel: Selector, op: scf.IfOp, lower_ops: LowerOps,
             divergent: set[SSAValue]) -> None:
    cond = sel.value(op.cond)
    then_ops, then_yields = _body(op.true_region)
    else_ops, else_yields = _body(op.false_region)
    if cond.const is not None:
        ops, yields = (then_ops, then_yields) if cond.const & 1 else (else_ops, else_yields)
        lower_ops(sel, ops)
        for result, value in zip(op.results, yields, strict=True):
            sel.define(result, sel.value(value))
        return
    results = [_result_register(sel, result, result in divergent) for result in op.results]
    has_else = bool(else_ops or else_yields)
    then_block, join_block = Block(), Block()
    else_block = Block() if has_else else join_block
    if cond.uniform:
        sel.emit("s_cmp_lg_u32", [sel.sreg(cond), 0])
        sel.branch("s_cbranch_scc0", else_block, then_block)
        sel.start(then_block)
        _side(sel, then_ops, then_yields, results, lower_ops)
        if has_else:
            sel.branch("s_branch", join_block)
            sel.start(else_block)
            _side(sel, else_ops, else_yields, results, lower_ops)
        sel.fall_into(join_block)
    else:
        mask = sel.mask(cond)
        saved = sel.new(sel.lane_mask_class)
        sel.emit(sel.mask_op("s_and_saveexec"), [saved, mask])
        sel.branch("s_cbranch_execz", else_block, then_block)
        sel.start(then_block)
        _side(sel, then_ops, then_yields, results, lower_ops)
        if has_else:
            sel.fall_into(else_block)
            sel.emit(sel.mask_op("s_andn2"), [sel.exec_mask, saved, mask])
            else_body = Block()
            sel.branch("s_cbranch_execz", join_block, else_body)
            sel.start(else_body)
            _side(sel, else_ops, else_yields, results, lower_ops)
        sel.fall_into(join_block)
        sel.emit(sel.mask_op("s_mov"), [sel.exec_mask, saved])
    for result, (register, value) in zip(op.results, results, strict=True):
        if value.width == 1 and not value.uniform:
            mask_reg = sel.new(sel.lane_mask_class)
            sel.emit("v_cmp_ne_u32_e64", [mask_reg, 0, register])
            value = Value(1, False, reg=mask_reg)
        sel.define(result, value)


def _result_register(sel: Selector, result: SSAValue, per_lane: bool) -> tuple[VirtRegAttr,
                                                                                 Value]:
    width = width_of(result)
    if per_lane:
        register = sel.new(VGPR_CLASS[64 if width == 64 else 32])
    else:
        register = sel.new(SGPR_CLASS[width])
    return register, Value(width, not per_lane, reg=register)


def _side(sel: Selector, ops: list[Operation], yields: list[SSAValue],
          results: list[tuple[VirtRegAttr, Value]], lower_ops: LowerOps) -> None:
    lower_ops(sel, ops)
    for ssa, (register, result) in zip(yields, results, strict=True):
        _copy(sel, register, result, sel.value(ssa))


def _copy(sel: Selector, register: VirtRegAttr, result: Value, value: Value) -> None:
    """``register`` (holding ``result``'s kind) = ``value``."""
    if result.uniform:
        if value.width == 64:
            sel.emit("s_mov_b64", [register, sel.ssrc(value)])
        else:
            sel.emit("s_mov_b32", [register, sel.ssrc(value)])
        return
    if value.width == 1:
        sel.emit("v_cndmask_b32_e64", [register, 0, 1, sel.mask(value)])
        return
    halves = [(register, value)] if value.width == 32 else \
        [(register.part(i), value.half(i)) for i in (0, 1)]
    for dest, half in halves:
        sel.emit("v_mov_b32_e32", [dest, *sel.vsrcs([half])])
