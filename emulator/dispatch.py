"""Dispatch: a grid of workgroups of waves, started with the state the descriptor asks for.

Initial state follows AMDGPUUsage.rst, "Initial Kernel Execution State": user SGPRs in
the order private segment buffer (4), dispatch ptr (2), queue ptr (2), kernarg segment ptr
(2), dispatch id (2), flat scratch init (2), preloaded kernargs, private segment size (1),
each present when its ``enable_sgpr_*`` bit is set; then, from ``user_sgpr_count`` on, the
system SGPRs: workgroup id x/y/z, workgroup info, and the scratch wave offset (not on
targets with architected flat scratch, GFX940). Work-item ids go to v0/v1/v2, or packed
into v0 (10 bits each) on targets with packed work-item ids (GFX90A, GFX940).

Workgroups run one after another; the waves of a workgroup run round-robin, each until it
ends or reaches ``s_barrier``. When every wave that has not ended waits at the barrier,
they are all released, which is the barrier's meaning (ended waves no longer count).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from luthier.emulator.errors import EmulationError
from luthier.emulator.memory import (
    PRIVATE_APERTURE,
    SCRATCH_BACKING,
    GlobalMemory,
    LocalMemory,
    PrivateMemory,
)
from luthier.emulator.program import KernelInfo, Program
from luthier.emulator.semantics.registry import BARRIER, END, Step
from luthier.emulator.state import M0, Wave

#: Bits 31:16 of V# dword 1 hold the stride; dword 3 of the scratch V# LLVM expects
#: (ADD_TID_ENABLE, INDEX_STRIDE 64, ELEMENT_SIZE 4): only its presence matters here.
_SCRATCH_RSRC_WORD3 = 0x00E00000


@dataclass
class Workgroup:
    """What the waves of a workgroup share."""

    ids: tuple[int, int, int]
    lds: LocalMemory
    waves: list[Wave] = field(default_factory=lambda: list[Wave]())


#: The LDS of a finished workgroup.
_NO_LDS = LocalMemory(0, "LDS")


@dataclass
class DispatchSetup:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    kernarg_address: int
    dispatch_address: int
    queue_address: int
    dynamic_lds: int
    scratch_per_lane: int
    max_instructions: int
    #: The step table to run (the program's, or traced steps); None: the program's own.
    steps: list[Step] | None = None


def _user_sgprs(wave: Wave, info: KernelInfo, setup: DispatchSetup, memory: GlobalMemory,
                scratch_bytes: int) -> None:
    properties = info.descriptor.kernel_code_properties
    index = 0

    def put(value: int, dwords: int) -> None:
        nonlocal index
        for k in range(dwords):
            if index + k < 16:
                wave.s[index + k] = (value >> (32 * k)) & 0xFFFFFFFF
        index += dwords

    if properties.enable_sgpr_private_segment_buffer:
        put(SCRATCH_BACKING & 0xFFFFFFFF, 1)
        put(SCRATCH_BACKING >> 32, 1)
        put(0xFFFFFFFF, 1)
        put(_SCRATCH_RSRC_WORD3, 1)
    if properties.enable_sgpr_dispatch_ptr:
        put(setup.dispatch_address, 2)
    if properties.enable_sgpr_queue_ptr:
        put(setup.queue_address, 2)
    if properties.enable_sgpr_kernarg_segment_ptr:
        put(setup.kernarg_address, 2)
    if properties.enable_sgpr_dispatch_id:
        put(0, 2)
    if properties.enable_sgpr_flat_scratch_init:
        put(PRIVATE_APERTURE, 2)
    preload = info.descriptor.kernarg_preload
    if preload.kernarg_preload_spec_length:
        start = setup.kernarg_address + 4 * preload.kernarg_preload_spec_offset
        for k in range(preload.kernarg_preload_spec_length):
            put(int.from_bytes(memory.read(start + 4 * k, 4, "kernarg preload"), "little"), 1)
    if properties.enable_sgpr_private_segment_size:
        put(scratch_bytes, 1)


def _system_sgprs(wave: Wave, info: KernelInfo, group: Workgroup, waves: int,
                  architected_scratch: bool) -> None:
    rsrc2 = info.descriptor.compute_pgm_rsrc2
    index = rsrc2.user_sgpr_count
    for enabled, value in ((rsrc2.enable_sgpr_workgroup_id_x, group.ids[0]),
                           (rsrc2.enable_sgpr_workgroup_id_y, group.ids[1]),
                           (rsrc2.enable_sgpr_workgroup_id_z, group.ids[2])):
        if enabled:
            wave.s[index] = value
            index += 1
    if rsrc2.enable_sgpr_workgroup_info:
        wave.s[index] = waves & 0x3F
        index += 1
    if rsrc2.enable_private_segment and not architected_scratch:
        wave.s[index] = 0  # each wave has scratch of its own: its offset is 0
        index += 1


def _workitem_ids(wave: Wave, info: KernelInfo, setup: DispatchSetup, packed: bool,
                  first: int) -> int:
    """Set v0 (v1, v2) for the lanes of the wave starting at flat work-item ``first``;
    returns the EXEC mask of the lanes that hold a work-item."""
    bx, by, bz = setup.block
    flat = first + np.arange(wave.lanes, dtype=np.int64)
    valid = flat < bx * by * bz
    x = (flat % bx).astype(np.uint32)
    y = ((flat // bx) % by).astype(np.uint32)
    z = (flat // (bx * by)).astype(np.uint32)
    x, y, z = (np.where(valid, part, 0).astype(np.uint32) for part in (x, y, z))
    level = info.descriptor.compute_pgm_rsrc2.enable_vgpr_workitem_id
    if packed:
        value = x.copy()
        if level > 0:
            value |= y << np.uint32(10)
        if level > 1:
            value |= z << np.uint32(20)
        wave.v[0] = value
    else:
        wave.v[0] = x
        if level > 0:
            wave.v[1] = y
        if level > 1:
            wave.v[2] = z
    return int.from_bytes(np.packbits(valid, bitorder="little").tobytes(), "little")


def run_wave(wave: Wave, program: Program, budget: int,
             steps: list[Step] | None = None) -> None:
    """Run ``wave`` until it ends or reaches a barrier, through ``steps`` (the program's
    own unless given: traced steps record as they run)."""
    steps = program.steps if steps is None else steps
    pc = wave.pc
    count = 0
    # Float semantics produce inf/NaN on purpose (IEEE results), not by accident.
    errors = np.seterr(all="ignore")
    try:
        while pc >= 0:
            if count >= budget:
                raise EmulationError(f"wave {wave.index} ran more than the limit of "
                                     f"instructions; stopped at "
                                     f"{program.instructions[pc].where}")
            pc = steps[pc](wave)
            count += 1
    except EmulationError:
        wave.executed += count
        raise
    except Exception as error:  # a handler's own failure: say where it happened
        where = program.instructions[pc].where if 0 <= pc < len(steps) else f"pc {pc}"
        raise EmulationError(f"{where}: internal error: {type(error).__name__}: {error}") \
            from error
    finally:
        np.seterr(**errors)
    wave.executed += count
    if pc == END:
        wave.done = True
    elif pc != BARRIER:
        raise EmulationError(f"wave {wave.index} stopped with pc {pc}")


def run_workgroup(group: Workgroup, program: Program, budget: int,
                  steps: list[Step] | None = None) -> None:
    while True:
        for wave in group.waves:
            if not wave.done and not wave.at_barrier:
                run_wave(wave, program, budget - wave.executed, steps)
        live = [wave for wave in group.waves if not wave.done]
        if not live:
            return
        for wave in live:
            wave.at_barrier = False


def dispatch(program: Program, kernel: str, setup: DispatchSetup,
             memory: GlobalMemory) -> list[Workgroup]:
    """Run every workgroup of the grid; returns them (their waves hold the counts)."""
    info = program.kernels.get(kernel)
    if info is None:
        raise EmulationError(f"no kernel named {kernel} (kernels: "
                             f"{', '.join(sorted(program.kernels)) or 'none'})")
    descriptor = info.descriptor
    lanes = 32 if descriptor.kernel_code_properties.enable_wavefront_size32 else \
        program.wave_size
    from luthier.amdgpu_dialects.isa.target import load_target

    isa = load_target(program.processor)
    packed = isa.subtarget.has_packed_work_item_ids
    architected_scratch = isa.subtarget.has_architected_flat_scratch
    threads = setup.block[0] * setup.block[1] * setup.block[2]
    if threads <= 0 or min(setup.grid) <= 0:
        raise EmulationError("grid and block sizes must be positive")
    waves_per_group = math.ceil(threads / lanes)
    lds_size = descriptor.group_segment_fixed_size + setup.dynamic_lds
    scratch = max(descriptor.private_segment_fixed_size, setup.scratch_per_lane)
    entry = info.entry
    rsrc1 = descriptor.compute_pgm_rsrc1
    # MODE: FP_ROUND [3:0], FP_DENORM [7:4], DX10_CLAMP [8], IEEE [9], from the descriptor.
    mode = (rsrc1.float_round_mode_32 | (rsrc1.float_round_mode_16_64 << 2)
            | (rsrc1.float_denorm_mode_32 << 4) | (rsrc1.float_denorm_mode_16_64 << 6)
            | (int(rsrc1.enable_dx10_clamp) << 8) | (int(rsrc1.enable_ieee_mode) << 9))
    if descriptor.kernarg_preload.kernarg_preload_spec_length:
        # Firmware that preloads kernel arguments enters 256 bytes in: the first 256 bytes
        # are the fallback for firmware that does not (AMDGPUUsage.rst, "Preloaded Kernel
        # Arguments").
        address = program.instructions[entry].address + 256
        entry = program.pc_at(address, f"kernel {kernel} (preloaded arguments)")
    groups: list[Workgroup] = []
    wave_number = 0
    for gz, gy, gx in itertools.product(range(setup.grid[2]), range(setup.grid[1]),
                                        range(setup.grid[0])):
        group = Workgroup((gx, gy, gz), LocalMemory(lds_size, "LDS"))
        for w in range(waves_per_group):
            wave = Wave(lanes, group, wave_number)
            wave_number += 1
            wave.memory = memory
            wave.private = PrivateMemory(lanes, scratch)
            _user_sgprs(wave, info, setup, memory, scratch)
            _system_sgprs(wave, info, group, waves_per_group, architected_scratch)
            wave.exec_bits = _workitem_ids(wave, info, setup, packed, w * lanes)
            wave.s[M0] = 0xFFFFFFFF
            wave.hwregs[1] = mode
            wave.pc = entry
            group.waves.append(wave)
        run_workgroup(group, program, setup.max_instructions, setup.steps)
        for wave in group.waves:
            wave.release()
        group.lds = _NO_LDS  # finished: its LDS is not read again
        groups.append(group)
    return groups
