"""Saving application registers around a payload when dead registers are not enough.

When the allocator (:mod:`.regalloc_assign`) had to give a temporary a register the
application has live at the point, that register's value is kept elsewhere while the
payload runs, without memory (the instrumentation stack does not exist yet at this stage):

* an SGPR goes to a lane of a dead VGPR: ``v_writelane_b32 vL, sR, lane`` at payload entry,
  ``v_readlane_b32 sR, vL, lane`` at exit; one VGPR holds up to a wave's width of SGPRs.
  Lane reads and writes ignore EXEC, so nothing else is needed;
* a VGPR goes to a dead AGPR: ``v_accvgpr_write_b32 aX, vR`` / ``v_accvgpr_read_b32 vR, aX``.
  Those obey EXEC, and lanes EXEC has switched off may hold live values, so each side runs
  under a full EXEC: ``s_mov_b64 sT, exec; s_mov_b64 exec, -1; ...; s_mov_b64 exec, sT``,
  with ``sT`` a dead SGPR pair (or one more SGPR pair saved to a lane).

The save runs before the payload's first instruction and the restore just before its
``instr.return``: both see the application's EXEC, and no temporary of the payload is live
there, so ``sT`` may even be a register a temporary uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.instr.ops import ReturnOp
from luthier.lowering.isel.mc_builder import MCBuilder
from luthier.passes.analysis.units import file_range, unit_names
from luthier.passes.instrument.regalloc_assign import Pools


class SpillError(ValueError):
    """No register to keep a saved value in."""


@dataclass
class SpillPlan:
    """Where each saved register goes, and the registers the saving code itself takes."""

    #: ``(sgpr, vgpr, lane)`` per saved SGPR.
    sgprs: list[tuple[str, str, int]] = field(default_factory=list[tuple[str, str, int]])
    #: ``(vgpr, agpr)`` per saved VGPR.
    vgprs: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    #: The SGPR pair holding EXEC while VGPRs are copied.
    exec_save: str | None = None
    #: Registers the saving code writes that were dead (lane VGPRs, AGPRs, the EXEC pair).
    registers: list[str] = field(default_factory=list[str])

    @property
    def spilled(self) -> list[str]:
        return [sgpr for sgpr, _, _ in self.sgprs] + [vgpr for vgpr, _ in self.vgprs]


def _lowest(mask: int) -> int:
    return mask & -mask


def plan_spills(spilled: int, homes: int, named: int, pools: Pools,
                wave_size: int) -> SpillPlan:
    """Homes for the application units ``spilled``. ``homes`` are the units the payload's
    temporaries take and ``named`` the physical units its code reads or writes: a saved
    value's home must stay untouched by both for the whole payload."""
    plan = SpillPlan()
    free = pools.dead & pools.allowed & ~homes & ~named
    sgprs = [name for name in unit_names(spilled) if name.startswith("s")]
    vgprs = [name for name in unit_names(spilled) if name.startswith("v")]
    if vgprs:
        agprs = free & file_range("a", 0, 256)
        for vgpr in vgprs:
            agpr = _lowest(agprs)
            if not agpr:
                raise SpillError("nothing to spill into")
            agprs &= ~agpr
            home = unit_names(agpr)[0]
            plan.vgprs.append((vgpr, home))
            plan.registers.append(home)
        pair, saved = _exec_pair(pools, named, spilled)
        plan.exec_save = pair
        if saved:
            sgprs.extend(name for name in saved if name not in sgprs)
        else:
            plan.registers.append(pair)
    if sgprs:
        vector = free & file_range("v", 0, 256)
        current = ""
        for lanes, sgpr in enumerate(sgprs):
            if lanes % wave_size == 0:
                vgpr = _lowest(vector)
                if not vgpr:
                    raise SpillError("nothing to spill into")
                vector &= ~vgpr
                current = unit_names(vgpr)[0]
                plan.registers.append(current)
            plan.sgprs.append((sgpr, current, lanes % wave_size))
    return plan


def _exec_pair(pools: Pools, named: int, spilled: int) -> tuple[str, list[str]]:
    """An even SGPR pair to hold EXEC, and the live SGPRs of it that must be saved first:
    a dead pair the payload's code does not name, else a pair already being saved, else
    one more live pair saved to a lane for the purpose."""
    dead = pools.dead & pools.allowed & ~named
    for usable in (dead, dead | spilled, dead | spilled | pools.spillable):
        for start in range(0, 102, 2):
            pair = file_range("s", start, 2)
            if pair & usable == pair:
                return f"s[{start}:{start + 1}]", unit_names(pair & ~dead)
    raise SpillError("nothing to spill into")


def emit_spill_code(plan: SpillPlan, blocks: list[Block], processor: str) -> list[Operation]:
    """Insert the saves at the payload's entry and the restores before each
    ``instr.return``; returns the new ops."""
    if not plan.sgprs and not plan.vgprs:
        return []
    build = MCBuilder(processor)
    saves: list[InstructionOpBase] = [build.inst("v_writelane_b32", [vgpr, sgpr, lane])
                                      for sgpr, vgpr, lane in plan.sgprs]
    restores: list[InstructionOpBase] = []
    if plan.vgprs and plan.exec_save is not None:
        saves += _under_full_exec(build, plan.exec_save, [
            build.inst("v_accvgpr_write_b32", [agpr, vgpr]) for vgpr, agpr in plan.vgprs])
        restores += _under_full_exec(build, plan.exec_save, [
            build.inst("v_accvgpr_read_b32", [vgpr, agpr]) for vgpr, agpr in plan.vgprs])
    new: list[Operation] = list(saves)
    entry = blocks[0]
    first = entry.first_op
    if first is None:
        entry.add_ops(saves)
    else:
        entry.insert_ops_before(saves, first)
    for block in blocks:
        last = block.last_op
        if not isinstance(last, ReturnOp):
            continue
        ops = restores + [build.inst("v_readlane_b32", [sgpr, vgpr, lane])
                          for sgpr, vgpr, lane in plan.sgprs]
        block.insert_ops_before(ops, last)
        new.extend(ops)
        restores = [op.clone() for op in restores]
    return new


def _under_full_exec(build: MCBuilder, pair: str,
                     ops: list[InstructionOpBase]) -> list[InstructionOpBase]:
    return [build.inst("s_mov_b64", [pair, "exec"]), build.inst("s_mov_b64", ["exec", -1]),
            *ops, build.inst("s_mov_b64", ["exec", pair])]
