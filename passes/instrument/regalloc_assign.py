"""Homes for a payload's virtual registers: greedy, lowest first, hints before the rest.

A payload is a handful of instructions with a handful of temporaries, so the allocator is a
greedy colouring of the interference graph (:mod:`.regalloc_model`), not a linear scan:
each virtual register, widest first, takes the cheapest legal home, where cost orders the
choices the design asks for:

1. a register dead at the point and inside the kernel's budget;
2. a dead register past the budget (the kernel's allocation grows), when allowed;
3. a register the application has live there, saved and restored around the payload (the
   spill itself is planned by :mod:`.regalloc_spill`).

A legal home is a member of the register's class (and of every operand slot class it is
used in, sub-registers included), even-aligned for vector tuples where the target needs it
(GFX90A, GFX942), and disjoint from the homes of the registers it interferes with and from
the physical units live or written where it is.

Copy hints: a register defined by a copy of application register R at entry (``s_mov_b32
%5, s7``), or copied to R at exit (``s_mov_b32 s7, %9``), takes R itself when that keeps
every value right (see :func:`entry_hint_holds` and :func:`exit_hint_holds`); the copy then
moves a register onto itself and is deleted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from luthier.amdgpu_dialects.amdgpu_mc.register_units import VECTOR_MASK, file_range, units_of
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.isa.registers import tuple_name
from luthier.amdgpu_dialects.isa.target import TargetISA
from luthier.passes.analysis.free_registers import FILES
from luthier.passes.instrument.regalloc_model import (
    COPY_MNEMONICS,
    PayloadCode,
    VirtualRegister,
)


@dataclass(frozen=True, slots=True)
class Pools:
    """Unit masks the allocator draws from at one point."""

    #: Dead at the point and not read by a later payload there.
    dead: int
    #: Registers the allocator may consider (inside the budget, or every addressable one
    #: when the budget may grow).
    allowed: int
    #: Inside the kernel's budget.
    budget: int
    #: Live application registers that may be saved and restored (0 when not spilling).
    spillable: int = 0


@dataclass
class Assignment:
    """Homes by virtual register number; what they cost."""

    homes: dict[int, str] = field(default_factory=dict[int, str])
    units: dict[int, int] = field(default_factory=dict[int, int])
    #: Application units the homes take that must be saved and restored.
    spilled: int = 0
    #: Virtual registers that took their copy hint.
    coalesced: set[int] = field(default_factory=set[int])
    #: The register that found no home, if any.
    failed: VirtualRegister | None = None

    @property
    def used(self) -> int:
        mask = 0
        for units in self.units.values():
            mask |= units
        return mask


@dataclass(frozen=True, slots=True)
class Hint:
    """A copy at item ``item`` between virtual register ``number`` and register ``register``."""

    number: int
    register: str
    item: int
    at_entry: bool


def copy_hints(code: PayloadCode) -> list[Hint]:
    """Whole-register moves between a virtual register and a generic physical register."""
    hints: list[Hint] = []
    for index, item in enumerate(code.items):
        if item.copy is None:
            continue
        destination, source = item.copy
        if isinstance(destination, VirtRegAttr) and isinstance(source, PhysRegAttr):
            hints.append(Hint(destination.number, source.data, index, True))
        elif isinstance(destination, PhysRegAttr) and isinstance(source, VirtRegAttr):
            hints.append(Hint(source.number, destination.data, index, False))
    return [hint for hint in hints if hint.register[:1] in "sva"
            and hint.register[:4] != "ttmp" and _generic(hint.register)]


def _generic(name: str) -> bool:
    try:
        return bool(units_of(name) & (file_range("s", 0, FILES["s"]) | VECTOR_MASK))
    except ValueError:
        return False


def entry_hint_holds(code: PayloadCode, hint: Hint) -> bool:
    """``%n = R`` at entry: %n may live in R when it is written only by that copy and R is
    not written while %n is live (except by the exit copy ``R = %n``, then a no-op)."""
    vreg = code.vregs[hint.number]
    definers = [index for index, item in enumerate(code.items) if hint.number in item.defined]
    if definers != [hint.item]:
        return False
    register = units_of(hint.register)
    for index, item in enumerate(code.items):
        if index == hint.item or not item.defs & register:
            continue
        if _is_copy(code, index, hint.register, hint.number):
            continue
        if code.live_after[index] & vreg.mask:
            return False
    return True


def exit_hint_holds(code: PayloadCode, hint: Hint, register_live: bool) -> bool:
    """``R = %n`` at exit: %n may live in R when R's old value is neither read nor written
    by anything else while %n is live. When the application has a vector R live, %n must
    also not live across an EXEC write: lanes %n was written in but the exit copy is not
    would otherwise lose R's old value."""
    vreg = code.vregs[hint.number]
    register = units_of(hint.register)
    for index, item in enumerate(code.items):
        if index == hint.item:
            continue
        if item.uses & register and code.live_before[index] & vreg.mask \
                and not _is_copy(code, index, hint.number, hint.register):
            return False
        if item.defs & register and code.live_after[index] & vreg.mask:
            return False
    if register_live and register & VECTOR_MASK:
        for index, item in enumerate(code.items):
            if item.writes_exec and (code.live_before[index] | code.live_after[index]) \
                    & vreg.mask:
                return False
    return True


def _is_copy(code: PayloadCode, index: int, destination: str | int, source: str | int) -> bool:
    copy = code.items[index].copy
    if copy is None:
        return False
    return _names(copy[0], destination) and _names(copy[1], source)


def _names(attr: object, what: str | int) -> bool:
    if isinstance(what, int):
        return isinstance(attr, VirtRegAttr) and attr.number == what
    return isinstance(attr, PhysRegAttr) and attr.data == what


class Allocator:
    """Greedy assignment of one payload's virtual registers."""

    def __init__(self, code: PayloadCode, isa: TargetISA, pools: Pools) -> None:
        self.code = code
        self.isa = isa
        self.pools = pools
        self.aligned_vectors = isa.subtarget.needs_aligned_vgpr_tuples
        #: Every unit whose pool bits a decision read: pools that agree with ``pools`` on
        #: these units lead to the same decisions, so :mod:`.allocation_memo` may reuse them.
        self.examined = 0

    def run(self) -> Assignment:
        result = Assignment()
        hints, order = self._visit()
        for number in order:
            vreg = self.code.vregs[number]
            blocked = self._blocked(result, number)
            home = self._hinted_home(vreg, hints, blocked, result)
            if home is not None:
                result.coalesced.add(number)
            else:
                home = self._partner_home(vreg, blocked, result) \
                    or self._cheapest(vreg, blocked, result.spilled)
            if home is None:
                result.failed = vreg
                return result
            name, units = home
            result.homes[number] = name
            result.units[number] = units
            result.spilled |= units & ~self.pools.dead & self.pools.spillable
        return result

    def _visit(self) -> tuple[list[Hint], list[int]]:
        """The copy hints and the order of the virtual registers, found once per code
        (the allocator runs on the same code at many points)."""
        if self.code.visit is None:
            hints = copy_hints(self.code)
            self.code.visit = (hints, self._order({hint.number for hint in hints}))
        return cast(tuple[list[Hint], list[int]], self.code.visit)

    def _order(self, hinted: set[int]) -> list[int]:
        first_def: dict[int, int] = {}
        for index, item in enumerate(self.code.items):
            for number in item.defined:
                first_def.setdefault(number, index)
        return sorted(self.code.vregs, key=lambda n: (n not in hinted, -self.code.vregs[n].units,
                                                      first_def.get(n, -1), n))

    def _blocked(self, result: Assignment, number: int) -> int:
        mask = 0
        for other in self.code.vreg_conflicts[number]:
            mask |= result.units.get(other, 0)
        return mask

    def _hinted_home(self, vreg: VirtualRegister, hints: list[Hint], blocked: int,
                     result: Assignment) -> tuple[str, int] | None:
        for hint in hints:
            if hint.number != vreg.number:
                continue
            units = units_of(hint.register)
            self.examined |= units
            if units & blocked or not self._legal(vreg, hint.register):
                continue
            if units.bit_count() != vreg.units:
                continue
            live = bool(units & ~self.pools.dead)
            holds = entry_hint_holds(self.code, hint) if hint.at_entry \
                else exit_hint_holds(self.code, hint, live)
            if holds and (live or units & self.pools.allowed == units):
                return hint.register, units
        return None

    def _partner_home(self, vreg: VirtualRegister, blocked: int,
                      result: Assignment) -> tuple[str, int] | None:
        """The part of a wider register with a home already that a move copies ``vreg``
        into or out of (``s_mov_b32 %8.sub0, %5``: a 32-bit result going into the low half
        of a pair), when it is dead there, inside the budget and legal: the move then
        copies a register onto itself and is deleted. Wider registers take their homes
        first, so the pair chooses and the half follows."""
        for first, other in self._partners(vreg.number):
            home = result.homes.get(other)
            if home is None:
                continue
            name = tuple_name(home[0], _start(home) + first, vreg.units)
            units = units_of(name)
            self.examined |= units
            pools = self.pools
            if units & blocked or units & ~pools.dead or units & ~pools.budget \
                    or units & ~pools.allowed or not self._legal(vreg, name):
                continue
            return name, units
        return None

    def _partners(self, number: int) -> list[tuple[int, int]]:
        """(first unit, register) of each sub-register a move copies virtual register
        ``number`` (whole) into or out of, found once per code."""
        partners = self.code.partners
        if partners is None:
            partners = self.code.partners = {}
            for item in self.code.items:
                operands = getattr(item.op, "mc_operands", None)
                if operands is None or getattr(item.op, "mnemonic", "") not in COPY_MNEMONICS \
                        or len(operands.data) != 2:
                    continue
                destination, source = operands.data
                for whole, part in ((source, destination), (destination, source)):
                    if not isinstance(whole, VirtRegAttr) or whole.sub \
                            or not isinstance(part, VirtRegAttr):
                        continue
                    sub = part.sub_units
                    if sub is not None and part.number != whole.number \
                            and sub[1] == self.code.vregs[whole.number].units:
                        partners.setdefault(whole.number, []).append((sub[0], part.number))
        return partners.get(number, [])

    def _legal(self, vreg: VirtualRegister, name: str) -> bool:
        if not vreg.register_class.contains(name):
            return False
        prefix, start = name[0], _start(name)
        for constraint in self.code.constraints.get(vreg.number, ()):
            part = tuple_name(prefix, start + constraint.first, constraint.units)
            if not constraint.register_class.contains(part):
                return False
        return True

    def _cheapest(self, vreg: VirtualRegister, blocked: int,
                  spilled: int) -> tuple[str, int] | None:
        """The lowest-cost legal home, lowest first among equals. The scan goes over the
        tuples of each file lowest first and stops at the first that costs nothing; the
        tuples with a unit blocked or not available are skipped by bit arithmetic
        (:meth:`_Tuples.fitting`), but count as examined as the scan passed them."""
        blocked |= self.code.phys_conflicts[vreg.number]
        pools = self.pools
        free = ((pools.dead & pools.allowed) | pools.spillable) & ~blocked
        legal = self.code.legal
        best: tuple[tuple[int, int, int], str, int] | None = None
        for prefix in vreg.prefixes:
            step = 2 if prefix != "s" and vreg.units > 1 and self.aligned_vectors else 1
            tuples = _tuples(prefix, vreg.units, step)
            if not tuples.names:
                continue
            fitting = tuples.fitting(free)
            last = len(tuples.names) - 1
            while fitting:
                low = fitting & -fitting
                fitting ^= low
                start = low.bit_length() - 1
                index = start // step
                name, units = tuples.names[index], tuples.masks[index]
                allowed = legal.get((vreg.number, name))
                if allowed is None:
                    allowed = legal[(vreg.number, name)] = self._legal(vreg, name)
                if not allowed:
                    continue
                cost = ((units & ~pools.dead & ~spilled).bit_count(),
                        1 if units & ~pools.budget else 0, start)
                if best is None or cost < best[0]:
                    best = (cost, name, units)
                if cost[:2] == (0, 0):
                    last = index
                    break
            self.examined |= tuples.covered[last]
            if best is not None and best[0][:2] == (0, 0):
                break
        return None if best is None else (best[1], best[2])


@dataclass(frozen=True, slots=True)
class _Tuples:
    """Every ``units``-wide tuple of one register file starting at a multiple of ``step``,
    lowest first, by index ``start // step`` (made once per shape)."""

    #: The bit of the file's first register.
    base: int
    units: int
    names: tuple[str, ...]
    masks: tuple[int, ...]
    #: Per tuple, the units of it and of every lower one: what a scan up to it examined.
    covered: tuple[int, ...]
    #: Bit ``start`` set for the first register of each tuple.
    starts: int

    def fitting(self, free: int) -> int:
        """Bit ``start`` set for each tuple whose units are all in ``free``."""
        bits = free >> self.base
        fitting = bits
        for shift in range(1, self.units):
            fitting &= bits >> shift
        return fitting & self.starts


_TUPLES: dict[tuple[str, int, int], _Tuples] = {}


def _tuples(prefix: str, units: int, step: int) -> _Tuples:
    key = (prefix, units, step)
    found = _TUPLES.get(key)
    if found is None:
        base = file_range(prefix, 0, 1).bit_length() - 1
        starts = range(0, FILES[prefix] - units + 1, step)
        masks = tuple(file_range(prefix, start, units) for start in starts)
        # fitting() takes a tuple's units to be ``units`` bits from its first register's.
        assert all(mask == ((1 << units) - 1) << (base + start)
                   for start, mask in zip(starts, masks, strict=True))
        covered: list[int] = []
        for mask in masks:
            covered.append((covered[-1] if covered else 0) | mask)
        found = _TUPLES[key] = _Tuples(
            base, units, tuple(tuple_name(prefix, start, units) for start in starts), masks,
            tuple(covered), sum(1 << start for start in starts))
    return found


def _start(name: str) -> int:
    body = name[1:]
    if body.startswith("["):
        return int(body[1:].split(":", 1)[0])
    return int(body)
