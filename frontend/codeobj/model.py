"""The reading model: one AMDGPU code object as :func:`read_elf` found it.

Plain frozen dataclasses with no behaviour beyond look-ups: the lifter and the tests consume
them, and none of them should need pyelftools' untyped containers. This model says what the
file says, layout included: section indices, file offsets, addresses (virtual addresses for
ET_DYN objects and section offsets for ET_REL objects, as in ELF itself), the symbol and
relocation tables as stored, plus what is decoded from them (kernels, descriptors, metadata).

Its counterpart is the writing spec, :mod:`luthier.frontend.codeobj.spec`: what the writers
take, with no layout (records linked by name, symbol values as offsets in their section). The
relation is one way, file -> CodeObject -> IR -> ObjectSpec -> file: nothing converts a spec
into this model or back, and the two share their vocabulary, not their records: symbol
``type``/``binding``/``visibility`` are spelled as in :mod:`elf_format` (``FUNC``, ``GLOBAL``,
``DEFAULT``) and relocation types are ``R_AMDGPU_*`` numbers of
:mod:`luthier.amdgpu_dialects.mc.relocations` in both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from luthier.amdgpu_dialects.mc.relocations import relocation_name
from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.amdgpu_dialects.target.target_id import Target
from luthier.frontend.codeobj.elf_format import SHF_EXECINSTR, SHT_NOBITS, ElfType
from luthier.frontend.codeobj.errors import CodeObjectError
from luthier.frontend.codeobj.metadata import CodeObjectMetadata, KernelMetadata


@dataclass(frozen=True)
class Section:
    """One section header, with its name resolved."""

    index: int
    name: str
    type: int
    flags: int
    address: int
    offset: int
    size: int
    link: int
    info: int
    alignment: int
    entry_size: int

    @property
    def has_file_bytes(self) -> bool:
        """False for SHT_NOBITS (.bss and the like), whose size occupies no file bytes."""
        return self.type != SHT_NOBITS

    @property
    def is_executable(self) -> bool:
        return bool(self.flags & SHF_EXECINSTR)


@dataclass(frozen=True)
class Segment:
    """One program header (ET_DYN objects only)."""

    index: int
    type: int
    flags: int
    offset: int
    virtual_address: int
    physical_address: int
    file_size: int
    memory_size: int
    alignment: int


@dataclass(frozen=True)
class Symbol:
    """One ELF symbol. ``section_index`` is an int, or a name such as ``SHN_UNDEF``;
    ``type``, ``binding`` and ``visibility`` are the names of :mod:`elf_format` (``FUNC``)."""

    name: str
    value: int
    size: int
    type: str
    binding: str
    visibility: str
    section_index: int | str
    #: The symbol table it comes from (``.symtab`` or ``.dynsym``) and its index there.
    table: str
    index: int
    #: Where its name starts in the table's string table (``st_name``): a linker adds names
    #: in the order it meets the symbols, which the table's own order (locals first) hides.
    name_offset: int = 0


@dataclass(frozen=True)
class Relocation:
    """One relocation record, symbol resolved. ``addend`` is 0 for SHT_REL records."""

    #: The relocation section holding it (``.rela.text``, ``.rela.dyn``).
    section: str
    #: The section it patches (from sh_info), or None for a dynamic relocation section.
    target_section: str | None
    offset: int
    type: int
    symbol: str
    symbol_value: int
    addend: int

    @property
    def type_name(self) -> str:
        """``R_AMDGPU_REL64``, as the tools print the type (``R_AMDGPU_<n>`` if unknown)."""
        return relocation_name(self.type)


@dataclass(frozen=True)
class CodeSection:
    """The bytes of an executable section and the address its first byte is at."""

    index: int
    name: str
    address: int
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class DeviceFunction:
    """A function symbol without a kernel descriptor, and its code bytes."""

    symbol: Symbol
    code: bytes = field(repr=False)

    @property
    def name(self) -> str:
        return self.symbol.name


@dataclass(frozen=True)
class Kernel:
    """A kernel: its entry function, its ``<name>.kd`` descriptor, and its metadata entry."""

    function: Symbol
    descriptor_symbol: Symbol
    descriptor: KernelDescriptor
    #: Address (ET_DYN) or section offset (ET_REL) of the first instruction, from the
    #: descriptor's KERNEL_CODE_ENTRY_BYTE_OFFSET, or its R_AMDGPU_REL64 in an ET_REL object.
    entry_address: int
    metadata: KernelMetadata | None
    code: bytes = field(repr=False)

    @property
    def name(self) -> str:
        return self.function.name


@dataclass(frozen=True)
class CodeObject:
    """Everything the reader knows about one AMDGPU code object."""

    name: str
    elf_type: ElfType
    target: Target
    code_object_version: int
    abi_version: int
    os_abi: int
    e_flags: int
    sections: tuple[Section, ...]
    segments: tuple[Segment, ...]
    symbols: tuple[Symbol, ...]
    relocations: tuple[Relocation, ...]
    kernels: tuple[Kernel, ...]
    device_functions: tuple[DeviceFunction, ...]
    variables: tuple[Symbol, ...]
    text: CodeSection | None
    metadata: CodeObjectMetadata | None
    #: The ELF file's bytes (section contents the model does not decode: variables' data).
    data: bytes = field(default=b"", repr=False, compare=False)

    def has_kernel(self, name: str) -> bool:
        """Whether :meth:`kernel` finds ``name``."""
        try:
            self.kernel(name)
        except CodeObjectError:
            return False
        return True

    def kernel(self, name: str) -> Kernel:
        """The kernel named ``name`` (function or ``.kd`` symbol name, or metadata ``.name``).

        Raises CodeObjectError listing the kernels there are, so a typo on the command line
        gets an answer rather than a KeyError.
        """
        for kernel in self.kernels:
            names = {kernel.name, kernel.descriptor_symbol.name}
            if kernel.metadata is not None:
                names.add(kernel.metadata.name)
            if name in names:
                return kernel
        available = ", ".join(kernel.name for kernel in self.kernels) or "none"
        raise CodeObjectError(self.name, f"no kernel named {name!r}; kernels: {available}")

    def section(self, name: str) -> Section | None:
        """The first section called ``name``, if any."""
        return next((section for section in self.sections if section.name == name), None)

    @property
    def processor(self) -> str:
        return self.target.processor
