"""Shared pieces of the ELF writer tests: corpus paths, the LLVM tools, structural comparison."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from luthier.frontend.codeobj import CodeObject, read_code_object, read_elf
from luthier.frontend.codeobj.elf_format import SHT_RELA, SHT_STRTAB, SHT_SYMTAB
from luthier.lowering.elf import (
    ABSOLUTE_SECTION,
    ObjectSpec,
    RelocationSpec,
    SectionSpec,
    SymbolSpec,
)

ROOT = Path(__file__).resolve().parents[4]
CORPUS = ROOT / "test" / "corpus" / "kernels"
#: Every relocatable object of the corpus: clang's ``T.G.o`` and llvm-mc's ``T.G.mc.o``.
OBJECTS = sorted(CORPUS.glob("*.o"))
OBJECT_IDS = [p.name for p in OBJECTS]

READELF = "llvm-readelf-19"
OBJDUMP = "llvm-objdump-19"
LLD = "ld.lld-19"
LLVM_MC = "llvm-mc-19"

#: Instruction bytes where a ``.o`` (clang's assembler run on its own ``-S`` text) differs from
#: the object clang assembled in memory and linked into the committed ``.co``: address in the
#: ``.co`` -> what differs. Not the writers' doing: lld makes the same bytes from the ``.o``.
INPUT_CODE_DIFFERENCES: dict[str, dict[int, str]] = {
    "atomics.gfx90a.o": {0x34C4: "buffer_wbl2: the .o encodes it without the sc0 sc1 bits"},
}


def linked_reference(obj: Path) -> Path:
    """The committed ``T.G.co`` that ``ld.lld-19 -shared`` made from clang's in-memory object."""
    return CORPUS / (obj.name.removesuffix(".o").removesuffix(".mc") + ".co")


def object_spec(source: Path | bytes) -> ObjectSpec:
    """An ``ET_REL`` object as the writers' input, built from what the product's reader
    (:func:`read_elf`) makes of it: the tables the writers regenerate (``.strtab``,
    ``.symtab``, the ``.rela`` sections) become symbols and relocations; section symbols are
    named by their section, as the reader names them in relocations. For the round trip
    ``write_relocatable(object_spec(o)) == o``."""
    data = source if isinstance(source, bytes) else source.read_bytes()
    code_object = read_elf(data, "<object>" if isinstance(source, bytes) else str(source))
    names = {section.index: section.name for section in code_object.sections}
    relocations: dict[str | None, list[RelocationSpec]] = {}
    for reloc in code_object.relocations:
        relocations.setdefault(reloc.target_section, []).append(
            RelocationSpec(reloc.offset, reloc.type, reloc.symbol, reloc.addend)
        )
    sections = tuple(
        SectionSpec(
            name=section.name,
            type=section.type,
            flags=section.flags,
            alignment=section.alignment,
            data=data[section.offset : section.offset + section.size]
            if section.has_file_bytes
            else b"",
            size=section.size,
            relocations=tuple(relocations.get(section.name, ())),
            entry_size=section.entry_size,
        )
        for section in code_object.sections
        if section.index
        and section.type not in (SHT_SYMTAB, SHT_RELA)
        and not (section.type == SHT_STRTAB and not section.flags)
    )
    symbols: list[SymbolSpec] = []
    for symbol in code_object.symbols:
        if symbol.table != ".symtab" or symbol.index == 0:
            continue
        index = symbol.section_index
        section = None
        if index == "SHN_ABS":
            section = ABSOLUTE_SECTION
        elif isinstance(index, int) and index:
            section = names[index]
        kind = symbol.type
        symbols.append(
            SymbolSpec(
                name=section if kind == "SECTION" and section else symbol.name,
                section=section,
                value=symbol.value,
                size=symbol.size,
                type=kind,
                binding=symbol.binding,
                visibility=symbol.visibility,
            )
        )
    return ObjectSpec(
        e_flags=code_object.e_flags,
        os_abi=code_object.os_abi,
        abi_version=code_object.abi_version,
        sections=sections,
        symbols=tuple(symbols),
    )


def without_csdata(spec: ObjectSpec) -> ObjectSpec:
    """``spec`` minus the empty ``.AMDGPU.csdata`` that only the assembled-from-text ``.o`` has
    (the in-memory object behind the committed ``.co`` lacks it, and lld keeps empty sections).
    """
    return replace(spec, sections=tuple(s for s in spec.sections if s.name != ".AMDGPU.csdata"))


def require(tool: str) -> str:
    """Path of an LLVM tool, or skip the test with the reason."""
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (scripts/setup.sh installs LLVM 19)")
    return path


def run_tool(tool: str, *args: str | Path) -> str:
    """Run ``tool``; fail on a non-zero exit or any warning; give stdout with paths removed."""
    path = require(tool)
    result = subprocess.run(
        [path, *map(str, args)], capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, f"{tool} {args}: {result.stderr.strip()}"
    assert "warning" not in result.stderr, result.stderr
    text = result.stdout
    for arg in args:
        if isinstance(arg, Path):
            text = text.replace(str(arg), "<file>")
    return re.sub(r"File: .*", "File: <file>", text)


def structural_differences(ours: Path, reference: Path) -> list[str]:
    """What differs between two linked code objects where it matters to a loader.

    Compares the code bytes of every function symbol, the 64 bytes of every kernel descriptor
    and the code entry each one points at, the dynamic symbols, and the metadata note.
    """
    a, b = read_code_object(ours), read_code_object(reference)
    raw_a, raw_b = ours.read_bytes(), reference.read_bytes()
    problems: list[str] = []

    def symbols(co: CodeObject, table: str) -> dict[str, tuple[int, int, str, str, str]]:
        return {
            s.name: (s.value, s.size, s.type, s.binding, s.visibility)
            for s in co.symbols
            if s.table == table and s.name
        }

    def file_bytes(co: CodeObject, raw: bytes, address: int, size: int) -> bytes:
        for section in co.sections:
            if section.address <= address < section.address + section.size and section.size:
                start = section.offset + address - section.address
                return raw[start : start + size]
        return b""

    if symbols(a, ".dynsym") != symbols(b, ".dynsym"):
        problems.append("dynamic symbols differ")
    for name, (value, size, sym_type, _, _) in symbols(b, ".symtab").items():
        if sym_type != "FUNC":
            continue
        if file_bytes(a, raw_a, value, size) != file_bytes(b, raw_b, value, size):
            problems.append(f"code of {name} differs")
    kernels_a = {k.name: k for k in a.kernels}
    for kernel in b.kernels:
        other = kernels_a.get(kernel.name)
        if other is None:
            problems.append(f"kernel {kernel.name} is missing")
            continue
        kd = kernel.descriptor_symbol
        if file_bytes(a, raw_a, kd.value, 64) != file_bytes(b, raw_b, kd.value, 64):
            problems.append(f"descriptor of {kernel.name} differs")
        if other.entry_address != kernel.entry_address:
            problems.append(f"code entry of {kernel.name} differs")
    note_a = [s for s in a.sections if s.name == ".note"]
    note_b = [s for s in b.sections if s.name == ".note"]
    if [raw_a[s.offset : s.offset + s.size] for s in note_a] != [
        raw_b[s.offset : s.offset + s.size] for s in note_b
    ]:
        problems.append("metadata note differs")
    return problems


def differing_addresses(
    ours: bytes, reference: bytes, text_offset: int, text_addr: int
) -> set[int]:
    """Instruction addresses (4-byte aligned) of the bytes that differ inside ``.text``."""
    return {
        (text_addr + i - text_offset) & ~3
        for i, (x, y) in enumerate(zip(ours, reference, strict=True))
        if x != y
    }
