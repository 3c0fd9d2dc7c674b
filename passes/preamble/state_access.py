"""State intrinsics as machine code that reads the homes ``place-sva`` chose.

=================  ==================================================================
``kernarg``        the kernarg segment pointer from SVA lanes 0-1 (``v_readlane_b32``),
                   then ``s_load_dword``/``s_load_dwordx2`` at the argument's offset and
                   ``s_waitcnt lgkmcnt(0)``
``grid_dim``       the hidden argument ``hidden_block_count_{x,y,z}`` (u32), loaded the
                   same way (HIP's ``gridDim``: workgroups per dimension)
``block_dim``      the hidden argument ``hidden_group_size_{x,y,z}`` (u16): the dword
                   holding it, then its half (``s_and_b32``/``s_lshr_b32``)
``workgroup_id``   ``v_readlane_b32`` of SVA lane 2, 3 or 4
``workitem_id``    the field of the packed work-item home: ``v_and_b32`` (x) or
                   ``v_bfe_u32`` (y: bits 10-19, z: 20-29)
=================  ==================================================================

The hidden arguments' offsets come from the kernel's metadata (code object v5 lists
them); a kernel without them cannot answer ``grid_dim``/``block_dim`` and the lowering
says so. ``s_and_b32``/``s_lshr_b32`` write SCC: ``save-payload-state``, which runs after,
saves SCC where the application needs it.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import IntegerAttr

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.metadata import attr_to_metadata
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, KernelOp
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.lowering.isel.mc_builder import MCBuilder
from luthier.passes.preamble.sva import (
    KERNARG_LANES,
    SVA_ATTR,
    WORKGROUP_ID_LANES,
    WORKITEM_HOME_ATTR,
    dimension,
    home,
)

#: Work-item id field of the packed home: dimension -> (bit offset, width).
WORKITEM_FIELDS = {"x": (0, 10), "y": (10, 10), "z": (20, 10)}
#: Hidden kernel arguments of the launch sizes, by intrinsic: value kind prefix and size.
HIDDEN_SIZES = {"grid_dim": ("hidden_block_count_", 4), "block_dim": ("hidden_group_size_", 2)}


class StateAccessError(ValueError):
    """A state intrinsic this kernel cannot answer (reported by the caller with the
    point)."""


def hidden_argument(code_object: CodeObjectOp, kernel: str, value_kind: str) -> tuple[int, int]:
    """(offset, size) of a hidden kernel argument, from the metadata."""
    metadata: dict[str, Any] = attr_to_metadata(code_object.metadata) \
        if code_object.metadata is not None else {}
    for entry in metadata.get("amdhsa.kernels", []):
        if entry.get(".name") != kernel:
            continue
        for argument in entry.get(".args", []):
            if argument.get(".value_kind") == value_kind:
                return int(argument[".offset"]), int(argument[".size"])
    raise StateAccessError(f"the kernel's metadata has no {value_kind} argument (code "
                           "object v5 lists the launch sizes as hidden arguments)")


def expand_state(op: MCIntrinsicOp, builder: MCBuilder, fresh: list[int], kernel: KernelOp,
                 code_object: CodeObjectOp) -> list[InstructionOpBase]:
    """The instructions of one state intrinsic of a payload of ``kernel``."""
    name = op.intrinsic.data
    destination = op.def_registers[0]
    assert isinstance(destination, VirtRegAttr)
    inst = builder.inst

    def temp(register_class: str) -> VirtRegAttr:
        fresh[0] += 1
        return VirtRegAttr.of(fresh[0] - 1, register_class)

    if name == "workitem_id":
        source = home(kernel, WORKITEM_HOME_ATTR)
        if source is None:
            raise StateAccessError("the kernel has no work-item home (run place-sva first)")
        start, width = WORKITEM_FIELDS[dimension(op)]
        if start == 0:
            return [inst("v_and_b32_e32", [destination, (1 << width) - 1, source])]
        return [inst("v_bfe_u32", [destination, source, start, width])]
    sva = home(kernel, SVA_ATTR)
    if sva is None:
        raise StateAccessError("the kernel has no State Value Array (run place-sva first)")
    if name == "workgroup_id":
        return [inst("v_readlane_b32", [destination, sva, WORKGROUP_ID_LANES[dimension(op)]])]
    pointer = temp("SReg_64")
    code = [inst("v_readlane_b32", [pointer.part(0), sva, KERNARG_LANES[0]]),
            inst("v_readlane_b32", [pointer.part(1), sva, KERNARG_LANES[1]])]
    if name == "kernarg":
        offset_attr = op.param("offset")
        assert isinstance(offset_attr, IntegerAttr)
        offset = offset_attr.value.data
        if offset % 4:
            raise StateAccessError(f"kernel argument offset {offset} is not a multiple of 4 "
                                   "(scalar loads read whole dwords)")
        load = "s_load_dwordx2" if destination.register_class == "SReg_64" else "s_load_dword"
        return [*code, inst(load, [destination, pointer, offset]),
                inst("s_waitcnt", ["lgkmcnt(0)"])]
    prefix, size = HIDDEN_SIZES[name]
    offset, found_size = hidden_argument(code_object, kernel.sym_name.data,
                                         prefix + dimension(op))
    if found_size != size:
        raise StateAccessError(f"{prefix}{dimension(op)} has {found_size} bytes, not {size}")
    if size == 4:
        return [*code, inst("s_load_dword", [destination, pointer, offset]),
                inst("s_waitcnt", ["lgkmcnt(0)"])]
    dword = temp("SReg_32")
    code += [inst("s_load_dword", [dword, pointer, offset & ~3]),
             inst("s_waitcnt", ["lgkmcnt(0)"])]
    if offset % 4 == 0:
        return [*code, inst("s_and_b32", [destination, dword, 0xFFFF])]
    return [*code, inst("s_lshr_b32", [destination, dword, 16])]
