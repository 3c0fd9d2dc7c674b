"""State intrinsics as machine code that reads the homes ``place-sva`` chose.

=================  ==================================================================
``kernarg``        the kernarg segment pointer from SVA lanes 0-1 (``v_readlane_b32``),
                   then ``s_load_dword``/``s_load_dwordx2`` at the argument's offset and
                   ``s_waitcnt lgkmcnt(0)``
``workgroup_id``   ``v_readlane_b32`` of SVA lane 2, 3 or 4
``grid_dim``       ``v_readlane_b32`` of SVA lane 5, 6 or 7 (the preamble computed it
                   from the dispatch packet)
``block_dim``      ``v_readlane_b32`` of SVA lane 8, 9 or 10
``workitem_id``    the field of the packed work-item home: ``v_and_b32`` (x) or
                   ``v_bfe_u32`` (y: bits 10-19, z: 20-29)
=================  ==================================================================

A home in an AGPR (``place-sva`` found every VGPR taken) is first copied to a VGPR
temporary with ``v_accvgpr_read_b32``; a home in the instrumentation stack (no vector
register free) with ``scratch_load_dword`` of its per-lane slot and ``s_waitcnt
vmcnt(0)``. Either copy obeys EXEC: the work-item home needs only the active lanes, but
the SVA's lanes 0-10 hold wave-wide values whatever lanes are active, so its copy runs
under a full EXEC (saved in an SGPR pair and put back).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr

from luthier.amdgpu_dialects.amdgpu_mc.builder import EXEC, InstBuilder, reg
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import KernelOp
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.passes.preamble.homes import stack_slot
from luthier.passes.preamble.scratch import StackError, slot_access
from luthier.passes.preamble.sva import (
    KERNARG_LANES,
    STATE_LANES,
    SVA_ATTR,
    WORKITEM_HOME_ATTR,
    dimension,
    home,
)

#: Work-item id field of the packed home: dimension -> (bit offset, width).
WORKITEM_FIELDS = {"x": (0, 10), "y": (10, 10), "z": (20, 10)}


class StateAccessError(ValueError):
    """A state intrinsic this kernel cannot answer (reported by the caller with the
    point)."""


def expand_state(op: MCIntrinsicOp, builder: InstBuilder, fresh: list[int],
                 kernel: KernelOp) -> list[InstructionOpBase]:
    """The instructions of one state intrinsic of a payload of ``kernel``."""
    name = op.intrinsic.data
    destination = op.def_registers[0]
    assert isinstance(destination, VirtRegAttr)
    inst = builder.inst

    def temp(register_class: str) -> VirtRegAttr:
        fresh[0] += 1
        return VirtRegAttr.of(fresh[0] - 1, register_class)

    def copy_out(copy: VirtRegAttr, source: str) -> list[InstructionOpBase]:
        """The copy of an AGPR or stack home into ``copy``, under the EXEC in force."""
        slot = stack_slot(source)
        if slot is None:
            return [inst("v_accvgpr_read_b32", [copy, reg(source)])]
        try:
            return slot_access(builder, load_target(builder.processor), False, copy, slot,
                               temp("SReg_32"))
        except StackError as error:
            raise StateAccessError(str(error)) from None

    code: list[InstructionOpBase] = []
    if name == "workitem_id":
        home_name = home(kernel, WORKITEM_HOME_ATTR)
        if home_name is None:
            raise StateAccessError("the kernel has no work-item home (run place-sva first)")
        source: PhysRegAttr | VirtRegAttr
        if home_name.startswith("v"):
            source = reg(home_name)
        else:
            source = temp("VGPR_32")
            code += copy_out(source, home_name)
        start, width = WORKITEM_FIELDS[dimension(op)]
        if start == 0:
            return [*code, inst("v_and_b32_e32", [destination, (1 << width) - 1, source])]
        return [*code, inst("v_bfe_u32", [destination, source, start, width])]
    sva_name = home(kernel, SVA_ATTR)
    if sva_name is None:
        raise StateAccessError("the kernel has no State Value Array (run place-sva first)")
    sva: PhysRegAttr | VirtRegAttr
    if sva_name.startswith("v"):
        sva = reg(sva_name)
    else:
        saved_exec, sva = temp("SReg_64"), temp("VGPR_32")
        code += [inst("s_mov_b64", [saved_exec, EXEC]), inst("s_mov_b64", [EXEC, -1]),
                 *copy_out(sva, sva_name), inst("s_mov_b64", [EXEC, saved_exec])]
    if name in STATE_LANES:
        return [*code, inst("v_readlane_b32",
                            [destination, sva, STATE_LANES[name][dimension(op)]])]
    pointer = temp("SReg_64")
    code += [inst("v_readlane_b32", [pointer.part(0), sva, KERNARG_LANES[0]]),
             inst("v_readlane_b32", [pointer.part(1), sva, KERNARG_LANES[1]])]
    assert name == "kernarg", name
    offset_attr = op.param("offset")
    assert isinstance(offset_attr, IntegerAttr)
    offset = offset_attr.value.data
    if offset % 4:
        raise StateAccessError(f"kernel argument offset {offset} is not a multiple of 4 "
                               "(scalar loads read whole dwords)")
    load = "s_load_dwordx2" if destination.register_class == "SReg_64" else "s_load_dword"
    return [*code, inst(load, [destination, pointer, offset]),
            builder.wait_scalar_loads()]
