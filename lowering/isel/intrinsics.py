"""``instr`` intrinsics to ``instr.mc_intrinsic`` ops with virtual register operands.

Selection decides only where each intrinsic's operands and result live; the machine code
comes later: ``virtualize-phys-regs`` turns register reads and writes into copies at the
payload's entry and exit, ``lower-intrinsics`` expands the others.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute, Operation

from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.instr.attributes import register_bits
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import (
    BallotOp,
    BlockDimOp,
    FirstActiveLaneOp,
    GlobalAddrOp,
    GridDimOp,
    KernArgOp,
    LaneIdOp,
    PopcountOp,
    ReadFirstLaneOp,
    ReadLaneOp,
    ReadRegOp,
    WorkgroupIdOp,
    WorkitemIdOp,
    WriteLaneOp,
    WriteRegOp,
)
from luthier.lowering.isel.selector import SelectionError, Selector
from luthier.lowering.isel.values import (
    SGPR_CLASS,
    VGPR_CLASS,
    Value,
    width_of,
)


def _intrinsic(sel: Selector, name: str, defs: list[VirtRegAttr], uses: list[VirtRegAttr],
               **params: Attribute) -> None:
    sel.add(MCIntrinsicOp(name, defs, uses, params))


def _lane_register(name: str) -> bool:
    return name.startswith(("v", "a")) and not name.startswith("vcc")


def register_class_of(name: str) -> tuple[bool, str]:
    """(uniform, virtual register class) that holds application register ``name``."""
    bits = register_bits(name)
    if bits not in (1, 32, 64):
        raise SelectionError(f"{name} is {bits} bits wide; hook values are i1, i32 or i64")
    if _lane_register(name):
        return False, VGPR_CLASS[bits]
    return True, SGPR_CLASS[bits]


def _defined(sel: Selector, op: Operation, uniform: bool, register_class: str) -> VirtRegAttr:
    reg = sel.new(register_class)
    sel.define(op.results[0], Value(width_of(op.results[0]), uniform, reg=reg))
    return reg


def lower_intrinsic(sel: Selector, op: Operation) -> bool:
    """Select ``op`` if it is an ``instr`` intrinsic; False otherwise."""
    match op:
        case ReadRegOp():
            uniform, register_class = register_class_of(op.register.data)
            reg = _defined(sel, op, uniform, register_class)
            _intrinsic(sel, "read_reg", [reg], [], register=op.register)
        case WriteRegOp():
            value = sel.value(op.value)
            uniform, _ = register_class_of(op.register.data)
            source = sel.sreg(value) if uniform else sel.vreg(value)
            _intrinsic(sel, "write_reg", [], [source], register=op.register)
        case LaneIdOp():
            _intrinsic(sel, "lane_id", [_defined(sel, op, False, VGPR_CLASS[32])], [])
        case FirstActiveLaneOp():
            _intrinsic(sel, "first_active_lane", [_defined(sel, op, True, SGPR_CLASS[32])], [])
        case BallotOp():
            mask = sel.mask(sel.value(op.condition))
            assert isinstance(mask, VirtRegAttr)
            _intrinsic(sel, "ballot", [_defined(sel, op, True, SGPR_CLASS[64])], [mask])
        case PopcountOp():
            value = sel.value(op.value)
            uniform = value.uniform
            source = sel.sreg(value) if uniform else sel.vreg(value)
            reg = _defined(sel, op, uniform, SGPR_CLASS[32] if uniform else VGPR_CLASS[32])
            _intrinsic(sel, "popcount", [reg], [source])
        case ReadFirstLaneOp():
            value = sel.value(op.value)
            if value.uniform:
                sel.define(op.result, value)
                return True
            reg = _defined(sel, op, True, SGPR_CLASS[32])
            _intrinsic(sel, "readfirstlane", [reg], [sel.vreg(value)])
        case ReadLaneOp():
            value, lane = sel.value(op.value), sel.value(op.lane)
            if not lane.uniform:
                raise SelectionError("instr.readlane needs a uniform lane number")
            reg = _defined(sel, op, True, SGPR_CLASS[32])
            _intrinsic(sel, "readlane", [reg], [sel.vreg(value), sel.sreg(lane)])
        case WriteLaneOp():
            value, lane, old = sel.value(op.value), sel.value(op.lane), sel.value(op.old)
            if not value.uniform or not lane.uniform:
                raise SelectionError("instr.writelane needs a uniform value and lane number")
            reg = _defined(sel, op, False, VGPR_CLASS[32])
            _intrinsic(sel, "writelane", [reg], [sel.sreg(value), sel.sreg(lane), sel.vreg(old)])
        case GlobalAddrOp():
            reg = sel.new(SGPR_CLASS[64])
            address = MCIntrinsicOp("global_addr", [reg], [],
                                    {"symbol": StringAttr(op.global_name.string_value())})
            sel.add(address)
            sel.define(op.result, Value(64, True, reg=reg, address=address))
        case WorkgroupIdOp() | GridDimOp() | BlockDimOp():
            name = {WorkgroupIdOp: "workgroup_id", GridDimOp: "grid_dim",
                    BlockDimOp: "block_dim"}[type(op)]
            _intrinsic(sel, name, [_defined(sel, op, True, SGPR_CLASS[32])], [], dim=op.dim)
        case WorkitemIdOp():
            _intrinsic(sel, "workitem_id", [_defined(sel, op, False, VGPR_CLASS[32])], [],
                       dim=op.dim)
        case KernArgOp():
            reg = _defined(sel, op, True, SGPR_CLASS[width_of(op.result)])
            _intrinsic(sel, "kernarg", [reg], [],
                       offset=IntegerAttr(op.offset.value.data, i64))
        case _:
            return False
    return True
