"""One instruction's effect on the symbolic state of :mod:`.verify_symbolic`.

The model knows exactly the instruction forms a payload prologue/epilogue saves and
restores registers with, and treats every other write as ``unknown``:

* copies: ``s_mov_b32``/``s_mov_b64`` (per unit), ``v_mov_b32_e32``/``_e64``,
  ``v_accvgpr_write_b32``/``_read_b32``/``_mov_b32`` (per part, under EXEC);
* SCC through an SGPR: ``s_cselect_b32 d, 1, 0`` / ``-1, 0`` (and ``s_cselect_b64``) make
  ``bool``; ``s_cmp_lg_u32 x, 0`` (``_u64``) of a ``bool`` gives SCC back (``s_cmp_eq``
  inverts it: not a restore);
* EXEC masking: ``s_and_saveexec_b64`` and the other ``*_saveexec_b64``, ``s_and``/``s_or``/
  ``s_xor``/``s_andn2`` of 32 and 64 bits, per unit: an AND with the entry's EXEC is a
  subset of it, OR of a subset with the entry's EXEC is the entry's EXEC again...;
* a MODE field saved and restored: ``s_getreg_b32 s, hwreg(HW_REG_MODE, o, n)``, writes
  of that field, then ``s_setreg_b32 hwreg(HW_REG_MODE, o, n), s``;
* SGPR spills to a VGPR lane: ``v_writelane_b32 v, s, lane`` and ``v_readlane_b32 s, v,
  lane`` with a constant lane;
* VGPR spills to the instrumentation stack: ``scratch_store_dword``/``scratch_load_dword``
  at a known address (the immediate alone, or an SGPR holding a constant plus the
  immediate; per part, under EXEC). Any other scratch, flat or buffer store (or atomic)
  may write any slot: the stack is forgotten.

The register effect (explicit and implicit defs such as SCC from ``s_add_u32``) comes from
:class:`~luthier.passes.analysis.effects.EffectTable`; recognised forms then overwrite
the slots they know better. Every slot not overwritten that way becomes ``unknown``.

A VALU write reaches the two parts of a vector unit according to EXEC (see
:data:`.verify_symbolic.COVERAGE`): a part EXEC covers entirely takes the new value, a part
it covers maybe in part becomes the join of old and new, a part it does not cover keeps its
value. Writes that do not depend on EXEC (``v_writelane_b32``) may reach either part.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Attribute

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.operands import LiteralAttr
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    EXEC_MASK,
    SPECIAL_UNITS,
    UNIT_COUNT,
    VECTOR_MASK,
    unit_bits,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, register_units
from luthier.passes.analysis.effects import Effect
from luthier.passes.instrument.verify_symbolic import (
    BOOL,
    BOOL_SYM,
    CONST,
    COVERAGE,
    EXEC_ALL,
    EXEC_HI,
    EXEC_LO,
    ONES,
    ONES_SYM,
    ORIG,
    SCC,
    SUB,
    ZERO,
    ZERO_SYM,
    ExecToken,
    State,
    Sym,
    const,
    exec_kind,
    inactive_slot,
    join,
    orig,
    sub,
    unknown,
)

#: Instructions that read or write lanes other than those EXEC holds.
_CROSS_LANE = re.compile(r"_dpp|^ds_(?:b?permute|swizzle)|^v_permlane|^v_readlane|"
                         r"^v_writelane|^v_readfirstlane")

_VECTOR_COPIES = frozenset({"v_mov_b32_e32", "v_mov_b32_e64", "v_accvgpr_write_b32",
                            "v_accvgpr_read_b32", "v_accvgpr_mov_b32"})

#: 64-bit special registers that are storage (``src_*`` names are read-only values).
_SPECIAL_PAIRS = frozenset({"vcc", "exec", "flat_scratch", "xnack_mask", "tba", "tma"})

#: Coverage of a write or read that does not follow EXEC: any lane, either part.
_ANY_LANE = ("some", "some")


def _bit_and(a: Sym, b: Sym) -> Sym:
    if ZERO in (a.kind, b.kind):
        return ZERO_SYM
    if a.kind == ONES:
        return b
    if b.kind == ONES:
        return a
    subsets = [value for value in (a, b) if value.kind in (ORIG, SUB)]
    if not subsets:
        return unknown()
    # A subset of both: keep EXEC's, the one the verifier reasons about (vcc & exec).
    for value in subsets:
        if value.slot in (EXEC_LO, EXEC_HI):
            return sub(value.slot)
    return sub(subsets[0].slot)


def _bit_or(a: Sym, b: Sym) -> Sym:
    if a.kind == ZERO:
        return b
    if b.kind == ZERO:
        return a
    if ONES in (a.kind, b.kind):
        return ONES_SYM
    if a.kind in (ORIG, SUB) and b.kind in (ORIG, SUB) and a.slot == b.slot:
        return orig(a.slot) if ORIG in (a.kind, b.kind) else sub(a.slot)
    return unknown()


def _bit_xor(a: Sym, b: Sym) -> Sym:
    if a.kind == ZERO:
        return b
    if b.kind == ZERO:
        return a
    if a.kind in (ORIG, SUB) and b.kind in (ORIG, SUB) and a.slot == b.slot:
        return sub(a.slot)
    return unknown()


def _bit_andn2(a: Sym, b: Sym) -> Sym:
    """``a & ~b``."""
    if b.kind == ZERO:
        return a
    if a.kind == ZERO or b.kind == ONES:
        return ZERO_SYM
    if a.kind in (ORIG, SUB):
        return sub(a.slot)
    return unknown()


_BITWISE: dict[str, Callable[[Sym, Sym], Sym]] = {
    "and": _bit_and, "or": _bit_or, "xor": _bit_xor, "andn2": _bit_andn2,
    "and_not1": _bit_andn2}
#: GFX11 renamed ``andn2`` ``and_not1``.
_BITWISE_OP = re.compile(r"^s_(and|or|xor|andn2|and_not1)_b(32|64)$")
_SAVEEXEC_OP = re.compile(r"^s_(and|or|xor|andn2|and_not1)_saveexec_b(32|64)$")


def storage_units(attr: Attribute) -> list[int] | None:
    """The units of a register operand that is storage (``s[4:5]``, ``exec``, ``v3``), in
    order, or None (an immediate, ``src_scc``, ``null``...). A new list each call (callers
    may keep it); the units are found once per register name."""
    if not isinstance(attr, PhysRegAttr):
        return None
    name = attr.data
    if name not in _STORAGE:
        if register_units(name) is None and name not in SPECIAL_UNITS \
                and name not in _SPECIAL_PAIRS:
            _STORAGE[name] = None
        else:
            mask = units_of(name)
            _STORAGE[name] = tuple(bit for bit in range(mask.bit_length()) if mask >> bit & 1)
    known = _STORAGE[name]
    return None if known is None else list(known)


#: Register name -> its storage units in order (None: not storage).
_STORAGE: dict[str, tuple[int, ...] | None] = {}


def _int_value(attr: Attribute) -> int | None:
    if isinstance(attr, IntAttr):
        return cast(int, attr.data)  # pyright: ignore[reportUnknownMemberType]
    if isinstance(attr, LiteralAttr):
        return attr.data
    return None


def _scalar_values(state: State, attr: Attribute, width: int) -> list[Sym] | None:
    """The ``width`` unit values of a scalar source operand, or None if not modelled."""
    units = storage_units(attr)
    if units is not None:
        if len(units) != width or any(unit >= UNIT_COUNT or VECTOR_MASK >> unit & 1
                                      for unit in units):
            return None
        return [state.get(unit) for unit in units]
    value = _int_value(attr)
    if value == 0:
        return [ZERO_SYM] * width
    if value == -1 or (width == 1 and value == 0xFFFFFFFF):
        return [ONES_SYM] * width
    if value is not None and width == 1:
        return [const(value)]
    if value is not None and width == 2 and -16 <= value <= 64:
        # A 64-bit inline constant is the sign-extended integer (s_mov_b64 exec, 1).
        return [_half(value & 0xFFFFFFFF), _half((value >> 32) & 0xFFFFFFFF)]
    return None


def _half(value: int) -> Sym:
    """One 32-bit half of a constant, as the state spells it (zero and all ones have symbols
    of their own, which EXEC's classification compares against)."""
    return ZERO_SYM if value == 0 else ONES_SYM if value == 0xFFFFFFFF else const(value)


@dataclass
class _Override:
    """What a recognised form writes, computed from the state before the instruction."""

    slots: dict[int, Sym] = field(default_factory=dict[int, Sym])
    #: Vector unit -> (active, inactive) values written under the instruction's EXEC.
    vectors: dict[int, tuple[Sym, Sym]] = field(default_factory=dict[int, tuple[Sym, Sym]])
    #: Vector unit -> its lane map after the instruction (replaces the old one).
    lanes: dict[int, dict[int, Sym]] = field(default_factory=dict[int, dict[int, Sym]])
    #: Extra origin for both parts of a vector unit (content moved into one lane).
    tainted: dict[int, int] = field(default_factory=dict[int, int])
    #: A copy moves content without using it: its reads expose nothing.
    copy: bool = False
    #: Stack slots written (byte address -> parts).
    stack: dict[int, tuple[Sym, Sym]] = field(default_factory=dict[int, tuple[Sym, Sym]])


#: The spill forms of scratch accesses: (store or load, addressing).
_SCRATCH_SPILL = re.compile(r"^SCRATCH_(STORE|LOAD)_DWORD_(SADDR|ST)_")
#: Other memory writes that may reach scratch (flat addresses can be private).
_MEMORY_WRITE = re.compile(r"^(?:scratch|flat|buffer)_.*(?:store|atomic)")


def _scratch_address(state: State, addressing: str,
                     operands: tuple[Attribute, ...]) -> int | None:
    """The byte address a spill-form scratch access reaches, when it is known."""
    if addressing == "ST":
        return _int_value(operands[1])
    base = _scalar_values(state, operands[1], 1)
    offset = _int_value(operands[2])
    if base is None or offset is None:
        return None
    if base[0].kind == ZERO:
        return offset
    if base[0].kind == CONST:
        return (base[0].slot + offset) & 0xFFFFFFFF
    return None


def _scratch(state: State, form: tuple[str, str], operands: tuple[Attribute, ...],
             cover: tuple[str, str]) -> _Override | None:
    """A VGPR stored to (or loaded from) a known stack address; ``form`` is the spill
    form's (``STORE`` or ``LOAD``, addressing)."""
    units = storage_units(operands[0])
    address = _scratch_address(state, form[1], operands)
    if units is None or len(units) != 1 or address is None \
            or not VECTOR_MASK >> units[0] & 1:
        return None
    (unit,) = units
    override = _Override(copy=True)
    if form[0] == "LOAD":
        override.vectors[unit] = state.stack.get(address, (unknown(), unknown()))
        return override
    old = state.stack.get(address, (unknown(), unknown()))
    parts: list[Sym] = []
    for previous, new, reach in ((old[0], state.get(unit), cover[0]),
                                 (old[1], state.get(inactive_slot(unit)), cover[1])):
        parts.append(new if reach == "all" else previous if reach == "none"
                     else join(previous, new))
    override.stack[address] = (parts[0], parts[1])
    return override


def _scalar_copy(state: State, operands: tuple[Attribute, ...], width: int) -> _Override | None:
    destination = storage_units(operands[0])
    values = _scalar_values(state, operands[1], width)
    if destination is None or values is None or len(destination) != width:
        return None
    return _Override(slots=dict(zip(destination, values, strict=True)), copy=True)


def _cselect(state: State, operands: tuple[Attribute, ...], width: int) -> _Override | None:
    destination = storage_units(operands[0])
    if destination is None or len(destination) != width or state.get(SCC) != orig(SCC):
        return None
    true, false = _int_value(operands[1]), _int_value(operands[2])
    if false != 0 or true not in (1, -1, 0xFFFFFFFF):
        return None
    values = [BOOL_SYM] * width if true != 1 else [BOOL_SYM] + [ZERO_SYM] * (width - 1)
    return _Override(slots=dict(zip(destination, values, strict=True)), copy=True)


def _cmp_lg_zero(state: State, operands: tuple[Attribute, ...], width: int) -> _Override | None:
    """``s_cmp_lg_u32 x, 0`` with ``x`` nonzero exactly when SCC was set: SCC again."""
    for tested, other in ((operands[0], operands[1]), (operands[1], operands[0])):
        values = _scalar_values(state, tested, width)
        if _int_value(other) == 0 and values is not None \
                and all(value.kind in (BOOL, ZERO) for value in values) \
                and any(value.kind == BOOL for value in values):
            return _Override(slots={SCC: orig(SCC)}, copy=True)
    return None


def _bitwise(state: State, operation: str, operands: tuple[Attribute, ...],
             width: int) -> _Override | None:
    destination = storage_units(operands[0])
    left = _scalar_values(state, operands[1], width)
    right = _scalar_values(state, operands[2], width)
    if destination is None or left is None or right is None or len(destination) != width:
        return None
    combine = _BITWISE[operation]
    return _Override(slots={unit: combine(a, b) for unit, a, b
                            in zip(destination, left, right, strict=True)})


def _saveexec(state: State, operation: str, operands: tuple[Attribute, ...],
              width: int) -> _Override | None:
    """``d = exec; exec = m OP exec`` (``andn2``: ``m & ~exec``); the ``_b32`` form, of a
    wave32 kernel, works on ``exec_lo`` alone."""
    destination = storage_units(operands[0])
    mask = _scalar_values(state, operands[1], width)
    if destination is None or mask is None or len(destination) != width:
        return None
    combine = _BITWISE[operation]
    halves = (EXEC_LO, EXEC_HI)[:width]
    execs = [state.get(half) for half in halves]
    slots = dict(zip(destination, execs, strict=True))
    for half, part, current in zip(halves, mask, execs, strict=True):
        slots[half] = combine(part, current)
    return _Override(slots=slots)


def _vector_copy(state: State, operands: tuple[Attribute, ...]) -> _Override | None:
    destination = storage_units(operands[0])
    source = storage_units(operands[1])
    if destination is None or source is None or len(destination) != 1 or len(source) != 1:
        return None
    (unit,), (from_unit,) = destination, source
    if not VECTOR_MASK >> unit & 1 or not VECTOR_MASK >> from_unit & 1:
        return None
    override = _Override(copy=True)
    override.vectors[unit] = (state.get(from_unit), state.get(inactive_slot(from_unit)))
    if exec_kind(state) == EXEC_ALL:
        override.lanes[unit] = dict(state.lanes.get(from_unit, {}))
    return override


def _lane(attr: Attribute) -> int | None:
    value = _int_value(attr)
    return value if value is not None and 0 <= value < 64 else None


def _writelane(state: State, operands: tuple[Attribute, ...]) -> _Override | None:
    destination = storage_units(operands[0])
    values = _scalar_values(state, operands[1], 1)
    if destination is None or values is None or len(destination) != 1:
        return None
    (unit,), (value,) = destination, values
    lane = _lane(operands[2])
    # A lane number in a register is a read that matters: not a plain copy then.
    override = _Override(copy=lane is not None, tainted={unit: value.origin})
    lanes = dict(state.lanes.get(unit, {})) if lane is not None else {}
    if lane is not None:
        lanes[lane] = value
    override.lanes[unit] = lanes
    return override


def _readlane(state: State, operands: tuple[Attribute, ...]) -> _Override | None:
    destination = storage_units(operands[0])
    source = storage_units(operands[1])
    if destination is None or source is None or len(destination) != 1 or len(source) != 1:
        return None
    (unit,), (from_unit,) = destination, source
    lane = _lane(operands[2])
    known = state.lanes.get(from_unit, {}).get(lane) if lane is not None else None
    value = known if known is not None else unknown(
        state.get(from_unit).origin | state.get(inactive_slot(from_unit)).origin)
    return _Override(slots={unit: value}, copy=lane is not None)


#: ``HW_REG_MODE``'s id in a ``hwreg`` operand, and MODE's slot.
_HW_REG_MODE = 1
_MODE = units_of("mode").bit_length() - 1


def _mode_field(operand: Attribute) -> str | None:
    """``"offset size"`` of a ``hwreg(HW_REG_MODE, offset, size)`` operand, or None."""
    value = _int_value(operand)
    if value is None or value & 0x3F != _HW_REG_MODE:
        return None
    return f"{(value >> 6) & 0x1F} {((value >> 11) & 0x1F) + 1}"


def _getreg(state: State, operands: tuple[Attribute, ...]) -> _Override | None:
    """``s_getreg_b32 s, hwreg(HW_REG_MODE, o, n)`` of the entry's MODE: ``s`` holds that
    field of it (a save, as ``field o n``)."""
    field = _mode_field(operands[1])
    destination = storage_units(operands[0])
    if field is None or destination is None or len(destination) != 1 \
            or state.get(_MODE) != orig(_MODE):
        return None
    return _Override(slots={destination[0]: Sym(f"field {field}", _MODE, 1 << _MODE)},
                     copy=True)


def _setreg(state: State, operands: tuple[Attribute, ...], immediate: bool) -> _Override | None:
    """``s_setreg_b32 hwreg(HW_REG_MODE, o, n), s`` with ``s`` holding the entry's field
    (a restore) gives MODE its entry content back; another write of one field leaves MODE
    ``patched o n`` (the entry's content but for that field), which only the restore of
    the same field undoes."""
    field = _mode_field(operands[1])
    current = state.get(_MODE)
    if field is None or (current != orig(_MODE) and current.kind != f"patched {field}"):
        return None
    if not immediate:
        values = _scalar_values(state, operands[0], 1)
        if values is not None and values[0].kind == f"field {field}":
            return _Override(slots={_MODE: orig(_MODE)}, copy=True)
    return _Override(slots={_MODE: Sym(f"patched {field}")})


#: A recognised form: what it writes, from the state before it and its operands.
_Recogniser = Callable[[State, tuple[Attribute, ...]], "_Override | None"]


def _recogniser(mnemonic: str) -> tuple[_Recogniser, int] | None:
    """The form ``mnemonic`` is recognised as, with the operand count it needs (``-3``: at
    least three), or None."""
    width = 1 if mnemonic.endswith("32") else 2
    if mnemonic in ("s_mov_b32", "s_mov_b64"):
        return (lambda state, operands: _scalar_copy(state, operands, width)), 2
    if mnemonic in ("s_cselect_b32", "s_cselect_b64"):
        return (lambda state, operands: _cselect(state, operands, width)), 3
    if mnemonic in ("s_cmp_lg_u32", "s_cmp_lg_u64"):
        return (lambda state, operands: _cmp_lg_zero(state, operands, width)), 2
    if mnemonic in _VECTOR_COPIES:
        return _vector_copy, 2
    if mnemonic == "v_writelane_b32":
        return _writelane, -3
    if mnemonic == "v_readlane_b32":
        return _readlane, 3
    if mnemonic == "s_getreg_b32":
        return _getreg, 2
    if mnemonic in ("s_setreg_b32", "s_setreg_imm32_b32"):
        immediate = mnemonic == "s_setreg_imm32_b32"
        return (lambda state, operands: _setreg(state, operands, immediate)), 2
    bitwise = _BITWISE_OP.search(mnemonic)
    if bitwise is not None:
        operation, words = bitwise.group(1), int(bitwise.group(2)) // 32
        return (lambda state, operands: _bitwise(state, operation, operands, words)), 3
    saveexec = _SAVEEXEC_OP.search(mnemonic)
    if saveexec is not None:
        operation, words = saveexec.group(1), int(saveexec.group(2)) // 32
        return (lambda state, operands: _saveexec(state, operation, operands, words)), 2
    return None


@dataclass(frozen=True, slots=True)
class _Facts:
    """What :func:`step` asks of an instruction's mnemonic and opcode, found once per
    pair: every step of every distinct payload body asks (hundreds of thousands of steps
    for a library), and the answers are a few regular-expression searches."""

    #: Reads or writes lanes other than those EXEC holds (:data:`_CROSS_LANE`).
    cross_lane: bool
    #: The recognised form and the operand count it needs (``-n``: at least n).
    recognise: tuple[_Recogniser, int] | None
    #: A spill-form scratch access: (``STORE`` or ``LOAD``, addressing).
    scratch: tuple[str, str] | None
    #: Any other memory write that may reach scratch (:data:`_MEMORY_WRITE`).
    memory_write: bool
    #: Whether, when it uses EXEC, it reads its vector operands only in EXEC's lanes and
    #: writes them in exactly those lanes (:func:`_lane_exact`).
    lane_read: bool = False
    lane_write: bool = False
    #: ``v_readfirstlane``: reads the first lane of EXEC, or lane 0 when EXEC is empty.
    first_lane: bool = False


_FACTS: dict[tuple[str, str], _Facts] = {}


def _facts(mnemonic: str, opcode: str) -> _Facts:
    found = _FACTS.get((mnemonic, opcode))
    if found is None:
        spill = _SCRATCH_SPILL.search(opcode)
        cross_lane = _CROSS_LANE.search(mnemonic) is not None
        found = _FACTS[(mnemonic, opcode)] = _Facts(
            cross_lane, _recogniser(mnemonic),
            None if spill is None else (spill.group(1), spill.group(2)),
            _MEMORY_WRITE.search(mnemonic) is not None, *_lane_exact(cross_lane, mnemonic),
            mnemonic.startswith("v_readfirstlane"))
    return found


def _recognise(state: State, facts: _Facts,
               operands: tuple[Attribute, ...]) -> _Override | None:
    if facts.recognise is None:
        return None
    recognise, count = facts.recognise
    if len(operands) == count or count < 0 and len(operands) >= -count:
        return recognise(state, operands)
    return None


def coverage(state: State, facts: _Facts, effect: Effect) -> tuple[str, str]:
    """Which parts of a vector unit the instruction's vector reads and writes reach."""
    if effect.uses & EXEC_MASK and not facts.cross_lane:
        return COVERAGE[exec_kind(state)]
    return _ANY_LANE


def _lane_exact(cross_lane: bool, mnemonic: str) -> tuple[bool, bool]:
    """Whether an instruction that uses EXEC reads its vector operands only in lanes EXEC
    holds, and whether it writes them in exactly those lanes: not an MFMA (which runs every
    lane), and touching no other lane (DPP, permutes, lane reads and writes), except that
    ``v_readfirstlane`` reads one of EXEC's lanes; a write must be of whole registers (not
    SDWA's parts)."""
    if mnemonic.startswith(("v_mfma", "v_smfmac")):
        return False, False
    reads = not cross_lane or mnemonic.startswith("v_readfirstlane")
    return reads, not cross_lane and "_sdwa" not in mnemonic


def read_origin(state: State, uses: int, cover: tuple[str, str],
                exact: bool = False) -> int:
    """The entry content a (non-copy) read of ``uses`` may see; ``exact`` when the read
    reaches only lanes EXEC holds (:func:`_lane_exact`), so that a unit written
    under the same EXEC (``State.masked``) holds just what was written there."""
    origin = 0
    reads_inactive = cover[1] != "none"
    slots = state.slots
    masked = state.masked
    token = state.exec_token() if masked and exact else None
    for unit in unit_bits(uses):
        written = masked.get(unit) if token is not None else None
        if written is not None and written[0] == token:
            origin |= written[1].origin  # the lanes read are exactly the lanes written
            continue
        # A slot not in ``slots`` holds orig(slot), whose origin is the slot itself.
        value = slots.get(unit)
        origin |= 1 << unit if value is None else value.origin
        if reads_inactive and VECTOR_MASK >> unit & 1:
            origin |= state.get(inactive_slot(unit)).origin
    return origin


def _write_part(state: State, slot: int, cover: str, new: Sym) -> None:
    if cover == "all":
        state.set(slot, new)
    elif cover == "some":
        state.set(slot, join(state.get(slot), new))


#: What a whole write leaves: nothing of the old content.
_UNKNOWN = unknown()


def write_units(state: State, defs: int, cover: tuple[str, str], whole: bool,
                token: ExecToken | None = None) -> None:
    """Make the units of ``defs`` unknown: scalar units always; vector units in the parts
    ``cover`` reaches. ``whole`` writes end the old content; partial ones keep its origin.
    With ``token`` (the EXEC an exact whole write ran under, :func:`_lane_exact`), the
    vector units written are recorded in ``State.masked``."""
    slots = state.slots
    for unit in unit_bits(defs):
        if not VECTOR_MASK >> unit & 1:
            # An unknown value is never orig(unit): State.set would store it as well.
            slots[unit] = _UNKNOWN if whole else unknown(state.get(unit).origin)
            continue
        state.lanes.pop(unit, None)
        state.masked.pop(unit, None)
        if token is not None:  # every lane of this EXEC now holds the value written
            state.masked[unit] = (token, _UNKNOWN)
        for slot, reach in ((unit, cover[0]), (inactive_slot(unit), cover[1])):
            if whole:
                _write_part(state, slot, reach, _UNKNOWN)
            elif reach != "none":
                state.set(slot, unknown(state.get(slot).origin))


def step(state: State, op: InstructionOpBase, effect: Effect) -> int:
    """Run ``op`` on ``state`` (in place); return the entry content it exposes."""
    operands = op.mc_operands.data
    facts = _facts(op.mnemonic, op.opcode.data)
    cover = coverage(state, facts, effect)
    override = _recognise(state, facts, operands)
    if override is None and facts.scratch is not None:
        override = _scratch(state, facts.scratch, operands, cover)
    if override is None and facts.memory_write:
        state.stack.clear()
    uses_exec = bool(effect.uses & EXEC_MASK)
    exact_read, exact_write = uses_exec and facts.lane_read, uses_exec and facts.lane_write
    if exact_read and facts.first_lane and not isinstance(state.exec_token(), tuple):
        # v_readfirstlane reads lane 0 when EXEC is empty, and an EXEC named by the
        # instruction that wrote it may be empty: then lane 0 was not written.
        exact_read = False
    # The EXEC this instruction runs under, before anything it writes (EXEC among them).
    token = state.exec_token() if exact_write and effect.vector_defs and "some" in cover \
        else None
    exposed = 0 if override is not None and override.copy \
        else read_origin(state, effect.uses, cover, exact_read)
    before = {slot: state.get(slot) for unit in (override.vectors if override else ())
              for slot in (unit, inactive_slot(unit))}
    if effect.scalar_defs:
        write_units(state, effect.scalar_defs, cover, whole=True)
    if effect.vector_defs:
        write_units(state, effect.vector_defs, cover, whole=True, token=token)
    if effect.partial_defs:
        write_units(state, effect.partial_defs, cover, whole=False)
    if (effect.scalar_defs | effect.partial_defs) & EXEC_MASK:
        state.exec_written(id(op))
    if override is None:
        return exposed
    for slot, value in override.slots.items():
        state.set(slot, value)
    state.stack.update(override.stack)
    for unit, (active, inactive) in override.vectors.items():
        # The generic write above made the covered parts unknown; redo it with the values.
        for slot, reach, new in ((unit, cover[0], active),
                                 (inactive_slot(unit), cover[1], inactive)):
            state.set(slot, before[slot])
            _write_part(state, slot, reach, new)
    for unit in (*override.vectors, *override.tainted, *override.lanes):
        state.masked.pop(unit, None)  # written some other way than a whole VALU write
    for unit, origin in override.tainted.items():
        for slot in (unit, inactive_slot(unit)):
            state.set(slot, unknown(state.get(slot).origin | origin))
    for unit, lanes in override.lanes.items():
        if lanes:
            state.lanes[unit] = lanes
        else:
            state.lanes.pop(unit, None)
    return exposed


