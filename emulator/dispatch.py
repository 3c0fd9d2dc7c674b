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

Memory follows the waves in flight, not the grid: a finished workgroup leaves behind only
its waves' instruction counts (8 bytes each, in :class:`Dispatched`); its waves, their
registers and scratch, and its LDS are freed as soon as the next workgroup starts, by
reference counting (a finished wave lets go of its workgroup, so no cycle waits for the
garbage collector). Time is bounded twice: per wave (``max_instructions``, a kernel that
never ends) and per launch (``max_launch_instructions``, a grid too big to emulate in
useful time). The launch announces its workgroups as a progress stage
(:mod:`luthier.lowering.progress`), which ``luthier-run`` shows on a terminal.
"""

from __future__ import annotations

import itertools
import math
from array import array
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
from luthier.emulator.state import M0, TTMP, Wave
from luthier.lowering.progress import stage

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
    #: Instructions the whole launch may execute, all waves together; None: no limit.
    max_launch_instructions: int | None = None


@dataclass
class Dispatched:
    """What a finished launch leaves: the instructions each wave executed, in dispatch
    order (workgroup, then wave), as a compact array rather than the waves themselves, and
    the lanes of a wave."""

    wave_instructions: array[int]
    wave_size: int


class InstructionLimit(EmulationError):
    """A wave reached the instructions it was allowed (:func:`run_wave`). Its message names
    the per-wave limit; :func:`dispatch` words it as the launch's budget instead when that
    is what ran out. ``where`` is the instruction it stopped at."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.where = where


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
                  architected_scratch: bool, architected_sgprs: bool) -> None:
    rsrc2 = info.descriptor.compute_pgm_rsrc2
    index = rsrc2.user_sgpr_count
    if architected_sgprs:
        # GFX12: the workgroup ids are in TTMP9 (X) and TTMP7 (Y low, Z high half), not in
        # system SGPRs, whatever the descriptor enables.
        wave.s[TTMP + 9] = group.ids[0]
        wave.s[TTMP + 7] = (group.ids[1] & 0xFFFF) | ((group.ids[2] & 0xFFFF) << 16)
    else:
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
                where = program.instructions[pc].where
                raise InstructionLimit(f"wave {wave.index} ran more than the limit of "
                                       f"instructions; stopped at {where}", where)
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


class _LaunchBudgetSpent(Exception):
    """The launch's instruction budget ran out in ``wave`` at ``where`` (turned into the
    one-line :class:`EmulationError` by :func:`dispatch`, which knows the kernel)."""

    def __init__(self, wave: Wave, where: str) -> None:
        super().__init__(where)
        self.wave = wave
        self.where = where


def run_workgroup(group: Workgroup, program: Program, budget: int,
                  steps: list[Step] | None = None, launch_budget: int | None = None) -> int:
    """Run the waves of ``group`` to their end, each within ``budget`` instructions and all
    together within ``launch_budget`` (None: no such limit); returns the instructions the
    group executed."""
    spent = 0
    while True:
        for wave in group.waves:
            if not wave.done and not wave.at_barrier:
                allowed, by_launch = budget - wave.executed, False
                if launch_budget is not None and launch_budget - spent < allowed:
                    allowed, by_launch = launch_budget - spent, True
                before = wave.executed
                try:
                    run_wave(wave, program, allowed, steps)
                except InstructionLimit as error:
                    if by_launch:
                        raise _LaunchBudgetSpent(wave, error.where) from None
                    raise
                finally:
                    spent += wave.executed - before
        live = [wave for wave in group.waves if not wave.done]
        if not live:
            return spent
        for wave in live:
            wave.at_barrier = False


def dispatch(program: Program, kernel: str, setup: DispatchSetup,
             memory: GlobalMemory) -> Dispatched:
    """Run every workgroup of the grid; returns the instructions each wave executed. Only
    one workgroup's waves exist at a time: a finished one is reduced to its counts."""
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
    architected_sgprs = isa.subtarget.has_architected_sgprs
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
    counts: array[int] = array("q")
    launch_left = setup.max_launch_instructions
    total = setup.grid[0] * setup.grid[1] * setup.grid[2]
    running = stage(f"run {kernel}", total, "workgroup")
    wave_number = 0
    try:
        for done, (gz, gy, gx) in enumerate(itertools.product(
                range(setup.grid[2]), range(setup.grid[1]), range(setup.grid[0]))):
            group = Workgroup((gx, gy, gz), LocalMemory(lds_size, "LDS"))
            for w in range(waves_per_group):
                wave = Wave(lanes, group, wave_number)
                wave_number += 1
                wave.memory = memory
                wave.private = PrivateMemory(lanes, scratch)
                _user_sgprs(wave, info, setup, memory, scratch)
                _system_sgprs(wave, info, group, waves_per_group, architected_scratch,
                              architected_sgprs)
                wave.exec_bits = _workitem_ids(wave, info, setup, packed, w * lanes)
                wave.s[M0] = 0xFFFFFFFF
                wave.hwregs[1] = mode
                wave.pc = entry
                group.waves.append(wave)
            try:
                spent = run_workgroup(group, program, setup.max_instructions, setup.steps,
                                      launch_left)
            except _LaunchBudgetSpent as stop:
                raise EmulationError(
                    f"kernel {kernel} reached the launch's budget of "
                    f"{setup.max_launch_instructions} instructions (max_launch_instructions; "
                    "luthier-run --max-launch-instructions N raises it): stopped in "
                    f"workgroup {group.ids}, wave {stop.wave.index}, at {stop.where}, with "
                    f"{done} of {total} workgroups done") from None
            if launch_left is not None:
                launch_left -= spent
            counts.extend(wave.executed for wave in group.waves)
            for wave in group.waves:
                wave.release()
            group.lds = _NO_LDS  # finished: its LDS is not read again
            running.advance()
    finally:
        running.close()
    return Dispatched(counts, lanes)
