"""Saving application registers around a payload when dead registers are not enough.

When the allocator (:mod:`.regalloc_assign`) had to give a temporary a register the
application has live at the point, that register's value is kept elsewhere while the
payload runs:

* an SGPR goes to a lane of a VGPR (the *lane holder*): ``v_writelane_b32 vL, sR, lane``
  at payload entry, ``v_readlane_b32 sR, vL, lane`` at exit; one VGPR holds up to a wave's
  width of SGPRs. Lane reads and writes ignore EXEC, so nothing else is needed. The holder
  is a dead VGPR; when none is dead, a live VGPR the payload does not name is saved first
  (like any saved VGPR, below) and restored after the SGPRs are read back;
* a VGPR goes to a dead AGPR (``v_accvgpr_write_b32 aX, vR`` / ``v_accvgpr_read_b32 vR,
  aX``), unless ``spill_vgprs_to_agprs`` is off or no AGPR is dead: then to a 4-byte slot
  of the instrumentation stack (:mod:`luthier.passes.preamble.scratch`): ``scratch_store_
  dword`` at entry, ``scratch_load_dword`` and ``s_waitcnt vmcnt(0)`` at exit. GFX942
  addresses the slot with the immediate (``off, vR, off offset:K``); GFX90A has no such
  form, so an SGPR ``sA`` gets the stack base (``s_mov_b32 sA, base``) and the slot is
  ``off, vR, sA offset:4*i``.

Saving and restoring a VGPR obeys EXEC, and lanes EXEC has switched off may hold live
values, so it runs under a full EXEC: ``s_mov_b64 sT, exec; s_mov_b64 exec, -1; ...;
s_mov_b64 exec, sT``, with ``sT`` a dead SGPR pair (or one more SGPR pair saved to a lane
of a dead holder first); in wave32, ``s_mov_b32`` of ``exec_lo`` and one SGPR. ``sA`` is
a dead SGPR, or one saved the same way.

The order resolves what depends on what. At entry: the SGPRs held by dead VGPRs are
written to lanes (``sT``/``sA`` among them if they are live), then the VGPRs are saved
under full EXEC, then the SGPRs held by saved VGPRs are written to lanes. Before each
``instr.return``, the mirror image. A saved holder is written after it is saved and read
before it is restored; ``sT``/``sA`` are never held by a saved holder (they are needed to
save it), so when every VGPR is live they must be dead.

The saves run before the payload's first instruction and the restores just before its
``instr.return``: both see the application's EXEC, and no temporary of the payload is live
there, so ``sT`` and ``sA`` may even be registers a temporary uses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.ir import Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.builder import OFF, InstBuilder, Keyword, reg
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.register_units import SGPR_COUNT, file_range, unit_names
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.instr.ops import ReturnOp
from luthier.passes.instrument.regalloc_assign import Pools
from luthier.passes.preamble.scratch import SLOT_BYTES, check_immediate_offset, slot_offset


class SpillError(ValueError):
    """No register to keep a saved value in."""


@dataclass
class SpillPlan:
    """Where each saved register goes, and the registers the saving code itself takes."""

    #: ``(sgpr, vgpr, lane)`` per saved SGPR.
    sgprs: list[tuple[str, str, int]] = field(default_factory=list[tuple[str, str, int]])
    #: ``(vgpr, agpr)`` per VGPR saved to an AGPR.
    vgprs: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    #: VGPRs saved to the instrumentation stack, slot by slot.
    memory: list[str] = field(default_factory=list[str])
    #: Byte offset of slot 0 (the stack base of the payload's function).
    stack_offset: int = 0
    #: The SGPR holding the stack base while slots are accessed (GFX90A), else None.
    address: str | None = None
    #: Lane holders that are live VGPRs saved first (their SGPRs are written after).
    saved_holders: list[str] = field(default_factory=list[str])
    #: The SGPRs holding EXEC while VGPRs are copied (a pair in wave64, one in wave32).
    exec_save: str | None = None
    #: Registers the saving code writes that were dead (lane VGPRs, AGPRs, the EXEC pair,
    #: the stack address SGPR).
    registers: list[str] = field(default_factory=list[str])

    @property
    def spilled(self) -> list[str]:
        """Every application register saved and restored."""
        return [sgpr for sgpr, _, _ in self.sgprs] + [vgpr for vgpr, _ in self.vgprs] \
            + self.memory

    @property
    def stack_bytes(self) -> int:
        return SLOT_BYTES * len(self.memory)


@dataclass(frozen=True, slots=True)
class StackAccess:
    """How a payload reaches the instrumentation stack: ``base`` gives the first byte of
    its slots (raising :class:`~luthier.passes.preamble.scratch.StackError` when there is
    no place); ``address_sgpr`` is whether the target needs an SGPR to address them."""

    base: Callable[[], int]
    address_sgpr: bool
    #: The largest immediate offset a slot may have (see ``max_scratch_offset``).
    max_offset: int


def _lowest(mask: int) -> int:
    return mask & -mask


#: Every SGPR of the unit model (s0-s105): which of them a target addresses (s0-s101 on
#: GFX9, s0-s105 from GFX10) is in the pools' ``allowed`` and ``budget`` masks.
_SGPRS = file_range("s", 0, SGPR_COUNT)
_VGPRS = file_range("v", 0, 256)


def plan_spills(spilled: int, homes: int, named: int, pools: Pools, wave_size: int,
                to_agprs: bool = True, stack: StackAccess | None = None) -> SpillPlan:
    """Homes for the application units ``spilled``. ``homes`` are the units the payload's
    temporaries take and ``named`` the physical units its code reads or writes: a saved
    value's home must stay untouched by both for the whole payload. VGPRs go to dead AGPRs
    when ``to_agprs``, else (or when none is left) to ``stack`` slots; without ``stack``
    that is a SpillError."""
    plan = _plan(spilled, homes, named, pools, wave_size, to_agprs, stack, False)
    if plan.memory and stack is not None and stack.address_sgpr and plan.address is None:
        # Saving lane holders to memory was not foreseen: plan again with the address.
        plan = _plan(spilled, homes, named, pools, wave_size, to_agprs, stack, True)
    if plan.memory and stack is not None:
        plan.stack_offset = stack.base()
        if not stack.address_sgpr:
            check_immediate_offset(slot_offset(plan.stack_offset, len(plan.memory) - 1),
                                   stack.max_offset)
    return plan


def _plan(spilled: int, homes: int, named: int, pools: Pools, wave_size: int,
          to_agprs: bool, stack: StackAccess | None, want_address: bool) -> SpillPlan:
    plan = SpillPlan()
    free = pools.dead & pools.allowed & ~homes & ~named
    sgprs = [name for name in unit_names(spilled) if name.startswith("s")]
    vgprs = [name for name in unit_names(spilled) if name.startswith("v")]
    agprs = free & file_range("a", 0, 256) if to_agprs else 0
    dead_vgprs = free & _VGPRS
    # Live VGPRs that may be saved to become lane holders.
    live_vgprs = pools.spillable & _VGPRS & ~homes & ~spilled & ~named
    dead_holders = dead_vgprs.bit_count()
    lanes_needed = len(sgprs)
    saves_vgprs = bool(vgprs) or lanes_needed > dead_holders * wave_size
    agpr_room = agprs.bit_count()
    holders_saved = max(0, -(-lanes_needed // wave_size) - dead_holders)
    uses_memory = len(vgprs) + holders_saved > agpr_room or want_address
    extra: list[str] = []
    #: Dead SGPRs the saving code takes (recorded after the AGPRs, as they are used).
    dead_scalars: list[str] = []
    taken = 0
    if saves_vgprs:
        pair, saved = _exec_save(pools, named, spilled, wave_size)
        plan.exec_save = pair
        taken |= _units(pair)
        if saved:
            extra.extend(name for name in saved if name not in sgprs)
        else:
            dead_scalars.append(pair)
    if uses_memory and stack is not None and stack.address_sgpr:
        address, saved = _address_sgpr(pools, named, spilled, taken)
        plan.address = address
        if saved:
            extra.extend(name for name in saved if name not in sgprs and name not in extra)
        else:
            dead_scalars.append(address)
    # sT and sA (where live) are written before the VGPRs are saved: they come first, so
    # they land in dead holders.
    critical = taken | (_units(plan.address) if plan.address else 0)
    must_be_dead = set(unit_names(critical))
    ordered = [name for name in [*extra, *sgprs] if name in must_be_dead]
    ordered += [name for name in [*extra, *sgprs] if name not in ordered]

    def save_vgpr(vgpr: str) -> None:
        nonlocal agprs
        agpr = _lowest(agprs)
        if agpr:
            agprs &= ~agpr
            home = unit_names(agpr)[0]
            plan.vgprs.append((vgpr, home))
            plan.registers.append(home)
            return
        if stack is None:
            raise SpillError("nothing to spill into")
        plan.memory.append(vgpr)

    for vgpr in vgprs:
        save_vgpr(vgpr)
    plan.registers.extend(dead_scalars)
    current = ""
    for lanes, sgpr in enumerate(ordered):
        if lanes % wave_size == 0:
            holder = _lowest(dead_vgprs)
            if holder:
                dead_vgprs &= ~holder
                current = unit_names(holder)[0]
                plan.registers.append(current)
            else:
                holder = _lowest(live_vgprs)
                if not holder:
                    raise SpillError("nothing to spill into")
                live_vgprs &= ~holder
                current = unit_names(holder)[0]
                plan.saved_holders.append(current)
                save_vgpr(current)
        if current in plan.saved_holders and sgpr in must_be_dead:
            raise SpillError("no dead VGPR for the SGPRs that hold EXEC and the stack "
                             "address while the lane VGPR is saved")
        plan.sgprs.append((sgpr, current, lanes % wave_size))
    return plan


def _units(name: str) -> int:
    """Units of an SGPR or SGPR tuple name (``s7``, ``s[2:3]``)."""
    if not name.startswith("s["):
        return file_range("s", int(name[1:]), 1)
    start, _, end = name[2:-1].partition(":")
    return file_range("s", int(start), int(end) - int(start) + 1)


def _exec_save(pools: Pools, named: int, spilled: int,
               wave_size: int) -> tuple[str, list[str]]:
    """SGPRs to hold EXEC (an even pair in wave64, one SGPR in wave32), and the live SGPRs
    of them that must be saved first: dead ones the payload's code does not name, else
    ones already being saved, else live ones saved to a lane for the purpose."""
    dead = pools.dead & pools.allowed & ~named
    width = 2 if wave_size == 64 else 1
    for usable in (dead, dead | spilled, dead | spilled | pools.spillable):
        for start in range(0, SGPR_COUNT, width):
            held = file_range("s", start, width)
            if held & usable == held:
                name = f"s[{start}:{start + 1}]" if width == 2 else f"s{start}"
                return name, unit_names(held & ~dead)
    raise SpillError("nothing to spill into")


def _address_sgpr(pools: Pools, named: int, spilled: int, taken: int) -> tuple[str, list[str]]:
    """An SGPR to hold the stack base (not ``taken`` by the EXEC pair), and whether it must
    be saved: a dead one first, else one already being saved, else one more live SGPR."""
    dead = pools.dead & pools.allowed & ~named & ~taken & _SGPRS
    for usable in (dead, dead | (spilled & _SGPRS & ~taken),
                   dead | ((spilled | pools.spillable) & _SGPRS & ~taken)):
        bit = _lowest(usable)
        if bit:
            return unit_names(bit)[0], unit_names(bit & ~dead)
    raise SpillError("nothing to spill into")


def emit_spill_code(plan: SpillPlan, blocks: list[Block], processor: str,
                    wavefront_size: int | None = None) -> list[Operation]:
    """Insert the saves at the payload's entry and the restores before each
    ``instr.return``; returns the new ops."""
    if not plan.sgprs and not plan.vgprs and not plan.memory:
        return []
    build = InstBuilder(processor, wavefront_size)
    saved_holders = set(plan.saved_holders)
    early = [entry for entry in plan.sgprs if entry[1] not in saved_holders]
    late = [entry for entry in plan.sgprs if entry[1] in saved_holders]

    def writes(entries: list[tuple[str, str, int]]) -> list[InstructionOpBase]:
        return [build.inst("v_writelane_b32", [reg(vgpr), reg(sgpr), lane])
                for sgpr, vgpr, lane in entries]

    def reads(entries: list[tuple[str, str, int]]) -> list[InstructionOpBase]:
        return [build.inst("v_readlane_b32", [reg(sgpr), reg(vgpr), lane])
                for sgpr, vgpr, lane in entries]

    def vector_saves(restore: bool) -> list[InstructionOpBase]:
        if not (plan.vgprs or plan.memory) or plan.exec_save is None:
            return []
        ops: list[InstructionOpBase] = []
        if plan.memory and plan.address is not None:
            ops.append(build.inst("s_mov_b32", [reg(plan.address), plan.stack_offset]))
        for vgpr, agpr in plan.vgprs:
            ops.append(build.inst("v_accvgpr_read_b32", [reg(vgpr), reg(agpr)]) if restore
                       else build.inst("v_accvgpr_write_b32", [reg(agpr), reg(vgpr)]))
        for slot, vgpr in enumerate(plan.memory):
            address: PhysRegAttr | Keyword
            if plan.address is not None:
                address, offset = reg(plan.address), SLOT_BYTES * slot
            else:
                address, offset = OFF, slot_offset(plan.stack_offset, slot)
            named = offset if offset else None
            ops.append(build.inst("scratch_load_dword", [reg(vgpr), OFF, address], offset=named)
                       if restore else
                       build.inst("scratch_store_dword", [OFF, reg(vgpr), address],
                                  offset=named))
        if restore and plan.memory:
            ops.append(build.wait_vector_loads())
        return _under_full_exec(build, plan.exec_save, ops)

    saves = writes(early) + vector_saves(False) + writes(late)
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
        ops = reads(late) + vector_saves(True) + reads(early)
        block.insert_ops_before(ops, last)
        new.extend(ops)
    return new


def _under_full_exec(build: InstBuilder, saved: str,
                     ops: list[InstructionOpBase]) -> list[InstructionOpBase]:
    """``ops`` with every lane of the wave on, EXEC kept in ``saved`` meanwhile."""
    move = build.mask_op("s_mov")
    return [build.inst(move, [reg(saved), build.exec_mask]),
            build.inst(move, [build.exec_mask, -1]),
            *ops, build.inst(move, [build.exec_mask, reg(saved)])]
