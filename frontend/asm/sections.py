"""Sections as the assembler fills them, and what ``.section`` flags and types mean.

A section is created the first time a directive switches to it, and output keeps that order
(as llvm-mc's object writer does). ``SHT_NOBITS`` sections only grow in size; everything else
accumulates bytes. Alignment directives raise the section's alignment as well as padding it,
and in code sections pad with ``s_nop 0``, as LLVM's AMDGPU backend writes nops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from luthier.frontend.asm.errors import StatementError
from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHF_EXCLUDE,
    SHF_EXECINSTR,
    SHF_MERGE,
    SHF_STRINGS,
    SHF_WRITE,
    SHT_FINI_ARRAY,
    SHT_INIT_ARRAY,
    SHT_NOBITS,
    SHT_NOTE,
    SHT_PREINIT_ARRAY,
    SHT_PROGBITS,
)

#: ``s_nop 0``: what LLVM's AMDGPU backend pads code with (writeNopData).
S_NOP_0 = (0xBF800000).to_bytes(4, "little")

_FLAG_LETTERS = {
    "a": SHF_ALLOC,
    "w": SHF_WRITE,
    "x": SHF_EXECINSTR,
    "M": SHF_MERGE,
    "S": SHF_STRINGS,
    "e": SHF_EXCLUDE,
}
_TYPES = {
    "progbits": SHT_PROGBITS,
    "nobits": SHT_NOBITS,
    "note": SHT_NOTE,
    "init_array": SHT_INIT_ARRAY,
    "fini_array": SHT_FINI_ARRAY,
    "preinit_array": SHT_PREINIT_ARRAY,
}

#: Sections the short directives (and ``.section NAME`` without flags) mean, as LLVM's ELF
#: defaults give them: (type, flags).
DEFAULT_SECTIONS: dict[str, tuple[int, int]] = {
    ".text": (SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR),
    ".data": (SHT_PROGBITS, SHF_ALLOC | SHF_WRITE),
    ".bss": (SHT_NOBITS, SHF_ALLOC | SHF_WRITE),
    ".rodata": (SHT_PROGBITS, SHF_ALLOC),
    ".comment": (SHT_PROGBITS, SHF_MERGE | SHF_STRINGS),
    ".note": (SHT_NOTE, SHF_ALLOC),
}


def default_kind(name: str) -> tuple[int, int]:
    """Type and flags of a section named without them, by LLVM's name-prefix rules."""
    if name in DEFAULT_SECTIONS:
        return DEFAULT_SECTIONS[name]
    for prefix in (".text.", ".data.", ".bss.", ".rodata."):
        if name.startswith(prefix):
            return DEFAULT_SECTIONS[prefix[:-1]]
    if name.startswith(".note"):
        return SHT_NOTE, 0
    return SHT_PROGBITS, 0


def parse_flags(text: str, column: int) -> int:
    """``"awx"``-style flag letters."""
    flags = 0
    for offset, letter in enumerate(text):
        if letter not in _FLAG_LETTERS:
            raise StatementError("unknown flag", column + offset)
        flags |= _FLAG_LETTERS[letter]
    return flags


def parse_type(text: str, column: int) -> int:
    """``@progbits``, ``%nobits`` or ``"progbits"``."""
    name = text.strip('"').lstrip("@%")
    if name not in _TYPES:
        raise StatementError("unknown section type", column)
    return _TYPES[name]


@dataclass
class Section:
    """One output section being filled."""

    name: str
    type: int
    flags: int
    entry_size: int = 0
    alignment: int = 1
    data: bytearray = field(default_factory=bytearray)
    #: Size of a ``SHT_NOBITS`` section (its data stays empty).
    nobits_size: int = 0

    @property
    def is_code(self) -> bool:
        return bool(self.flags & SHF_EXECINSTR)

    @property
    def is_virtual(self) -> bool:
        return self.type == SHT_NOBITS

    @property
    def size(self) -> int:
        return self.nobits_size if self.is_virtual else len(self.data)

    def emit(self, data: bytes) -> int:
        """Append ``data``; returns the offset it starts at."""
        start = self.size
        if self.is_virtual:
            if any(data):
                raise StatementError(f"BSS section '{self.name}' cannot have non-zero initializers")
            self.nobits_size += len(data)
        else:
            self.data += data
        return start

    def align(self, alignment: int, fill: bytes | None, max_bytes: int = 0) -> None:
        """Pad to ``alignment`` with ``fill`` repeated (``None``: code padding, ``s_nop 0`` in
        code sections and zeros elsewhere); skip the padding if it exceeds ``max_bytes``."""
        self.alignment = max(self.alignment, alignment)
        padding = -self.size % alignment
        if padding == 0 or (max_bytes and padding > max_bytes):
            return
        if fill is None:
            if self.is_code:
                # Bytes short of a word are zeros, then whole s_nop words (writeNopData).
                self.emit(bytes(padding % 4) + S_NOP_0 * (padding // 4))
            else:
                self.emit(bytes(padding))
            return
        if padding % len(fill):
            raise StatementError(
                f"alignment padding of {padding} bytes is not a multiple of "
                f"the {len(fill)}-byte fill value"
            )
        self.emit(fill * (padding // len(fill)))
