"""DPP (data-parallel primitives): which lane each lane reads its src0 from.

``dpp_ctrl`` makes lane i read src0 of another lane of its row of 16: quad permutations,
row shifts and rotations, mirrors, broadcasts of lane 15/31, whole-wave shifts. A lane whose
source lane is out of range or inactive reads 0 when ``bound_ctrl`` is set and is not
written otherwise; ``row_mask``/``bank_mask`` disable whole rows / banks of four lanes.
:func:`.vop.source` and :func:`.vop.destination` apply these to any VOP1/VOP2 operation.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from luthier.emulator.semantics.registry import Instruction
from luthier.emulator.state import Mask

Index = npt.NDArray[np.intp]


@functools.cache
def dpp_sources(control: int, lanes: int) -> tuple[Index, Mask]:
    """(source lane, whether it exists) of every lane for a ``dpp_ctrl`` value."""
    lane = np.arange(lanes, dtype=np.intp)
    row_lane = lane % 16
    row_base = lane - row_lane
    valid = np.ones(lanes, np.bool_)
    if control <= 0xFF:  # quad_perm
        pick = (control >> (2 * (lane % 4))) & 3
        return lane - lane % 4 + pick, valid
    if 0x101 <= control <= 0x10F:  # row_shl: read from the lane above
        shift = control & 0xF
        return lane + shift, row_lane + shift < 16
    if 0x111 <= control <= 0x11F:  # row_shr
        shift = control & 0xF
        return lane - shift, row_lane - shift >= 0
    if 0x121 <= control <= 0x12F:  # row_ror
        shift = control & 0xF
        return row_base + (row_lane - shift) % 16, valid
    if control == 0x130:  # wave_shl1
        return lane + 1, lane + 1 < lanes
    if control == 0x134:  # wave_rol1
        return (lane + 1) % lanes, valid
    if control == 0x138:  # wave_shr1
        return lane - 1, lane >= 1
    if control == 0x13C:  # wave_ror1
        return (lane - 1) % lanes, valid
    if control == 0x140:  # row_mirror
        return row_base + 15 - row_lane, valid
    if control == 0x141:  # row_half_mirror
        return lane - lane % 8 + 7 - lane % 8, valid
    if control == 0x142:  # row_bcast:15: rows 1-3 read lane 15 of the row before
        return row_base - 1, lane >= 16
    if control == 0x143:  # row_bcast:31: the upper half reads lane 31
        return np.full(lanes, 31, np.intp), lane >= 32
    raise ValueError(f"dpp_ctrl {control:#x} is not a DPP control")


def dpp_lanes(inst: Instruction) -> tuple[Index, Mask, Mask, bool]:
    """Source lanes, their existence, the lanes row/bank masks allow, and bound_ctrl."""
    lanes = inst.wave_size
    try:
        source_lanes, exists = dpp_sources(int(inst.get("dpp_ctrl", 0)), lanes)
    except ValueError as error:
        raise inst.unsupported(str(error)) from None
    lane = np.arange(lanes)
    row_mask = int(inst.get("row_mask", 0xF))
    bank_mask = int(inst.get("bank_mask", 0xF))
    enabled = ((row_mask >> (lane // 16)) & 1).astype(np.bool_) & (
        (bank_mask >> ((lane % 16) // 4)) & 1).astype(np.bool_)
    return np.clip(source_lanes, 0, lanes - 1), exists, enabled, bool(inst.get("bound_ctrl", 0))
