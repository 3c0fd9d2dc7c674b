"""Values computed by vector instructions, for per-lane and uniform operands alike.

Some operations have no scalar instruction on GFX9 (every float operation, integer
division, conversions): they run on the VALU. A per-lane operation runs for the active lanes,
as the integer ones do. A uniform one (every operand the same in all lanes) must still give
the wave one value even where the point's EXEC is empty, so it runs in lane 0 alone (EXEC =
1, saved and restored, as a once-per-wave store does) and ``v_readfirstlane_b32`` brings the
result to an SGPR.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation

from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.lowering.isel.memory import single_lane
from luthier.lowering.isel.selector import Selector
from luthier.lowering.isel.values import SGPR_CLASS, VGPR_CLASS, Value, width_of


def vector_computed(sel: Selector, op: Operation, operands: list[Value],
                    compute: Callable[[VirtRegAttr], None]) -> None:
    """Define ``op``'s result from ``compute(destination VGPRs)``: per lane for the active
    lanes, or, for uniform operands, in lane 0 alone and then read into SGPRs."""
    width = width_of(op.results[0])
    dest = sel.new(VGPR_CLASS[width])
    if not all(value.uniform for value in operands):
        compute(dest)
        sel.define(op.results[0], Value(width, False, reg=dest))
        return
    single_lane(sel, lambda: compute(dest))
    scalar = sel.new(SGPR_CLASS[width])
    halves = [(scalar, dest)] if width == 32 else [(scalar.part(i), dest.part(i)) for i in (0, 1)]
    for to, source in halves:
        sel.emit("v_readfirstlane_b32", [to, source])
    sel.define(op.results[0], Value(width, True, reg=scalar))


def vgpr(sel: Selector, width: int = 32) -> VirtRegAttr:
    """A new virtual VGPR (a pair for 64 bits), for a VALU sequence's intermediate values."""
    return sel.new(VGPR_CLASS[width])
