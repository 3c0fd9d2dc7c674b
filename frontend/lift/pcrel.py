"""Symbolic PC-relative operands: relocations where present, recovered where not.

Code reaches globals and functions with ``s_getpc_b64 s[N:N+1]`` followed by
``s_add_u32 sN, sN, lo`` and ``s_addc_u32 sN+1, sN+1, hi`` (GFX12: ``s_sext_i32_i16 sN+1,
sN+1``, then ``s_add_co_u32`` and ``s_add_co_ci_u32``): the two literals are the
distance from the address after ``s_getpc_b64`` to the target. In a relocatable object the
literals carry ``R_AMDGPU_REL32_LO/HI`` (or GOTPCREL32, ABS32) relocations, which give the
symbol directly. A linked object has none, so the lifter follows each ``s_getpc_b64`` through
its block, pairs the adds, computes the target and names it after the symbol that contains
it (or, for a GOT slot, the symbol the slot's dynamic relocation points at). Once symbolic,
the operands are recomputed at emission, so code can move. A target no symbol covers is
left as a number with a warning: the code then cannot move relative to it.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from luthier.amdgpu_dialects.amdgpu_mc.registers import register_units
from luthier.amdgpu_dialects.mc.asm_expr import SymbolReference, SymExpr
from luthier.amdgpu_dialects.mc.operand_decoders import Literal
from luthier.amdgpu_dialects.mc.relocations import literal_variant, relocation_kind
from luthier.frontend.codeobj import CodeObject, Relocation
from luthier.frontend.lift.cfg import DecodedInst, branch_target

#: (index of the instruction in its function, operand index) -> symbolic operand.
Symbolized = dict[tuple[int, int], SymExpr]


def expression(symbol: str, variant: str, addend: int) -> SymExpr:
    """``sym@rel32@lo+4`` (``variant`` spelled with its leading ``@``; no addend when it is
    zero)."""
    return SymbolReference(symbol, variant.removeprefix("@"), addend).expr


def literal_operand(inst: DecodedInst) -> int | None:
    """The index of the operand encoded in the trailing literal, if any."""
    for index, value in enumerate(inst.mc.operands):
        if isinstance(value, Literal):
            return index
    return None


@dataclass(frozen=True, slots=True)
class _Span:
    address: int
    size: int
    name: str
    section: int | str


class SymbolMap:
    """Address -> the function or variable symbol containing it, and GOT slots."""

    def __init__(self, code_object: CodeObject) -> None:
        spans: list[_Span] = []
        for symbol in code_object.symbols:
            if symbol.type in ("FUNC", "OBJECT") and symbol.name \
                    and not symbol.name.endswith(".kd"):
                spans.append(_Span(symbol.value, symbol.size, symbol.name, symbol.section_index))
        spans.sort(key=lambda span: (span.address, -span.size))
        self._spans = spans
        self._starts = [span.address for span in spans]
        got = code_object.section(".got")
        self._got = (got.address, got.address + got.size) if got is not None else None
        self._got_slots: dict[int, Relocation] = {
            relocation.offset: relocation for relocation in code_object.relocations
            if relocation.target_section is None}

    def containing(self, address: int,
                   section: int | str | None = None) -> tuple[str, int] | None:
        """``(symbol, offset)`` of the symbol whose bytes hold ``address``; in a relocatable
        object, where every section starts at 0, give the ``section`` index too."""
        index = bisect.bisect_right(self._starts, address) - 1
        while index >= 0:
            span = self._spans[index]
            if span.address <= address < span.address + max(span.size, 1) \
                    and (section is None or span.section == section):
                return span.name, address - span.address
            index -= 1
        return None

    def got_symbol(self, address: int) -> str | None:
        """The symbol a GOT slot at ``address`` holds the address of."""
        if self._got is None or not self._got[0] <= address < self._got[1]:
            return None
        relocation = self._got_slots.get(address)
        if relocation is None:
            return None
        if relocation.symbol:
            return relocation.symbol
        found = self.containing(relocation.addend)
        return found[0] if found is not None and found[1] == 0 else None


def from_relocations(instructions: list[DecodedInst], relocations: dict[int, Relocation],
                     sections: dict[str, tuple[int, int]] | None = None,
                     symbols: SymbolMap | None = None) -> tuple[Symbolized, list[str]]:
    """Symbolic literals from the relocations of a relocatable object's ``.text``.

    A relocation against a section symbol (``.text + 0x594``, as clang writes calls to local
    functions) is renamed after the symbol at the target, so that it survives code moving:
    the target is the section address plus the addend less the literal's distance from the
    ``s_getpc_b64`` the constant is relative to.
    """
    symbolized: Symbolized = {}
    warnings: list[str] = []
    last_getpc: dict[int, int] = {}
    for position, inst in enumerate(instructions):
        if inst.mnemonic == "s_getpc_b64" and isinstance(inst.mc.operands[0], str):
            units = register_units(inst.mc.operands[0])
            if units is not None:
                last_getpc[units[1]] = inst.end
        if inst.mc.size <= inst.mc.desc.size:
            continue
        relocation = relocations.get(inst.address + inst.mc.desc.size)
        if relocation is None:
            continue
        operand = literal_operand(inst)
        kind = relocation_kind(relocation.type)
        variant = literal_variant(kind) if kind is not None else None
        if operand is None or variant is None:
            warnings.append(f"{relocation.type_name} against {relocation.symbol} at "
                            f"{inst.address:#x} is not on a literal operand we can name")
            continue
        symbol, addend = relocation.symbol, relocation.addend
        if sections is not None and symbols is not None and symbol in sections \
                and variant.startswith("@rel32"):
            renamed = _rename_section_reference(inst, sections[symbol], addend, last_getpc,
                                                symbols)
            if renamed is not None:
                symbol, addend = renamed
        symbolized[(position, operand)] = expression(symbol, variant, addend)
    return symbolized, warnings


def _rename_section_reference(inst: DecodedInst, section: tuple[int, int], addend: int,
                              last_getpc: dict[int, int],
                              symbols: SymbolMap) -> tuple[str, int] | None:
    destination = inst.mc.operands[0]
    units = register_units(destination) if isinstance(destination, str) else None
    if units is None:
        return None
    getpc = last_getpc.get(units[1] if inst.mnemonic in _LOW_ADDS else units[1] - 1)
    if getpc is None:
        return None
    bias = inst.address + inst.mc.desc.size - getpc
    found = symbols.containing(section[0] + addend - bias, section[1])
    if found is None:
        return None
    return found[0], found[1] + bias


def _sext64(value: int) -> int:
    return value - (1 << 64) if value & (1 << 63) else value


#: SGPR index N of a live s_getpc_b64 s[N:N+1] -> (its value, the lo add if seen).
_Live = dict[int, tuple[int, tuple[int, int, int] | None]]


def _meet(states: list[_Live]) -> _Live:
    """What every incoming path agrees on."""
    first, *others = states
    return {base: entry for base, entry in first.items()
            if all(other.get(base) == entry for other in others)}


def _forward_targets(instructions: list[DecodedInst]) -> tuple[set[int], set[int]]:
    """Addresses branched to from before them, and those branched to from after them
    (a loop: what a later instruction leaves live is not known there)."""
    forward: set[int] = set()
    backward: set[int] = set()
    for inst in [inst for inst in instructions if inst.kind == "branch"]:
        target = branch_target(inst)
        (forward if target > inst.address else backward).add(target)
    return forward, backward


#: The kinds of instruction that end what is live (or pass it on to a branch target).
_ENDS_OR_BRANCHES = frozenset(("branch", "call", "terminator"))


def recover(function: str, instructions: list[DecodedInst],
            symbols: SymbolMap) -> tuple[Symbolized, list[str]]:
    """Symbolic literals of ``s_getpc_b64`` sequences in a linked object.

    A sequence is followed in layout order through forward branches: where paths join, a
    pair stays live when every path into the join left it so. Instrumented code needs
    this: a payload with a branch of its own may sit between an ``s_getpc_b64`` and its
    adds. A loop's header forgets everything (its back edge comes later)."""
    symbolized: Symbolized = {}
    warnings: list[str] = []
    if "s_getpc_b64" not in {inst.mnemonic for inst in instructions}:
        return symbolized, warnings  # no sequence starts: most functions of a library
    live: _Live = {}
    #: What the forward branches to each address left live, by branch.
    arriving: dict[int, list[_Live]] = {}
    forward, backward = _forward_targets(instructions)
    #: Whether the previous instruction falls through into this one.
    falls = True
    for position, inst in enumerate(instructions):
        if inst.address in forward or inst.address in backward:
            incoming = arriving.pop(inst.address, []) + ([live] if falls else [])
            live = {} if inst.address in backward or not incoming else _meet(incoming)
        elif not falls:
            live = {}
        falls = True
        mnemonic = inst.mnemonic
        if not live and mnemonic != "s_getpc_b64" and inst.kind not in _ENDS_OR_BRANCHES:
            continue  # most code: no sequence under way, nothing that starts or ends one
        operands = inst.mc.operands
        if mnemonic == "s_getpc_b64" and isinstance(operands[0], str):
            units = register_units(operands[0])
            if units is not None and units[0] == "s":
                live[units[1]] = (inst.end, None)
                continue
        if _extends_live_high_half(inst, live):
            continue
        pair = _matching_add(inst, live)
        if pair is not None:
            base, is_high = pair
            getpc_value, low = live[base]
            operand = literal_operand(inst)
            assert operand is not None
            literal_address = inst.address + inst.mc.desc.size
            value = int(operands[operand] or 0) & 0xFFFFFFFF
            if not is_high:
                live[base] = (getpc_value, (position, operand, value | (literal_address << 32)))
                continue
            if low is None:
                continue
            low_position, low_operand, packed = low
            low_value, low_address = packed & 0xFFFFFFFF, packed >> 32
            target = getpc_value + _sext64((value << 32) | low_value)
            named = _name_target(target, symbols)
            del live[base]
            if named is None:
                warnings.append(
                    f"{function}+{inst.address - instructions[0].address:#x}: the "
                    f"s_getpc_b64-relative address {target:#x} is in no symbol; left as a "
                    "number, so code cannot move relative to it")
                continue
            symbol, variant, offset = named
            symbolized[(low_position, low_operand)] = expression(
                symbol, f"@{variant}@lo", low_address - getpc_value + offset)
            symbolized[(position, operand)] = expression(
                symbol, f"@{variant}@hi", literal_address - getpc_value + offset)
            continue
        _kill_overwritten(inst, live)
        if inst.kind == "branch":
            target = branch_target(inst)
            if target > inst.address:
                arriving.setdefault(target, []).append(dict(live))
            falls = mnemonic != "s_branch"
        elif inst.kind in ("call", "terminator"):
            live = {}
            falls = inst.kind == "call"
    return symbolized, warnings


def _matching_add(inst: DecodedInst,
                  live: _Live
                  ) -> tuple[int, bool] | None:
    """``(N, is_high)`` when ``inst`` is the lo add or hi add-with-carry of a live pair."""
    if inst.mnemonic not in _LOW_ADDS | _HIGH_ADDS or literal_operand(inst) is None:
        return None
    destination, first = inst.mc.operands[0], inst.mc.operands[1]
    if not isinstance(destination, str) or destination != first:
        return None
    units = register_units(destination)
    if units is None or units[0] != "s":
        return None
    if inst.mnemonic in _LOW_ADDS and units[1] in live:
        return units[1], False
    if inst.mnemonic in _HIGH_ADDS and units[1] - 1 in live:
        return units[1] - 1, True
    return None


#: The adds of a PC-relative sequence: GFX9-GFX11 spell them s_add_u32/s_addc_u32, GFX12
#: s_add_co_u32/s_add_co_ci_u32.
_LOW_ADDS = frozenset({"s_add_u32", "s_add_co_u32"})
_HIGH_ADDS = frozenset({"s_addc_u32", "s_add_co_ci_u32"})


def _extends_live_high_half(inst: DecodedInst, live: _Live) -> bool:
    """``s_sext_i32_i16 sN+1, sN+1`` right after ``s_getpc_b64 s[N:N+1]`` (before its adds):
    GFX12 code sign-extends the PC's bits 47:32, which leaves a code address as it was, so
    the sequence goes on."""
    operands = inst.mc.operands
    if inst.mnemonic != "s_sext_i32_i16" or len(operands) != 2 \
            or not isinstance(operands[0], str) or operands[0] != operands[1]:
        return False
    units = register_units(operands[0])
    if units is None or units[0] != "s" or units[2] != 1:
        return False
    entry = live.get(units[1] - 1)
    return entry is not None and entry[1] is None


def _kill_overwritten(inst: DecodedInst,
                      live: _Live) -> None:
    if not live:
        return
    for slot, value in zip(inst.mc.desc.operands, inst.mc.operands, strict=True):
        if not slot.is_def or not isinstance(value, str):
            continue
        units = register_units(value)
        if units is None or units[0] != "s":
            continue
        written = set(range(units[1], units[1] + units[2]))
        for base in [base for base in live if base in written or base + 1 in written]:
            del live[base]


def _name_target(target: int, symbols: SymbolMap) -> tuple[str, str, int] | None:
    """``(symbol, variant, offset)`` naming a PC-relative target."""
    got_symbol = symbols.got_symbol(target)
    if got_symbol is not None:
        return got_symbol, "gotpcrel32", 0
    found = symbols.containing(target)
    if found is None:
        return None
    return found[0], "rel32", found[1]
