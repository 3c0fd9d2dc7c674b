"""Lane-crossing operations: ``ds_bpermute``/``ds_permute``,
``ds_swizzle``, and ``v_perm_b32`` (a byte permute within a lane, kept here with its kin).

DPP is in :mod:`.dpp`. The cross-lane DS forms move 32 bits through the LDS crossbar without
touching LDS memory; a lane reading from an inactive lane gets 0.
"""

from __future__ import annotations

import numpy as np

from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.semantics.vop import destination, source
from luthier.emulator.state import Vec, Wave

U32 = np.uint32


@semantics("v_perm_b32")
def _perm(inst: Instruction) -> Step:
    """Each result byte picks one of the 8 bytes of {S0, S1} (S1 is bytes 0-3), a sign
    byte (selectors 8-11: 0xff if bit 15/31/47/63 is set) or 0x00 (12) / 0xff (13+)."""
    r0, r1, r2 = source(inst, "src0"), source(inst, "src1"), source(inst, "src2")
    write = destination(inst)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        data = (np.asarray(r0(wave), U32).astype(np.uint64) << np.uint64(32)) | np.asarray(
            r1(wave), U32).astype(np.uint64)
        data = np.broadcast_to(data, (wave.lanes,))
        selectors = np.broadcast_to(np.asarray(r2(wave), U32), (wave.lanes,))
        result = np.zeros(wave.lanes, U32)
        for byte in range(4):
            select = ((selectors >> U32(8 * byte)) & U32(0xFF)).astype(np.uint64)
            picked = (data >> (np.minimum(select, 7) * np.uint64(8))) & np.uint64(0xFF)
            sign_bit = (data >> (np.uint64(15) + (select & np.uint64(3)) * np.uint64(16))) \
                & np.uint64(1)
            value = np.where(select < 8, picked,
                             np.where(select < 12, sign_bit * np.uint64(0xFF),
                                      np.where(select == 12, np.uint64(0), np.uint64(0xFF))))
            result |= value.astype(U32) << U32(8 * byte)
        write(wave, result)
        return following

    return step


def _crossbar_read(wave: Wave, values: Vec, source_lanes: Vec) -> Vec:
    """values[source_lanes], 0 where the source lane is inactive."""
    active = wave.active()
    picked = np.broadcast_to(np.asarray(values, U32), (wave.lanes,))[source_lanes]
    return np.where(active[source_lanes], picked, U32(0)).astype(U32)


@semantics("ds_bpermute_b32", "ds_permute_b32")
def _permute(inst: Instruction) -> Step:
    backward = inst.mnemonic == "ds_bpermute_b32"
    address = inst.vector("addr", 32)
    data = inst.vector("data0", 32)
    offset = U32(int(inst.get("offset", 0)))
    write = destination(inst)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        lanes = ((np.broadcast_to(np.asarray(address(wave), U32), (wave.lanes,)) + offset)
                 >> U32(2)).astype(np.intp) % wave.lanes
        values = np.asarray(data(wave), U32)
        if backward:
            write(wave, _crossbar_read(wave, values, lanes))
        else:
            result = np.zeros(wave.lanes, U32)
            active = np.flatnonzero(wave.active())
            result[lanes[active]] = np.broadcast_to(values, (wave.lanes,))[active]
            write(wave, result)
        return following

    return step


@semantics("ds_swizzle_b32")
def _swizzle(inst: Instruction) -> Step:
    """offset[15] set: quad permute (2 bits per lane of a quad); otherwise, within each 32
    lanes, the source is ((lane & and_mask) | or_mask) ^ xor_mask (masks of 5 bits at
    offset bits 0, 5 and 10)."""
    pattern = int(inst.get("offset", 0))
    data = inst.vector("data0", 32) if inst.has("data0") else inst.vector("addr", 32)
    write = destination(inst)
    lanes = inst.wave_size
    lane = np.arange(lanes, dtype=np.intp)
    if pattern & 0x8000:
        sources = lane - lane % 4 + ((pattern >> (2 * (lane % 4))) & 3)
    else:
        and_mask, or_mask, xor_mask = pattern & 0x1F, (pattern >> 5) & 0x1F, \
            (pattern >> 10) & 0x1F
        sources = lane - lane % 32 + ((((lane % 32) & and_mask) | or_mask) ^ xor_mask)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        write(wave, _crossbar_read(wave, np.asarray(data(wave), U32), sources))
        return following

    return step
