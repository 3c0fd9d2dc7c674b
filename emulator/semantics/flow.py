"""SOPP and program control: branches, ``s_endpgm``, ``s_barrier``, waits, PC access.

Waits (``s_waitcnt``) and scheduling hints are no-ops: the emulator completes every memory
access before the next instruction runs, so a wait has nothing left to wait for.
"""

from __future__ import annotations

import time

from luthier.emulator.errors import EmulationError
from luthier.emulator.semantics.registry import (
    BARRIER,
    END,
    Builder,
    Instruction,
    Step,
    missing,
    semantics,
)
from luthier.emulator.semantics.vop import base_name
from luthier.emulator.state import M0, Wave

_NO_OPS = ("s_nop", "s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_lgkmcnt",
           "s_waitcnt_expcnt", "s_setprio", "s_sleep", "s_sched_barrier", "s_icache_inv",
           "s_dcache_wb", "s_dcache_inv", "s_dcache_wb_vol", "s_dcache_inv_vol",
           "s_ttracedata", "s_set_gpr_idx_off", "buffer_wbl2", "buffer_inv", "buffer_invl2",
           "buffer_wbinvl1", "buffer_wbinvl1_vol", "buffer_wbinvl1_sc", "s_inst_prefetch",
           # GFX10+: scheduling hints and the split wait counters (GFX12).
           "s_clause", "s_waitcnt_depctr", "s_delay_alu", "s_wait_loadcnt",
           "s_wait_storecnt", "s_wait_kmcnt", "s_wait_dscnt", "s_wait_samplecnt",
           "s_wait_bvhcnt", "s_wait_expcnt", "s_wait_alu", "s_wait_idle",
           "s_wait_loadcnt_dscnt", "s_wait_storecnt_dscnt", "buffer_gl0_inv",
           "buffer_gl1_inv", "global_inv", "global_wb")


@semantics(*_NO_OPS)
def _no_op(inst: Instruction) -> Step:
    following = inst.next_pc
    return lambda wave: following


#: ``s_sendmsg`` message ID (GFX11+) that releases the wave's VGPRs before ``s_endpgm``.
MSG_DEALLOC_VGPRS = 3


@semantics("s_sendmsg")
def _sendmsg(inst: Instruction) -> Step:
    """A message to the shader processor. The one compute kernels send, GFX11's
    DEALLOC_VGPRS before ``s_endpgm``, changes nothing the emulator models; any other stops
    the run rather than being skipped."""
    from luthier.amdgpu_dialects.target.subtarget import subtarget_for

    message = int(inst.get("simm16", 0)) & 0xFF
    program = inst.program
    if message == MSG_DEALLOC_VGPRS and program is not None \
            and subtarget_for(program.processor).major >= 11:
        following = inst.next_pc
        return lambda wave: following
    return missing(inst, f"message {message} has no semantics in the emulator")


@semantics("s_endpgm")
def _endpgm(inst: Instruction) -> Step:
    def step(wave: Wave) -> int:
        wave.done = True
        return END

    return step


@semantics("s_barrier")
def _barrier(inst: Instruction) -> Step:
    following = inst.next_pc

    def step(wave: Wave) -> int:
        wave.pc = following
        wave.at_barrier = True
        return BARRIER

    return step


#: The barrier ID of a workgroup's own barrier in GFX12's split barrier instructions.
WORKGROUP_BARRIER = -1


@semantics("s_barrier_signal")
def _barrier_signal(inst: Instruction) -> Step:
    """GFX12 splits ``s_barrier`` in two: ``s_barrier_signal -1`` says the wave arrived,
    ``s_barrier_wait -1`` waits for every wave of the workgroup to have arrived. A wave
    always signals before it waits, so the wait is where the emulator's barrier is; the
    signal changes nothing else. Named barriers (other IDs) stop the run."""
    value = inst.get("src0", 0)
    if not isinstance(value, int) or _signed32(value) != WORKGROUP_BARRIER:
        return missing(inst, f"barrier {value} (a named barrier) has no semantics in the "
                             "emulator")
    following = inst.next_pc
    return lambda wave: following


@semantics("s_barrier_wait")
def _barrier_wait(inst: Instruction) -> Step:
    if _signed16(int(inst.get("simm16", 0))) != WORKGROUP_BARRIER:
        return missing(inst, "a named barrier has no semantics in the emulator")
    return _barrier(inst)


def _signed32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >> 31 else value


def _signed16(value: int) -> int:
    value &= 0xFFFF
    return value - (1 << 16) if value >> 15 else value


@semantics("s_branch")
def _branch(inst: Instruction) -> Step:
    target = inst.targets[0]
    return lambda wave: target


@semantics("s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz",
           "s_cbranch_execz", "s_cbranch_execnz")
def _cbranch(inst: Instruction) -> Step:
    taken, fall = inst.targets[0], inst.targets[-1] if len(inst.targets) > 1 else inst.next_pc
    condition = inst.mnemonic.removeprefix("s_cbranch_")
    if condition == "scc0":
        return lambda wave: fall if wave.scc else taken
    if condition == "scc1":
        return lambda wave: taken if wave.scc else fall
    if condition == "vccz":
        return lambda wave: fall if wave.vcc_bits else taken
    if condition == "vccnz":
        return lambda wave: taken if wave.vcc_bits else fall
    if condition == "execz":
        return lambda wave: fall if wave.exec_bits else taken
    return lambda wave: taken if wave.exec_bits else fall


@semantics("s_trap")
def _trap(inst: Instruction) -> Step:
    """A trap with no trap handler: the dispatch aborts (what ``__builtin_trap`` and
    ``abort()`` compile to), reported with the trap id."""
    message = f"{inst.where}: the kernel trapped (s_trap {int(inst.get('simm16', 0)):#x})"

    def step(wave: Wave) -> int:
        raise EmulationError(message)

    return step


@semantics("s_getpc_b64")
def _getpc(inst: Instruction) -> Step:
    index, _ = inst.sdst()
    value = inst.address + inst.size
    following = inst.next_pc

    def step(wave: Wave) -> int:
        wave.s[index] = value & 0xFFFFFFFF
        wave.s[index + 1] = value >> 32
        return following

    return step


@semantics("s_setpc_b64")
def _setpc(inst: Instruction) -> Step:
    read = inst.scalar("src0", 64)
    program, where = inst.program, inst.where
    return lambda wave: program.pc_at(read(wave), where)


@semantics("s_swappc_b64")
def _swappc(inst: Instruction) -> Step:
    read = inst.scalar("src0", 64)
    index, _ = inst.sdst()
    program, where = inst.program, inst.where
    back = inst.address + inst.size

    def step(wave: Wave) -> int:
        target = read(wave)
        wave.s[index] = back & 0xFFFFFFFF
        wave.s[index + 1] = back >> 32
        return program.pc_at(target, where)

    return step


# -- hardware registers and clocks ---------------------------------------------------------

#: ``hwreg`` ids of GFX9 that the emulator keeps (others read 0 and ignore writes).
HW_REG_MODE = 1
HW_REG_STATUS = 2
HW_REG_HW_ID = 4


def _hwreg_fields(simm16: int) -> tuple[int, int, int]:
    """(id, bit offset, mask) of a ``hwreg(id, offset, size)`` operand."""
    size = ((simm16 >> 11) & 0x1F) + 1
    return simm16 & 0x3F, (simm16 >> 6) & 0x1F, (1 << size) - 1


def _read_hwreg(wave: Wave, register: int) -> int:
    if register == HW_REG_STATUS:  # SCC, EXECZ (bit 9), VCCZ (bit 10)
        return wave.scc | (int(wave.exec_bits == 0) << 9) | (int(wave.vcc_bits == 0) << 10)
    if register == HW_REG_HW_ID:  # wave id [3:0], SIMD [5:4], CU [11:8]
        return (wave.index & 0xF) | (((wave.index >> 4) & 3) << 4) | \
            (((wave.index >> 6) & 0xF) << 8)
    return wave.hwregs.get(register, 0)


@semantics("s_getreg_b32")
def _getreg(inst: Instruction) -> Step:
    register, offset, mask = _hwreg_fields(int(inst.get("simm16", 0)))
    index, _ = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        wave.s[index] = (_read_hwreg(wave, register) >> offset) & mask
        return following

    return step


@semantics("s_setreg_b32", "s_setreg_imm32_b32")
def _setreg(inst: Instruction) -> Step:
    """Writes are kept (and read back by s_getreg) but change nothing else: MODE's rounding
    and denormal fields do not alter the emulator's IEEE arithmetic."""
    register, offset, mask = _hwreg_fields(int(inst.get("simm16", 0)))
    read = inst.scalar("sdst", 32) if inst.mnemonic == "s_setreg_b32" else inst.scalar(
        "imm", 32)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        old = wave.hwregs.get(register, 0)
        wave.hwregs[register] = (old & ~(mask << offset)) | ((read(wave) & mask) << offset)
        return following

    return step


@semantics("s_memtime", "s_memrealtime")
def _memtime(inst: Instruction) -> Step:
    """A 64-bit clock at 100 MHz (the rate of the hardware's constant clock)."""
    index, _ = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        now = time.perf_counter_ns() // 10
        wave.s[index] = now & 0xFFFFFFFF
        wave.s[index + 1] = (now >> 32) & 0xFFFFFFFF
        return following

    return step


# -- VGPR indexing (s_set_gpr_idx_on ... s_set_gpr_idx_off) -------------------------------

@semantics("s_set_gpr_idx_on", "s_set_gpr_idx_idx", "s_set_gpr_idx_mode")
def _set_gpr_idx(inst: Instruction) -> Step:
    """M0[7:0] = the index (from src0), M0[15:12] = the mode. Which instructions the mode
    applies to is known when the program is compiled (see :func:`indexed_builder`)."""
    following = inst.next_pc
    if inst.mnemonic == "s_set_gpr_idx_mode":
        mode = int(inst.get("simm16", 0)) & 0xF

        def set_mode(wave: Wave) -> int:
            wave.s[M0] = (wave.s[M0] & ~0xF000) | (mode << 12)
            return following
        return set_mode
    read = inst.scalar("src0", 32)
    mode = int(inst.get("src1", 0)) & 0xF if inst.mnemonic == "s_set_gpr_idx_on" else -1

    def step(wave: Wave) -> int:
        value = (wave.s[M0] & ~0xFF) | (read(wave) & 0xFF)
        if mode >= 0:
            value = (value & ~0xF000) | (mode << 12)
        wave.s[M0] = value & 0xFFFFFFFF
        return following

    return step


def indexed_builder(mnemonic: str) -> Builder:
    """The builder of a VALU instruction inside a GPR index mode region: ``v_mov_b32`` with
    its VGPR source and/or destination offset by M0[7:0] (what LLVM emits for dynamic
    indexing of register arrays); other instructions there stop the run."""
    if base_name(mnemonic) != "v_mov_b32":
        return lambda inst: missing(inst, "is not modelled in GPR index mode (only "
                                          "v_mov_b32 is)")
    return _indexed_mov


def _indexed_mov(inst: Instruction) -> Step:
    mode = inst.gpr_index_mode
    source = inst.get("src0")
    _, target, _ = inst.vdst()
    following = inst.next_pc
    where = inst.where
    if not (isinstance(source, str) and source.startswith("v")):
        read = inst.vector("src0", 32)
        source_index = -1
    else:
        source_index = inst.vdst("src0")[1]
        read = None

    def step(wave: Wave) -> int:
        offset = wave.s[M0] & 0xFF
        if source_index >= 0:
            index = source_index + (offset if mode & 1 else 0)
            if index >= wave.v.shape[0]:
                raise EmulationError(f"{where}: indexed VGPR v{index} is past v255")
            value = wave.v[index].copy()
        else:
            assert read is not None
            value = read(wave)
        destination = target + (offset if mode & 8 else 0)
        if destination >= wave.v.shape[0]:
            raise EmulationError(f"{where}: indexed VGPR v{destination} is past v255")
        wave.write_v(destination, value)
        return following

    return step
