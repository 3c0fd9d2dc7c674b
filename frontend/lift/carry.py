"""What the lifter carries from a linked code object besides its code, and what it says it
cannot carry.

A linked code object holds more than functions, descriptors, variables and the metadata
note: debug sections, ``.comment``, other notes, other tools' sections, undefined symbols.
A relink that dropped them would give a smaller file with no word said; here every section
and symbol of the input is accounted for: modelled by the lifter, made again by the writer
(symbol and hash tables, ``.dynamic``, ``.got``), carried into the IR as an
``amdgpu_mc.section`` or ``amdgpu_mc.extern``, or named in one warning line per kind.

A relocatable object (``ET_REL``) carries its sections the same way when nothing refers to
them by index or relocates them (``.note.GNU-stack``, ``.AMDGPU.csdata``, other tools'
notes); the others (``.llvm_addrsig``, which lists symbols by index, and debug sections,
which need their relocations) are named in the warning. Its symbols are the lifter's own
business (relocations name them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Operation

from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    EXTERN_SYMBOL_TYPES,
    ExternOp,
    SectionOp,
    int_attr,
)
from luthier.frontend.codeobj import CodeObject, ElfType, Section, Symbol
from luthier.frontend.codeobj.carried import holds_addresses, layout_digest
from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHT_DYNAMIC,
    SHT_DYNSYM,
    SHT_GNU_HASH,
    SHT_HASH,
    SHT_NOBITS,
    SHT_NOTE,
    SHT_REL,
    SHT_RELA,
    SHT_STRTAB,
    SHT_SYMTAB,
)
from luthier.frontend.codeobj.notes import AMDGPU_NOTE_NAME, NT_AMDGPU_METADATA, parse_notes
from luthier.frontend.codeobj.spec import LLD_COMMENT
from luthier.frontend.lift.errors import LiftError

#: Section types the shared writer makes again from the symbols and relocations.
_LINKER_TABLES = (SHT_SYMTAB, SHT_DYNSYM, SHT_GNU_HASH, SHT_HASH, SHT_DYNAMIC)
#: Allocated sections the shared writer makes again, by name.
_LINKER_SECTIONS = (".got", ".relro_padding")
#: Symbols the linker defines (the writer defines them again).
_LINKER_SYMBOLS = ("_DYNAMIC",)
#: How many names a warning lists before it says how many more there are.
_NAMES_SHOWN = 5


@dataclass
class Carried:
    """What the lifter adds to the code object op beyond its functions and variables."""

    #: ``extern`` ops, then ``section`` ops, in the input's order.
    ops: list[Operation] = field(default_factory=lambda: list[Operation]())
    #: The compiler's ``.comment`` string, when ``.comment`` is kept that way (``ident``)
    #: rather than carried as a section.
    ident: str | None = None
    #: The input is linked and has no ``.relro_padding``: its linker (ld.lld before 18)
    #: padded ``PT_GNU_RELRO`` alone, and a relink does the same.
    unpadded_relro: bool = False
    #: Names of the undefined symbols carried (they keep their place in the symbol order).
    externs: list[str] = field(default_factory=lambda: list[str]())
    #: One line per kind of thing not carried.
    warnings: list[str] = field(default_factory=lambda: list[str]())


def check_descriptors(code_object: CodeObject) -> None:
    """A kernel descriptor that cannot be matched to its code is an error.

    The reader pairs ``<name>.kd`` with the function ``<name>``; a ``.kd`` without one would
    otherwise be lifted as an ordinary variable, and a descriptor whose code entry points
    elsewhere than its function would be rewritten to point at the function: either way the
    output would launch other code than the input, or none, with nothing said."""
    for variable in code_object.variables:
        if variable.name.endswith(".kd"):
            raise LiftError(code_object.name, f"kernel descriptor {variable.name} cannot be "
                            f"matched to its code: there is no function "
                            f"{variable.name.removesuffix('.kd')}")
    for kernel in code_object.kernels:
        if kernel.entry_address != kernel.function.value:
            raise LiftError(code_object.name, f"kernel descriptor "
                            f"{kernel.descriptor_symbol.name} cannot be matched to its code: "
                            f"its code entry is {kernel.entry_address:#x}, the function "
                            f"{kernel.name} is at {kernel.function.value:#x}")


def carry(code_object: CodeObject) -> Carried:
    """The sections and symbols of ``code_object`` the lifter does not model, as ops, and
    a warning per kind of those that cannot be carried."""
    carried = Carried()
    if code_object.elf_type is ElfType.ET_DYN:
        _carry_symbols(code_object, carried)
        carried.unpadded_relro = (code_object.section(".dynamic") is not None
                                  and code_object.section(".relro_padding") is None)
    _carry_sections(code_object, carried)
    return carried


# -- sections --------------------------------------------------------------------------------


def _carry_sections(code_object: CodeObject, carried: Carried) -> None:
    interpreted = _interpreted_sections(code_object)
    metadata_note = _metadata_note_section(code_object)
    linked = code_object.elf_type is ElfType.ET_DYN
    made_again = _linker_sections(code_object) if linked else _object_tables(code_object,
                                                                              interpreted)
    # An object's sections that relocations apply to need them, which only the lifter's
    # own sections keep.
    relocated: set[int] = set() if linked else {section.info for section in code_object.sections
                                      if section.type in (SHT_RELA, SHT_REL)}
    layout = layout_digest(_layout_symbols(code_object)) if linked else None
    sections: list[SectionOp] = []
    refused: list[str] = []
    comment: Section | None = None
    for section in code_object.sections[1:]:
        if section.index in made_again or section.index in interpreted:
            continue
        if section.index == metadata_note:
            carried.warnings += _other_notes(code_object, section)
            continue
        is_note = section.type == SHT_NOTE
        allocated = bool(section.flags & SHF_ALLOC)
        if ((allocated and not is_note) or section.link or section.info
                or section.index in relocated):
            refused.append(section.name)
            continue
        if section.name == ".comment":
            comment = section
        # An empty section (clang-22's .AMDGPU.gpr_maximums) holds no address to go stale.
        bound = layout is not None and not allocated and section.size > 0 \
            and holds_addresses(section.name, is_note)
        sections.append(_section_op(code_object, section, layout if bound else None))
    others = [op for op in sections if op.section.data != ".comment"]
    ident_only = _comment_is_ident(code_object) if linked else _comment_is_compilers(code_object)
    if comment is None or (ident_only and not others):
        sections = others
        carried.ident = _ident(code_object)
    carried.ops += sections
    if refused:
        carried.warnings.append(
            f"not carried: {_names(refused)} (allocated sections the lifter does not "
            "interpret, or sections that refer to others by index"
            + (")" if linked else " or that relocations apply to)"))
    carried.warnings += _uncovered_data(code_object, interpreted)


def _section_op(code_object: CodeObject, section: Section, layout: str | None) -> SectionOp:
    properties: dict[str, Attribute] = {
        "section": StringAttr(section.name),
        "section_type": int_attr(section.type),
        "flags": int_attr(section.flags),
    }
    if section.alignment > 1:
        properties["alignment"] = int_attr(section.alignment)
    if section.entry_size:
        properties["entry_size"] = int_attr(section.entry_size)
    if section.type == SHT_NOBITS:
        properties["size"] = int_attr(section.size)
    elif section.size:
        data = code_object.data[section.offset:section.offset + section.size]
        properties["data"] = StringAttr(data.hex())
    if layout is not None:
        properties["layout"] = StringAttr(layout)
    return SectionOp.create(properties=properties)


def _interpreted_sections(code_object: CodeObject) -> set[int]:
    """Sections whose contents the lifter models: the code, and the sections holding
    descriptors and variables."""
    indexes: set[int] = set()
    if code_object.text is not None:
        indexes.add(code_object.text.index)
    symbols = [kernel.descriptor_symbol for kernel in code_object.kernels]
    symbols += code_object.variables
    indexes |= {symbol.section_index for symbol in symbols
                if isinstance(symbol.section_index, int) and symbol.section_index}
    return indexes


def _linker_sections(code_object: CodeObject) -> set[int]:
    """Sections the shared writer makes again: symbol, string and hash tables,
    ``.dynamic``, dynamic relocations, ``.got``, ``.relro_padding``."""
    indexes: set[int] = set()
    for section in code_object.sections:
        if section.type in _LINKER_TABLES:
            indexes.add(section.index)
            if 0 < section.link < len(code_object.sections):
                indexes.add(section.link)  # its string table
        elif section.type in (SHT_RELA, SHT_REL) and section.info == 0:
            indexes.add(section.index)  # dynamic relocations, read into the variables
        elif section.type == SHT_STRTAB and not section.flags & SHF_ALLOC:
            indexes.add(section.index)  # .shstrtab (and .strtab)
        elif section.flags & SHF_ALLOC and section.name in _LINKER_SECTIONS:
            indexes.add(section.index)
    return indexes


def _object_tables(code_object: CodeObject, interpreted: set[int]) -> set[int]:
    """A relocatable object's sections the relocatable writer makes again: the symbol and
    string tables, and the relocations of the sections the lifter models."""
    text = code_object.text.index if code_object.text is not None else None
    indexes: set[int] = set()
    for section in code_object.sections:
        symbol_table = section.type == SHT_SYMTAB or (section.type == SHT_STRTAB
                                                      and not section.flags & SHF_ALLOC)
        modelled_relocations = section.type in (SHT_RELA, SHT_REL) and (
            section.info in interpreted or section.info == text)
        if symbol_table or modelled_relocations:
            indexes.add(section.index)
    return indexes


def _metadata_note_section(code_object: CodeObject) -> int | None:
    """The note section holding the metadata note (the reader's choice: the first)."""
    if code_object.metadata is None:
        return None
    for section in code_object.sections:
        if section.type != SHT_NOTE:
            continue
        notes = parse_notes(_bytes(code_object, section), section.alignment)
        if not isinstance(notes, str) and any(_is_metadata(note.name, note.type)
                                              for note in notes):
            return section.index
    return None


def _is_metadata(name: str, note_type: int) -> bool:
    return name == AMDGPU_NOTE_NAME and note_type == NT_AMDGPU_METADATA


def _other_notes(code_object: CodeObject, section: Section) -> list[str]:
    """A warning naming the notes beside the metadata note in its section (the writer
    writes the metadata note alone)."""
    notes = parse_notes(_bytes(code_object, section), section.alignment)
    if isinstance(notes, str):
        return []
    others = [f"{note.name} type {note.type}" for note in notes
              if not _is_metadata(note.name, note.type)]
    if not others:
        return []
    return [f"not carried: {len(others)} note(s) beside the metadata note in {section.name} "
            f"({_names(others)})"]


def _uncovered_data(code_object: CodeObject, interpreted: set[int]) -> list[str]:
    """A warning for non-zero bytes of the data sections outside every descriptor and
    variable: the writer lays the section out from the symbols, and those bytes would go."""
    text = code_object.text.index if code_object.text is not None else None
    symbols = [kernel.descriptor_symbol for kernel in code_object.kernels]
    symbols += code_object.variables
    lost: list[str] = []
    for index in sorted(interpreted - {text}):
        section = code_object.sections[index]
        if not section.has_file_bytes:
            continue
        data = bytearray(_bytes(code_object, section))
        for symbol in symbols:
            if symbol.section_index == index:
                start = min(max(symbol.value - section.address, 0), len(data))
                end = min(start + symbol.size, len(data))
                data[start:end] = bytes(end - start)
        count = len(data) - data.count(0)
        if count:
            lost.append(f"{count} bytes of {section.name}")
    if not lost:
        return []
    return [f"not carried: {', '.join(lost)} outside every symbol (data the lifter cannot "
            "name; the writer lays sections out from their symbols)"]


def _bytes(code_object: CodeObject, section: Section) -> bytes:
    if not section.has_file_bytes:
        return b""
    return code_object.data[section.offset:section.offset + section.size]


# -- .comment ----------------------------------------------------------------------------------


def _compiler_strings(code_object: CodeObject) -> tuple[list[str], list[str]]:
    """The strings of ``.comment``: the compilers' and the linkers' (``Linker: ...``)."""
    section = code_object.section(".comment")
    if section is None or not section.has_file_bytes:
        return [], []
    raw = _bytes(code_object, section)
    strings = [text.decode(errors="replace") for text in raw.split(b"\0") if text]
    return ([text for text in strings if not text.startswith("Linker:")],
            [text for text in strings if text.startswith("Linker:")])


def _ident(code_object: CodeObject) -> str | None:
    compilers, _ = _compiler_strings(code_object)
    return compilers[0] if compilers else None


def _comment_is_compilers(code_object: CodeObject) -> bool:
    """Whether an object's ``.comment`` is what the relocatable writer gives back from one
    ``ident`` string: one compiler string, no linker's."""
    compilers, linkers = _compiler_strings(code_object)
    return len(compilers) <= 1 and not linkers


def _comment_is_ident(code_object: CodeObject) -> bool:
    """Whether the writer gives ``.comment`` back from one ``ident`` string: it holds one
    compiler string and our linker's. (The caller also asks that no other section is
    carried: the writer puts an ``ident`` after every section, not where it was.)"""
    compilers, linkers = _compiler_strings(code_object)
    return len(compilers) <= 1 and linkers == [LLD_COMMENT]


# -- symbols -----------------------------------------------------------------------------------


def _primary_symbols(code_object: CodeObject) -> list[Symbol]:
    """The table the reader classified (``.symtab``, or ``.dynsym`` when stripped)."""
    for table in (".symtab", ".dynsym"):
        chosen = [symbol for symbol in code_object.symbols if symbol.table == table]
        if chosen:
            return chosen
    return []


def _is_undefined(symbol: Symbol) -> bool:
    return symbol.section_index in (0, "SHN_UNDEF")


def _modelled(code_object: CodeObject) -> set[str]:
    names = {kernel.name for kernel in code_object.kernels}
    names |= {kernel.descriptor_symbol.name for kernel in code_object.kernels}
    names |= {function.name for function in code_object.device_functions}
    names |= {variable.name for variable in code_object.variables}
    return names


def _carry_symbols(code_object: CodeObject, carried: Carried) -> None:
    modelled = _modelled(code_object)
    kept: list[Symbol] = []
    refused: list[str] = []
    for symbol in _primary_symbols(code_object)[1:]:
        if symbol.name in modelled:
            kept.append(symbol)
        elif symbol.name in _LINKER_SYMBOLS:
            continue
        elif (_is_undefined(symbol) and symbol.name and symbol.binding in ("GLOBAL", "WEAK")
              and symbol.type in EXTERN_SYMBOL_TYPES):
            carried.ops.append(ExternOp.create(properties={
                "sym_name": StringAttr(symbol.name),
                "symbol_type": StringAttr(symbol.type),
                "binding": StringAttr(symbol.binding),
                "visibility": StringAttr(symbol.visibility),
            }))
            carried.externs.append(symbol.name)
            kept.append(symbol)
        else:
            refused.append(f"{symbol.type} {symbol.name or '(no name)'}")
    if refused:
        carried.warnings.append(f"not carried: {len(refused)} symbol(s) the lifter does not "
                                f"model ({_names(refused)})")
    exported = {symbol.name for symbol in kept if symbol.binding != "LOCAL"
                and symbol.visibility in ("DEFAULT", "PROTECTED")}
    dynamic = [symbol.name for symbol in code_object.symbols
               if symbol.table == ".dynsym" and symbol.name and symbol.name not in exported]
    if dynamic:
        carried.warnings.append(f"not carried: {len(dynamic)} dynamic symbol(s) the output "
                                f"does not export ({_names(dynamic)})")


def _layout_symbols(code_object: CodeObject) -> list[tuple[str, int, int]]:
    """(name, address, size) of every symbol defined in an allocated section: the layout a
    section holding addresses is right for (see :func:`layout_digest`)."""
    found: list[tuple[str, int, int]] = []
    for symbol in _primary_symbols(code_object):
        index = symbol.section_index
        if not isinstance(index, int) or not index or not symbol.name \
                or symbol.type in ("SECTION", "FILE") or symbol.name in _LINKER_SYMBOLS:
            continue
        if code_object.sections[index].flags & SHF_ALLOC:
            found.append((symbol.name, symbol.value, symbol.size))
    return found


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:_NAMES_SHOWN])
    more = len(names) - _NAMES_SHOWN
    return f"{shown}, and {more} more" if more > 0 else shown
