"""Byte-level pieces both writers share: ELF64 little-endian records and string tables."""

from __future__ import annotations

from collections.abc import Iterable

from luthier.amdgpu_dialects.target.target_id import EM_AMDGPU
from luthier.frontend.codeobj.elf_format import (
    EHDR,
    ELF_MAGIC,
    ELFCLASS64,
    ELFDATA2LSB,
    EV_CURRENT,
    PHDR,
    RELA,
    SHDR,
    SYM,
    ElfType,
)


def elf_header(
    *,
    e_type: ElfType,
    os_abi: int,
    abi_version: int,
    e_flags: int,
    phoff: int,
    phnum: int,
    shoff: int,
    shnum: int,
    shstrndx: int,
) -> bytes:
    """The 64-byte ELF header of an AMDGPU object (ELFCLASS64, little-endian)."""
    ident = ELF_MAGIC + bytes((ELFCLASS64, ELFDATA2LSB, EV_CURRENT, os_abi, abi_version))
    return EHDR.pack(
        ident,  # padded to 16 bytes with zeros
        e_type.value,
        EM_AMDGPU,
        EV_CURRENT,
        0,  # e_entry: code objects have no entry point
        phoff,
        shoff,
        e_flags,
        EHDR.size,
        PHDR.size if phnum else 0,
        phnum,
        SHDR.size,
        shnum,
        shstrndx,
    )


def section_header(
    name: int,
    sh_type: int,
    flags: int,
    addr: int,
    offset: int,
    size: int,
    link: int,
    info: int,
    align: int,
    entsize: int,
) -> bytes:
    """One ``Elf64_Shdr``."""
    return SHDR.pack(name, sh_type, flags, addr, offset, size, link, info, align, entsize)


def program_header(
    p_type: int, flags: int, offset: int, vaddr: int, filesz: int, memsz: int, align: int
) -> bytes:
    """One ``Elf64_Phdr`` (physical address = virtual address, as linkers write it)."""
    return PHDR.pack(p_type, flags, offset, vaddr, vaddr, filesz, memsz, align)


def symbol_entry(name: int, info: int, other: int, shndx: int, value: int, size: int) -> bytes:
    """One ``Elf64_Sym``."""
    return SYM.pack(name, info, other, shndx, value, size)


def rela_entry(offset: int, sym: int, r_type: int, addend: int) -> bytes:
    """One ``Elf64_Rela``."""
    return RELA.pack(offset, (sym << 32) | r_type, addend)


class AppendStringTable:
    """A string table in insertion order, as linkers write ``.strtab``/``.dynstr``.

    ``dedup`` shares the offset of a string added twice (lld does this for ``.dynstr`` and
    ``.shstrtab``; its ``.strtab`` keeps duplicates).
    """

    def __init__(self, dedup: bool = True) -> None:
        self._data = bytearray(b"\0")
        self._offsets: dict[str, int] = {"": 0}
        self._dedup = dedup

    def add(self, text: str) -> int:
        """Offset of ``text``, appending it unless it is already there and dedup is on."""
        if self._dedup and text in self._offsets:
            return self._offsets[text]
        offset = len(self._data)
        self._data += text.encode() + b"\0"
        self._offsets.setdefault(text, offset)
        return offset

    def data(self) -> bytes:
        """The table's bytes."""
        return bytes(self._data)


class TailMergedStringTable:
    """A string table laid out the way LLVM's MC layer does for ``ET_REL`` objects.

    Every distinct string is stored once; strings are placed in decreasing order of their
    reversed bytes, so a string directly follows every string that ends with it, and a string
    that is a suffix of the one placed before it shares that one's tail. This reproduces
    ``llvm-mc``'s ``.strtab`` byte for byte, which is what lets a round trip be identical.
    """

    def __init__(self, strings: Iterable[str]) -> None:
        distinct = {s.encode() for s in strings if s}
        ordered = sorted(distinct, key=lambda s: s[::-1], reverse=True)
        data = bytearray(b"\0")
        offsets: dict[bytes, int] = {b"": 0}
        previous = b""
        for text in ordered:
            if previous.endswith(text):
                offsets[text] = len(data) - len(text) - 1
                continue
            offsets[text] = len(data)
            data += text + b"\0"
            previous = text
        self._data = bytes(data)
        self._offsets = offsets

    def offset(self, text: str) -> int:
        """Offset of ``text`` (which must have been given to the constructor)."""
        return self._offsets[text.encode()]

    def data(self) -> bytes:
        """The table's bytes."""
        return self._data
