"""Output sections, their order, segments and addresses of a shared code object, as lld lays
them out for AMDGPU.

The rules (facts observed on ``ld.lld-19 -shared`` output, not lld's code):

- input sections go to output sections by name prefix (``.text.f`` into ``.text``, ...);
  ``.note.GNU-stack``, ``.llvm_addrsig`` and ``SHF_EXCLUDE`` sections are dropped;
- allocated sections are ordered by kind, input order within a kind: notes; the dynamic-linking
  tables; other read-only data; code; relocation-read-only data (``.data.rel.ro``),
  ``.dynamic``, ``.got``, ``.relro_padding``; writable data; zero-initialised data. Non-allocated
  sections follow in input order, then ``.symtab``, ``.shstrtab`` and ``.strtab``;
- one ``PT_LOAD`` per run of sections with the same permissions (relro data gets its own), the
  first one starting at file offset 0 with the headers; each later ``PT_LOAD`` starts on a new
  page at the same offset within the page as the file offset, so no file padding is needed
  beyond section alignment;
- ``.relro_padding`` (``SHT_NOBITS``) extends ``PT_GNU_RELRO`` to the next page boundary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from luthier.frontend.codeobj.elf_format import (
    EHDR,
    PF_R,
    PF_W,
    PF_X,
    PHDR,
    PT_DYNAMIC,
    PT_GNU_RELRO,
    PT_GNU_STACK,
    PT_LOAD,
    PT_NOTE,
    PT_PHDR,
    SHF_ALLOC,
    SHF_EXCLUDE,
    SHF_EXECINSTR,
    SHF_WRITE,
    SHT_FINI_ARRAY,
    SHT_GROUP,
    SHT_INIT_ARRAY,
    SHT_LLVM_ADDRSIG,
    SHT_NOBITS,
    SHT_NOTE,
    SHT_PREINIT_ARRAY,
    align_up,
)
from luthier.frontend.codeobj.spec import SectionSpec
from luthier.lowering.elf.binary import program_header

PAGE_SIZE = 0x1000

#: Output-section names that absorb ``name.*`` input sections (longest prefix first).
_MERGED_PREFIXES = (
    ".data.rel.ro",
    ".bss.rel.ro",
    ".text",
    ".rodata",
    ".data",
    ".bss",
    ".init_array",
    ".fini_array",
    ".preinit_array",
    ".tdata",
    ".tbss",
)
_RELRO_NAMES = {".data.rel.ro", ".bss.rel.ro", ".init_array", ".fini_array", ".preinit_array"}
DYNAMIC_TABLES = (".dynsym", ".gnu.hash", ".hash", ".dynstr", ".rela.dyn")


@dataclass
class OutSection:
    """An output section; ``data`` is its contents (empty for ``SHT_NOBITS``)."""

    name: str
    type: int
    flags: int
    align: int
    entsize: int
    size: int = 0
    data: bytearray = field(default_factory=bytearray)
    link: int = 0
    info: int = 0
    addr: int = 0
    offset: int = 0
    index: int = 0

    @property
    def alloc(self) -> bool:
        return bool(self.flags & SHF_ALLOC)

    @property
    def relro(self) -> bool:
        """Read-only after relocation: lives in ``PT_GNU_RELRO``."""
        if not self.alloc or not self.flags & SHF_WRITE:
            return False
        return (
            self.name in _RELRO_NAMES
            or self.name in (".dynamic", ".got", ".relro_padding")
            or self.type in (SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY)
        )


def output_name(name: str) -> str:
    """The output section an input section named ``name`` goes to."""
    for prefix in _MERGED_PREFIXES:
        if name == prefix or name.startswith(prefix + "."):
            return prefix
    return name


def is_discarded(section: SectionSpec) -> bool:
    """Input sections a shared link drops (linker hints, not contents)."""
    return (
        section.name == ".note.GNU-stack"
        or section.type in (SHT_LLVM_ADDRSIG, SHT_GROUP)
        or bool(section.flags & SHF_EXCLUDE)
    )


def rank(section: OutSection) -> int:
    """Sort key of an allocated output section (lower comes first)."""
    if section.type == SHT_NOTE:
        return 0
    if not section.flags & SHF_WRITE:
        if section.flags & SHF_EXECINSTR:
            return 3
        return 1 if section.name in DYNAMIC_TABLES else 2
    if section.relro:
        order = {".dynamic": 5, ".got": 6, ".relro_padding": 8}
        return order.get(section.name, 7 if section.type == SHT_NOBITS else 4)
    return 10 if section.type == SHT_NOBITS else 9


def _permissions(section: OutSection) -> int:
    flags = PF_R
    if section.flags & SHF_WRITE:
        flags |= PF_W
    if section.flags & SHF_EXECINSTR:
        flags |= PF_X
    return flags


def split_loads(alloc: list[OutSection]) -> list[list[OutSection]]:
    """Allocated sections (in order) grouped into ``PT_LOAD`` segments."""
    loads: list[list[OutSection]] = []
    for section in alloc:
        key = (_permissions(section), section.relro)
        if loads and (_permissions(loads[-1][0]), loads[-1][0].relro) == key:
            loads[-1].append(section)
        else:
            loads.append([section])
    return loads


def note_runs(alloc: list[OutSection]) -> list[list[OutSection]]:
    """Consecutive allocated notes of equal alignment, one ``PT_NOTE`` each."""
    runs: list[list[OutSection]] = []
    previous: OutSection | None = None
    for section in alloc:
        if section.type == SHT_NOTE:
            follows = bool(runs) and previous is runs[-1][-1]
            if follows and runs[-1][-1].align == section.align:
                runs[-1].append(section)
            else:
                runs.append([section])
        previous = section
    return runs


def program_header_count(alloc: list[OutSection]) -> int:
    """``PT_PHDR``, the loads, ``PT_DYNAMIC``, ``PT_GNU_RELRO``, ``PT_GNU_STACK``, notes."""
    relro = any(s.relro for s in alloc)
    return 1 + len(split_loads(alloc)) + 1 + int(relro) + 1 + len(note_runs(alloc))


def empty_loads(alloc: list[OutSection]) -> set[int]:
    """Indices (in :func:`split_loads`) of loads spanning no memory, which lld leaves out of
    the program header table (their space in it stays reserved)."""
    return {
        number
        for number, load in enumerate(split_loads(alloc))
        if number > 0 and load[-1].addr + load[-1].size == load[0].addr
    }


def assign_addresses(
    alloc: list[OutSection], headers_size: int, empty: set[int] | None = None
) -> int:
    """Give every allocated section its address and file offset; return the file offset after
    them. ``.relro_padding`` gets its size here, once the end of relro data is known.

    A segment after the first starts at the next page plus the offset within the page of where
    the previous sections ended (``.relro_padding`` not counted), and its file offset is the
    next one congruent to that address; later sections keep ``address - offset`` constant, and
    ``SHT_NOBITS`` sections other than a segment's first take no file space. Sections of
    ``empty`` loads belong to no segment: their offset is only aligned.
    """
    dot = offset = end = headers_size
    for number, load in enumerate(split_loads(alloc)):
        first = load[0]
        for section in load:
            if section.name == ".relro_padding":
                section.size = align_up(dot, PAGE_SIZE) - dot
            if empty and number in empty:
                if section is first:
                    dot = align_up(end, PAGE_SIZE) + end % PAGE_SIZE
                dot = align_up(dot, section.align)
                if section.type != SHT_NOBITS:
                    offset = align_up(offset, section.align)
            elif section is first and number > 0:
                dot = align_up(align_up(end, PAGE_SIZE) + end % PAGE_SIZE, section.align)
                offset += (dot - offset) % PAGE_SIZE
            else:
                dot = align_up(dot, section.align)
                if section.type != SHT_NOBITS:
                    offset = dot if number == 0 else first.offset + dot - first.addr
            section.addr = dot
            section.offset = offset
            dot += section.size
            if section.name != ".relro_padding":
                end = dot
            if section.type != SHT_NOBITS:
                offset += section.size
    return offset


def program_headers(alloc: list[OutSection], phnum: int, empty: set[int],
                    relro_end: int | None = None) -> bytes:
    """The program header table for laid-out allocated sections (``phnum`` entries reserved;
    loads in ``empty`` left out). ``relro_end``: where ``PT_GNU_RELRO`` ends in memory when no
    ``.relro_padding`` section says so (ld.lld before 18 padded the segment, not a section)."""
    table = phnum * PHDR.size
    out = [program_header(PT_PHDR, PF_R, EHDR.size, EHDR.size, table, table, 8)]
    for number, load in enumerate(split_loads(alloc)):
        if number in empty:
            continue
        start_off, start_addr = (0, 0) if number == 0 else (load[0].offset, load[0].addr)
        filesz, memsz = _extent(load, start_off, start_addr)
        out.append(
            program_header(
                PT_LOAD, _permissions(load[0]), start_off, start_addr, filesz, memsz, PAGE_SIZE
            )
        )
    dynamic = next(s for s in alloc if s.name == ".dynamic")
    out.append(
        program_header(
            PT_DYNAMIC, PF_R | PF_W, dynamic.offset, dynamic.addr, dynamic.size, dynamic.size, 8
        )
    )
    relro = [s for s in alloc if s.relro]
    if relro:
        filesz, memsz = _extent(relro, relro[0].offset, relro[0].addr)
        if relro_end is not None:
            memsz = relro_end - relro[0].addr
        out.append(
            program_header(PT_GNU_RELRO, PF_R, relro[0].offset, relro[0].addr, filesz, memsz, 1)
        )
    out.append(program_header(PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0))
    for run in note_runs(alloc):
        filesz, memsz = _extent(run, run[0].offset, run[0].addr)
        out.append(
            program_header(PT_NOTE, PF_R, run[0].offset, run[0].addr, filesz, memsz, run[0].align)
        )
    return b"".join(out)


def _extent(sections: list[OutSection], offset: int, addr: int) -> tuple[int, int]:
    """``(p_filesz, p_memsz)`` of a segment holding ``sections`` from ``offset``/``addr``."""
    with_bytes = [s for s in sections if s.type != SHT_NOBITS]
    filesz = with_bytes[-1].offset + with_bytes[-1].size - offset if with_bytes else 0
    last = sections[-1]
    return filesz, last.addr + last.size - addr
