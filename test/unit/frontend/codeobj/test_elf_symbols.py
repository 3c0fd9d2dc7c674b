"""The reader decodes symbol tables with ``struct``, spelling each symbol as pyelftools did
before it (pyelftools' parser took half the time of reading a library): the same names,
types, bindings, visibilities and section indices, on every code object of the corpus and
the third-party libraries (rocSPARSE's 333 too, once ``fetch.sh --large`` fetched them),
and on tables whose bytes say what no compiler writes (kinds pyelftools has no name for,
reserved section indices)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, cast

import pytest
from elftools.elf.elffile import ELFFile  # pyright: ignore[reportMissingTypeStubs]

from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.elf import read_elf
from luthier.frontend.codeobj.elf_format import SHN_LORESERVE, SHT_DYNSYM, SHT_SYMTAB, SYM
from luthier.frontend.codeobj.model import Symbol

ROOT = Path(__file__).resolve().parents[4]
CORPUS = ROOT / "test" / "corpus"
OBJECTS = sorted([*CORPUS.glob("kernels/*.co"), *CORPUS.glob("kernels/*.o"),
                  *CORPUS.glob("rdna/*.co"), *CORPUS.glob("handwritten/*.co"),
                  *ROOT.glob("build/thirdparty/codeobjects/*/*.co"),
                  # The large set when it was fetched (fetch.sh --large; not in CI).
                  *ROOT.glob("build/thirdparty-large/codeobjects/*/*.co")])

_RESERVED = {0xFF00: "SHN_AMDGPU_LDS"}


def _by_pyelftools(data: bytes) -> list[tuple[object, ...]]:
    """What the reader gave before: each symbol's fields from pyelftools' parse."""
    elf = cast(Any, ELFFile(io.BytesIO(data)))
    found: list[tuple[object, ...]] = []
    for section in elf.iter_sections():
        if section["sh_type"] not in ("SHT_SYMTAB", "SHT_DYNSYM"):
            continue
        for index in range(section.num_symbols()):
            symbol = section.get_symbol(index)
            entry = symbol.entry
            shndx = entry["st_shndx"]
            if isinstance(shndx, int) and shndx >= SHN_LORESERVE:
                shndx = _RESERVED.get(shndx, f"SHN_0x{shndx:x}")
            found.append((str(symbol.name), int(entry["st_value"]), int(entry["st_size"]),
                          str(entry["st_info"]["type"]).removeprefix("STT_"),
                          str(entry["st_info"]["bind"]).removeprefix("STB_"),
                          str(entry["st_other"]["visibility"]).removeprefix("STV_"),
                          shndx if isinstance(shndx, int) else str(shndx), section.name,
                          index, int(entry["st_name"])))
    return found


def _fields(symbol: Symbol) -> tuple[object, ...]:
    return (symbol.name, symbol.value, symbol.size, symbol.type, symbol.binding,
            symbol.visibility, symbol.section_index, symbol.table, symbol.index,
            symbol.name_offset)


@pytest.mark.parametrize("path", OBJECTS, ids=lambda path: path.name)
def test_symbols_are_read_as_pyelftools_reads_them(path: Path) -> None:
    data = path.read_bytes()
    symbols = read_code_object(data, name=str(path)).symbols
    assert [_fields(symbol) for symbol in symbols] == _by_pyelftools(data)


def _symbol_tables(data: bytes) -> list[tuple[int, int]]:
    """(offset, count) of each symbol table of ``data``."""
    elf = cast(Any, ELFFile(io.BytesIO(data)))
    return [(int(section["sh_offset"]), int(section["sh_size"]) // SYM.size)
            for section in elf.iter_sections()
            if section["sh_type"] in ("SHT_SYMTAB", "SHT_DYNSYM")]


def test_unusual_symbol_fields_are_spelled_as_pyelftools_spells_them() -> None:
    assert SHT_SYMTAB != SHT_DYNSYM
    path = CORPUS / "kernels" / "elementwise.gfx90a.co"
    data = bytearray(path.read_bytes())
    offset, count = _symbol_tables(bytes(data))[0]
    assert count >= 4
    # Every type and binding nibble, every visibility, reserved and special indices.
    edits = [(1, 0xA7, 0x05, 0xFFF1), (2, 0xDD, 0x07, 0xFFF2), (3, 0x3B, 0x06, 0xFF00)]
    for index, info, other, shndx in edits:
        at = offset + index * SYM.size
        name, _, _, _, value, size = SYM.unpack_from(data, at)
        SYM.pack_into(data, at, name, info, other, shndx, value, size)
    changed = bytes(data)
    symbols = read_elf(changed, str(path)).symbols
    assert [_fields(symbol) for symbol in symbols] == _by_pyelftools(changed)
    spelled = {(symbol.type, symbol.binding, symbol.visibility, symbol.section_index)
               for symbol in symbols}
    # The edits took effect: named kinds by name, the others (type 11, visibility 7) by
    # number.
    assert ("NUM", "LOOS", "SINGLETON", "SHN_ABS") in spelled
    assert ("LOPROC", "LOPROC", "7", "SHN_COMMON") in spelled
    assert ("11", "NUM", "ELIMINATE", "SHN_AMDGPU_LDS") in spelled
