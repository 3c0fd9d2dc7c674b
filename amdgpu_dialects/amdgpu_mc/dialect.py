"""The ``amdgpu_mc`` dialect object (instruction op classes are made when it is built)."""

from __future__ import annotations

from xdsl.ir import Dialect

from luthier.amdgpu_dialects.amdgpu_mc.descriptor import KernelDescriptorAttr
from luthier.amdgpu_dialects.amdgpu_mc.instructions import instruction_op_classes
from luthier.amdgpu_dialects.amdgpu_mc.operands import (
    BranchLabelAttr,
    LiteralAttr,
    SymbolOperandAttr,
)
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCodeAttr, PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    DataRelocationAttr,
    ExternOp,
    FallthroughOp,
    FunctionOp,
    GlobalOp,
    KernelOp,
    LabelOp,
    SectionOp,
)


def make_dialect() -> Dialect:
    """The dialect with every instruction op (2000-odd cheap subclasses, ~25 ms)."""
    return Dialect(
        "amdgpu_mc",
        [CodeObjectOp, KernelOp, FunctionOp, GlobalOp, ExternOp, SectionOp, FallthroughOp,
         LabelOp, PackedCodeOp,
         *instruction_op_classes()],
        [PhysRegAttr, VirtRegAttr, LiteralAttr, SymbolOperandAttr, BranchLabelAttr,
         KernelDescriptorAttr,
         DataRelocationAttr, PackedCodeAttr],
    )
