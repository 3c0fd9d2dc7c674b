"""Put a new fat binary into a host binary, every other byte staying where it was.

A HIP program or library carries its device code in a ``.hip_fatbin`` section: one offload
bundle per translation unit. The HIP runtime finds each bundle through that unit's
``__hip_fatbin_wrapper`` record in ``.hipFatBinSegment`` (u32 magic ``HIPF``, u32 version,
a pointer to the bundle, an unused pointer), which a module constructor hands to
``__hipRegisterFatBinary``. In a position-independent binary the pointer is also the addend
of a ``RELATIVE`` dynamic relocation; in a relocatable object it is a relocation against the
section (or the ``__hip_fatbin`` symbol).

Swapping in an instrumented fat binary therefore touches only what points at it:

* the ``.hip_fatbin`` section header (where it now is and how big it is);
* each wrapper's pointer, each relocation and each symbol that pointed at a bundle;
* in a linked binary whose new fat binary is larger than the old one, a new read-only
  ``PT_LOAD`` segment appended to the file, holding the fat binary and a copy of the program
  headers with one more entry (``PT_PHDR`` follows them). The old fat binary's bytes are
  zeroed, so no loader finds the uninstrumented code.

Every other section keeps its bytes and its place in the file and in memory, so the result
is a drop-in replacement (``LD_LIBRARY_PATH``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from luthier.frontend.codeobj.bundle import FATBIN_SECTION, BundleMove
from luthier.frontend.codeobj.elf_format import (
    DT_SYMTAB,
    DYN,
    EHDR,
    ELF_MAGIC,
    ELFCLASS64,
    ELFDATA2LSB,
    PF_R,
    PHDR,
    PT_LOAD,
    PT_PHDR,
    RELA,
    SHDR,
    SHF_ALLOC,
    SHT_DYNAMIC,
    SHT_DYNSYM,
    SHT_NOBITS,
    SHT_REL,
    SHT_RELA,
    SHT_SYMTAB,
    SYM,
    ElfType,
    align_up,
)
from luthier.frontend.codeobj.errors import CodeObjectError

#: The section of the ``__hip_fatbin_wrapper`` records.
WRAPPER_SECTION = ".hipFatBinSegment"
#: A wrapper record: magic, version, bundle pointer, unused pointer.
WRAPPER = struct.Struct("<IIQQ")
WRAPPER_MAGIC = 0x48495046  # "HIPF"
#: The ``R_*_RELATIVE`` relocation type of each host machine (``e_machine``) HIP targets.
RELATIVE_RELOCATION = {62: 8, 183: 1027, 21: 22, 243: 3}  # x86-64, AArch64, PPC64, RISC-V
STT_SECTION = 3
#: The most zero bytes the new segment's placement may add to keep the file offset to
#: address relation of the first segment (see :func:`_segment_place`).
MAX_PLACEMENT_PADDING = 16 << 20
#: The largest ``.hip_fatbin`` alignment taken (clang asks for 4096; a larger one is a
#: corrupt header whose padding would be the file's size or more).
MAX_ALIGNMENT = 1 << 16


@dataclass
class _Section:
    index: int
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    align: int
    entsize: int


class _Host:
    """The parsed parts of a host ELF this module reads, over a mutable copy of its bytes."""

    def __init__(self, data: bytes, path: str) -> None:
        self.path = path
        self.out = bytearray(data)
        if not data.startswith(ELF_MAGIC) or len(data) < EHDR.size:
            raise self.error("not an ELF file")
        if data[4] != ELFCLASS64 or data[5] != ELFDATA2LSB:
            raise self.error("luthier writes fat binaries into 64-bit little-endian host "
                             "binaries only")
        header = EHDR.unpack_from(data)
        self.e_type, self.machine = header[1], header[2]
        self.phoff, self.shoff = header[5], header[6]
        self.phentsize, self.phnum = header[9], header[10]
        shnum, shstrndx = header[12], header[13]
        if self.phnum and self.phentsize != PHDR.size:
            raise self.error(f"program header entries of {self.phentsize} bytes")
        if self.shoff == 0:
            raise self.error("no section headers")
        if shnum == 0:  # more than 0xff00 sections: the count is in section 0's size
            shnum = self._shdr(0)[5]
        if shstrndx == 0xFFFF:
            shstrndx = self._shdr(0)[6]
        raw = [self._shdr(index) for index in range(shnum)]
        if shstrndx >= shnum:
            raise self.error(f"section name table index {shstrndx} is out of range")
        names = raw[shstrndx]
        self.sections = [
            _Section(index, self._name(names[4], names[5], fields[0]), *fields[1:])
            for index, fields in enumerate(raw)
        ]
        self.phdrs = [list(self._unpack(PHDR, self.phoff + index * PHDR.size))
                      for index in range(self.phnum)]

    def error(self, reason: str) -> CodeObjectError:
        return CodeObjectError(self.path, reason)

    def _unpack(self, record: struct.Struct, offset: int) -> tuple[int, ...]:
        if offset < 0 or offset + record.size > len(self.out):
            raise self.error(f"truncated: a record at offset {offset:#x} runs past the end")
        return record.unpack_from(self.out, offset)

    def _shdr(self, index: int) -> tuple[int, ...]:
        return self._unpack(SHDR, self.shoff + index * SHDR.size)

    def _name(self, table_offset: int, table_size: int, name: int) -> str:
        if name >= table_size or table_offset + table_size > len(self.out):
            return ""
        end = self.out.find(b"\0", table_offset + name, table_offset + table_size)
        return bytes(self.out[table_offset + name : end]).decode("ascii", "replace")

    def section(self, name: str) -> _Section | None:
        return next((section for section in self.sections if section.name == name), None)

    def contents(self, section: _Section) -> tuple[int, int]:
        """``section``'s file range, checked to lie in the file."""
        if section.type == SHT_NOBITS:
            return section.offset, 0
        if section.offset + section.size > len(self.out):
            raise self.error(f"section {section.name} runs past the end of the file")
        return section.offset, section.size

    def write_shdr(self, section: _Section) -> None:
        SHDR.pack_into(self.out, self.shoff + section.index * SHDR.size, self._name_index(section),
                       section.type, section.flags, section.addr, section.offset, section.size,
                       section.link, section.info, section.align, section.entsize)

    def _name_index(self, section: _Section) -> int:
        return self._shdr(section.index)[0]


def replace_fatbin(host: bytes, path: str, fatbin: bytes, moves: Sequence[BundleMove]) -> bytes:
    """``host`` (named ``path`` in messages) with ``fatbin`` in place of its ``.hip_fatbin``
    section's contents; ``moves`` says where each old bundle went in ``fatbin``. Everything
    that pointed at an old bundle (wrapper pointers, relocations, symbols) points at the new
    one; a pointer into the old fat binary that no move explains is a
    :class:`CodeObjectError` rather than a library that would run its old code."""
    elf = _Host(host, path)
    section = elf.section(FATBIN_SECTION)
    if section is None:
        raise elf.error(f"no {FATBIN_SECTION} section")
    old_offset, old_size = elf.contents(section)
    _check_structure(elf, section)
    if section.align & (section.align - 1) or section.align > MAX_ALIGNMENT:
        raise elf.error(f"section {FATBIN_SECTION}: alignment {section.align} is not a power "
                        f"of two up to {MAX_ALIGNMENT}")

    def relocate(offset: int) -> int:
        if offset == old_size:
            return len(fatbin)
        for move in moves:
            if (moved := move.moved(offset)) is not None:
                return moved
        raise elf.error(f"something points at offset {offset:#x} of {FATBIN_SECTION}, inside "
                        "a bundle that changed: luthier cannot say where it should point now")

    elf.out[old_offset : old_offset + old_size] = bytes(old_size)
    if elf.e_type == ElfType.ET_REL.value:
        _replace_in_relocatable(elf, section, fatbin, relocate)
    else:
        _replace_in_linked(elf, section, fatbin, relocate)
    return bytes(elf.out)


def _check_structure(elf: _Host, fatbin: _Section) -> None:
    """What the surgery relies on, checked before any byte changes: every segment's and
    section's bytes inside the file (data appended at the end must not fall under a range
    that claims more), symbol and RELA tables of whole entries, apart from the fat binary,
    and a ``.dynsym`` where the dynamic section says the loader finds it."""
    for index, phdr in enumerate(elf.phdrs):
        if phdr[2] + phdr[5] > len(elf.out):
            raise elf.error(f"program header {index}: its {phdr[5]} bytes at offset "
                            f"{phdr[2]:#x} run past the end of the file")
    start, end = fatbin.offset, fatbin.offset + fatbin.size
    for table in elf.sections:
        if table.type in (0, SHT_NOBITS):
            continue
        offset, size = elf.contents(table)
        if table.type in (SHT_SYMTAB, SHT_DYNSYM, SHT_RELA) and table is not fatbin:
            entry = SYM.size if table.type != SHT_RELA else RELA.size
            if size % entry or (size and table.entsize != entry):
                raise elf.error(f"section {table.name}: {size} bytes of {table.entsize}-byte "
                                f"entries, not whole {entry}-byte ones")
            if offset < end and start < offset + size:
                raise elf.error(f"section {table.name} overlaps {FATBIN_SECTION}")
    dynsym = next((table for table in elf.sections if table.type == SHT_DYNSYM), None)
    dynamic = next((table for table in elf.sections if table.type == SHT_DYNAMIC), None)
    if dynsym is not None and dynamic is not None:
        offset, size = elf.contents(dynamic)
        for at in range(offset, offset + size - DYN.size + 1, DYN.size):
            tag, value = DYN.unpack_from(elf.out, at)
            if tag == DT_SYMTAB and value != dynsym.addr:
                raise elf.error(f"DT_SYMTAB ({value:#x}) and section .dynsym "
                                f"({dynsym.addr:#x}) disagree about where the dynamic "
                                "symbols are")
            if tag == 0:
                break


def _replace_in_relocatable(elf: _Host, section: _Section, fatbin: bytes,
                            relocate: Callable[[int], int]) -> None:
    """An object file: the new contents go where the old ones were when they fit, else at
    the end of the file; relocations against the section and symbols defined in it take
    the new offsets."""
    if len(fatbin) <= section.size:
        elf.out[section.offset : section.offset + len(fatbin)] = fatbin
    else:
        new_offset = align_up(len(elf.out), max(section.align, 1))
        elf.out += bytes(new_offset - len(elf.out)) + fatbin
        section.offset, section.size = new_offset, len(fatbin)
        elf.write_shdr(section)
    for table in elf.sections:
        if table.type == SHT_REL and _symbols_in(elf, elf.sections[table.link], section):
            raise elf.error(f"section {table.name}: REL relocations against "
                            f"{FATBIN_SECTION} are not supported")
        if table.type != SHT_RELA or table.link >= len(elf.sections):
            continue
        symbols = elf.sections[table.link]
        start, size = elf.contents(table)
        for at in range(start, start + size - RELA.size + 1, RELA.size):
            r_offset, info, addend = RELA.unpack_from(elf.out, at)
            symbol = _symbol(elf, symbols, info >> 32)
            if symbol is not None and symbol[3] == section.index and symbol[1] & 0xF == STT_SECTION:
                RELA.pack_into(elf.out, at, r_offset, info, relocate(addend))
    _move_symbols(elf, section, lambda value: relocate(value))


def _replace_in_linked(elf: _Host, section: _Section, fatbin: bytes,
                       relocate: Callable[[int], int]) -> None:
    """A shared library or an executable: the new contents go where the old ones were when
    they fit, else into a new segment; every pointer to a bundle follows it."""
    old_address, old_size = section.addr, section.size
    if len(fatbin) <= old_size:
        elf.out[section.offset : section.offset + len(fatbin)] = fatbin
        new_address = old_address
    else:
        new_address = _append_segment(elf, section, fatbin)

    def moved(address: int) -> int | None:
        if old_address <= address <= old_address + old_size:
            return new_address + relocate(address - old_address)
        return None

    patched = _patch_wrappers(elf, moved) + _patch_relative_relocations(elf, moved)
    if not patched and new_address != old_address:
        raise elf.error(f"nothing points at {FATBIN_SECTION} (no {WRAPPER_SECTION} record nor "
                        "relocation): the runtime would not find the new fat binary")
    _move_symbols(elf, section, lambda value: moved(value) or value)


def _append_segment(elf: _Host, section: _Section, fatbin: bytes) -> int:
    """Append ``fatbin`` and a copy of the program headers with a new ``PT_LOAD`` for both,
    re-point ``section``, ``e_phoff`` and ``PT_PHDR`` at them; the fat binary's address."""
    loads = [phdr for phdr in elf.phdrs if phdr[0] == PT_LOAD]
    if not loads:
        raise elf.error("no PT_LOAD segment to place the fat binary after")
    if elf.phnum + 1 >= 0xFFFF:
        raise elf.error("too many program headers to add one")
    page = max([0x1000, *(phdr[7] for phdr in loads)])
    offset, address = _segment_place(elf, loads, page, max(section.align, 1))
    phoff = align_up(offset + len(fatbin), 8)
    phdrs = [list(phdr) for phdr in elf.phdrs]
    size = phoff + (len(phdrs) + 1) * PHDR.size - offset
    last_load = max(index for index, phdr in enumerate(phdrs) if phdr[0] == PT_LOAD)
    if address + size >= 1 << 63:
        raise elf.error(f"the segments end at {address - offset % page:#x}: no room for the "
                        "fat binary's segment below 2^63")
    phdrs.insert(last_load + 1, [PT_LOAD, PF_R, offset, address, address, size, size, page])
    phdr_address = address + phoff - offset
    for phdr in phdrs:
        if phdr[0] == PT_PHDR:
            table_size = len(phdrs) * PHDR.size
            phdr[2:7] = [phoff, phdr_address, phdr_address, table_size, table_size]
    elf.out += bytes(offset - len(elf.out)) + fatbin
    elf.out += bytes(phoff - len(elf.out))
    for phdr in phdrs:
        elf.out += PHDR.pack(*phdr)
    struct.pack_into("<Q", elf.out, 32, phoff)  # e_phoff
    struct.pack_into("<H", elf.out, 56, len(phdrs))  # e_phnum
    section.offset, section.addr, section.size = offset, address, len(fatbin)
    elf.write_shdr(section)
    return address


def _segment_place(elf: _Host, loads: list[list[int]], page: int,
                   alignment: int) -> tuple[int, int]:
    """File offset and address of the new segment: past the end of the file and of every
    segment's memory. Where it costs at most :data:`MAX_PLACEMENT_PADDING` zero bytes, the
    offset is the address minus the first segment's (address - offset), as it is for every
    segment a linker lays out: a loader that takes the program headers' address as the
    first segment's address plus ``e_phoff`` (Linux before 5.18, for executables) finds
    them."""
    memory_end = align_up(max(phdr[3] + phdr[6] for phdr in loads), page)
    delta = loads[0][3] - loads[0][2]
    offset = align_up(max(len(elf.out), memory_end - delta), alignment)
    if delta >= 0 and offset - len(elf.out) <= MAX_PLACEMENT_PADDING and offset % page == (
            offset + delta) % page:
        return offset, offset + delta
    offset = align_up(len(elf.out), alignment)
    return offset, memory_end + offset % page


def _patch_wrappers(elf: _Host, moved: Callable[[int], int | None]) -> int:
    """Point each ``__hip_fatbin_wrapper`` at its bundle's new address (a pointer left 0
    for a ``RELATIVE`` relocation to fill stays 0); how many pointed at the fat binary."""
    wrappers = elf.section(WRAPPER_SECTION)
    if wrappers is None:
        return 0
    start, size = elf.contents(wrappers)
    patched = 0
    for at in range(start, start + size - WRAPPER.size + 1, 8):
        magic, version, pointer, unused = WRAPPER.unpack_from(elf.out, at)
        if magic != WRAPPER_MAGIC or pointer == 0:
            continue
        new = moved(pointer)
        if new is None:
            continue
        WRAPPER.pack_into(elf.out, at, magic, version, new, unused)
        patched += 1
    return patched


def _patch_relative_relocations(elf: _Host, moved: Callable[[int], int | None]) -> int:
    """Move the addend of each dynamic ``RELATIVE`` relocation that pointed at the fat
    binary; how many did."""
    relative = RELATIVE_RELOCATION.get(elf.machine)
    if relative is None:
        return 0
    patched = 0
    for table in elf.sections:
        if table.type != SHT_RELA or not table.flags & SHF_ALLOC:
            continue
        start, size = elf.contents(table)
        for at in range(start, start + size - RELA.size + 1, RELA.size):
            r_offset, info, addend = RELA.unpack_from(elf.out, at)
            if info & 0xFFFFFFFF != relative or (new := moved(addend)) is None:
                continue
            RELA.pack_into(elf.out, at, r_offset, info, new)
            patched += 1
    return patched


def _symbols_in(elf: _Host, table: _Section, section: _Section) -> bool:
    """Whether the symbol table ``table`` defines anything in ``section``."""
    if table.type not in (SHT_SYMTAB, SHT_DYNSYM):
        return False
    start, size = elf.contents(table)
    return any(SYM.unpack_from(elf.out, at)[3] == section.index
               for at in range(start, start + size - SYM.size + 1, SYM.size))


def _symbol(elf: _Host, table: _Section, index: int) -> tuple[int, ...] | None:
    if table.type not in (SHT_SYMTAB, SHT_DYNSYM):
        return None
    start, size = elf.contents(table)
    at = start + index * SYM.size
    if at + SYM.size > start + size:
        raise elf.error(f"a relocation names symbol {index}, past the end of {table.name}")
    return SYM.unpack_from(elf.out, at)


def _move_symbols(elf: _Host, section: _Section, moved: Callable[[int], int]) -> None:
    """Give every symbol defined in ``section`` (``__hip_fatbin``, ...) its new value."""
    for table in elf.sections:
        if table.type not in (SHT_SYMTAB, SHT_DYNSYM):
            continue
        start, size = elf.contents(table)
        for at in range(start, start + size - SYM.size + 1, SYM.size):
            name, info, other, shndx, value, symbol_size = SYM.unpack_from(elf.out, at)
            if shndx == section.index and info & 0xF != STT_SECTION:
                SYM.pack_into(elf.out, at, name, info, other, shndx, moved(value), symbol_size)
