"""The writing spec: the input of the ELF writers, a plain typed description of an object's
contents with no file layout.

The emitter (``lowering/emit/object_spec.py``) and the assembler (``frontend/asm``) fill these
frozen dataclasses; ``write_relocatable`` and ``link_shared`` turn them into bytes. Names are
the link between records (a relocation names its symbol, a symbol names its section), so the
model stays readable and easy to build by hand; the writers choose indices, offsets and
addresses, and reject anything ambiguous with :class:`ElfWriteError`.

Reading is the other model's job: :func:`~luthier.frontend.codeobj.read_elf` gives a
:class:`~luthier.frontend.codeobj.model.CodeObject`, which keeps the file's layout. Nothing in
the product converts one into the other (see :mod:`model` for the one-way relation); both
spell symbol attributes with the names of :mod:`elf_format` and relocation types with
:mod:`luthier.amdgpu_dialects.mc.relocations` numbers.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from luthier.amdgpu_dialects.errors import LuthierError
from luthier.amdgpu_dialects.mc.relocations import relocation_kind
from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHF_MERGE,
    SHF_STRINGS,
    SHT_NOBITS,
    SHT_PROGBITS,
    SYMBOL_BINDINGS,
    SYMBOL_TYPES,
    SYMBOL_VISIBILITIES,
)

#: ``SymbolSpec.section`` of an absolute symbol (``SHN_ABS``); no real section has this name.
ABSOLUTE_SECTION = "*ABS*"

#: What ``ld.lld-19`` (Debian's build) puts first in ``.comment``: the shared writer adds it,
#: and the lifter recognises a ``.comment`` that the writer will give back by it.
LLD_COMMENT = "Linker: Debian LLD 19.1.7"


class ElfWriteError(LuthierError):
    """Any input the writers cannot turn into a valid ELF file; the message is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- the model ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RelocationSpec:
    """One relocation: patch ``offset`` of its section with a value computed from ``symbol``."""

    offset: int
    """Byte offset inside the section it patches."""
    type: int
    """``R_AMDGPU_*`` number."""
    symbol: str
    """Symbol name (``""`` for none); a section symbol is named by its section's name."""
    addend: int


@dataclass(frozen=True)
class RelocationTable:
    """A section's relocations as columns: offsets, types, addends, and an index into the
    distinct symbols.

    An instrumented library's ``.text`` holds hundreds of thousands of relocations against a
    few counters; as columns they cost a few bytes each, cross between processes as plain
    bytes, and let the writers check and apply them per distinct (type, symbol) pair instead
    of per object. Iterating gives :class:`RelocationSpec` records, so any consumer that
    reads a section's relocations one by one reads a table as it reads a tuple."""

    offsets: array[int] = field(default_factory=lambda: array("q"))
    types: array[int] = field(default_factory=lambda: array("L"))
    symbol_indexes: array[int] = field(default_factory=lambda: array("L"))
    symbols: tuple[str, ...] = ()
    addends: array[int] = field(default_factory=lambda: array("q"))

    @staticmethod
    def of(relocations: Iterable[RelocationSpec]) -> RelocationTable:
        builder = RelocationColumns()
        for spec in relocations:
            builder.add(spec.offset, spec.type, spec.symbol, spec.addend)
        return builder.table()

    def __len__(self) -> int:
        return len(self.offsets)

    def __iter__(self) -> Iterator[RelocationSpec]:
        symbols = self.symbols
        for offset, kind, symbol, addend in zip(self.offsets, self.types, self.symbol_indexes,
                                                self.addends, strict=True):
            yield RelocationSpec(offset, kind, symbols[symbol], addend)

    def pairs(self) -> set[tuple[int, int]]:
        """The distinct (type, symbol index) pairs: where a relocation goes and whether it
        links depend on these alone."""
        return set(zip(self.types, self.symbol_indexes, strict=True))


class RelocationColumns:
    """A :class:`RelocationTable` being filled, relocation by relocation or a table at a
    time (a function encoded apart, moved to where it lands)."""

    def __init__(self) -> None:
        self.offsets: array[int] = array("q")
        self.types: array[int] = array("L")
        self.symbol_indexes: array[int] = array("L")
        self.addends: array[int] = array("q")
        self.index: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.offsets)

    def add(self, offset: int, kind: int, symbol: str, addend: int) -> None:
        index = self.index.get(symbol)
        if index is None:
            index = self.index[symbol] = len(self.index)
        self.offsets.append(offset)
        self.types.append(kind)
        self.symbol_indexes.append(index)
        self.addends.append(addend)

    def extend(self, table: RelocationTable, start: int = 0) -> None:
        """``table``'s relocations, their offsets moved by ``start``."""
        index = self.index
        renumbered = [index.setdefault(symbol, len(index)) for symbol in table.symbols]
        self.offsets.extend([offset + start for offset in table.offsets] if start
                            else table.offsets)
        self.types.extend(table.types)
        if renumbered == list(range(len(renumbered))):
            self.symbol_indexes.extend(table.symbol_indexes)
        else:
            self.symbol_indexes.extend([renumbered[i] for i in table.symbol_indexes])
        self.addends.extend(table.addends)

    def table(self) -> RelocationTable:
        return RelocationTable(self.offsets, self.types, self.symbol_indexes,
                               tuple(self.index), self.addends)


@dataclass(frozen=True)
class SectionSpec:
    """A section with its contents, in the order the file should hold it."""

    name: str
    type: int
    flags: int
    alignment: int
    data: bytes
    """Contents; ``b""`` for ``SHT_NOBITS``."""
    size: int
    """``len(data)``, except for ``SHT_NOBITS`` where it is the size in memory."""
    relocations: tuple[RelocationSpec, ...] | RelocationTable = ()
    entry_size: int = 0
    verbatim: bool = False
    """Contents of an already linked file, written as they are: a mergeable section
    (``.debug_str``) is not merged again, since other sections hold offsets into it."""
    layout: str | None = None
    """For a non-allocated section whose bytes hold the addresses of a linked input (debug
    line tables, ranges, frames): the :func:`~luthier.frontend.codeobj.carried.layout_digest`
    of that input's symbols. The shared writer writes it only when its output has the same
    layout and leaves it out otherwise (see ``link_shared_object``); the relocatable
    writer, whose output has no addresses yet, refuses it."""


@dataclass(frozen=True)
class SymbolSpec:
    """A symbol; ``value`` is an offset inside ``section`` (not an address)."""

    name: str
    section: str | None
    """Section name; ``None`` for undefined, :data:`ABSOLUTE_SECTION` for absolute."""
    value: int
    size: int
    type: str
    """``"FUNC"``, ``"OBJECT"``, ``"NOTYPE"``, ``"SECTION"`` or ``"FILE"`` (``SYMBOL_TYPES``)."""
    binding: str
    """``"LOCAL"``, ``"GLOBAL"`` or ``"WEAK"``."""
    visibility: str
    """``"DEFAULT"``, ``"PROTECTED"``, ``"HIDDEN"`` (or ``"INTERNAL"``)."""


@dataclass(frozen=True)
class ObjectSpec:
    """Everything an AMDGPU object holds, independent of file layout.

    ``sections`` are in output order. The metadata note is an ordinary ``SHT_NOTE`` section
    (``.note``) whose bytes are already a formatted ELF note
    (:func:`~luthier.frontend.codeobj.metadata_note.metadata_note`). ``comment``, when set,
    makes the writers add a ``.comment`` section holding that string (``SHF_MERGE |
    SHF_STRINGS``, as clang's ``.ident`` does); a spec that copies an existing file keeps its
    ``.comment`` as a section instead and leaves ``comment`` unset, so that the bytes come back
    unchanged.
    """

    e_flags: int
    os_abi: int
    abi_version: int
    sections: tuple[SectionSpec, ...]
    symbols: tuple[SymbolSpec, ...]
    comment: str | None = None
    no_undefined: bool = True
    """Refuse undefined global symbols, as clang's link (``ld.lld --no-undefined``) does.
    False for a relink of an object linked without it, whose undefined symbols (referenced
    by nothing we link) are kept and exported as that link exported them."""


def comment_section(text: str) -> SectionSpec:
    """The ``.comment`` section clang's assembler writes for ``.ident "text"``."""
    data = b"\0" + text.encode() + b"\0"
    return SectionSpec(
        name=".comment",
        type=SHT_PROGBITS,
        flags=SHF_MERGE | SHF_STRINGS,
        alignment=1,
        data=data,
        size=len(data),
        entry_size=1,
    )


def effective_sections(spec: ObjectSpec) -> tuple[SectionSpec, ...]:
    """``spec.sections`` plus the ``.comment`` that ``spec.comment`` asks for, checked.

    Both writers call this first, so every structural rule (unique names, sizes that match the
    data, known relocation types inside their section) is enforced in one place.
    """
    sections = spec.sections
    names = [s.name for s in sections]
    if spec.comment is not None:
        if ".comment" in names:
            raise ElfWriteError("both ObjectSpec.comment and a .comment section are given")
        sections = (*sections, comment_section(spec.comment))
    seen: set[str] = set()
    for section in sections:
        check_section(section)
        if section.name in seen:
            raise ElfWriteError(f"two sections are named {section.name!r}")
        seen.add(section.name)
    return sections


def check_section(section: SectionSpec) -> None:
    """Reject a section whose fields contradict each other or whose relocations do not fit."""
    name = section.name
    if not name or name == ABSOLUTE_SECTION:
        raise ElfWriteError(f"invalid section name {name!r}")
    if section.alignment < 0 or (section.alignment & (section.alignment - 1)) != 0:
        raise ElfWriteError(f"section {name}: alignment {section.alignment} is not a power of 2")
    if section.layout is not None and section.flags & SHF_ALLOC:
        raise ElfWriteError(f"section {name}: an allocated section cannot depend on the "
                            "layout (its own address is part of it)")
    if section.type == SHT_NOBITS:
        if section.data:
            raise ElfWriteError(f"section {name}: SHT_NOBITS section has data")
        if section.relocations:
            raise ElfWriteError(f"section {name}: SHT_NOBITS section has relocations")
    elif section.size != len(section.data):
        raise ElfWriteError(
            f"section {name}: size {section.size} differs from its data ({len(section.data)})"
        )
    if section.size < 0 or section.size >= 1 << 64:
        raise ElfWriteError(f"section {name}: size {section.size} does not fit ELF64")
    relocations = section.relocations
    if isinstance(relocations, RelocationTable) and _table_fits(relocations, section.size):
        return  # the common case, checked per column (its addends are 64-bit by type)
    for reloc in relocations:
        kind = relocation_kind(reloc.type)
        if kind is None:
            raise ElfWriteError(f"section {name}: unsupported relocation type {reloc.type}")
        if reloc.offset < 0 or reloc.offset + kind.size > section.size:
            raise ElfWriteError(
                f"section {name}: relocation at {reloc.offset:#x} is outside the section"
            )
        if not -(1 << 63) <= reloc.addend < 1 << 63:
            raise ElfWriteError(f"section {name}: addend {reloc.addend} does not fit 64 bits")


def _table_fits(table: RelocationTable, size: int) -> bool:
    """Every type of ``table`` is known and every relocation lies inside ``size`` bytes,
    judged from the columns' extremes (False: check one by one, to name the culprit)."""
    if not table.offsets:
        return True
    kinds = [relocation_kind(number) for number in set(table.types)]
    if any(kind is None for kind in kinds):
        return False
    widest = max(kind.size for kind in kinds if kind is not None)
    return min(table.offsets) >= 0 and max(table.offsets) + widest <= size


def symbol_fields(symbol: SymbolSpec) -> tuple[int, int, int]:
    """``(type, binding, visibility)`` numbers of ``symbol``; unknown names raise."""
    try:
        return (
            SYMBOL_TYPES[symbol.type],
            SYMBOL_BINDINGS[symbol.binding],
            SYMBOL_VISIBILITIES[symbol.visibility],
        )
    except KeyError as error:
        raise ElfWriteError(
            f"symbol {symbol.name!r}: unknown type, binding or visibility {error.args[0]!r}"
        ) from None
