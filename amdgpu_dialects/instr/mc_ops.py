"""``instr`` ops that live among machine code: intrinsics after instruction selection.

Instruction selection turns a payload's SSA code into ``amdgpu_mc`` instructions whose
operands are registers. An intrinsic whose machine code depends on what later passes decide
(which application registers the payload reads, where the kernel's state lives) is kept as
one ``instr.mc_intrinsic`` op with register operands, so the passes between selection and
allocation see its register effect like any instruction's::

    instr.mc_intrinsic "read_reg" {defs = [#amdgpu_mc.vreg<3 : VGPR_32>], uses = [],
                                   register = "v7"}

``defs`` are written, ``uses`` read; other attributes are the intrinsic's parameters.
``virtualize-phys-regs`` and ``lower-intrinsics`` replace them with instructions; the
intrinsics that need the kernel's saved state (kernel arguments, workgroup ids...) stay
until the preamble gives that state a home.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict, irdl_op_definition, prop_def
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr

Register = VirtRegAttr | PhysRegAttr


@irdl_op_definition
class MCIntrinsicOp(IRDLOperation):
    """An intrinsic among machine code, with its register operands as attributes."""

    name = "instr.mc_intrinsic"
    intrinsic = prop_def(StringAttr)
    defs = prop_def(ArrayAttr)
    uses = prop_def(ArrayAttr)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$intrinsic attr-dict"

    def __init__(self, intrinsic: str, defs: Sequence[Register], uses: Sequence[Register],
                 params: Mapping[str, Attribute] | None = None) -> None:
        super().__init__(properties={"intrinsic": StringAttr(intrinsic),
                                     "defs": ArrayAttr(defs), "uses": ArrayAttr(uses)},
                         attributes=dict(params or {}))

    @property
    def def_registers(self) -> list[Register]:
        return [attr for attr in self.defs.data if isinstance(attr, Register)]

    @property
    def use_registers(self) -> list[Register]:
        return [attr for attr in self.uses.data if isinstance(attr, Register)]

    def param(self, name: str) -> Attribute:
        return self.attributes[name]

    def verify_(self) -> None:
        for attr in (*self.defs.data, *self.uses.data):
            if not isinstance(attr, Register):
                raise VerifyException(f"instr.mc_intrinsic \"{self.intrinsic.data}\": {attr} "
                                      "is not a register")
