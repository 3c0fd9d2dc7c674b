"""The first half of a shared link: input sections merged into output sections, and every
relocation sorted into one resolved at link time, one through ``.got`` or one the loader
applies.

The loader can only patch writable data, with ``R_AMDGPU_RELATIVE64`` (load address plus a
constant: the address of a non-preemptible symbol) or ``R_AMDGPU_ABS64`` against a preemptible
symbol (a global with default visibility, which another module could replace). Anything else
that is not a link-time constant raises :class:`ElfWriteError`, as lld refuses it.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from luthier.amdgpu_dialects.mc.relocations import (
    R_AMDGPU_ABS32_HI,
    R_AMDGPU_ABS32_LO,
    R_AMDGPU_ABS64,
    R_AMDGPU_NONE,
    R_AMDGPU_REL32_HI,
    R_AMDGPU_REL32_LO,
    R_AMDGPU_RELATIVE64,
    RelocationKind,
    relocation_kind,
)
from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHF_MERGE,
    SHF_STRINGS,
    SHF_WRITE,
    SHT_NOBITS,
    SHT_PROGBITS,
    align_up,
)
from luthier.frontend.codeobj.spec import (
    ABSOLUTE_SECTION,
    ElfWriteError,
    ObjectSpec,
    RelocationTable,
    SectionSpec,
    SymbolSpec,
    effective_sections,
)
from luthier.lowering.elf.binary import (
    rela_entry,
)
from luthier.lowering.elf.layout import (
    OutSection,
    is_discarded,
    output_name,
)
from luthier.lowering.elf.merge import MergeGroup, is_mergeable
from luthier.lowering.elf.relocatable import order_symbols
from luthier.lowering.elf.relocs import patch, relocation_value


@dataclass(slots=True)
class PlacedReloc:
    """A relocation placed in its output section, resolved once addresses are known."""

    section: OutSection
    offset: int
    type: int
    symbol: SymbolSpec | None
    addend: int
    #: The input section and offset it came from, for messages (an instrumented library
    #: has hundreds of thousands of relocations: the text is made only for an error).
    origin: str
    origin_offset: int

    @property
    def where(self) -> str:
        return f"{self.origin}+{self.origin_offset:#x}"

    def __str__(self) -> str:
        return self.where


@dataclass(slots=True)
class PlacedTable:
    """A section's :class:`~luthier.frontend.codeobj.spec.RelocationTable`, every pair of
    which links statically, placed at ``base`` in its output section."""

    section: OutSection
    base: int
    table: RelocationTable
    #: The symbol of each of the table's symbol indexes (None: no symbol).
    symbols: list[SymbolSpec | None]
    origin: str


_M32 = 0xFFFFFFFF


class _Where:
    """Names one relocation in a message, made only for relocations that need it."""

    def __init__(self, origin: str, offset: int) -> None:
        self.origin = origin
        self.offset = offset

    def __str__(self) -> str:
        return f"{self.origin}+{self.offset:#x}"


#: The kinds :meth:`LinkState.apply_static` computes inline for a table (the ``_LO``/``_HI``
#: halves need no range check), by number: (pc-relative, high half).
_HALVES = {R_AMDGPU_REL32_LO.number: (True, False), R_AMDGPU_REL32_HI.number: (True, True),
           R_AMDGPU_ABS32_LO.number: (False, False), R_AMDGPU_ABS32_HI.number: (False, True)}


class LinkState:
    """Sections, symbols and relocations of one link, before and after layout."""

    def __init__(self, spec: ObjectSpec, linker_comment: str | None) -> None:
        self.spec = spec
        self.inputs = effective_sections(spec)
        symbols = order_symbols(spec, self.inputs)
        self.by_name = {s.name: s for s in symbols if s.type != "FILE" and s.name}
        self.outputs: list[OutSection] = []
        self.placement: dict[str, tuple[OutSection, int]] = {}
        self.merged: dict[str, MergeGroup] = {}
        self.static: list[PlacedReloc] = []
        self.static_tables: list[PlacedTable] = []
        self.dynamic: list[PlacedReloc] = []
        self.got: list[SymbolSpec] = []
        self.got_index: dict[str, int] = {}
        self._merge_inputs(linker_comment)

    # --- sections ---------------------------------------------------------------------------

    def _merge_inputs(self, linker_comment: str | None) -> None:
        """Map input sections to output sections; mergeable ones go through a MergeGroup."""
        by_name: dict[str, OutSection] = {}
        items: list[tuple[OutSection, SectionSpec | MergeGroup]] = []
        groups: dict[str, list[MergeGroup]] = {}

        def add_mergeable(out: OutSection, section: SectionSpec) -> MergeGroup:
            for group in groups.setdefault(out.name, []):
                if group.accepts(section):
                    return group
            group = MergeGroup(section.flags, section.entry_size, section.alignment)
            groups[out.name].append(group)
            items.append((out, group))
            return group

        for section in self.inputs:
            if is_discarded(section):
                continue
            name = output_name(section.name) if section.flags & SHF_ALLOC else section.name
            out = by_name.get(name) or self._new(name, section, by_name)
            if out.entsize != section.entry_size:
                out.entsize = 0
            if is_mergeable(section) and not section.verbatim:
                add_mergeable(out, section).members.append(section)
            else:
                items.append((out, section))
        if linker_comment is not None:
            # lld adds its own string to the inputs' .comment strings, after them.
            out = by_name.get(".comment") or self._new(".comment", _COMMENT_TEMPLATE, by_name)
            add_mergeable(out, _COMMENT_TEMPLATE).extra.append(linker_comment.encode() + b"\0")
        for out, item in items:
            if isinstance(item, MergeGroup):
                item.build()
                align, size, data = item.align, len(item.data), item.data
                flags, sh_type, names = item.flags, SHT_PROGBITS, [m.name for m in item.members]
            else:
                align, size, data = item.alignment, item.size, item.data
                flags, sh_type, names = item.flags, item.type, [item.name]
            out.flags |= flags
            out.align = max(out.align, align)
            if out.type == SHT_NOBITS and sh_type != SHT_NOBITS:
                out.type = SHT_PROGBITS
            offset = align_up(out.size, align)
            out.size = offset + size
            if out.type != SHT_NOBITS:
                out.data += bytes(offset - len(out.data)) + (data or bytes(size))
                out.data += bytes(out.size - len(out.data))
            for name in names:
                self.placement[name] = (out, offset)
                if isinstance(item, MergeGroup):
                    self.merged[name] = item

    def _new(self, name: str, like: SectionSpec, by_name: dict[str, OutSection]) -> OutSection:
        out = OutSection(name, like.type, like.flags, like.alignment, like.entry_size)
        by_name[name] = out
        self.outputs.append(out)
        return out

    def address(self, symbol: SymbolSpec, addend: int = 0) -> int:
        """Address (offset, for non-allocated sections) of a kept, defined symbol plus
        ``addend``. In a merged section the symbol's offset moves with its piece; for a
        section symbol the addend picks the piece, as lld resolves it."""
        if symbol.section is None:
            return addend
        if symbol.section == ABSOLUTE_SECTION:
            return symbol.value + addend
        out, base = self.placement[symbol.section]
        group = self.merged.get(symbol.section)
        if group is None:
            return out.addr + base + symbol.value + addend
        if symbol.type == "SECTION":
            return out.addr + base + group.output_offset(symbol.section, symbol.value + addend)
        return out.addr + base + group.output_offset(symbol.section, symbol.value) + addend

    def kept(self, symbol: SymbolSpec) -> bool:
        return symbol.section == ABSOLUTE_SECTION or symbol.section in self.placement

    # --- relocations ------------------------------------------------------------------------

    def scan(self) -> None:
        """Sort every relocation into static, GOT-using or dynamic (errors for the rest)."""
        for section in self.inputs:
            if section.name not in self.placement:
                continue
            out, base = self.placement[section.name]
            relocations = section.relocations
            if isinstance(relocations, RelocationTable) \
                    and self._scan_table(relocations, section.name, out, base):
                continue
            # Where a relocation goes depends on its type and symbol only: decided once per
            # pair (an instrumented library has 100k+ relocations against a few symbols).
            decided: dict[tuple[int, str], tuple[SymbolSpec | None,
                                                 list[PlacedReloc] | None]] = {}
            for reloc in relocations:
                key = (reloc.type, reloc.symbol)
                found = decided.get(key)
                if found is None:
                    found = decided[key] = self._classify(reloc.type, reloc.symbol,
                                                          section.name, out,
                                                          lambda at=reloc.offset: at)
                symbol, destination = found
                if destination is not None:
                    destination.append(PlacedReloc(out, base + reloc.offset, reloc.type, symbol,
                                                   reloc.addend, section.name, reloc.offset))

    def _scan_table(self, table: RelocationTable, section: str, out: OutSection,
                    base: int) -> bool:
        """Classify ``table``'s pairs in the order they first occur (the order ``.got``
        entries are given in); when every one links statically, keep the table whole for
        :meth:`apply_static` and return True. Otherwise (some are dropped or left to the
        loader) return False, having classified nothing, for the one-by-one scan."""
        pairs = list(dict.fromkeys(zip(table.types, table.symbol_indexes, strict=True)))
        if any(_checked_kind(kind) is R_AMDGPU_NONE for kind, _ in pairs):
            return False
        got = len(self.got)
        symbols: list[SymbolSpec | None] = [None] * len(table.symbols)
        for kind, index in pairs:
            name = table.symbols[index]
            symbol, destination = self._classify(
                kind, name, section, out, lambda pair=(kind, index): _first_offset(table, pair))
            if destination is not self.static:
                for dropped in self.got[got:]:  # as if this scan had not started
                    del self.got_index[dropped.name]
                del self.got[got:]
                return False
            symbols[index] = symbol
        self.static_tables.append(PlacedTable(out, base, table, symbols, section))
        return True

    def _classify(self, number: int, name: str, section: str, out: OutSection,
                  offset: Callable[[], int]) -> tuple[SymbolSpec | None,
                                                      list[PlacedReloc] | None]:
        """The symbol of relocations of type ``number`` against symbol ``name`` and the
        list they go to (None: dropped); raises :class:`ElfWriteError` for what cannot
        link, naming the first such relocation (``offset`` in ``section``)."""
        kind = _checked_kind(number)
        if kind is R_AMDGPU_NONE:
            return None, None
        kind_name = kind.name
        symbol = self.by_name[name] if name else None

        def where() -> str:
            return f"{section}+{offset():#x}"

        if symbol is not None and symbol.section is None:
            raise ElfWriteError(f"{where()}: {kind_name} needs undefined symbol {symbol.name!r}")
        if symbol is not None and not self.kept(symbol):
            raise ElfWriteError(
                f"{where()}: {kind_name} refers to {symbol.name!r} in discarded section "
                f"{symbol.section}"
            )
        constant = symbol is None or symbol.section == ABSOLUTE_SECTION
        if kind.got:
            if symbol is None:
                raise ElfWriteError(f"{where()}: {kind_name} has no symbol")
            if symbol.name not in self.got_index:
                self.got_index[symbol.name] = len(self.got)
                self.got.append(symbol)
            return symbol, self.static
        if kind.pc_relative:
            if symbol is not None and preemptible(symbol):
                raise ElfWriteError(
                    f"{where()}: {kind_name} cannot be used against preemptible symbol "
                    f"{symbol.name!r}; give it protected or hidden visibility"
                )
            if constant and out.flags & SHF_ALLOC:
                raise ElfWriteError(
                    f"{where()}: {kind_name} against an absolute value is not position "
                    "independent"
                )
            return symbol, self.static
        if constant or not out.flags & SHF_ALLOC:
            return symbol, self.static
        if kind.loader_applicable and out.flags & SHF_WRITE:
            return symbol, self.dynamic
        place = "a read-only section" if kind.loader_applicable else "code"
        raise ElfWriteError(
            f"{where()}: {kind_name} against {name!r} needs a load-time relocation "
            f"in {place}; recompile with -fPIC"
        )

    def add_got_relocations(self, got: OutSection) -> None:
        """One dynamic relocation per ``.got`` entry whose value is not known at link time."""
        for index, symbol in enumerate(self.got):
            if symbol.section == ABSOLUTE_SECTION:
                patch(got.data, 8 * index, symbol.value & ((1 << 64) - 1), 8)
            else:
                self.dynamic.append(PlacedReloc(got, 8 * index, R_AMDGPU_ABS64.number, symbol,
                                                0, ".got", 8 * index))

    def apply_static(self, got: OutSection | None) -> None:
        """Write every link-time relocation into its section's bytes."""
        # A symbol's address, once per symbol, where the addend cannot change which piece
        # of a merged section it means (an instrumented library has hundreds of thousands
        # of relocations against a few counters).
        bases: dict[str, int | None] = {}
        for item in self.static:
            s, a, got_entry = self._operands(item.type, item.symbol, item.addend, got, bases)
            value, width = relocation_value(item.type, s, a, item.section.addr + item.offset,
                                            got_entry, item)
            patch(item.section.data, item.offset, value, width)
        for placed in self.static_tables:
            self._apply_table(placed, got, bases)

    def _operands(self, number: int, symbol: SymbolSpec | None, addend: int,
                  got: OutSection | None, bases: dict[str, int | None]) -> tuple[int, int, int]:
        """``S``, ``A`` and the ``.got`` entry's address for one relocation."""
        if symbol is not None and got is not None and _checked_kind(number).got:
            return 0, addend, got.addr + 8 * self.got_index[symbol.name]
        if symbol is None:
            return addend, 0, 0
        # S + A as one address: in a merged section the addend can pick the piece.
        base = self._base(symbol, bases)
        return (base + addend if base is not None else self.address(symbol, addend)), 0, 0

    def _base(self, symbol: SymbolSpec, bases: dict[str, int | None]) -> int | None:
        """``symbol``'s address, when no addend can change which piece it means."""
        base = bases.get(symbol.name, -1)
        if base == -1:
            base = bases[symbol.name] = self.address(symbol) \
                if symbol.section not in self.merged else None
        return base

    def _apply_table(self, placed: PlacedTable, got: OutSection | None,
                     bases: dict[str, int | None]) -> None:
        """One table's relocations: the ``_LO``/``_HI`` halves against a symbol whose
        address the addend cannot change are computed here, the rest as in
        :meth:`apply_static`."""
        table, data, base = placed.table, placed.section.data, placed.base
        start = placed.section.addr + base  # P is start + offset
        fixed = [0 if symbol is None else self._base(symbol, bases) for symbol in placed.symbols]
        pack_into = struct.pack_into
        for offset, number, index, addend in zip(table.offsets, table.types,
                                                 table.symbol_indexes, table.addends,
                                                 strict=True):
            halves = _HALVES.get(number)
            address = fixed[index]
            if halves is not None and address is not None:
                relative, high = halves
                value = address + addend - (start + offset) if relative else address + addend
                pack_into("<I", data, base + offset, (value >> 32 if high else value) & _M32)
                continue
            s, a, got_entry = self._operands(number, placed.symbols[index], addend, got, bases)
            value, width = relocation_value(number, s, a, start + offset, got_entry,
                                            _Where(placed.origin, offset))
            patch(data, base + offset, value, width)

    def dynamic_relocations(self, dynsym_index: dict[str, int]) -> tuple[bytes, int]:
        """``.rela.dyn`` (relative ones first, then by symbol and address) and its relative
        count. Like lld with RELA, the patched bytes themselves are left as they were."""
        rows: list[tuple[bool, int, int, int, int]] = []
        for item in self.dynamic:
            address = item.section.addr + item.offset
            symbol = item.symbol
            if symbol is not None and preemptible(symbol):
                index = dynsym_index[symbol.name]
                rows.append((True, index, address, R_AMDGPU_ABS64.number, item.addend))
            else:
                value = self.address(symbol, item.addend) if symbol else item.addend
                rows.append((False, 0, address, R_AMDGPU_RELATIVE64.number, value))
        rows.sort(key=lambda row: row[:3])
        data = b"".join(rela_entry(addr, sym, typ, add) for _, sym, addr, typ, add in rows)
        return data, sum(1 for row in rows if not row[0])


_COMMENT_TEMPLATE = SectionSpec(
    ".comment", SHT_PROGBITS, SHF_MERGE | SHF_STRINGS, 1, b"", 0, entry_size=1
)


def _first_offset(table: RelocationTable, pair: tuple[int, int]) -> int:
    """The offset of the first of ``table``'s relocations with this (type, symbol index)."""
    return next(offset for offset, kind, index in zip(table.offsets, table.types,
                                                      table.symbol_indexes, strict=True)
                if (kind, index) == pair)


def _checked_kind(number: int) -> RelocationKind:
    """The kind of a relocation :func:`effective_sections` has already accepted."""
    kind = relocation_kind(number)
    if kind is None:
        raise ElfWriteError(f"unsupported relocation type {number}")
    return kind


def preemptible(symbol: SymbolSpec) -> bool:
    """A definition another module could replace at load time (default-visibility global)."""
    return (
        symbol.binding != "LOCAL"
        and symbol.visibility == "DEFAULT"
        and symbol.type not in ("SECTION", "FILE")
        and symbol.section is not None
    )
