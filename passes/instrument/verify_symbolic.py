"""The symbolic register state ``verify-payloads`` runs a payload over.

The verifier asks one question per register: at the payload's exit, does it hold what it
held at the entry? It does not need values, only where a value came from, so each *slot*
holds a :class:`Sym`:

* ``orig(u)``: the content slot ``u`` had at the payload's entry;
* ``sub(u)``: a bit mask that is a subset of ``orig(u)`` (EXEC after ``s_and_saveexec``);
* ``bool``: nonzero exactly when SCC was set at the entry (``s_cselect_b32 d, 1, 0``);
* ``zero`` / ``ones``: the constants 0 and all ones (``s_mov_b64 exec, -1``);
* ``const``: another 32-bit constant (its value in ``slot``), such as the instrumentation
  stack's base an SGPR holds while VGPRs are saved to scratch;
* ``unknown``: anything else.

Besides registers, the state keeps the instrumentation stack's slots (``stack``: byte
address -> the two parts of the value stored there), so a VGPR saved with
``scratch_store_dword`` and loaded back before the exit holds its entry content again.

Slots use the layout of :mod:`luthier.passes.analysis.liveness`: bit ``u`` is a scalar unit,
or the lanes of vector unit ``u`` that EXEC held at the entry (*active* part); bit
``u + UNIT_COUNT`` is the lanes of vector unit ``u`` that EXEC had switched off (*inactive*
part). A VALU write under the entry's EXEC changes the active part only, which is how a
payload may use a VGPR that the application still needs in its switched-off lanes.

Every ``Sym`` also carries ``origin``: the slots whose entry content may still be inside it,
unread by anything but a copy. A non-copy read of a slot *exposes* its origin: that is how
the verifier learns which application registers a later payload at the same point reads
(its temporaries, written before they are read, expose nothing).

Values form a lattice of height three (``orig``/``zero`` < ``sub`` < ``unknown``), so the
fixpoint over a payload's blocks terminates whatever their CFG.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from luthier.amdgpu_dialects.amdgpu_mc.register_units import UNIT_COUNT, units_of

ORIG = "orig"
SUB = "sub"
BOOL = "bool"
ZERO = "zero"
ONES = "ones"
CONST = "const"
UNKNOWN = "unknown"

#: Kinds whose content is a subset of one slot's entry content.
_SUBSET_KINDS = frozenset({ORIG, SUB, ZERO})
#: Kinds that name one value on every path: two equal symbols of these kinds hold the same
#: bits (two ``sub`` or ``unknown`` symbols may not).
_EXACT_KINDS = frozenset({ORIG, ZERO, ONES, CONST})

EXEC_LO = units_of("exec_lo").bit_length() - 1
EXEC_HI = units_of("exec_hi").bit_length() - 1
SCC = units_of("scc").bit_length() - 1


@dataclass(frozen=True, slots=True)
class Sym:
    """A symbolic 32-bit value (of a slot, or of one lane of a vector register)."""

    kind: str
    #: The slot an ``orig``/``sub`` value comes from; -1 for the other kinds.
    slot: int = -1
    #: Slots whose entry content may still be in this value (see the module docstring).
    origin: int = 0


#: ``orig(slot)`` per slot, made once (every read of an unwritten slot asks for it).
_ORIGS: dict[int, Sym] = {}


def orig(slot: int) -> Sym:
    value = _ORIGS.get(slot)
    if value is None:
        value = _ORIGS[slot] = Sym(ORIG, slot, 1 << slot)
    return value


def sub(slot: int) -> Sym:
    return Sym(SUB, slot, 1 << slot)


_UNKNOWN = Sym(UNKNOWN, -1, 0)


def unknown(origin: int = 0) -> Sym:
    return Sym(UNKNOWN, -1, origin) if origin else _UNKNOWN


def const(value: int) -> Sym:
    return Sym(CONST, value & 0xFFFFFFFF)


ZERO_SYM = Sym(ZERO)
ONES_SYM = Sym(ONES)
BOOL_SYM = Sym(BOOL, -1, 1 << SCC)


#: What names a lane set of EXEC (:meth:`State.exec_token`): its exact value, or the ``id``
#: of the instruction that wrote it.
ExecToken = tuple[Sym, Sym] | int


def join(a: Sym, b: Sym) -> Sym:
    """What a slot holds where two paths meet (or where some lanes were written and others
    not): equal values stay; subsets of one slot's entry content stay a subset."""
    if a == b:
        return a
    if a.kind in _SUBSET_KINDS and b.kind in _SUBSET_KINDS:
        slots = {x.slot for x in (a, b) if x.kind != ZERO}
        if len(slots) == 1:
            return sub(slots.pop())
    return unknown(a.origin | b.origin)


def inactive_slot(unit: int) -> int:
    """The slot of vector unit ``unit``'s switched-off lanes."""
    return unit + UNIT_COUNT


@dataclass
class State:
    """Slots that no longer hold their own entry content, and known single lanes.

    A slot missing from ``slots`` holds ``orig(slot)``. ``lanes`` maps a vector unit to the
    values of single lanes written by ``v_writelane_b32`` (SGPR spills): the parts in
    ``slots`` stay sound for every lane, the lane map only adds precision for
    ``v_readlane_b32``. ``masked`` adds the same kind of precision for a whole VALU write
    under an EXEC the parts cannot express (``s_mov_b64 exec, 1`` before a once-per-wave
    atomic, the lanes of an ``scf.if``): the unit -> the EXEC it was written under
    (:meth:`exec_token`) and the value written; a read under that same EXEC reads exactly
    the lanes written, so it sees that value and not the join of old and new the parts
    hold.
    """

    slots: dict[int, Sym] = field(default_factory=dict[int, Sym])
    lanes: dict[int, dict[int, Sym]] = field(default_factory=dict[int, dict[int, Sym]])
    #: Scratch byte address -> (active, inactive) parts stored there by the payload.
    stack: dict[int, tuple[Sym, Sym]] = field(default_factory=dict[int, tuple[Sym, Sym]])
    masked: dict[int, tuple[ExecToken, Sym]] = field(
        default_factory=dict[int, tuple[ExecToken, Sym]])
    #: Which instruction last wrote EXEC (``id`` of the op; 0: none, EXEC is the entry's;
    #: -1: paths that disagree met): names the lane set EXEC holds when its value cannot.
    exec_writer: int = 0
    #: The payload runs in a wave32 kernel: EXEC is ``exec_lo`` alone (the hardware masks
    #: no lane with ``exec_hi``, which may hold anything).
    wave32: bool = False

    def get(self, slot: int) -> Sym:
        value = self.slots.get(slot)
        return value if value is not None else orig(slot)

    def set(self, slot: int, value: Sym) -> None:
        if value.kind == ORIG and value == orig(slot):
            self.slots.pop(slot, None)
        else:
            self.slots[slot] = value

    def copy(self) -> State:
        return State(dict(self.slots), {unit: dict(lanes) for unit, lanes in self.lanes.items()},
                     dict(self.stack), dict(self.masked), self.exec_writer, self.wave32)

    def exec_token(self) -> ExecToken | None:
        """What names the lane set EXEC holds: its value when that is exact (a constant,
        or the entry's EXEC), else the instruction that last wrote it (each execution of
        it drops what was recorded under its previous one: :meth:`exec_written`); None
        when neither is known."""
        token = (self.get(EXEC_LO), ZERO_SYM if self.wave32 else self.get(EXEC_HI))
        if all(part.kind in _EXACT_KINDS for part in token):
            return token
        return self.exec_writer if self.exec_writer > 0 else None

    def exec_written(self, writer: int) -> None:
        """``writer`` (an op's ``id``) has just written EXEC: writes recorded under an
        earlier execution of it (another lane set, in a loop) name nothing any more."""
        self.exec_writer = writer
        for unit in [unit for unit, (token, _) in self.masked.items() if token == writer]:
            del self.masked[unit]

    def join(self, other: State) -> State:
        joined = State(wave32=self.wave32)
        for slot in self.slots.keys() | other.slots.keys():
            joined.set(slot, join(self.get(slot), other.get(slot)))
        for unit in self.lanes.keys() & other.lanes.keys():
            mine, theirs = self.lanes[unit], other.lanes[unit]
            kept = {lane: join(mine[lane], theirs[lane]) for lane in mine.keys() & theirs.keys()}
            kept = {lane: value for lane, value in kept.items() if value.kind != UNKNOWN}
            if kept:
                joined.lanes[unit] = kept
        for address in self.stack.keys() & other.stack.keys():
            mine_parts, their_parts = self.stack[address], other.stack[address]
            joined.stack[address] = (join(mine_parts[0], their_parts[0]),
                                     join(mine_parts[1], their_parts[1]))
        for unit in self.masked.keys() & other.masked.keys():
            if self.masked[unit] == other.masked[unit]:  # the same write on both paths
                joined.masked[unit] = self.masked[unit]
        joined.exec_writer = self.exec_writer if self.exec_writer == other.exec_writer else -1
        return joined

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.slots == other.slots \
            and self.lanes == other.lanes and self.stack == other.stack \
            and self.masked == other.masked and self.exec_writer == other.exec_writer

    __hash__ = None  # type: ignore[assignment]


#: What EXEC holds, relative to the entry's EXEC: how a VALU write reaches the two parts.
EXEC_ORIG = "orig"  # exactly the entry's lanes
EXEC_ALL = "all"  # every lane (s_mov_b64 exec, -1)
EXEC_NONE = "none"  # no lane
EXEC_SUBSET = "subset"  # some of the entry's lanes, none of the others
EXEC_UNKNOWN = "unknown"

#: Per EXEC kind, whether a VALU write covers all, none or "some" (maybe part) of the
#: active part and of the inactive part.
COVERAGE: dict[str, tuple[str, str]] = {
    EXEC_ORIG: ("all", "none"),
    EXEC_ALL: ("all", "all"),
    EXEC_NONE: ("none", "none"),
    EXEC_SUBSET: ("some", "none"),
    EXEC_UNKNOWN: ("some", "some"),
}


def exec_kind(state: State) -> str:
    """Classify the EXEC of ``state``: both halves in wave64, ``exec_lo`` in wave32."""
    if EXEC_LO not in state.slots and (state.wave32 or EXEC_HI not in state.slots):
        return EXEC_ORIG  # what most steps of a payload see: nothing to compare
    halves = _WAVE32_EXEC if state.wave32 else _WAVE64_EXEC
    values = [(state.get(half), half) for half in halves]
    if all(value == orig(half) for value, half in values):
        return EXEC_ORIG
    if all(value == ONES_SYM for value, _ in values):
        return EXEC_ALL
    if all(value == ZERO_SYM for value, _ in values):
        return EXEC_NONE
    if all(_within(value, half) for value, half in values):
        return EXEC_SUBSET
    return EXEC_UNKNOWN


_WAVE64_EXEC = (EXEC_LO, EXEC_HI)
_WAVE32_EXEC = (EXEC_LO,)


def _within(value: Sym, slot: int) -> bool:
    return value.kind == ZERO or (value.kind in (ORIG, SUB) and value.slot == slot)
