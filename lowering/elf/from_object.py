"""``spec_from_relocatable``: read an ``ET_REL`` AMDGPU object into an :class:`ObjectSpec`.

Used by the tests (a round trip through ``write_relocatable`` must give the file back) and by
the product to re-link ``.o`` inputs with ``link_shared``. Everything the writers regenerate
(``.strtab``, ``.symtab``, the ``.rela`` sections) becomes part of the model instead: symbols
with names, relocations attached to the section they patch. Section symbols are kept (named by
their section) so that symbol indices, and with them ``.llvm_addrsig``, stay the same.
"""

from __future__ import annotations

import struct
from os import PathLike
from pathlib import Path

from luthier.frontend.codeobj.spec import (
    ABSOLUTE_SECTION,
    EM_AMDGPU,
    SHT_GROUP,
    SHT_NOBITS,
    SHT_REL,
    SHT_RELA,
    SHT_STRTAB,
    SHT_SYMTAB,
    SYMBOL_BINDINGS,
    SYMBOL_TYPES,
    SYMBOL_VISIBILITIES,
    ElfWriteError,
    ObjectSpec,
    RelocationSpec,
    SectionSpec,
    SymbolSpec,
)

_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")
_NAMES_OF = {
    "type": {v: k for k, v in SYMBOL_TYPES.items()},
    "binding": {v: k for k, v in SYMBOL_BINDINGS.items()},
    "visibility": {v: k for k, v in SYMBOL_VISIBILITIES.items()},
}
SHN_ABS = 0xFFF1
SHN_LORESERVE = 0xFF00
SHT_SYMTAB_SHNDX = 18


def _cstring(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    if offset > len(table) or end < 0:
        raise ElfWriteError(f"string offset {offset} is outside its string table")
    return table[offset:end].decode()


def _name(kind: str, value: int, symbol: str) -> str:
    try:
        return _NAMES_OF[kind][value]
    except KeyError:
        raise ElfWriteError(f"symbol {symbol!r}: unsupported {kind} {value}") from None


def spec_from_relocatable(source: str | PathLike[str] | bytes) -> ObjectSpec:
    """Read an ``ET_REL`` AMDGPU ELF (a path or its bytes) into an :class:`ObjectSpec`."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ElfWriteError("not a little-endian ELF64 file")
    e_type, machine = struct.unpack_from("<HH", data, 16)
    if e_type != 1 or machine != EM_AMDGPU:
        raise ElfWriteError(f"not an AMDGPU ET_REL object (type {e_type}, machine {machine})")
    shoff, e_flags = struct.unpack_from("<QI", data, 40)
    shnum, shstrndx = struct.unpack_from("<HH", data, 60)
    if shoff + shnum * _SHDR.size > len(data):
        raise ElfWriteError("section header table is outside the file")
    headers = [_SHDR.unpack_from(data, shoff + i * _SHDR.size) for i in range(shnum)]

    def contents(index: int) -> bytes:
        _, sh_type, _, _, offset, size, *_ = headers[index]
        if sh_type == SHT_NOBITS:
            return b""
        if offset + size > len(data):
            raise ElfWriteError(f"section {index} is outside the file")
        return data[offset : offset + size]

    shstrtab = contents(shstrndx)
    names = [_cstring(shstrtab, h[0]) for h in headers]

    symtab_index = next((i for i, h in enumerate(headers) if h[1] == SHT_SYMTAB), None)
    raw_symbols: list[tuple[str, int, int, int, int, int]] = []
    if symtab_index is not None:
        strtab = contents(headers[symtab_index][6])
        table = contents(symtab_index)
        for i in range(1, len(table) // _SYM.size):
            st_name, info, other, shndx, value, size = _SYM.unpack_from(table, i * _SYM.size)
            raw_symbols.append((_cstring(strtab, st_name), info, other, shndx, value, size))

    symbols: list[SymbolSpec] = []
    for name, info, other, shndx, value, size in raw_symbols:
        if shndx == 0:
            section = None
        elif shndx == SHN_ABS:
            section = ABSOLUTE_SECTION
        elif shndx >= SHN_LORESERVE or shndx >= len(headers):
            raise ElfWriteError(f"symbol {name!r}: unsupported section index {shndx:#x}")
        else:
            section = names[shndx]
        sym_type = _name("type", info & 0xF, name)
        if sym_type == "SECTION" and section is not None:
            name = section
        symbols.append(
            SymbolSpec(
                name=name,
                section=section,
                value=value,
                size=size,
                type=sym_type,
                binding=_name("binding", info >> 4, name),
                visibility=_name("visibility", other & 3, name),
            )
        )

    relocations: dict[int, list[RelocationSpec]] = {}
    for index, header in enumerate(headers):
        if header[1] == SHT_REL:
            raise ElfWriteError(f"section {names[index]}: SHT_REL is not used by AMDGPU")
        if header[1] in (SHT_GROUP, SHT_SYMTAB_SHNDX):
            raise ElfWriteError(
                f"section {names[index]}: section groups and extended section "
                "indices are not supported"
            )
        if header[1] != SHT_RELA:
            continue
        table = contents(index)
        target = relocations.setdefault(header[7], [])
        for i in range(len(table) // _RELA.size):
            offset, info, addend = _RELA.unpack_from(table, i * _RELA.size)
            sym = int(info) >> 32
            if sym > len(symbols):
                raise ElfWriteError(f"section {names[index]}: bad symbol index {sym}")
            symbol_name: str = symbols[sym - 1].name if sym else ""
            target.append(RelocationSpec(offset, info & 0xFFFFFFFF, symbol_name, addend))

    sections: list[SectionSpec] = []
    skipped = {0, symtab_index, shstrndx}
    if symtab_index is not None:
        skipped.add(headers[symtab_index][6])
    for index, header in enumerate(headers):
        _, sh_type, flags, _, _, size, _, _, align, entsize = header
        if index in skipped or sh_type == SHT_RELA or (sh_type == SHT_STRTAB and not flags):
            continue
        sections.append(
            SectionSpec(
                name=names[index],
                type=sh_type,
                flags=flags,
                alignment=align,
                data=contents(index),
                size=size,
                relocations=tuple(relocations.get(index, ())),
                entry_size=entsize,
            )
        )
    return ObjectSpec(
        e_flags=e_flags,
        os_abi=data[7],
        abi_version=data[8],
        sections=tuple(sections),
        symbols=tuple(symbols),
    )
