"""SOPP and program control: branches, ``s_endpgm``, ``s_barrier``, waits, PC access.

Waits (``s_waitcnt``) and scheduling hints are no-ops: the emulator completes every memory
access before the next instruction runs, so a wait has nothing left to wait for.
"""

from __future__ import annotations

from luthier.emulator.semantics.registry import BARRIER, END, Instruction, Step, semantics
from luthier.emulator.state import Wave

_NO_OPS = ("s_nop", "s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_lgkmcnt",
           "s_waitcnt_expcnt", "s_setprio", "s_sleep", "s_sched_barrier", "s_icache_inv",
           "s_dcache_wb", "s_dcache_inv", "s_dcache_wb_vol", "s_dcache_inv_vol",
           "s_ttracedata", "s_set_gpr_idx_off", "buffer_wbl2", "buffer_inv", "buffer_invl2",
           "buffer_wbinvl1", "buffer_wbinvl1_vol", "buffer_wbinvl1_sc", "s_inst_prefetch")


@semantics(*_NO_OPS)
def _no_op(inst: Instruction) -> Step:
    following = inst.next_pc
    return lambda wave: following


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
