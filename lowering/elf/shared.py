"""``link_shared``: link one :class:`ObjectSpec` into a loadable ``ET_DYN`` AMDGPU code object.

This does what ``ld.lld -shared`` does with an AMDGPU object from clang, so that the product
can write a code object with no LLVM tool: inputs merged and relocations sorted (``linking``),
exported symbols in ``.dynsym`` with both hash tables (``dynamic``), sections ordered and given
addresses (``layout``), link-time relocations applied (``relocs``) and the rest written to
``.rela.dyn``. For clang's objects the result is byte-identical to lld's; docs/elf-writer.md
lists where and why it can differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from luthier.frontend.codeobj.carried import layout_digest
from luthier.frontend.codeobj.elf_format import (
    DYN,
    EHDR,
    PHDR,
    RELA,
    SHDR,
    SHF_ALLOC,
    SHF_WRITE,
    SHN_ABS,
    SHT_DYNAMIC,
    SHT_DYNSYM,
    SHT_GNU_HASH,
    SHT_HASH,
    SHT_NOBITS,
    SHT_PROGBITS,
    SHT_RELA,
    SHT_STRTAB,
    SHT_SYMTAB,
    SYM,
    ElfType,
    align_up,
)
from luthier.frontend.codeobj.spec import (
    ABSOLUTE_SECTION,
    LLD_COMMENT,
    ElfWriteError,
    ObjectSpec,
    SymbolSpec,
    symbol_fields,
)
from luthier.lowering.elf.binary import (
    AppendStringTable,
    elf_header,
    section_header,
    symbol_entry,
)
from luthier.lowering.elf.dynamic import (
    dynamic_entries,
    dynamic_entry_count,
    gnu_hash_size,
    gnu_hash_table,
    order_for_gnu_hash,
    sysv_hash_table,
)
from luthier.lowering.elf.layout import (
    OutSection,
    assign_addresses,
    empty_loads,
    program_header_count,
    program_headers,
    rank,
)
from luthier.lowering.elf.linking import LinkState, preemptible

_A = SHF_ALLOC

__all__ = ["LLD_COMMENT", "SharedObject", "link_shared", "link_shared_object"]


@dataclass(frozen=True)
class SharedObject:
    """A linked code object and what the link left out of it."""

    data: bytes
    #: Sections of the spec whose bytes hold a layout (``SectionSpec.layout``) this link
    #: did not reproduce, left out rather than written with stale addresses, in spec order.
    stale_sections: tuple[str, ...] = ()


def _exported(state: LinkState) -> list[SymbolSpec]:
    """``.dynsym`` members in ``.dynstr`` order: non-local symbols that other modules (and the
    loader) may see, i.e. default or protected visibility, defined or undefined (weak ones,
    and global ones in a link without ``--no-undefined``)."""
    undefined = ("WEAK",) if state.spec.no_undefined else ("WEAK", "GLOBAL")
    return [
        s
        for s in state.spec.symbols
        if s.binding != "LOCAL"
        and s.visibility in ("DEFAULT", "PROTECTED")
        and (state.kept(s) or (s.section is None and s.binding in undefined))
    ]


def link_shared(spec: ObjectSpec, *, linker_comment: str | None = LLD_COMMENT,
                relro_padding: bool = True) -> bytes:
    """Link ``spec`` into the bytes of a loadable AMDGPU code object (``ET_DYN``).

    ``linker_comment`` is the first string of the output's ``.comment`` (lld's is the default;
    ``None`` keeps only the input's strings). ``relro_padding=False`` ends ``PT_GNU_RELRO`` at
    its page boundary without a ``.relro_padding`` section, as ld.lld before 18 did (a relink
    of an object such a linker made keeps its layout). Raises :class:`ElfWriteError` for undefined
    symbols, relocations that cannot be resolved in a shared object, and malformed specs.
    Sections whose layout the link does not reproduce are left out: use
    :func:`link_shared_object` to learn which.
    """
    return link_shared_object(spec, linker_comment=linker_comment,
                              relro_padding=relro_padding).data


def link_shared_object(spec: ObjectSpec, *, linker_comment: str | None = LLD_COMMENT,
                       relro_padding: bool = True,
                       hidden_locals_were_global: bool = True) -> SharedObject:
    """:func:`link_shared`, saying which sections it left out because their bytes hold
    addresses of a layout other than the one it made (``SectionSpec.layout``).
    ``hidden_locals_were_global``: a local symbol of hidden visibility is a global an
    earlier link made local (a relink of a linked object; see :func:`_was_global`), not
    a local of the object (what our relocatable writer makes of it)."""
    state = LinkState(spec, linker_comment)
    if spec.no_undefined:
        for symbol in spec.symbols:
            if symbol.section is None and symbol.binding == "GLOBAL":
                raise ElfWriteError(f"undefined symbol {symbol.name!r} (nothing can define it)")
    state.scan()

    # .dynsym: undefined symbols first (not hashed), then in .gnu.hash bucket order.
    exported = _exported(state)
    dynstr_table = AppendStringTable()
    name_offsets = {s.name: dynstr_table.add(s.name) for s in exported}
    undefined = [s for s in exported if s.section is None]
    defined = [s for s in exported if s.section is not None]
    defined = [defined[i] for i in order_for_gnu_hash([s.name for s in defined])]
    dynsyms = undefined + defined
    dynsym_index = {s.name: i + 1 for i, s in enumerate(dynsyms)}

    def synthetic(name: str, sh_type: int, flags: int, align: int, entsize: int) -> OutSection:
        return OutSection(name, sh_type, flags, align, entsize)

    dynsym = synthetic(".dynsym", SHT_DYNSYM, _A, 8, SYM.size)
    dynsym.size, dynsym.info = (len(dynsyms) + 1) * SYM.size, 1
    gnu_hash = synthetic(".gnu.hash", SHT_GNU_HASH, _A, 8, 0)
    gnu_hash.size = gnu_hash_size(len(defined))
    sysv_hash = synthetic(".hash", SHT_HASH, _A, 4, 4)
    sysv_hash.size = 4 * (2 + 2 * (len(dynsyms) + 1))
    dynstr = synthetic(".dynstr", SHT_STRTAB, _A, 1, 0)
    dynstr.data = bytearray(dynstr_table.data())
    dynstr.size = len(dynstr.data)
    got = None
    if state.got:
        got = synthetic(".got", SHT_PROGBITS, _A | SHF_WRITE, 8, 0)
        got.size = 8 * len(state.got)
        got.data = bytearray(got.size)
        state.add_got_relocations(got)
    rela = None
    if state.dynamic:
        rela = synthetic(".rela.dyn", SHT_RELA, _A, 8, RELA.size)
        rela.size = RELA.size * len(state.dynamic)
    has_relative = any(not (r.symbol and preemptible(r.symbol)) for r in state.dynamic)
    dynamic = synthetic(".dynamic", SHT_DYNAMIC, _A | SHF_WRITE, 8, DYN.size)
    dynamic.size = DYN.size * dynamic_entry_count(rela is not None, has_relative)
    padding = synthetic(".relro_padding", SHT_NOBITS, _A | SHF_WRITE, 1, 0)
    tables = [dynsym, gnu_hash, sysv_hash, dynstr, rela, dynamic, got, padding]
    created = state.outputs + [t for t in tables if t is not None]

    alloc = sorted((s for s in created if s.flags & SHF_ALLOC), key=rank)
    phnum = program_header_count(alloc)
    file_end = assign_addresses(alloc, EHDR.size + phnum * PHDR.size)
    empty = empty_loads(alloc)
    if empty:
        file_end = assign_addresses(alloc, EHDR.size + phnum * PHDR.size, empty)
    relro_end = None
    if not relro_padding:
        # The padding takes no file space and moves nothing after it: leaving it out once
        # laid out gives what ld.lld before 18 wrote: PT_GNU_RELRO still reaches the page end.
        relro_end = padding.addr + padding.size
        alloc.remove(padding)

    symtab = synthetic(".symtab", SHT_SYMTAB, 0, 8, SYM.size)
    shstrtab = synthetic(".shstrtab", SHT_STRTAB, 0, 1, 0)
    strtab = synthetic(".strtab", SHT_STRTAB, 0, 1, 0)
    stale = _stale_sections(state)
    non_alloc = [s for s in state.outputs if not s.flags & SHF_ALLOC and s.name not in stale]
    ordered = [OutSection("", 0, 0, 0, 0), *alloc, *non_alloc, symtab, shstrtab, strtab]
    for index, section in enumerate(ordered):
        section.index = index
    dynsym.link = dynstr.index
    gnu_hash.link = sysv_hash.link = dynsym.index
    dynamic.link = dynstr.index
    if rela is not None:
        rela.link = dynsym.index
    symtab.link = strtab.index

    # Contents that depend on addresses.
    state.apply_static(got)
    dynsym.data = bytearray(_dynsym_bytes(state, dynsyms, name_offsets))
    gnu_hash.data = bytearray(gnu_hash_table([s.name for s in defined], 1 + len(undefined)))
    sysv_hash.data = bytearray(sysv_hash_table([s.name for s in dynsyms]))
    rela_info = None
    if rela is not None:
        rela_bytes, relative = state.dynamic_relocations(dynsym_index)
        rela.data = bytearray(rela_bytes)
        rela_info = (rela.addr, rela.size, relative)
    entries = dynamic_entries(
        rela=rela_info,
        dynsym=dynsym.addr,
        dynstr=(dynstr.addr, dynstr.size),
        gnu_hash_addr=gnu_hash.addr,
        hash_addr=sysv_hash.addr,
    )
    dynamic.data = bytearray(b"".join(DYN.pack(tag, value) for tag, value in entries))
    _symbol_tables(state, dynamic, symtab, strtab, hidden_locals_were_global)
    names = AppendStringTable()
    name_of = [names.add(s.name) for s in ordered]
    shstrtab.data = bytearray(names.data())
    shstrtab.size = len(shstrtab.data)

    offset = file_end
    for section in ordered[len(alloc) + 1 :]:
        section.offset = align_up(offset, section.align)
        offset = section.offset + (0 if section.type == SHT_NOBITS else section.size)
    shoff = align_up(offset, 8)
    out = bytearray(shoff + SHDR.size * len(ordered))
    out[:EHDR.size] = elf_header(
        e_type=ElfType.ET_DYN,
        os_abi=spec.os_abi,
        abi_version=spec.abi_version,
        e_flags=spec.e_flags,
        phoff=EHDR.size,
        phnum=phnum - len(empty),
        shoff=shoff,
        shnum=len(ordered),
        shstrndx=shstrtab.index,
    )
    table = program_headers(alloc, phnum, empty, relro_end)
    out[EHDR.size : EHDR.size + len(table)] = table
    for index, section in enumerate(ordered):
        if index and section.type != SHT_NOBITS:
            out[section.offset : section.offset + section.size] = section.data
        out[shoff + index * SHDR.size : shoff + (index + 1) * SHDR.size] = section_header(
            name_of[index],
            section.type,
            section.flags,
            section.addr,
            section.offset,
            section.size,
            section.link,
            section.info,
            section.align,
            section.entsize,
        )
    return SharedObject(bytes(out), tuple(stale))


def _stale_sections(state: LinkState) -> list[str]:
    """The spec's sections that hold a symbol layout other than the one this link made.

    Called once addresses are assigned. Non-allocated sections take no address and come
    after every allocated one in the file, so leaving them out changes nothing else."""
    bound = [s for s in state.inputs if s.layout is not None]
    if not bound:
        return []
    layout = layout_digest(
        (s.name, state.address(s), s.size) for s in state.spec.symbols
        if s.name and s.section is not None and s.section != ABSOLUTE_SECTION
        and s.type not in ("SECTION", "FILE") and state.kept(s)
        and state.placement[s.section][0].flags & SHF_ALLOC)
    return [s.name for s in bound if s.layout != layout]


def _shndx(state: LinkState, symbol: SymbolSpec) -> int:
    if symbol.section is None:
        return 0
    if symbol.section == ABSOLUTE_SECTION or symbol.type == "FILE":
        return SHN_ABS
    return state.placement[symbol.section][0].index


def _entry(state: LinkState, symbol: SymbolSpec, name: int, local: bool) -> bytes:
    sym_type, binding, visibility = symbol_fields(symbol)
    if local:
        binding = 0
    value = 0 if symbol.type == "FILE" else state.address(symbol)
    return symbol_entry(
        name, (binding << 4) | sym_type, visibility, _shndx(state, symbol), value, symbol.size
    )


def _dynsym_bytes(
    state: LinkState, dynsyms: list[SymbolSpec], name_offsets: dict[str, int]
) -> bytes:
    rows = [symbol_entry(0, 0, 0, 0, 0, 0)]
    rows += [_entry(state, s, name_offsets[s.name], False) for s in dynsyms]
    return b"".join(rows)


def _was_global(symbol: SymbolSpec) -> bool:
    """A local symbol with hidden visibility: in a relink of a linked object, a hidden global
    the first link made local (clang never writes a hidden local), so it goes where lld put
    it, among the symbols that became local, its name added with the globals'."""
    return symbol.binding == "LOCAL" and symbol.visibility in ("HIDDEN", "INTERNAL") \
        and symbol.type != "FILE"


def _symbol_tables(
    state: LinkState, dynamic: OutSection, symtab: OutSection, strtab: OutSection,
    hidden_locals_were_global: bool = True,
) -> None:
    """``.symtab`` and ``.strtab`` as lld writes them: the object's locals (section symbols and
    ``.L`` labels in merged sections dropped), then symbols that became local (hidden globals,
    ``_DYNAMIC``), then the globals; names in the order they were added: object locals,
    globals (hidden ones too), ``_DYNAMIC``."""
    def was_global(symbol: SymbolSpec) -> bool:
        return hidden_locals_were_global and _was_global(symbol)

    names = AppendStringTable(dedup=False)
    locals_: list[bytes] = [symbol_entry(0, 0, 0, 0, 0, 0)]
    demoted: list[bytes] = []
    globals_: list[bytes] = []
    for symbol in state.spec.symbols:
        if symbol.binding != "LOCAL" or symbol.type == "SECTION" or was_global(symbol):
            continue
        if symbol.type != "FILE" and not state.kept(symbol):
            continue
        if symbol.name.startswith(".L") and symbol.section in state.merged:
            continue  # an assembler label kept only because it points into merged data
        locals_.append(_entry(state, symbol, names.add(symbol.name), True))
    for symbol in state.spec.symbols:
        if (symbol.binding == "LOCAL" and not was_global(symbol)) \
                or not (state.kept(symbol) or symbol.section is None):
            continue
        hidden = symbol.visibility in ("HIDDEN", "INTERNAL")
        row = _entry(state, symbol, names.add(symbol.name), hidden)
        (demoted if hidden else globals_).append(row)
    demoted.append(symbol_entry(names.add("_DYNAMIC"), 0, 2, dynamic.index, dynamic.addr, 0))
    symtab.data = bytearray(b"".join(locals_ + demoted + globals_))
    symtab.size = len(symtab.data)
    symtab.info = len(locals_) + len(demoted)
    strtab.data = bytearray(names.data())
    strtab.size = len(strtab.data)
