"""ELF64 little-endian format facts: the constants and record layouts of the generic ABI.

The reader (:mod:`luthier.frontend.codeobj.elf`) and the writers (``luthier.lowering.elf``)
both speak this format, so its numbers and ``struct`` layouts live here once. AMDGPU's own
values are elsewhere: ``EM_AMDGPU`` and ``ELFOSABI_AMDGPU_HSA`` with the other target facts
(:mod:`luthier.amdgpu_dialects.target.target_id`), the ``R_AMDGPU_*`` relocation kinds in
:mod:`luthier.amdgpu_dialects.mc.relocations`, the note types in
:mod:`luthier.frontend.codeobj.notes`.
"""

from __future__ import annotations

import enum
import struct

ELF_MAGIC = b"\x7fELF"
ELFCLASS64 = 2
ELFDATA2LSB = 1
EV_CURRENT = 1


class ElfType(enum.Enum):
    """The two ELF types (``e_type``) an AMDGPU code object can have."""

    ET_REL = 1
    ET_DYN = 3


# --- section types and flags -----------------------------------------------------------------

SHT_NULL = 0
SHT_PROGBITS = 1
SHT_SYMTAB = 2
SHT_STRTAB = 3
SHT_RELA = 4
SHT_HASH = 5
SHT_DYNAMIC = 6
SHT_NOTE = 7
SHT_NOBITS = 8
SHT_REL = 9
SHT_DYNSYM = 11
SHT_INIT_ARRAY = 14
SHT_FINI_ARRAY = 15
SHT_PREINIT_ARRAY = 16
SHT_GROUP = 17
SHT_SYMTAB_SHNDX = 18
SHT_GNU_HASH = 0x6FFFFFF6
SHT_LLVM_ADDRSIG = 0x6FFF4C03

SHF_WRITE = 0x1
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
SHF_MERGE = 0x10
SHF_STRINGS = 0x20
SHF_INFO_LINK = 0x40
SHF_EXCLUDE = 0x80000000

# --- special section indices -----------------------------------------------------------------

SHN_UNDEF = 0
SHN_LORESERVE = 0xFF00
#: Processor-specific: a variable in LDS whose ``st_value`` is its alignment ("Symbols" in
#: AMDGPUUsage.rst).
SHN_AMDGPU_LDS = 0xFF00
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2

# --- segments ----------------------------------------------------------------------------------

PT_LOAD = 1
PT_DYNAMIC = 2
PT_NOTE = 4
PT_PHDR = 6
PT_GNU_STACK = 0x6474E551
PT_GNU_RELRO = 0x6474E552
PF_X, PF_W, PF_R = 1, 2, 4

# --- dynamic section tags --------------------------------------------------------------------

DT_NULL = 0
DT_HASH = 4
DT_STRTAB = 5
DT_SYMTAB = 6
DT_RELA = 7
DT_RELASZ = 8
DT_RELAENT = 9
DT_STRSZ = 10
DT_SYMENT = 11
DT_GNU_HASH = 0x6FFFFEF5
DT_RELACOUNT = 0x6FFFFFF9

# --- symbols -----------------------------------------------------------------------------------

#: ``STT_*`` by the name without its prefix (how :class:`~luthier.frontend.codeobj.spec.SymbolSpec`
#: spells a symbol's type).
SYMBOL_TYPES: dict[str, int] = {
    "NOTYPE": 0,
    "OBJECT": 1,
    "FUNC": 2,
    "SECTION": 3,
    "FILE": 4,
}
#: ``STB_*`` by the name without its prefix.
SYMBOL_BINDINGS: dict[str, int] = {"LOCAL": 0, "GLOBAL": 1, "WEAK": 2}
#: ``STV_*`` by the name without its prefix.
SYMBOL_VISIBILITIES: dict[str, int] = {
    "DEFAULT": 0,
    "INTERNAL": 1,
    "HIDDEN": 2,
    "PROTECTED": 3,
}

# --- records -----------------------------------------------------------------------------------

#: ``Elf64_Ehdr`` with ``e_ident`` as one 16-byte field.
EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
#: ``Elf64_Shdr``: name, type, flags, addr, offset, size, link, info, addralign, entsize.
SHDR = struct.Struct("<IIQQQQIIQQ")
#: ``Elf64_Phdr``: type, flags, offset, vaddr, paddr, filesz, memsz, align.
PHDR = struct.Struct("<IIQQQQQQ")
#: ``Elf64_Sym``: name, info, other, shndx, value, size.
SYM = struct.Struct("<IBBHQQ")
#: ``Elf64_Rela``: offset, info (symbol << 32 | type), addend.
RELA = struct.Struct("<QQq")
#: ``Elf64_Rel``: offset, info.
REL = struct.Struct("<QQ")
#: ``Elf64_Dyn``: tag, value.
DYN = struct.Struct("<qQ")


def align_up(value: int, alignment: int) -> int:
    """``value`` rounded up to a multiple of ``alignment`` (0 and 1 mean no alignment)."""
    if alignment <= 1:
        return value
    return (value + alignment - 1) // alignment * alignment
