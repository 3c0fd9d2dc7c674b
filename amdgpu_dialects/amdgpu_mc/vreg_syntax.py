"""Assembly syntax with virtual registers: ``s_add_u32 %1:SReg_64.sub0, %1:SReg_64.sub0, 4``.

The target's printer and assembler know physical registers only. A virtual register is
therefore written as a *stand-in*: a physical register of its file and width that no
other operand of the same instruction touches, so the stand-in can be told apart in the
printed text and in the matched operand list. Printing substitutes stand-ins for virtual
registers, prints, and writes the virtual names back; parsing does the reverse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr, register_units
from luthier.amdgpu_dialects.isa.target import load_target

#: ``%3:SReg_64`` or ``%3:VReg_128.sub2_sub3`` in operand text.
VREG_TOKEN = re.compile(r"%(\d+):([A-Za-z_][A-Za-z0-9_]*(?:\.sub\d+(?:_sub\d+)*)?)")
#: Register tokens of the files stand-ins come from (``s4``, ``v[2:3]``).
_REGISTER_TOKEN = re.compile(r"(?<![\w%])([sva])(?:(\d+)|\[(\d+):(\d+)\])(?![\w\[])")
_LIMIT = {"s": 102, "v": 256, "a": 256}


class VRegSyntaxError(ValueError):
    pass


def vreg_file_units(vreg: VirtRegAttr, processor: str) -> tuple[str, int]:
    """The file prefix and the 32-bit units of the whole virtual register."""
    rclass = load_target(processor).register_classes.get(vreg.register_class)
    if rclass is None:
        raise VRegSyntaxError(f"{vreg.text}: {processor} has no register class "
                              f"{vreg.register_class}")
    return rclass.files[0], rclass.width // 32


def taken_units(names: Iterable[str]) -> dict[str, set[int]]:
    """Register indexes used by physical registers, per file."""
    taken: dict[str, set[int]] = {"s": set(), "v": set(), "a": set()}
    for name in names:
        units = register_units(name)
        if units is not None and units[0] in taken:
            taken[units[0]].update(range(units[1], units[1] + units[2]))
    return taken


def registers_in_text(text: str) -> list[str]:
    return [match.group(0) for match in _REGISTER_TOKEN.finditer(text)]


def stand_ins(vregs: Sequence[VirtRegAttr], processor: str,
              taken: dict[str, set[int]]) -> dict[VirtRegAttr, str]:
    """A stand-in name for each virtual register operand (sub-registers of one virtual
    register share its stand-in base, so ``%1`` and ``%1.sub1`` stay consistent)."""
    bases: dict[int, int] = {}
    names: dict[VirtRegAttr, str] = {}
    for vreg in vregs:
        prefix, units = vreg_file_units(vreg.whole(), processor)
        base = bases.get(vreg.number)
        if base is None:
            align = min(units, 4) if prefix == "s" or units > 1 else 1
            base = 0
            while any(index in taken[prefix] for index in range(base, base + units)):
                base += align
            if base + units > _LIMIT[prefix]:
                raise VRegSyntaxError(f"no room to write {vreg.text}")
            taken[prefix].update(range(base, base + units))
            bases[vreg.number] = base
        first, count = vreg.sub_units or (0, units)
        start = base + first
        names[vreg] = f"{prefix}{start}" if count == 1 else f"{prefix}[{start}:{start + count - 1}]"
    return names


def restore_names(text: str, names: dict[VirtRegAttr, str]) -> str:
    """``text`` with each stand-in replaced by its virtual register's name."""
    by_stand_in = {stand_in: vreg.text for vreg, stand_in in names.items()}

    def replace(match: re.Match[str]) -> str:
        return by_stand_in.get(match.group(0), match.group(0))

    return _REGISTER_TOKEN.sub(replace, text)


def substitute_vregs(text: str, processor: str) -> tuple[str, dict[str, VirtRegAttr]]:
    """``text`` with virtual register tokens replaced by stand-ins, and the map back."""
    vregs = [VirtRegAttr((int(m.group(1)), m.group(2))) for m in VREG_TOKEN.finditer(text)]
    if not vregs:
        return text, {}
    physical = registers_in_text(VREG_TOKEN.sub("", text))
    names = stand_ins(vregs, processor, taken_units(physical))
    replaced = VREG_TOKEN.sub(lambda m: names[VirtRegAttr((int(m.group(1)), m.group(2)))],
                              text)
    return replaced, {stand_in: vreg for vreg, stand_in in names.items()}
