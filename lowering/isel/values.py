"""How a hook's SSA values live in registers: uniform or per lane, and which class.

A value is *uniform* when every lane of the wave has the same one and *per lane* otherwise
(:mod:`luthier.amdgpu_dialects.instr.divergence` says which). Uniform values live
in SGPRs and are computed by SALU instructions, which run once per wave whatever EXEC
holds; per-lane values live in VGPRs and are computed by VALU instructions for the active
lanes. Booleans follow LLVM's AMDGPU convention: a uniform ``i1`` is 0 or 1 in an SGPR; a
per-lane ``i1`` is a lane mask (one bit per lane, an SGPR pair in wave64).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import Float32Type, Float64Type
from xdsl.ir import SSAValue

from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.instr.attributes import integer_width
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp

#: Register classes by (uniform, width) of values (a per-lane i1 is a lane mask instead:
#: :attr:`~.selector.Selector.lane_mask_class`).
SGPR_CLASS = {1: "SReg_32", 32: "SReg_32", 64: "SReg_64"}
VGPR_CLASS = {32: "VGPR_32", 64: "VReg_64"}


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
    """Bits of a hook value: ``i1``/``i32``/``i64``, or ``f32``/``f64`` (whose registers
    hold the IEEE bits; 0 for any other type)."""
    width = integer_width(value.type)
    if width is not None:
        return width
    if isinstance(value.type, Float32Type):
        return 32
    if isinstance(value.type, Float64Type):
        return 64
    return 0


def is_float(value: SSAValue) -> bool:
    return isinstance(value.type, Float32Type | Float64Type)
