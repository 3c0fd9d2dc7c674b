"""The preamble code that fills the homes ``place-sva`` chose.

At kernel entry the hardware has put the kernarg segment pointer, the dispatch packet
pointer and the workgroup ids in SGPRs (where ``emit-preamble``'s descriptor asked for
them) and the packed work-item ids in ``v0``. This module writes the code that copies
what the payloads read into the homes:

* work-item ids: the work-item home becomes a copy of ``v0``;
* SVA lanes: ``v_writelane_b32`` of the kernarg pointer (lanes 0-1), the workgroup ids
  (lanes 2-4), and the launch sizes (lanes 5-10) the preamble computes from the dispatch
  packet (``hsa_kernel_dispatch_packet_t``: ``workgroup_size_{x,y,z}`` are u16 at byte 4,
  6 and 8; ``grid_size_{x,y,z}`` u32 at 12, 16 and 20, counted in work-items).

HIP's ``gridDim`` counts workgroups, so ``grid_dim`` is ``ceil(grid_size / workgroup_size)``
(the packet allows a partial last workgroup; the hidden ``hidden_block_count`` argument
of code object v5 holds the same number, but not every kernel has it, and the packet
serves every kernel alike). The hardware has no integer division: the quotient comes from
a reciprocal estimate refined to exactness, the standard 32-bit unsigned expansion (the
one LLVM's AMDGPU backend uses: ``v_rcp_iflag_f32`` of the divisor scaled to 2^32, one
Newton step in integers, the quotient estimate from ``mul_hi``, then at most two
corrections), followed by rounding up when a remainder is left.

Scratch registers: SGPRs from ``first_free_sgpr`` up (no SGPR there holds an entry value,
and the application writes them before reading them), and the SVA VGPR itself, before its
lanes are written, for the one vector instruction sequence. SCC is written: it is not
part of the initial state, so the application does not read it before writing it.

An SVA in an AGPR (no VGPR was free) or in a stack slot (no vector register was free) is
assembled in :data:`LANE_VGPR` and copied over (``v_accvgpr_write_b32``,
``scratch_store_dword``) under a full EXEC: a wave's initial EXEC covers only its
work-items, maybe fewer than the lanes the SVA uses. ``v3`` is never written by the
hardware at entry on any target (work-item ids take ``v0``-``v2`` at most), so before the
application's first instruction it holds nothing anyone reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation

from luthier.amdgpu_dialects.amdgpu_mc.builder import EXEC, InstBuilder, reg
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.lowering.isel.division import RECIPROCAL_SCALE
from luthier.passes.preamble.homes import stack_slot
from luthier.passes.preamble.scratch import slot_access
from luthier.passes.preamble.sva import (
    BLOCK_DIM_LANES,
    GRID_DIM_LANES,
    KERNARG_LANES,
    WORKGROUP_ID_LANES,
    StateNeeds,
)

#: Byte offsets in the dispatch packet: the first dword loaded (workgroup sizes x, y),
#: and the grid sizes per dimension.
PACKET_SIZES_OFFSET = 4
PACKET_GRID_SIZE = {"x": 12, "y": 16, "z": 20}
_DIMENSIONS = ("x", "y", "z")
#: Where the preamble assembles an SVA whose home is an AGPR.
LANE_VGPR = reg("v3")
#: The packed work-item ids at kernel entry.
V0 = reg("v0")


def _align(value: int, granule: int) -> int:
    return -(-value // granule) * granule


def ceil_divide(build: InstBuilder, quotient: PhysRegAttr, dividend: PhysRegAttr,
                divisor: PhysRegAttr, vector_temp: PhysRegAttr,
                temps: Sequence[PhysRegAttr]) -> list[Operation]:
    """``quotient = ceil(dividend / divisor)`` for u32 SGPRs (``divisor`` > 0), exact for
    every 32-bit pair. ``temps`` are three scratch SGPRs; ``vector_temp`` a scratch VGPR.
    ``quotient`` may not be ``dividend`` or ``divisor``."""
    estimate, product, remainder = temps
    inst = build.inst
    # GFX940's hazard: a non-transcendental VALU op reading a transcendental one's result
    # (v_rcp_iflag_f32) needs one wait state between them
    subtarget = load_target(build.processor).subtarget
    trans_wait = [inst("s_nop", [0])] if subtarget.has_trans_forwarding_hazard else []
    return [
        # estimate ~ 2^32 / divisor, from the float reciprocal
        inst("v_cvt_f32_u32_e32", [vector_temp, divisor]),
        inst("v_rcp_iflag_f32_e32", [vector_temp, vector_temp]),
        *trans_wait,
        inst("v_mul_f32_e32", [vector_temp, RECIPROCAL_SCALE, vector_temp]),
        inst("v_cvt_u32_f32_e32", [vector_temp, vector_temp]),
        inst("v_readfirstlane_b32", [estimate, vector_temp]),
        # one Newton step: estimate += mulhi(estimate, -divisor * estimate)
        inst("s_sub_i32", [product, 0, divisor]),
        inst("s_mul_i32", [product, product, estimate]),
        inst("s_mul_hi_u32", [product, estimate, product]),
        inst("s_add_i32", [estimate, estimate, product]),
        # quotient estimate and its remainder, then two corrections
        inst("s_mul_hi_u32", [quotient, dividend, estimate]),
        inst("s_mul_i32", [product, quotient, divisor]),
        inst("s_sub_i32", [remainder, dividend, product]),
        *_correct(build, quotient, remainder, divisor, (estimate, product)),
        *_correct(build, quotient, remainder, divisor, (estimate, product)),
        # round up: one more when a remainder is left
        inst("s_cmp_lg_u32", [remainder, 0]),
        inst("s_addc_u32", [quotient, quotient, 0]),
    ]


def _correct(build: InstBuilder, quotient: PhysRegAttr, remainder: PhysRegAttr,
             divisor: PhysRegAttr, temps: tuple[PhysRegAttr, PhysRegAttr]) -> list[Operation]:
    """If ``remainder >= divisor``: one more in the quotient, one divisor less in the
    remainder (both candidates first: the additions write SCC, the selects read it)."""
    inst = build.inst
    more, less = temps
    return [
        inst("s_add_i32", [more, quotient, 1]),
        inst("s_sub_i32", [less, remainder, divisor]),
        inst("s_cmp_ge_u32", [remainder, divisor]),
        inst("s_cselect_b32", [quotient, more, quotient]),
        inst("s_cselect_b32", [remainder, less, remainder]),
    ]


def launch_sizes(build: InstBuilder, needs: StateNeeds, dispatch_ptr: int,
                 first_free_sgpr: int, vector_temp: PhysRegAttr,
                 ) -> tuple[list[Operation], list[tuple[PhysRegAttr, int]]]:
    """Code computing the launch sizes ``needs`` names from the dispatch packet at
    ``s[dispatch_ptr:dispatch_ptr+1]``; returns it and the (SGPR, SVA lane) pairs holding
    the results."""
    inst = build.inst
    base = _align(first_free_sgpr, 4)  # s_load_dwordx4 writes an aligned quadruple

    def sgpr(k: int) -> PhysRegAttr:
        return reg(f"s{base + k}")

    pointer = reg(f"s[{dispatch_ptr}:{dispatch_ptr + 1}]")
    # s[base..base+3]: bytes 4-19 of the packet; s[base+4]: grid_size_z
    code: list[Operation] = [
        inst("s_load_dwordx4", [reg(f"s[{base}:{base + 3}]"), pointer, PACKET_SIZES_OFFSET])]
    if "z" in needs.grid_dims:
        code.append(inst("s_load_dword", [sgpr(4), pointer, PACKET_GRID_SIZE["z"]]))
    code.append(build.wait_scalar_loads())
    grid_size = {"x": sgpr(2), "y": sgpr(3), "z": sgpr(4)}
    # s[base+5..base+7]: workgroup sizes; s[base+8..base+10]: grid sizes in workgroups;
    # s[base+11..base+13]: division scratch.
    block = {dim: sgpr(5 + k) for k, dim in enumerate(_DIMENSIONS)}
    grid = {dim: sgpr(8 + k) for k, dim in enumerate(_DIMENSIONS)}
    scratch = [sgpr(11), sgpr(12), sgpr(13)]
    lanes: list[tuple[PhysRegAttr, int]] = []
    for dim in sorted(needs.grid_dims | needs.block_dims):
        if dim == "x":
            code.append(inst("s_and_b32", [block[dim], sgpr(0), 0xFFFF]))
        elif dim == "y":
            code.append(inst("s_lshr_b32", [block[dim], sgpr(0), 16]))
        else:
            code.append(inst("s_and_b32", [block[dim], sgpr(1), 0xFFFF]))
        if dim in needs.block_dims:
            lanes.append((block[dim], BLOCK_DIM_LANES[dim]))
    for dim in sorted(needs.grid_dims):
        code += ceil_divide(build, grid[dim], grid_size[dim], block[dim], vector_temp,
                            scratch)
        lanes.append((grid[dim], GRID_DIM_LANES[dim]))
    return code, lanes


def copy_workitem_ids(build: InstBuilder, home: str, first_free_sgpr: int,
                      separate_ids: int = 0) -> list[Operation]:
    """The copy of the packed work-item ids into their home, a VGPR, an AGPR or a stack slot
    (only the wave's work-items matter, so EXEC as it is at entry is right).

    Where the hardware packs the ids (GFX90A, GFX942) that is ``v0``. Where it writes them
    to ``v0``, ``v1``, ``v2`` (``separate_ids`` of them past ``v0``; GFX908), the preamble
    packs them the same way (x in bits 0-9, y 10-19, z 20-29) so ``lower-intrinsics`` reads
    one layout on every target: into the home when it is a VGPR (never one of ``v0``-``v2``,
    which ``place-sva`` keeps out), else into ``v3``, which the hardware does not write and
    the application has not run yet to use."""
    slot = stack_slot(home)
    packed = V0
    code: list[Operation] = []
    if separate_ids:
        packed = reg(home) if slot is None and home.startswith("v") else LANE_VGPR
        for dim in range(1, separate_ids + 1):
            code.append(build.inst("v_lshl_or_b32",
                                   [packed, reg(f"v{dim}"), 10 * dim, V0 if dim == 1 else packed]))
        if packed.data == home:
            return code
    if slot is not None:
        return code + list(slot_access(build, load_target(build.processor), True, packed, slot,
                                       reg(f"s{first_free_sgpr}")))
    if home.startswith("a"):
        return code + [build.inst("v_accvgpr_write_b32", [reg(home), packed])]
    return code + [build.inst("v_mov_b32_e32", [reg(home), packed])]


def fill_sva(build: InstBuilder, sva: str, needs: StateNeeds, entry: dict[str, tuple[int, int]],
             first_free_sgpr: int) -> list[Operation]:
    """The code writing every SVA lane ``needs`` names; ``entry`` is the SGPR layout at
    entry (:func:`~luthier.passes.preamble.emit.entry_sgprs` of the new descriptor)."""
    code: list[Operation] = []
    lanes: list[tuple[PhysRegAttr, int]] = []
    lane_vgpr = reg(sva) if sva.startswith("v") else LANE_VGPR
    if needs.launch_sizes:
        dispatch, _ = entry["properties.enable_sgpr_dispatch_ptr"]
        code, lanes = launch_sizes(build, needs, dispatch, first_free_sgpr, lane_vgpr)
    if needs.kernarg:
        first, _ = entry["properties.enable_sgpr_kernarg_segment_ptr"]
        lanes += [(reg(f"s{first + part}"), lane) for part, lane in enumerate(KERNARG_LANES)]
    for dim in sorted(needs.workgroup_ids):
        first, _ = entry[f"rsrc2.enable_sgpr_workgroup_id_{dim}"]
        lanes.append((reg(f"s{first}"), WORKGROUP_ID_LANES[dim]))
    code += [build.inst("v_writelane_b32", [lane_vgpr, register, lane])
             for register, lane in sorted(lanes, key=lambda item: item[1])]
    if lane_vgpr.data != sva:
        pair = _align(first_free_sgpr, 2)
        saved_exec = reg(f"s[{pair}:{pair + 1}]")
        slot = stack_slot(sva)
        copy: list[Operation] = [build.inst("v_accvgpr_write_b32", [reg(sva), lane_vgpr])] \
            if slot is None else list(slot_access(build, load_target(build.processor), True,
                                                  lane_vgpr, slot, reg(f"s{pair + 2}")))
        code += [build.inst("s_mov_b64", [saved_exec, EXEC]),
                 build.inst("s_mov_b64", [EXEC, -1]), *copy,
                 build.inst("s_mov_b64", [EXEC, saved_exec])]
    return code
