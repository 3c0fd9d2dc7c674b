"""Symbolic executions shared between payload bodies that differ only in their registers.

Instrumenting every instruction of a library gives thousands of distinct allocated bodies
(rocRAND with ``instr_count``: 8,621), but most are one template's code with other dead
registers chosen: the same instructions, the same immediates, the same special registers,
only other SGPRs and VGPRs, and other symbolic operands (addresses the linker fills in,
which the execution treats as values it does not know, whatever their symbol and addend).
The symbolic execution of :mod:`.verify_flow` treats every general-purpose register alike
(no step asks *which* SGPR or VGPR it is, only which units an operand names, and whether a
unit is scalar or vector), so running a body whose general-purpose units are renamed
one-to-one, class for class, gives the first body's result renamed the same way. The
verifier therefore executes one body of each class and renames its summary for the others.

This stays a check of the code as it is, not of what the allocator meant: the class of a
body is read off its own instructions (two operands naming one unit keep naming one unit,
so an overlap the allocator made is still seen), and a body is only put in a class when
every general-purpose unit its instructions' effects touch is one its operands name (an
implicit SGPR or VGPR use, such as a relative-addressing read of any VGPR, would not
rename with the operands): such bodies are executed on their own.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.ir import Attribute

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    AGPR_MASK,
    SGPR_MASK,
    UNIT_COUNT,
    VGPR_MASK,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, register_units
from luthier.passes.analysis.effects import EffectError, EffectTable
from luthier.passes.instrument.verify_flow import FlowResult
from luthier.passes.instrument.verify_symbolic import orig

#: The units a renaming may move: SGPRs, VGPRs and AGPRs (each within its own file).
RENAMED_UNITS = SGPR_MASK | VGPR_MASK | AGPR_MASK


@dataclass(frozen=True, slots=True)
class Renamable:
    """A body's class (``signature``: its instructions with each general-purpose unit
    replaced by the order in which it first appears) and those units in that order."""

    signature: Hashable
    units: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Summary:
    """What the point check reads of a symbolic execution: per reachable ``instr.return``,
    the slots not holding their entry content and the origin of what they hold; the entry
    content the body exposes; whether an ``instr.return`` is reachable."""

    changed: tuple[tuple[tuple[int, int], ...], ...]
    exposed: int
    reaches_exit: bool


def summarize(result: FlowResult) -> Summary:
    changed = tuple(tuple((slot, value.origin) for slot, value in state.slots.items()
                          if value != orig(slot)) for state in result.exit_states)
    return Summary(changed, result.exposed, result.reaches_exit)


#: What a symbolic operand is in a signature, whatever symbol and addend it names: an
#: address the linker fills in, a value the execution never models (a hook indexing a tool
#: global per point gets one class, not one per addend).
_SYMBOL = ("symbol",)

#: Register name -> (its form, its units in order) when general-purpose, else None.
_GENERAL: dict[str, tuple[Hashable, tuple[int, ...]] | None] = {}


def _general(name: str) -> tuple[Hashable, tuple[int, ...]] | None:
    if name in _GENERAL:
        return _GENERAL[name]
    parts = register_units(name)
    found: tuple[Hashable, tuple[int, ...]] | None = None
    if parts is not None and parts[0] in ("s", "v", "a"):
        mask = units_of(name)
        units = tuple(bit for bit in range(mask.bit_length()) if mask >> bit & 1)
        if units and not mask & ~RENAMED_UNITS:
            # The form keeps the file, the width and the spelling (s4 or s[4:4]).
            found = ((parts[0], parts[2], "[" in name), units)
    _GENERAL[name] = found
    return found


def renamable(code: PackedCode, effects: EffectTable) -> Renamable | None:
    """The class of ``code`` under ``effects``, or None when it is to be executed on its
    own (asked once per distinct body: nothing is kept on the code)."""
    order: dict[int, int] = {}
    signature: list[Hashable] = []
    touched = 0
    for op in code.ops:
        reading = _reading(op, effects)
        if reading is None:
            return None  # executed on its own: its error names its own registers
        mnemonic, parts, touches = reading
        operands: list[Hashable] = []
        for part, general in parts:
            operands.append(part if general is None else
                            (part, tuple(order.setdefault(unit, len(order))
                                         for unit in general)))
        signature.append((mnemonic, tuple(operands)))
        touched |= touches
    units = tuple(order)
    named = 0
    for unit in units:
        named |= 1 << unit
    if touched & RENAMED_UNITS & ~named:
        return None
    return Renamable(tuple(signature), units)


#: An operand in a signature: a part that stays as it is (a symbol marker, an attribute),
#: with None; or a general-purpose register's form, with its units (renamed per body).
_Part = tuple[Hashable, tuple[int, ...] | None]
#: What a signature needs of one instruction: its opcode, its operands, the units its effect
#: touches.
_Reading = tuple[str, tuple[_Part, ...], int]
#: (effects, op class, opcode, operands, by identity) -> (those, the reading, or None when
#: a body holding the instruction is executed on its own). Thousands of bodies repeat a
#: few hundred instructions (operand arrays are interned).
_READINGS: dict[tuple[int, type, int, int],
                tuple[EffectTable, Attribute, Attribute, _Reading | None]] = {}


def _reading(op: InstructionOpBase, effects: EffectTable) -> _Reading | None:
    opcode, operands = op.opcode, op.mc_operands
    key = (id(effects), type(op), id(opcode), id(operands))
    known = _READINGS.get(key)
    if known is not None and known[0] is effects and known[1] is opcode \
            and known[2] is operands:
        return known[3]
    reading: _Reading | None
    try:
        parts: list[_Part] = []
        for attr in operands.data:
            if type(attr) is SymbolOperandAttr:
                parts.append((_SYMBOL, None))
                continue
            general = _general(attr.data) if type(attr) is PhysRegAttr else None
            parts.append((_hashable(attr), None) if general is None else general)
        effect = effects.of(op)
        reading = (opcode.data, tuple(parts), effect.uses | effect.defs)
    except (EffectError, TypeError):
        reading = None
    if len(_READINGS) >= 1 << 16:
        _READINGS.clear()
    _READINGS[key] = (effects, opcode, operands, reading)
    return reading


def _hashable(attr: Attribute) -> Hashable:
    hash(attr)  # TypeError for an attribute that cannot be a key: no class then
    return attr


def rename(summary: Summary, source: tuple[int, ...], target: tuple[int, ...]) -> Summary:
    """``summary`` of a body whose general-purpose units are ``source``, for the body of
    the same class whose units are ``target`` (both in order of first appearance)."""
    if source == target:
        return summary
    moved = {unit: new for unit, new in zip(source, target, strict=True) if unit != new}
    moved.update({unit + UNIT_COUNT: new + UNIT_COUNT for unit, new in moved.items()})

    def slots(mask: int) -> int:
        result = 0
        while mask:
            low = mask & -mask
            slot = low.bit_length() - 1
            result |= 1 << moved.get(slot, slot)
            mask ^= low
        return result

    changed = tuple(tuple((moved.get(slot, slot), slots(origin)) for slot, origin in state)
                    for state in summary.changed)
    return Summary(changed, slots(summary.exposed), summary.reaches_exit)
