"""``write_relocatable``: an :class:`ObjectSpec` as an ``ET_REL`` file laid out like ``llvm-mc``.

The layout follows what ``llvm-mc -filetype=obj`` writes for AMDGPU, so that an ``llvm-mc``
object described as a spec (the ELF tests build one from ``read_elf``) comes back byte for byte:

- section headers: the null section, ``.strtab`` (which also holds the section names), then
  every spec section in order, each directly followed by its ``.rela<name>``, and ``.symtab``
  last;
- file contents: the ELF header, the sections' bytes in spec order (each at its alignment),
  ``.symtab``, the ``.rela`` sections, any ``.llvm_addrsig`` section (its symbol indices are
  only final once the symbol table is), ``.strtab``, then the section header table;
- ``.strtab`` is tail-merged in LLVM's order (see :class:`TailMergedStringTable`).

Symbols keep the spec's order except that locals move before globals, as ELF requires; a
relocation that names a section with no symbol of that name gets an ``STT_SECTION`` symbol.
"""

from __future__ import annotations

from dataclasses import dataclass

from luthier.frontend.codeobj.elf_format import (
    EHDR,
    RELA,
    SHF_INFO_LINK,
    SHN_ABS,
    SHN_LORESERVE,
    SHT_LLVM_ADDRSIG,
    SHT_NOBITS,
    SHT_RELA,
    SHT_STRTAB,
    SHT_SYMTAB,
    SYM,
    ElfType,
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
    symbol_fields,
)
from luthier.lowering.elf.binary import (
    TailMergedStringTable,
    elf_header,
    rela_entry,
    section_header,
    symbol_entry,
)


@dataclass
class _Header:
    """A section header being laid out; ``name`` is resolved through the string table."""

    name: str
    type: int
    flags: int
    align: int
    entsize: int
    size: int
    data: bytes = b""
    offset: int = 0
    link: int = 0
    info: int = 0


def order_symbols(spec: ObjectSpec, sections: tuple[SectionSpec, ...]) -> list[SymbolSpec]:
    """The symbol table (without the null entry): locals first, plus missing section symbols.

    Raises :class:`ElfWriteError` for duplicate names, unknown sections, and relocations that
    name a symbol that neither exists nor is a section.
    """
    section_names = {s.name for s in sections}
    known: set[str] = set()
    for symbol in spec.symbols:
        symbol_fields(symbol)
        if symbol.section is not None and symbol.section not in section_names | {ABSOLUTE_SECTION}:
            raise ElfWriteError(f"symbol {symbol.name!r} is in unknown section {symbol.section!r}")
        if symbol.type == "FILE" or not symbol.name:
            continue
        if symbol.name in known:
            raise ElfWriteError(f"two symbols are named {symbol.name!r}")
        known.add(symbol.name)
    locals_ = [s for s in spec.symbols if s.binding == "LOCAL"]
    globals_ = [s for s in spec.symbols if s.binding != "LOCAL"]
    for section in sections:
        relocations = section.relocations
        names = relocations.symbols if isinstance(relocations, RelocationTable) \
            else (reloc.symbol for reloc in relocations)
        for name in names:
            if not name or name in known:
                continue
            if name not in section_names:
                raise ElfWriteError(
                    f"section {section.name}: relocation needs undefined symbol {name!r}"
                )
            known.add(name)
            locals_.append(SymbolSpec(name, name, 0, 0, "SECTION", "LOCAL", "DEFAULT"))
    return locals_ + globals_


def write_relocatable(spec: ObjectSpec) -> bytes:
    """``spec`` as the bytes of an ``ET_REL`` AMDGPU object, in ``llvm-mc``'s layout.

    A section holding a linked layout's addresses (``SectionSpec.layout``) is refused: an
    object that is still to be linked has no addresses for it to be right about."""
    sections = effective_sections(spec)
    for section in sections:
        if section.layout is not None:
            raise ElfWriteError(f"section {section.name}: it holds a linked object's "
                                "addresses, which a relocatable object cannot keep")
    symbols = order_symbols(spec, sections)

    # Section header order: null, .strtab, each section then its .rela, .symtab.
    headers: list[_Header] = [
        _Header("", 0, 0, 0, 0, 0),
        _Header(".strtab", SHT_STRTAB, 0, 1, 0, 0),
    ]
    index_of: dict[str, int] = {}
    rela_of: dict[str, int] = {}
    for section in sections:
        index_of[section.name] = len(headers)
        headers.append(
            _Header(
                section.name,
                section.type,
                section.flags,
                section.alignment,
                section.entry_size,
                section.size,
                section.data,
            )
        )
        if section.relocations:
            rela_of[section.name] = len(headers)
            headers.append(
                _Header(
                    ".rela" + section.name,
                    SHT_RELA,
                    SHF_INFO_LINK,
                    8,
                    RELA.size,
                    len(section.relocations) * RELA.size,
                    info=index_of[section.name],
                )
            )
    symtab_index = len(headers)
    if symtab_index >= SHN_LORESERVE:
        raise ElfWriteError(f"{symtab_index + 1} sections need extended section indices")
    symtab = _Header(".symtab", SHT_SYMTAB, 0, 8, SYM.size, 0, link=1)
    headers.append(symtab)

    strtab = TailMergedStringTable(
        [h.name for h in headers] + [s.name for s in symbols if s.type != "SECTION"]
    )
    symtab.data, symtab.info = _symbol_table(symbols, strtab, index_of)
    symtab.size = len(symtab.data)
    symbol_index = {s.name: i + 1 for i, s in enumerate(symbols) if s.type != "FILE" and s.name}
    for section in sections:
        if section.name in rela_of:
            header = headers[rela_of[section.name]]
            header.link = symtab_index
            header.data = b"".join(
                rela_entry(r.offset, symbol_index[r.symbol] if r.symbol else 0, r.type, r.addend)
                for r in section.relocations
            )
        if section.type == SHT_LLVM_ADDRSIG:
            headers[index_of[section.name]].link = symtab_index
    headers[1].data = strtab.data()
    headers[1].size = len(headers[1].data)

    # File order: sections, .symtab, .rela*, .llvm_addrsig, .strtab, header table.
    content = [headers[index_of[s.name]] for s in sections if s.type != SHT_LLVM_ADDRSIG]
    content.append(symtab)
    content += [headers[rela_of[s.name]] for s in sections if s.name in rela_of]
    content += [headers[index_of[s.name]] for s in sections if s.type == SHT_LLVM_ADDRSIG]
    content.append(headers[1])
    out = bytearray(EHDR.size)
    for header in content:
        header.offset = align_up(len(out), header.align)
        if header.type != SHT_NOBITS:
            out += b"\0" * (header.offset - len(out)) + header.data
    shoff = align_up(len(out), 8)
    out += b"\0" * (shoff - len(out))
    for header in headers:
        out += section_header(
            strtab.offset(header.name),
            header.type,
            header.flags,
            0,
            header.offset,
            header.size,
            header.link,
            header.info,
            header.align,
            header.entsize,
        )
    out[:EHDR.size] = elf_header(
        e_type=ElfType.ET_REL,
        os_abi=spec.os_abi,
        abi_version=spec.abi_version,
        e_flags=spec.e_flags,
        phoff=0,
        phnum=0,
        shoff=shoff,
        shnum=len(headers),
        shstrndx=1,
    )
    return bytes(out)



def assemble_relocatable(text: str, filename: str, target: str | None = None) -> bytes:
    """Assemble ``text`` (the pure-Python ``llvm-mc -filetype=obj``) into the bytes of an
    ``ET_REL`` object in llvm-mc's layout; :func:`luthier.frontend.asm.assemble` says what
    ``target`` means and what it raises."""
    from luthier.frontend.asm import assemble  # the assembler loads when text is assembled

    return write_relocatable(assemble(text, filename, target))

_FIELD64 = (1 << 64) - 1


def _symbol_table(
    symbols: list[SymbolSpec], strtab: TailMergedStringTable, index_of: dict[str, int]
) -> tuple[bytes, int]:
    """``.symtab`` bytes and its ``sh_info`` (the index of the first non-local symbol)."""
    entries = [symbol_entry(0, 0, 0, 0, 0, 0)]
    first_global = 1
    for symbol in symbols:
        sym_type, binding, visibility = symbol_fields(symbol)
        if symbol.section is None:
            shndx = 0
        elif symbol.section == ABSOLUTE_SECTION:
            shndx = SHN_ABS
        else:
            shndx = index_of[symbol.section]
        name = 0 if symbol.type == "SECTION" else strtab.offset(symbol.name)
        # A symbol's value and size are 64-bit fields: llvm-mc writes a negative one (a
        # ``.size f, .Lend-f`` whose label comes first) in two's complement, and so do we.
        entries.append(
            symbol_entry(
                name, (binding << 4) | sym_type, visibility, shndx,
                symbol.value & _FIELD64, symbol.size & _FIELD64,
            )
        )
        if binding == 0:
            first_global = len(entries)
    return b"".join(entries), first_global
