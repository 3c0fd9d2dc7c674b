"""What a payload's code reads and writes, when each value is live, and what interferes.

The register allocator (:mod:`.regalloc`) sees one ``instr.payload`` at a time: a few blocks
of ``amdgpu_mc`` instructions (and ``instr.mc_intrinsic`` ops) whose temporaries are virtual
registers, with forward branches between them. This module turns that region into plain
Python facts over one bit mask per point, so the allocator never walks IR twice:

* physical register units keep their :mod:`luthier.amdgpu_dialects.amdgpu_mc.register_units` bits
  (below ``UNIT_COUNT``); each virtual register gets one bit per 32-bit unit above them, so a
  sub-register (``%3:SReg_64.sub1``) reads or writes only its own units;
* liveness is a backward dataflow over the payload's blocks, per instruction, with the same
  two lane sets the application's liveness keeps (:mod:`luthier.passes.analysis.liveness`):
  a VALU write under an EXEC narrower than the payload's entry EXEC (after the payload's
  ``s_mov_b64 exec, 1``) ends the value only in the active lanes, so a value defined before
  and read after such a region stays live across it;
* interference is per virtual register: two are in conflict when any of their units are
  live (or written) at the same point; a virtual register conflicts with the physical units
  live or written where it is. Sub-register liveness is kept for correctness, but homes are
  whole registers, so a conflict of any units is a conflict of the registers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Attribute, Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.operands import LiteralAttr
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    ALL_UNITS,
    IMPLICIT_REGISTERS,
    UNIT_COUNT,
    VECTOR_MASK,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr, vgpr_half
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.isa.target import RegisterClass, TargetISA
from luthier.passes.analysis.effects import writes_partially

#: Moves whose source and destination may be given one home (and then deleted).
COPY_MNEMONICS = frozenset({"s_mov_b32", "s_mov_b64", "v_mov_b32_e32"})
_EXEC = units_of("exec")


class PayloadError(ValueError):
    """A payload the allocator cannot read (an unknown opcode or register class)."""


@dataclass(frozen=True, slots=True)
class VirtualRegister:
    """One virtual register of a payload: its class, file, width and bits."""

    number: int
    register_class: RegisterClass
    #: Files it may live in, in preference order (``s``, ``v``, ``a``).
    prefixes: tuple[str, ...]
    units: int
    #: Bit of its first unit in the combined mask.
    base: int

    @property
    def mask(self) -> int:
        return ((1 << self.units) - 1) << self.base

    @property
    def is_vector(self) -> bool:
        return self.prefixes[0] != "s"


@dataclass(frozen=True, slots=True)
class SlotConstraint:
    """A use of ``units`` units of a virtual register from unit ``first`` in an operand slot
    of class ``register_class``: the home must make that part a member of the class."""

    register_class: RegisterClass
    first: int
    units: int


@dataclass(slots=True)
class Item:
    """One instruction (or intrinsic) of the payload, in layout order."""

    op: Operation
    block: int
    uses: int = 0
    #: Every unit written (clobbered), complete or partial.
    defs: int = 0
    #: Scalar units whose old value the write ends (in every lane).
    scalar_kills: int = 0
    #: Vector units whose old value the write ends in the active lanes.
    vector_kills: int = 0
    writes_exec: bool = False
    #: ``(destination, source)`` of a whole-register move, else None.
    copy: tuple[Attribute, Attribute] | None = None
    #: Whether EXEC holds at least every lane it held at payload entry, before this item.
    exec_covers: bool = True
    #: Virtual register numbers defined here.
    defined: frozenset[int] = frozenset()
    #: Units of operands wider than 32 bits written here (kept apart from the sources).
    wide_defs: int = 0


@dataclass
class PayloadCode:
    """The facts of one payload: registers, items, liveness and interference."""

    payload: PayloadOp
    vregs: dict[int, VirtualRegister]
    items: list[Item]
    blocks: list[Block]
    #: Per virtual register, its slot-class constraints.
    constraints: dict[int, list[SlotConstraint]]
    #: Live (any lane) before and after each item, combined masks.
    live_before: list[int] = field(default_factory=list[int])
    live_after: list[int] = field(default_factory=list[int])
    #: Per virtual register: the other virtual registers and the physical units it meets.
    vreg_conflicts: dict[int, set[int]] = field(default_factory=dict[int, set[int]])
    phys_conflicts: dict[int, int] = field(default_factory=dict[int, int])
    #: Whether a virtual register may take a register (by number and register name):
    #: the allocator asks the same questions at every point of the same code.
    legal: dict[tuple[int, str], bool] = field(default_factory=dict[tuple[int, str], bool])
    #: :attr:`physical_units` and :meth:`physical_reads`, once known (the items are
    #: complete when the analysis is returned, and the allocator asks at every point).
    _physical: tuple[int, int] | None = None
    #: :meth:`_unit_owners`, once known.
    _owners: tuple[dict[int, int], int, int] | None = None
    #: What rewriting the code's virtual registers touches, once known (see
    #: :func:`~.regalloc.rewrite_plan`): the allocator rewrites the same code at every
    #: point that needs a new allocation.
    rewrites: object = None
    #: The allocator's copy hints and the order it visits the virtual registers in, once
    #: known (see :meth:`~.regalloc_assign.Allocator.run`): they depend on the code alone.
    visit: object = None
    #: Per virtual register, the sub-registers of others that moves copy it into or out
    #: of, as (first unit, register number) (see :meth:`~.regalloc_assign.Allocator.run`).
    partners: dict[int, list[tuple[int, int]]] | None = None

    def _physical_masks(self) -> tuple[int, int]:
        if self._physical is None:
            units = reads = 0
            for item in self.items:
                units |= (item.uses | item.defs) & ALL_UNITS
                reads |= item.uses & ALL_UNITS
            self._physical = (units, reads)
        return self._physical

    @property
    def physical_units(self) -> int:
        """Physical units the payload's code names (read or written)."""
        return self._physical_masks()[0]

    def physical_reads(self) -> int:
        return self._physical_masks()[1]

    def numbers_in(self, mask: int) -> list[int]:
        """The virtual registers with a unit in ``mask``, in number order of first use
        (their units' order in the combined mask). Found from the set bits, not by asking
        every virtual register: a payload with thousands of them (a 64-bit division) asks
        this once per instruction."""
        owners, all_units, _ = self._unit_owners()
        mask &= all_units
        found: list[int] = []
        vregs = self.vregs
        while mask:
            number = owners[(mask & -mask).bit_length() - 1]
            found.append(number)
            mask &= ~vregs[number].mask
        return found

    def vector_units(self) -> int:
        """The units of every virtual register that lives in a vector file."""
        return self._unit_owners()[2]

    def _unit_owners(self) -> tuple[dict[int, int], int, int]:
        """(bit -> virtual register number, every virtual register's units, the vector
        ones'), once: the registers are all known before any item is made."""
        if self._owners is None:
            owners: dict[int, int] = {}
            all_units = vector = 0
            for number, vreg in self.vregs.items():
                for bit in range(vreg.base, vreg.base + vreg.units):
                    owners[bit] = number
                all_units |= vreg.mask
                if vreg.is_vector:
                    vector |= vreg.mask
            self._owners = (owners, all_units, vector)
        return self._owners

    def pressure(self, prefix: str) -> int:
        """The most units of file ``prefix`` live (or written) at once."""
        most = 0
        for index, item in enumerate(self.items):
            live = self.live_after[index] | item.defs | self.live_before[index]
            units = sum(vreg.units for vreg in self.vregs.values()
                        if vreg.prefixes[0] == prefix and live & vreg.mask)
            most = max(most, units)
        return most


def vreg_mask(code: PayloadCode, attr: VirtRegAttr) -> int:
    vreg = code.vregs[attr.number]
    first, count = attr.sub_units or (0, vreg.units)
    return ((1 << count) - 1) << (vreg.base + first)


def _registers_of(op: Operation) -> list[tuple[Attribute, bool]]:
    """``(operand, is_def)`` of an intrinsic, in order."""
    assert isinstance(op, MCIntrinsicOp)
    return [(attr, True) for attr in op.defs.data] + [(attr, False) for attr in op.uses.data]


def _collect_vregs(ops: Sequence[Operation], isa: TargetISA) -> dict[int, VirtualRegister]:
    vregs: dict[int, VirtualRegister] = {}
    base = UNIT_COUNT
    for op in ops:
        attrs = op.mc_operands.data if isinstance(op, InstructionOpBase) \
            else [attr for attr, _ in _registers_of(op)]
        for attr in attrs:
            if not isinstance(attr, VirtRegAttr):
                continue
            known = vregs.get(attr.number)
            if known is not None:
                if known.register_class.name != attr.register_class:
                    raise PayloadError(f"%{attr.number} is used as {known.register_class.name} "
                                       f"and as {attr.register_class}")
                continue
            rclass = isa.register_classes.get(attr.register_class)
            if rclass is None:
                raise PayloadError(f"{attr.text}: {isa.name} has no register class "
                                   f"{attr.register_class}")
            prefixes = tuple(p for p in ("s", "v", "a") if p in rclass.files)
            if not prefixes:
                raise PayloadError(f"{attr.text}: class {rclass.name} has no allocatable file")
            units = rclass.width // 32
            vregs[attr.number] = VirtualRegister(attr.number, rclass, prefixes, units, base)
            base += units
    return vregs


def _implicit(names: tuple[str, ...]) -> int:
    mask = 0
    for name in names:
        register = IMPLICIT_REGISTERS.get(name)
        if register is not None:
            mask |= units_of(register)
    return mask


def _operand_units(code: PayloadCode, attr: Attribute) -> int:
    if isinstance(attr, VirtRegAttr):
        return vreg_mask(code, attr)
    if isinstance(attr, PhysRegAttr):
        return units_of(attr.data)
    return 0


def _instruction_item(code: PayloadCode, op: InstructionOpBase, block: int,
                      isa: TargetISA) -> Item:
    desc = isa.by_name.get(op.opcode.data)
    if desc is None:
        raise PayloadError(f"'{op.opcode.data}' is not an instruction of {isa.name}")
    item = Item(op, block)
    defined: set[int] = set()
    partial = writes_partially(op.mnemonic)
    for index, (slot, attr) in enumerate(zip(desc.operands, op.mc_operands.data, strict=False)):
        mask = _operand_units(code, attr)
        if not mask:
            continue
        if index >= desc.num_defs:
            item.uses |= mask
            if isinstance(attr, VirtRegAttr):
                _constrain(code, attr, slot.kind.register_class)
            continue
        item.defs |= mask
        if isinstance(attr, VirtRegAttr):
            defined.add(attr.number)
            _constrain(code, attr, slot.kind.register_class)
        if mask.bit_count() > 1:
            item.wide_defs |= mask
        if slot.name in desc.tied or (isinstance(attr, PhysRegAttr)
                                      and vgpr_half(attr.data) is not None):
            continue  # read-modify-write: a tied operand, a 16-bit half (``v25.h``)
        vector = _vector_part(code, mask)
        item.scalar_kills |= mask & ~vector
        if not partial:
            item.vector_kills |= vector
    item.uses |= _implicit(desc.uses)
    implicit_defs = _implicit(desc.defs)
    item.defs |= implicit_defs
    item.scalar_kills |= implicit_defs & ~VECTOR_MASK
    item.writes_exec = bool(item.defs & _EXEC)
    item.defined = frozenset(defined)
    operands = op.mc_operands.data
    if op.mnemonic in COPY_MNEMONICS and len(operands) == 2 and all(
            isinstance(attr, PhysRegAttr) or (isinstance(attr, VirtRegAttr) and not attr.sub)
            for attr in operands):
        item.copy = (operands[0], operands[1])
    return item


def _intrinsic_item(code: PayloadCode, op: MCIntrinsicOp, block: int) -> Item:
    item = Item(op, block)
    defined: set[int] = set()
    for attr, is_def in _registers_of(op):
        mask = _operand_units(code, attr)
        if not is_def:
            item.uses |= mask
            continue
        item.defs |= mask
        if isinstance(attr, VirtRegAttr):
            defined.add(attr.number)
        vector = _vector_part(code, mask)
        item.scalar_kills |= mask & ~vector
        item.vector_kills |= vector
    item.writes_exec = bool(item.defs & _EXEC)
    item.defined = frozenset(defined)
    return item


def _vector_part(code: PayloadCode, mask: int) -> int:
    return mask & (VECTOR_MASK | code.vector_units())


def _constrain(code: PayloadCode, attr: VirtRegAttr, rclass: RegisterClass | None) -> None:
    if rclass is None:
        return
    vreg = code.vregs[attr.number]
    first, count = attr.sub_units or (0, vreg.units)
    code.constraints.setdefault(attr.number, []).append(SlotConstraint(rclass, first, count))


def analyze_payload(payload: PayloadOp, isa: TargetISA) -> PayloadCode:
    """Items, liveness and interference of ``payload``'s region."""
    blocks = list(payload.body.blocks)
    ops = [op for block in blocks for op in block.ops
           if isinstance(op, InstructionOpBase | MCIntrinsicOp)]
    code = PayloadCode(payload, _collect_vregs(ops, isa), [], blocks, {})
    for block_index, block in enumerate(blocks):
        for op in block.ops:
            if isinstance(op, InstructionOpBase):
                code.items.append(_instruction_item(code, op, block_index, isa))
            elif isinstance(op, MCIntrinsicOp):
                code.items.append(_intrinsic_item(code, op, block_index))
    _exec_states(code)
    _liveness(code)
    _interference(code)
    return code


def _successors(code: PayloadCode, block: Block) -> list[int]:
    last = block.last_op
    if last is None:
        return []
    return [code.blocks.index(successor) for successor in last.successors
            if successor in code.blocks]


def _block_items(code: PayloadCode) -> list[list[int]]:
    per_block: list[list[int]] = [[] for _ in code.blocks]
    for index, item in enumerate(code.items):
        per_block[item.block].append(index)
    return per_block


# -- EXEC relative to the payload's entry ---------------------------------------------------

def _is_all_ones(attr: Attribute) -> bool:
    if isinstance(attr, IntAttr):
        value = cast(int, attr.data)  # pyright: ignore[reportUnknownMemberType]
        return value == -1
    if isinstance(attr, LiteralAttr):
        return attr.data in (-1, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF)
    return False


def _exec_step(code: PayloadCode, item: Item, covers: bool, holders: int) -> tuple[bool, int]:
    """The state after ``item``: whether EXEC covers the entry lanes, and which units hold
    a copy of such an EXEC (``s_mov_b64 %2, exec`` saves it, ``s_mov_b64 exec, %2``
    restores it; ``exec, -1`` covers everything)."""
    operands = item.op.mc_operands.data if isinstance(item.op, InstructionOpBase) else ()
    mnemonic = item.op.mnemonic if isinstance(item.op, InstructionOpBase) else ""
    masks = [_operand_units(code, attr) for attr in operands]
    new_holders = holders & ~item.defs
    if len(masks) >= 2 and masks[0] and masks[0] != _EXEC:
        copies_exec = mnemonic == "s_mov_b64" and masks[1] == _EXEC or "saveexec" in mnemonic
        copies_holder = mnemonic == "s_mov_b64" and masks[1] and masks[1] & ~holders == 0
        if copies_exec and covers or copies_holder:
            new_holders |= masks[0]
    if not item.writes_exec:
        return covers, new_holders

    def holder(mask: int) -> bool:
        return bool(mask) and mask != _EXEC and mask & ~holders == 0

    after = False
    if mnemonic == "s_mov_b64" and masks[:1] == [_EXEC] and len(operands) >= 2:
        after = _is_all_ones(operands[1]) or holder(masks[1])
    elif mnemonic == "s_or_b64" and masks[:1] == [_EXEC] and len(masks) >= 3 \
            and _EXEC in masks[1:3]:
        other = masks[2] if masks[1] == _EXEC else masks[1]
        after = covers or holder(other)
    elif mnemonic == "s_or_saveexec_b64" and len(operands) >= 2:
        after = _is_all_ones(operands[1])
    return after, new_holders


def _exec_states(code: PayloadCode) -> None:
    """Forward over the blocks in layout order (branches go forward); a block reached by an
    edge not yet seen (a loop) starts with EXEC not covering."""
    per_block = _block_items(code)
    outs: dict[int, tuple[bool, int]] = {}
    predecessors: dict[int, list[int]] = {index: [] for index in range(len(code.blocks))}
    for index, block in enumerate(code.blocks):
        for successor in _successors(code, block):
            predecessors[successor].append(index)
    for index in range(len(code.blocks)):
        if index == 0:
            covers, holders = True, 0
        else:
            incoming = [outs.get(p) for p in predecessors[index]]
            if not incoming or any(state is None for state in incoming):
                covers, holders = False, 0
            else:
                known = [state for state in incoming if state is not None]
                covers = all(state[0] for state in known)
                holders = -1
                for state in known:
                    holders &= state[1]
        for position in per_block[index]:
            item = code.items[position]
            item.exec_covers = covers
            covers, holders = _exec_step(code, item, covers, holders)
        outs[index] = (covers, holders)


# -- liveness ----------------------------------------------------------------------------------

def _transfer(item: Item, active: int, inactive: int) -> tuple[int, int]:
    """Live lanes before ``item`` from those after it: ``active`` are needed by lanes EXEC
    holds, ``inactive`` by lanes it has switched off (vector units only matter there)."""
    if item.writes_exec:
        active = inactive = active | inactive
    active &= ~(item.scalar_kills | item.vector_kills)
    inactive &= ~item.scalar_kills
    if item.exec_covers:
        inactive &= ~item.vector_kills
    return active | item.uses, inactive


def _liveness(code: PayloadCode) -> None:
    per_block = _block_items(code)
    successors = [_successors(code, block) for block in code.blocks]
    live_in: list[tuple[int, int]] = [(0, 0)] * len(code.blocks)
    before = [0] * len(code.items)
    after = [0] * len(code.items)
    changed = True
    while changed:
        changed = False
        for index in range(len(code.blocks) - 1, -1, -1):
            active = inactive = 0
            for successor in successors[index]:
                active |= live_in[successor][0]
                inactive |= live_in[successor][1]
            for position in reversed(per_block[index]):
                after[position] = active | inactive
                active, inactive = _transfer(code.items[position], active, inactive)
                before[position] = active | inactive
            if live_in[index] != (active, inactive):
                live_in[index] = (active, inactive)
                changed = True
    code.live_before = before
    code.live_after = after


# -- interference ------------------------------------------------------------------------------

def _interference(code: PayloadCode) -> None:
    code.vreg_conflicts = {number: set() for number in code.vregs}
    code.phys_conflicts = dict.fromkeys(code.vregs, 0)
    per_block = _block_items(code)
    together: list[int] = [code.live_before[items[0]] for items in per_block if items]
    for index, item in enumerate(code.items):
        together.append(code.live_after[index] | item.defs)
    for live in together:
        _meet(code, live)
    # A def wider than one unit may be written before every source is read: keep it apart
    # from the sources of its instruction (LLVM's early-clobber caution for tuples).
    for item in code.items:
        if item.wide_defs:
            _meet_apart(code, item.wide_defs, item.uses & ~item.wide_defs)


def _meet(code: PayloadCode, live: int) -> None:
    numbers = code.numbers_in(live)
    physical = live & ALL_UNITS
    for number in numbers:
        code.vreg_conflicts[number].update(n for n in numbers if n != number)
        code.phys_conflicts[number] |= physical


def _meet_apart(code: PayloadCode, written: int, read: int) -> None:
    writers = code.numbers_in(written)
    readers = code.numbers_in(read)
    for writer in writers:
        code.phys_conflicts[writer] |= read & ALL_UNITS
        for reader in readers:
            if reader != writer:
                code.vreg_conflicts[writer].add(reader)
                code.vreg_conflicts[reader].add(writer)
    for reader in readers:
        code.phys_conflicts[reader] |= written & ALL_UNITS
