"""``amdgpu_mc.code_object`` -> :class:`ObjectSpec` (what an assembler would write), and
the ELF bytes of it: relocatable, or linked into a loadable code object."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import ModuleOp

from luthier.amdgpu_dialects.amdgpu_mc.metadata import attr_to_metadata
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    ExternOp,
    FunctionLikeOp,
    GlobalOp,
    KernelOp,
    SectionOp,
)
from luthier.amdgpu_dialects.collector import collector_paused
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.amdgpu_dialects.mc.relocations import R_AMDGPU_REL64, relocation_named
from luthier.amdgpu_dialects.target.kernel_descriptor import CODE_ENTRY_FIELD_OFFSET
from luthier.amdgpu_dialects.target.target_id import ELFOSABI_AMDGPU_HSA
from luthier.frontend.codeobj.carried import kept_unlinked
from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHF_WRITE,
    SHT_NOBITS,
    SHT_NOTE,
    SHT_PROGBITS,
)
from luthier.frontend.codeobj.metadata_note import metadata_note
from luthier.frontend.codeobj.spec import (
    ElfWriteError,
    ObjectSpec,
    RelocationSpec,
    SectionSpec,
    SymbolSpec,
)
from luthier.lowering.elf import LLD_COMMENT, link_shared_object, write_relocatable
from luthier.lowering.emit.errors import EmitError
from luthier.lowering.emit.text import EncodedFunction, encode_text

KERNEL_DESCRIPTOR_ALIGNMENT = 64


def _section_kind(name: str) -> tuple[int, int]:
    """(type, flags) of a data section, by the names compilers use."""
    if name.startswith((".bss", ".tbss")):
        return SHT_NOBITS, SHF_ALLOC | SHF_WRITE
    if name.startswith(".rodata"):
        return SHT_PROGBITS, SHF_ALLOC
    return SHT_PROGBITS, SHF_ALLOC | SHF_WRITE


class _DataSection:
    def __init__(self, name: str) -> None:
        self.name = name
        self.type, self.flags = _section_kind(name)
        self.data = bytearray()
        self.size = 0
        self.alignment = 1
        self.relocations: list[RelocationSpec] = []

    def place(self, size: int, alignment: int, data: bytes | None) -> int:
        offset = (self.size + alignment - 1) // alignment * alignment
        self.alignment = max(self.alignment, alignment)
        if self.type != SHT_NOBITS:
            self.data += bytes(offset - len(self.data))
            self.data += data if data is not None else bytes(size)
        self.size = offset + size
        return offset

    def spec(self) -> SectionSpec:
        data = bytes(self.data) if self.type != SHT_NOBITS else b""
        return SectionSpec(self.name, self.type, self.flags, self.alignment, data, self.size,
                           tuple(self.relocations))


def object_spec(code_object: CodeObjectOp,
                encoded: Mapping[str, EncodedFunction] | None = None, *,
                follow_input_linker: bool = True) -> ObjectSpec:
    """Lower ``code_object`` to a relocatable object's contents; raises :class:`EmitError`.
    The functions named in ``encoded`` were encoded already (by the workers that lowered
    them): their bytes are taken from there, their ops give the rest (alignment, binding,
    descriptor). ``follow_input_linker``: a linked input's ``.comment`` is kept as it was
    (see :func:`keeps_linker_comment`), else merged as a new link would."""
    target = code_object.target_key
    isa = load_target(*target)
    functions = [op for op in code_object.body.ops if isinstance(op, FunctionLikeOp)]
    padding = code_object.text_padding.value.data if code_object.text_padding else 0
    leading = (code_object.text_leading_padding.value.data
               if code_object.text_leading_padding else 0)
    text = encode_text(functions, isa, encoder_for(*target), padding, leading,
                       encoded, code_object.leading_bytes)
    max_alignment = max([f.op.alignment.value.data for f in text.functions
                         if f.op.alignment is not None] + [4])
    symbols: list[SymbolSpec] = []
    for placed in text.functions:
        op = placed.op
        if op.anonymous is not None:
            continue  # code no symbol named: placed, and named by nothing again
        # A symbol that came without a size goes back without one.
        size = 0 if op.inferred_extent is not None else placed.size
        symbols.append(SymbolSpec(placed.name, ".text", placed.offset, size, "FUNC",
                                  op.binding.data if op.binding else "GLOBAL",
                                  op.visibility.data if op.visibility else "DEFAULT"))
    sections: dict[str, _DataSection] = {".rodata": _DataSection(".rodata")}
    for placed in text.functions:
        if not isinstance(placed.op, KernelOp):
            continue
        rodata = sections[".rodata"]
        descriptor = placed.op.descriptor.data.to_bytes()
        descriptor = descriptor[:CODE_ENTRY_FIELD_OFFSET] + bytes(8) \
            + descriptor[CODE_ENTRY_FIELD_OFFSET + 8:]
        offset = rodata.place(len(descriptor), KERNEL_DESCRIPTOR_ALIGNMENT, descriptor)
        rodata.relocations.append(RelocationSpec(offset + CODE_ENTRY_FIELD_OFFSET,
                                                 R_AMDGPU_REL64.number, placed.name,
                                                 CODE_ENTRY_FIELD_OFFSET))
        symbols.append(SymbolSpec(f"{placed.name}.kd", ".rodata", offset, len(descriptor),
                                  "OBJECT", *_descriptor_binding(placed.op)))
    for variable in (op for op in code_object.body.ops if isinstance(op, GlobalOp)):
        section = sections.setdefault(variable.section.data,
                                      _DataSection(variable.section.data))
        alignment = variable.alignment.value.data if variable.alignment else 1
        size = variable.size.value.data
        offset = section.place(size, alignment,
                               variable.initial_bytes if section.type != SHT_NOBITS else None)
        for relocation in (variable.relocations.data if variable.relocations else ()):
            at, kind, symbol, addend = relocation.data
            relocation = relocation_named(kind)
            if relocation is None:
                raise EmitError(f"@{variable.sym_name.data}: unknown relocation type {kind}")
            section.relocations.append(RelocationSpec(offset + at, relocation.number, symbol,
                                                      addend))
        symbols.append(SymbolSpec(variable.sym_name.data, variable.section.data, offset, size,
                                  "OBJECT",
                                  variable.binding.data if variable.binding else "GLOBAL",
                                  variable.visibility.data if variable.visibility
                                  else "DEFAULT"))
    out_sections = [SectionSpec(".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
                                max_alignment, text.data, len(text.data),
                                text.relocations.table())]
    out_sections += [section.spec() for section in sections.values() if section.size]
    if code_object.metadata is not None:
        note = metadata_note(attr_to_metadata(code_object.metadata))
        out_sections.append(SectionSpec(".note", SHT_NOTE, SHF_ALLOC, 4, note, len(note)))
    externs = [op for op in code_object.body.ops if isinstance(op, ExternOp)]
    symbols += [SymbolSpec(op.sym_name.data, None, 0, 0, op.elf_type, op.elf_binding,
                           op.elf_visibility) for op in externs]
    linked = code_object.elf_type.data == "dyn" and follow_input_linker
    out_sections += [_carried_section(op, linked) for op in code_object.body.ops
                     if isinstance(op, SectionOp)]
    comment = code_object.ident.data if code_object.ident is not None else None
    if code_object.symbol_order is not None:
        rank = {name.data: index for index, name in enumerate(code_object.symbol_order.data)}
        symbols.sort(key=lambda symbol: rank.get(symbol.name, len(rank)))
    return ObjectSpec(code_object.e_flags.value.data, ELFOSABI_AMDGPU_HSA,
                      code_object.abi_version.value.data, tuple(out_sections),
                      tuple(symbols), comment,
                      no_undefined=not any(op.elf_binding == "GLOBAL" for op in externs))


def _descriptor_binding(kernel: KernelOp) -> tuple[str, str]:
    """(binding, visibility) of ``kernel``'s ``.kd`` symbol: the kernel's, as LLVM gives
    them, unless the kernel op names others (what an older compiler gave the input)."""
    binding = kernel.binding.data if kernel.binding else "GLOBAL"
    visibility = kernel.visibility.data if kernel.visibility else "PROTECTED"
    if kernel.descriptor_binding is not None:
        binding = kernel.descriptor_binding.data
    if kernel.descriptor_visibility is not None:
        visibility = kernel.descriptor_visibility.data
    return binding, visibility


def _carried_section(op: SectionOp, linked: bool) -> SectionSpec:
    """A section carried from the input, written as it was. Only an unlinked object's
    ``.comment`` is merged again, as linking it would merge every input's ``.comment`` and
    add the linker's string; a linked object's already names its linker (the relink keeps
    it: see :func:`keeps_linker_comment`). Other mergeable sections (``.debug_str``) hold
    strings other sections point into by offset."""
    name = op.section.data
    return SectionSpec(name, op.section_type.value.data, op.section_flags,
                       op.section_alignment, op.contents, op.section_size,
                       entry_size=op.section_entry_size,
                       verbatim=name != ".comment" or linked,
                       layout=op.layout.data if op.layout is not None else None)


def keeps_linker_comment(code_object: CodeObjectOp) -> bool:
    """Whether the output's ``.comment`` is the linked input's, as it was: a rewrite of a
    linked object keeps the identification of the toolchain that made it (whichever ld.lld
    that was), rather than merging ours into it and reordering its strings."""
    return code_object.elf_type.data == "dyn" and any(
        isinstance(op, SectionOp) and op.section.data == ".comment"
        for op in code_object.body.ops)


def carried_dropped_warning(names: Sequence[str], sizes: Sequence[int], why: str) -> str:
    """The one warning line that names the carried sections a writer left out, and why."""
    return f"dropped {', '.join(names)} ({sum(sizes)} bytes): {why}"


def _single_code_object(module: ModuleOp | CodeObjectOp) -> CodeObjectOp:
    if isinstance(module, CodeObjectOp):
        return module
    found = [op for op in module.ops if isinstance(op, CodeObjectOp)]
    if len(found) != 1:
        raise EmitError(f"an object file holds one amdgpu_mc.code_object, the input has "
                        f"{len(found)}")
    return found[0]


#: Why a relocatable output (object or assembly) leaves out carried sections.
UNLINKED = ("the linked input's debug information and sections holding its addresses, "
            "which an object still to be linked cannot keep")
#: Why a loadable output leaves out sections holding addresses.
MOVED = "they hold the input's code and data addresses, and the code or data moved"


def emit_relocatable(module: ModuleOp | CodeObjectOp,
                     encoded: Mapping[str, EncodedFunction] | None = None, *,
                     warnings: list[str] | None = None) -> bytes:
    """An ``ET_REL`` object, as ``llvm-mc -filetype=obj`` writes it (``encoded``: see
    :func:`object_spec`). Carried sections an object still to be linked cannot keep
    (:func:`~luthier.frontend.codeobj.carried.kept_unlinked`) are left out, named in one
    line appended to ``warnings``."""
    try:
        with collector_paused():  # an instrumented library has 100k+ relocations
            spec = object_spec(_single_code_object(module), encoded)
            carried = {op.section.data for op in _single_code_object(module).body.ops
                       if isinstance(op, SectionOp)}
            dropped = [section for section in spec.sections if section.name in carried
                       and not kept_unlinked(section.name, section.layout is not None)]
            if dropped and warnings is not None:
                warnings.append(carried_dropped_warning(
                    [section.name for section in dropped],
                    [section.size for section in dropped], UNLINKED))
            names = {section.name for section in dropped}
            kept = tuple(section for section in spec.sections if section.name not in names)
            return write_relocatable(dataclasses.replace(spec, sections=kept))
    except ElfWriteError as error:
        raise EmitError(str(error)) from None


def _linked_from_object(spec: ObjectSpec, code_object: CodeObjectOp) -> ObjectSpec:
    """A relocatable input's empty carried sections (``.note.GNU-stack``, ``.AMDGPU.csdata``)
    are hints to a linker: linking them gives a code object nothing, so it has none (the
    ``.co`` clang links from the same code has none either)."""
    empty = {op.section.data for op in code_object.body.ops
             if isinstance(op, SectionOp) and op.section_size == 0}
    kept = tuple(section for section in spec.sections if section.name not in empty)
    return dataclasses.replace(spec, sections=kept)


def emit_code_object(module: ModuleOp | CodeObjectOp,
                     encoded: Mapping[str, EncodedFunction] | None = None, *,
                     warnings: list[str] | None = None,
                     follow_input_linker: bool = True) -> bytes:
    """A loadable ``ET_DYN`` code object, as ``ld.lld -shared`` links it (``encoded``: see
    :func:`object_spec`). Carried sections that hold the input's addresses are kept when
    every symbol is where it was (an identity round trip) and left out otherwise, named in
    one line appended to ``warnings``. Where the input's linker laid files out otherwise
    than ld.lld 19 (``unpadded_relro``, its ``.comment``), the output follows it, unless
    ``follow_input_linker`` is False: then it is what ld.lld 19 makes of the same inputs
    (of the assembly output, say)."""
    try:
        with collector_paused():  # an instrumented library has 100k+ relocations
            code_object = _single_code_object(module)
            spec = object_spec(code_object, encoded, follow_input_linker=follow_input_linker)
            if code_object.elf_type.data == "rel":
                spec = _linked_from_object(spec, code_object)
            follow = follow_input_linker
            linked = link_shared_object(
                spec, linker_comment=None if follow and keeps_linker_comment(code_object)
                else LLD_COMMENT,
                relro_padding=not follow or code_object.unpadded_relro is None,
                hidden_locals_were_global=follow)
    except ElfWriteError as error:
        raise EmitError(str(error)) from None
    if linked.stale_sections and warnings is not None:
        sizes = {section.name: section.size for section in spec.sections}
        warnings.append(carried_dropped_warning(
            linked.stale_sections, [sizes[name] for name in linked.stale_sections], MOVED))
    return linked.data
