"""The ``instr`` dialect object."""

from __future__ import annotations

from xdsl.ir import Dialect

from luthier.amdgpu_dialects.instr.attributes import (
    AddressArgAttr,
    ConstArgAttr,
    OperandArgAttr,
    RegArgAttr,
    SiteArgAttr,
)
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import (
    AtomicOp,
    BallotOp,
    BlockDimOp,
    FirstActiveLaneOp,
    GlobalAddrOp,
    GlobalOp,
    GridDimOp,
    HookOp,
    InsertOp,
    KernArgOp,
    LaneIdOp,
    LoadOp,
    PayloadOp,
    PopcountOp,
    ReadFirstLaneOp,
    ReadLaneOp,
    ReadRegOp,
    ReturnOp,
    StoreOp,
    WorkgroupIdOp,
    WorkitemIdOp,
    WriteLaneOp,
    WriteRegOp,
)

INSTR = Dialect(
    "instr",
    [HookOp, ReturnOp, ReadRegOp, WriteRegOp, LaneIdOp, FirstActiveLaneOp, WorkgroupIdOp,
     WorkitemIdOp, GridDimOp, BlockDimOp, BallotOp, PopcountOp, ReadFirstLaneOp, ReadLaneOp,
     WriteLaneOp, KernArgOp, GlobalOp, GlobalAddrOp, LoadOp, StoreOp, AtomicOp, InsertOp,
     PayloadOp, MCIntrinsicOp],
    [ConstArgAttr, RegArgAttr, OperandArgAttr, SiteArgAttr, AddressArgAttr],
)
