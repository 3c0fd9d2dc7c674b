"""The AMDGPU relocation kinds: one typed table, and every lookup derived from it.

"Relocation Records" in AMDGPUUsage.rst gives each ``R_AMDGPU_*`` type its number and the
field it patches; LLVM's MC layer adds how assembly text selects one. A 32-bit instruction
literal or a data directive spells a relocation either with an LLVM variant kind
(``sym@rel32@lo``, ``.quad sym@rel64``) or as a plain expression (``sym`` is absolute,
``sym-.`` PC-relative) whose size and PC-relativity pick the type, as LLVM's AMDGPU object
writer (``getRelocType``) does. The reader, the assembler, the lifter, the emitter and the
linker all ask this table, so a new kind or spelling is one row here.

This module is MC-layer syntax and imports no xDSL.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RelocationKind:
    """One ``R_AMDGPU_*`` relocation type and how assembly spells it."""

    number: int
    """``ELF64_R_TYPE`` value."""
    name: str
    """The name the tools print (``R_AMDGPU_REL32_LO``)."""
    size: int
    """Bytes of the field it patches (0 for ``R_AMDGPU_NONE``)."""
    pc_relative: bool = False
    """The value depends on ``P``, the address patched (GOT kinds included)."""
    got: bool = False
    """The value is the address of the symbol's ``.got`` entry, not of the symbol."""
    variant: str | None = None
    """LLVM's variant kind that selects it, without the ``@`` (``rel32@lo``); None if none."""
    plain: bool = False
    """A plain expression of its size selects it: ``sym`` when absolute, ``sym-.`` when
    PC-relative (``.long``/``.quad`` data, and a 32-bit literal without a variant)."""

    @property
    def loader_applicable(self) -> bool:
        """A loader can apply it at run time: a 64-bit absolute address (``R_AMDGPU_ABS64``
        against a symbol, ``R_AMDGPU_RELATIVE64`` as load address plus constant)."""
        return self.size == 8 and not self.pc_relative


R_AMDGPU_NONE = RelocationKind(0, "R_AMDGPU_NONE", 0)
R_AMDGPU_ABS32_LO = RelocationKind(1, "R_AMDGPU_ABS32_LO", 4, variant="abs32@lo")
R_AMDGPU_ABS32_HI = RelocationKind(2, "R_AMDGPU_ABS32_HI", 4, variant="abs32@hi")
R_AMDGPU_ABS64 = RelocationKind(3, "R_AMDGPU_ABS64", 8, plain=True)
R_AMDGPU_REL32 = RelocationKind(4, "R_AMDGPU_REL32", 4, pc_relative=True, plain=True)
R_AMDGPU_REL64 = RelocationKind(
    5, "R_AMDGPU_REL64", 8, pc_relative=True, variant="rel64", plain=True
)
R_AMDGPU_ABS32 = RelocationKind(6, "R_AMDGPU_ABS32", 4, plain=True)
R_AMDGPU_GOTPCREL = RelocationKind(
    7, "R_AMDGPU_GOTPCREL", 4, pc_relative=True, got=True, variant="gotpcrel"
)
R_AMDGPU_GOTPCREL32_LO = RelocationKind(
    8, "R_AMDGPU_GOTPCREL32_LO", 4, pc_relative=True, got=True, variant="gotpcrel32@lo"
)
R_AMDGPU_GOTPCREL32_HI = RelocationKind(
    9, "R_AMDGPU_GOTPCREL32_HI", 4, pc_relative=True, got=True, variant="gotpcrel32@hi"
)
R_AMDGPU_REL32_LO = RelocationKind(10, "R_AMDGPU_REL32_LO", 4, pc_relative=True, variant="rel32@lo")
R_AMDGPU_REL32_HI = RelocationKind(11, "R_AMDGPU_REL32_HI", 4, pc_relative=True, variant="rel32@hi")
R_AMDGPU_RELATIVE64 = RelocationKind(13, "R_AMDGPU_RELATIVE64", 8)
R_AMDGPU_REL16 = RelocationKind(14, "R_AMDGPU_REL16", 2, pc_relative=True)

#: Every AMDGPU relocation type (number 12 is reserved).
RELOCATION_KINDS: tuple[RelocationKind, ...] = (
    R_AMDGPU_NONE,
    R_AMDGPU_ABS32_LO,
    R_AMDGPU_ABS32_HI,
    R_AMDGPU_ABS64,
    R_AMDGPU_REL32,
    R_AMDGPU_REL64,
    R_AMDGPU_ABS32,
    R_AMDGPU_GOTPCREL,
    R_AMDGPU_GOTPCREL32_LO,
    R_AMDGPU_GOTPCREL32_HI,
    R_AMDGPU_REL32_LO,
    R_AMDGPU_REL32_HI,
    R_AMDGPU_RELATIVE64,
    R_AMDGPU_REL16,
)

_BY_NUMBER = {kind.number: kind for kind in RELOCATION_KINDS}
_BY_NAME = {kind.name: kind for kind in RELOCATION_KINDS}
_BY_VARIANT = {kind.variant: kind for kind in RELOCATION_KINDS if kind.variant is not None}
_PLAIN = {(kind.size, kind.pc_relative): kind for kind in RELOCATION_KINDS if kind.plain}


def relocation_kind(number: int) -> RelocationKind | None:
    """The kind numbered ``number``, or None for a type this project does not support."""
    return _BY_NUMBER.get(number)


def relocation_named(name: str) -> RelocationKind | None:
    """The kind called ``name`` (``R_AMDGPU_REL64``), or None."""
    return _BY_NAME.get(name)


def relocation_name(number: int) -> str:
    """The printed name of relocation type ``number`` (``R_AMDGPU_<n>`` for unknown ones)."""
    kind = _BY_NUMBER.get(number)
    return kind.name if kind is not None else f"R_AMDGPU_{number}"


def variant_relocation(variant: str) -> RelocationKind | None:
    """The kind a ``sym@variant`` expression selects (``rel32@lo``), or None."""
    return _BY_VARIANT.get(variant)


def plain_relocation(size: int, pc_relative: bool) -> RelocationKind | None:
    """The kind a plain ``size``-byte expression (``sym`` or ``sym-.``) selects, or None."""
    return _PLAIN.get((size, pc_relative))


def literal_relocation(variant: str, pc_relative: bool) -> RelocationKind | None:
    """The kind a 32-bit instruction literal ``sym[@variant]`` assembles to, or None when the
    variant is not one a literal can carry. ``pc_relative`` only matters without a variant."""
    if not variant:
        return plain_relocation(4, pc_relative)
    kind = variant_relocation(variant)
    return kind if kind is not None and kind.size == 4 else None


def literal_is_pc_relative(variant: str) -> bool:
    """Whether an instruction literal ``sym[@variant]+addend`` holds a distance from its own
    address (``S + A - P``: a plain literal is ``R_AMDGPU_REL32``): moving code between such
    an operand and the point its addend measures from changes its value."""
    kind = literal_relocation(variant, True)
    return kind is not None and kind.pc_relative


def literal_variant(kind: RelocationKind) -> str | None:
    """How a 32-bit literal operand spells ``kind`` after its symbol: ``@rel32@lo``, ``""``
    for a plain symbol, or None when no literal operand can carry it."""
    if kind.size != 4:
        return None
    if kind.plain:
        return ""
    return None if kind.variant is None else "@" + kind.variant


def data_expression(kind: RelocationKind, symbol: str) -> str | None:
    """The ``.long``/``.quad`` operand that makes the assembler write ``kind`` against
    ``symbol`` (``sym``, ``sym-.``, ``sym@gotpcrel``), or None when data cannot."""
    if kind.plain:
        return f"{symbol}-." if kind.pc_relative else symbol
    if kind.variant is None or kind.size not in (4, 8):
        return None
    return f"{symbol}@{kind.variant}"
