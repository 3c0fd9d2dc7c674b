"""Read an AMDGPU ELF (ET_DYN or ET_REL) into the typed :mod:`model`.

The ELF header, section headers and program headers are decoded here with ``struct`` and
checked against the file size before anything else touches them: those checks are what turns
a truncated or corrupt file into a one-line reason ("section [7] .text runs past the end of
the file") instead of an exception from the middle of a third-party parser. pyelftools then
decodes symbols and relocations; every call into it goes through :func:`_guarded`, which
converts whatever it raises into :class:`CodeObjectError`.
"""

from __future__ import annotations

import io
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any, cast

from elftools.elf.elffile import ELFFile  # pyright: ignore[reportMissingTypeStubs]

from luthier.amdgpu_dialects.mc.relocations import R_AMDGPU_REL64
from luthier.amdgpu_dialects.target.kernel_descriptor import (
    CODE_ENTRY_FIELD_OFFSET,
    KERNEL_DESCRIPTOR_SIZE,
    DescriptorLayout,
    KernelDescriptor,
)
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.amdgpu_dialects.target.target_id import (
    ABI_VERSION_TO_CODE_OBJECT_VERSION,
    ELFOSABI_AMDGPU_HSA,
    EM_AMDGPU,
    decode_e_flags,
)
from luthier.frontend.codeobj.elf_format import (
    EHDR,
    ELF_MAGIC,
    ELFCLASS64,
    ELFDATA2LSB,
    PHDR,
    REL,
    RELA,
    SHDR,
    SHN_ABS,
    SHN_AMDGPU_LDS,
    SHN_COMMON,
    SHN_LORESERVE,
    SHT_DYNSYM,
    SHT_NOBITS,
    SHT_NOTE,
    SHT_REL,
    SHT_RELA,
    SHT_STRTAB,
    SHT_SYMTAB,
    SYM,
    ElfType,
)
from luthier.frontend.codeobj.errors import CodeObjectError
from luthier.frontend.codeobj.metadata import CodeObjectMetadata, MetadataFormatError
from luthier.frontend.codeobj.model import (
    CodeObject,
    CodeSection,
    DeviceFunction,
    Kernel,
    Relocation,
    Section,
    Segment,
    Symbol,
)
from luthier.frontend.codeobj.notes import AMDGPU_NOTE_NAME, NT_AMDGPU_METADATA, parse_notes

#: Reserved section indices a symbol can have, by the name the model gives them.
_SPECIAL_SECTIONS = {
    SHN_AMDGPU_LDS: "SHN_AMDGPU_LDS",
    SHN_ABS: "SHN_ABS",
    SHN_COMMON: "SHN_COMMON",
}

#: ``st_shndx`` values spelled by name (as pyelftools spells them; the rest of the reserved
#: range is :data:`_SPECIAL_SECTIONS`).
_SHNDX_NAMES: dict[int, str] = {0: "SHN_UNDEF", SHN_ABS: "SHN_ABS", SHN_COMMON: "SHN_COMMON"}
#: ``STT_*``, ``STB_*`` and ``STV_*`` names without their prefixes, every value pyelftools
#: names (another value is spelled as its number).
_SYMBOL_TYPE_NAMES: dict[int, str] = {
    0: "NOTYPE", 1: "OBJECT", 2: "FUNC", 3: "SECTION", 4: "FILE", 5: "COMMON", 6: "TLS",
    7: "NUM", 8: "RELC", 9: "SRELC", 10: "LOOS", 12: "HIOS", 13: "LOPROC", 15: "HIPROC",
}
_SYMBOL_BINDING_NAMES: dict[int, str] = {
    0: "LOCAL", 1: "GLOBAL", 2: "WEAK", 3: "NUM", 10: "LOOS", 12: "HIOS", 13: "LOPROC",
    15: "HIPROC",
}
_VISIBILITY_NAMES: dict[int, str] = {
    0: "DEFAULT", 1: "INTERNAL", 2: "HIDDEN", 3: "PROTECTED", 4: "EXPORTED", 5: "SINGLETON",
    6: "ELIMINATE",
}

#: A few e_machine values worth naming in "wrong machine" messages.
_MACHINE_NAMES = {0: "EM_NONE", 3: "EM_386", 62: "EM_X86_64", 183: "EM_AARCH64", 243: "EM_RISCV"}


@contextmanager
def _guarded(path: str, what: str) -> Generator[None]:
    """Turn any exception but CodeObjectError into CodeObjectError naming ``what``."""
    try:
        yield
    except CodeObjectError:
        raise
    except Exception as error:  # pyelftools raises ELFError, struct.error, IndexError...
        raise CodeObjectError(path, f"corrupt {what} ({type(error).__name__}: {error})") from error


def is_elf(data: bytes) -> bool:
    return data[:4] == ELF_MAGIC


def elf_machine(data: bytes) -> int | None:
    """e_machine of a 64-bit little-endian ELF, or None when the header is not there."""
    if len(data) < 20 or not is_elf(data):
        return None
    return int.from_bytes(data[18:20], "little")


def read_elf(data: bytes, path: str) -> CodeObject:
    """Parse ``data`` (a whole AMDGPU ELF) into a CodeObject; CodeObjectError when bad."""
    return _Reader(data, path).read()


class _Reader:
    """One parse: the bytes, the path for messages, and what has been decoded so far."""

    def __init__(self, data: bytes, path: str) -> None:
        self.data = data
        self.path = path
        self.sections: list[Section] = []
        self.elf_type = ElfType.ET_DYN

    def fail(self, reason: str) -> CodeObjectError:
        return CodeObjectError(self.path, reason)

    def read(self) -> CodeObject:
        header = self.read_header()
        (_, e_type, _, _, _, e_phoff, e_shoff, e_flags, _, e_phentsize, e_phnum, e_shentsize,
         e_shnum, e_shstrndx) = header  # fmt: skip
        os_abi, abi_version = self.data[7], self.data[8]
        self.elf_type = ElfType(e_type)
        code_object_version = ABI_VERSION_TO_CODE_OBJECT_VERSION[abi_version]
        target = decode_e_flags(e_flags, code_object_version)
        if isinstance(target, str):
            raise self.fail(target)
        self.sections = self.read_sections(e_shoff, e_shnum, e_shentsize, e_shstrndx)
        segments = self.read_segments(e_phoff, e_phnum, e_phentsize)
        with _guarded(self.path, "ELF structure"):
            elf = cast(Any, ELFFile(io.BytesIO(self.data)))
        symbols = self.read_symbols()
        relocations = self.read_relocations(elf)
        metadata = self.read_metadata()
        primary = self.primary_symbols(symbols)
        layout = subtarget_for(target.processor).descriptor_layout
        kernels, functions, variables = self.classify(primary, relocations, metadata, layout)
        return CodeObject(
            name=self.path,
            elf_type=self.elf_type,
            target=target,
            code_object_version=code_object_version,
            abi_version=abi_version,
            os_abi=os_abi,
            e_flags=e_flags,
            sections=tuple(self.sections),
            segments=tuple(segments),
            symbols=tuple(symbols),
            relocations=tuple(relocations),
            kernels=tuple(kernels),
            device_functions=tuple(functions),
            variables=tuple(variables),
            text=self.text_section(),
            metadata=metadata,
            data=self.data,
        )

    # -- headers ---------------------------------------------------------------------------

    def read_header(self) -> tuple[Any, ...]:
        data = self.data
        if not is_elf(data):
            raise self.fail("not an ELF file (no \\x7fELF magic)")
        if len(data) < 6:
            raise self.fail(f"truncated file: {len(data)} bytes, shorter than an ELF header")
        if data[4] != ELFCLASS64:
            raise self.fail(f"wrong ELF class {data[4]} (AMDGPU code objects are ELFCLASS64)")
        if data[5] != ELFDATA2LSB:
            raise self.fail(f"wrong ELF data encoding {data[5]} (AMDGPU code objects are "
                            "little endian, ELFDATA2LSB)")  # fmt: skip
        if len(data) < EHDR.size:
            raise self.fail(f"truncated file: {len(data)} bytes, an ELF header needs 64")
        header = EHDR.unpack_from(data)
        e_type, e_machine = header[1], header[2]
        if e_machine != EM_AMDGPU:
            name = _MACHINE_NAMES.get(e_machine, "")
            raise self.fail(f"wrong machine {e_machine} {name} (expected EM_AMDGPU, 224)")
        if e_type not in (ElfType.ET_REL.value, ElfType.ET_DYN.value):
            raise self.fail(f"unsupported ELF type {e_type} (expected ET_REL or ET_DYN)")
        if data[7] != ELFOSABI_AMDGPU_HSA:
            raise self.fail(f"unsupported OS ABI {data[7]} (expected ELFOSABI_AMDGPU_HSA, 64)")
        if data[8] not in ABI_VERSION_TO_CODE_OBJECT_VERSION:
            raise self.fail(f"unsupported code object version (EI_ABIVERSION {data[8]}; "
                            "supported: 2 = v4, 3 = v5, 4 = v6)")  # fmt: skip
        return header

    def check_range(self, offset: int, size: int, what: str) -> None:
        if offset < 0 or size < 0 or offset + size > len(self.data):
            raise self.fail(f"{what} at offset {offset} with size {size} runs past the end "
                            f"of the file ({len(self.data)} bytes)")  # fmt: skip

    def read_sections(self, shoff: int, shnum: int, shentsize: int, shstrndx: int) -> list[Section]:
        if shnum == 0:
            if shoff:
                raise self.fail("extended section numbering (e_shnum 0) is not supported")
            return []
        if shentsize != SHDR.size:
            raise self.fail(f"section header size {shentsize}, expected {SHDR.size}")
        self.check_range(shoff, shnum * shentsize, f"section header table ({shnum} entries)")
        raw = [SHDR.unpack_from(self.data, shoff + i * shentsize) for i in range(shnum)]
        for index, (_, sh_type, _, _, offset, size, *_rest) in enumerate(raw):
            if sh_type != SHT_NOBITS and index != 0:
                self.check_range(offset, size, f"section [{index}]")
        if not 0 <= shstrndx < shnum:
            raise self.fail(f"section name table index {shstrndx} outside the {shnum} sections")
        _, str_type, _, _, str_offset, str_size, *_rest = raw[shstrndx]
        if str_type != SHT_STRTAB and shstrndx != 0:
            raise self.fail(f"section name table [{shstrndx}] has sh_type {str_type}, not "
                            f"SHT_STRTAB ({SHT_STRTAB})")
        names = self.data[str_offset : str_offset + str_size]
        sections: list[Section] = []
        for index, fields in enumerate(raw):
            name_offset, sh_type, flags, addr, offset, size, link, info, align, entsize = fields
            if name_offset >= max(len(names), 1) and index != 0:
                raise self.fail(f"section [{index}] name offset {name_offset} is outside the "
                                "section name table")  # fmt: skip
            end = names.find(b"\0", name_offset)
            name_bytes = names[name_offset : end if end >= 0 else len(names)]
            name = name_bytes.decode("utf-8", errors="replace")
            sections.append(
                Section(
                    index, name, sh_type, flags, addr, offset, size, link, info, align, entsize
                )  # fmt: skip
            )
        return sections

    def read_segments(self, phoff: int, phnum: int, phentsize: int) -> list[Segment]:
        if phnum == 0:
            return []
        if phentsize != PHDR.size:
            raise self.fail(f"program header size {phentsize}, expected {PHDR.size}")
        self.check_range(phoff, phnum * phentsize, f"program header table ({phnum} entries)")
        segments: list[Segment] = []
        for index in range(phnum):
            p_type, flags, offset, vaddr, paddr, filesz, memsz, align = PHDR.unpack_from(
                self.data, phoff + index * phentsize
            )
            self.check_range(offset, filesz, f"segment [{index}] (type 0x{p_type:x})")
            segments.append(Segment(index, p_type, flags, offset, vaddr, paddr, filesz, memsz,
                                    align))  # fmt: skip
        return segments

    def section_bytes(self, section: Section) -> bytes:
        if not section.has_file_bytes:
            return b""
        return self.data[section.offset : section.offset + section.size]

    def section_at(self, index: int, what: str) -> Section:
        if not 0 <= index < len(self.sections):
            raise self.fail(f"{what} refers to section {index}, outside the "
                            f"{len(self.sections)} sections")  # fmt: skip
        return self.sections[index]

    # -- symbols and relocations -------------------------------------------------------------

    def symbol_table_size(self, section: Section) -> int:
        """Number of symbols, after checking the table's entry size and string table."""
        if section.entry_size != SYM.size or section.size % SYM.size:
            raise self.fail(
                f"symbol table {section.name} has entry size {section.entry_size} "
                f"and size {section.size}, expected multiples of {SYM.size}"
            )
        strtab = self.section_at(section.link, f"symbol table {section.name}")
        if strtab.type != SHT_STRTAB:
            raise self.fail(f"symbol table {section.name} links to {strtab.name or strtab.index}, "
                            "not a string table")  # fmt: skip
        return section.size // SYM.size

    def read_symbols(self) -> list[Symbol]:
        """Every symbol of every symbol table, decoded with ``struct`` (a library has
        thousands; pyelftools' parser took half of reading one). Names and attributes are
        spelled as pyelftools spells them (``test_elf_symbols.py`` compares the two)."""
        symbols: list[Symbol] = []
        data = self.data
        for section in self.sections:
            if section.type not in (SHT_SYMTAB, SHT_DYNSYM):
                continue
            count = self.symbol_table_size(section)
            strtab = self.sections[section.link]
            if not section.has_file_bytes or section.offset + section.size > len(data):
                raise self.fail(f"symbol table {section.name} lies outside the file")
            table = data[section.offset : section.offset + count * SYM.size]
            for index, (name_offset, info, other, shndx_raw, value, size) in \
                    enumerate(SYM.iter_unpack(table)):
                if name_offset >= max(strtab.size, 1) and index:
                    raise self.fail(f"symbol {index} of {section.name} has its name "
                                    "outside the string table")  # fmt: skip
                # pyelftools reads the name from the file, up to a NUL (none: no name).
                start = strtab.offset + name_offset
                stop = data.find(b"\0", start)
                name = data[start:stop].decode("utf-8", "replace") if stop != -1 else ""
                shndx: int | str = _SHNDX_NAMES.get(shndx_raw) or shndx_raw
                if isinstance(shndx, int) and shndx >= SHN_LORESERVE:
                    shndx = _SPECIAL_SECTIONS.get(shndx, f"SHN_0x{shndx:x}")
                if isinstance(shndx, int) and shndx >= len(self.sections):
                    raise self.fail(f"symbol {name!r} refers to section {shndx}, "
                                    f"outside the {len(self.sections)} sections")  # fmt: skip
                symbols.append(
                    Symbol(
                        name=name,
                        value=value,
                        size=size,
                        type=_SYMBOL_TYPE_NAMES.get(info & 0xF, str(info & 0xF)),
                        binding=_SYMBOL_BINDING_NAMES.get(info >> 4, str(info >> 4)),
                        visibility=_VISIBILITY_NAMES.get(other & 7, str(other & 7)),
                        section_index=shndx,
                        table=section.name,
                        index=index,
                        name_offset=name_offset,
                    )
                )
        return symbols

    def read_relocations(self, elf: Any) -> list[Relocation]:
        relocations: list[Relocation] = []
        for section in self.sections:
            if section.type not in (SHT_RELA, SHT_REL):
                continue
            size = RELA.size if section.type == SHT_RELA else REL.size
            if section.entry_size != size or section.size % size:
                raise self.fail(f"relocation section {section.name} has entry size "
                                f"{section.entry_size} and size {section.size}, expected "
                                f"multiples of {size}")  # fmt: skip
            target: str | None = None
            if section.info:
                target = self.section_at(section.info, f"relocation section {section.name}").name
            symtab = self.section_at(section.link, f"relocation section {section.name}")
            count = 0
            if section.link:
                if symtab.type not in (SHT_SYMTAB, SHT_DYNSYM):
                    raise self.fail(
                        f"relocation section {section.name} links to "
                        f"{symtab.name or symtab.index}, not a symbol table"
                    )
                count = self.symbol_table_size(symtab)
            with _guarded(self.path, f"relocation section {section.name}"):
                table = elf.get_section(section.index)
                symbols = elf.get_section(symtab.index) if section.link else None
                for reloc in table.iter_relocations():
                    entry = reloc.entry
                    sym_index = int(entry["r_info_sym"])
                    name, value = "", 0
                    if sym_index:
                        if symbols is None or sym_index >= count:
                            raise self.fail(f"relocation at 0x{int(entry['r_offset']):x} in "
                                            f"{section.name} refers to symbol {sym_index}, "
                                            f"outside its symbol table")  # fmt: skip
                        symbol = symbols.get_symbol(sym_index)
                        name, value = str(symbol.name), int(symbol.entry["st_value"])
                        name = name or self.section_symbol_name(symbol.entry)
                    r_type = int(entry["r_info_type"])
                    relocations.append(
                        Relocation(
                            section=section.name,
                            target_section=target,
                            offset=int(entry["r_offset"]),
                            type=r_type,
                            symbol=name,
                            symbol_value=value,
                            addend=int(entry["r_addend"]) if section.type == SHT_RELA else 0,
                        )
                    )
        return relocations

    def section_symbol_name(self, entry: Any) -> str:
        """The name a nameless STT_SECTION symbol stands for: its section's (as readelf)."""
        shndx = entry["st_shndx"]
        is_section = entry["st_info"]["type"] == "STT_SECTION"
        if is_section and isinstance(shndx, int) and 0 <= shndx < len(self.sections):
            return self.sections[shndx].name
        return ""

    # -- notes -------------------------------------------------------------------------------

    def read_metadata(self) -> CodeObjectMetadata | None:
        for section in self.sections:
            if section.type != SHT_NOTE:
                continue
            notes = parse_notes(self.section_bytes(section), section.alignment)
            if isinstance(notes, str):
                raise self.fail(f"note section {section.name}: {notes}")
            for note in notes:
                if note.name == AMDGPU_NOTE_NAME and note.type == NT_AMDGPU_METADATA:
                    try:
                        return CodeObjectMetadata.from_msgpack(note.desc)
                    except MetadataFormatError as error:
                        raise self.fail(f"malformed AMDGPU metadata note: {error}") from error
        return None

    # -- kernels, functions, variables -------------------------------------------------------

    @staticmethod
    def primary_symbols(symbols: list[Symbol]) -> list[Symbol]:
        """The full symbol table when there is one, else the dynamic one (stripped objects)."""
        for table in (".symtab", ".dynsym"):
            chosen = [symbol for symbol in symbols if symbol.table == table]
            if chosen:
                return chosen
        return []

    def symbol_bytes(self, symbol: Symbol, size: int, what: str) -> tuple[Section, int, bytes]:
        """(section, offset in section, bytes) of ``size`` bytes at ``symbol``."""
        if not isinstance(symbol.section_index, int) or symbol.section_index == 0:
            raise self.fail(f"{what} {symbol.name!r} is not defined in a section")
        section = self.section_at(symbol.section_index, f"{what} {symbol.name!r}")
        start = symbol.value
        if self.elf_type is ElfType.ET_DYN:
            start -= section.address
        if not section.has_file_bytes or start < 0 or start + size > section.size:
            raise self.fail(f"{what} {symbol.name!r} (0x{symbol.value:x}, {size} bytes) lies "
                            f"outside its section {section.name}")  # fmt: skip
        begin = section.offset + start  # not the whole section copied, once per function
        return section, start, self.data[begin : begin + size]

    def classify(
        self,
        symbols: list[Symbol],
        relocations: list[Relocation],
        metadata: CodeObjectMetadata | None,
        layout: DescriptorLayout,
    ) -> tuple[list[Kernel], list[DeviceFunction], list[Symbol]]:
        # Entry 0 of a symbol table is the null symbol whatever its bytes say (a damaged
        # table can give it a type): never a function or a variable.
        symbols = [s for s in symbols if s.index != 0]
        functions = {s.name: s for s in symbols if s.type == "FUNC"}
        descriptors = {
            s.name.removesuffix(".kd"): s
            for s in symbols
            if s.type == "OBJECT" and s.name.endswith(".kd") and s.name[:-3] in functions
        }
        kernels: list[Kernel] = []
        device_functions: list[DeviceFunction] = []
        for name, function in functions.items():
            _, _, code = self.function_code(function)
            descriptor_symbol = descriptors.get(name)
            if descriptor_symbol is None:
                device_functions.append(DeviceFunction(function, code))
                continue
            section, offset, raw = self.symbol_bytes(
                descriptor_symbol, KERNEL_DESCRIPTOR_SIZE, "kernel descriptor"
            )
            descriptor = KernelDescriptor.from_bytes(raw, layout)
            entry = self.entry_address(descriptor_symbol, descriptor, section, offset, relocations)
            kernel_metadata = metadata.kernel(name) if metadata is not None else None
            kernels.append(Kernel(function, descriptor_symbol, descriptor, entry,
                                  kernel_metadata, code))  # fmt: skip
        kd_names = {s.name for s in descriptors.values()}
        variables = [
            s for s in symbols if s.type == "OBJECT" and s.name not in kd_names and s.name
        ]
        return kernels, device_functions, variables

    def function_code(self, function: Symbol) -> tuple[Section | None, int, bytes]:
        if function.section_index in (0, "SHN_UNDEF"):
            return None, 0, b""
        return self.symbol_bytes(function, function.size, "function")

    def entry_address(
        self,
        symbol: Symbol,
        descriptor: KernelDescriptor,
        section: Section,
        offset: int,
        relocations: list[Relocation],
    ) -> int:
        """Where the kernel's code starts.

        In a linked object the descriptor holds the offset itself. In a relocatable one the
        field is 0 and an R_AMDGPU_REL64 (S + A - P) fills it at link time, so the entry is
        S + A - (P - descriptor), with P the field's place.
        """
        if self.elf_type is ElfType.ET_DYN:
            return descriptor.code_entry(symbol.value)
        place = offset + CODE_ENTRY_FIELD_OFFSET
        for reloc in relocations:
            if (
                reloc.target_section == section.name
                and reloc.offset == place
                and reloc.type == R_AMDGPU_REL64.number
            ):
                return reloc.symbol_value + reloc.addend - CODE_ENTRY_FIELD_OFFSET
        return descriptor.code_entry(symbol.value)

    def text_section(self) -> CodeSection | None:
        code = [s for s in self.sections if s.is_executable and s.has_file_bytes]
        chosen = next((s for s in code if s.name == ".text"), code[0] if code else None)
        if chosen is None:
            return None
        return CodeSection(chosen.index, chosen.name, chosen.address, self.section_bytes(chosen))
