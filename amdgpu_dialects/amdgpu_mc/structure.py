"""Structure ops: the code object, its kernels, device functions and global variables, and
the explicit fall-through between basic blocks.

    amdgpu_mc.code_object "gfx90a:xnack-" <{code_object_version = 5 : i64, ...}> {
      amdgpu_mc.kernel @vector_add <{descriptor = #amdgpu_mc.kernel_descriptor<...>}> {
      ^bb0:
        amdgpu_mc.s_load_dwordx4 s[0:3], s[4:5], 0x0
        ...
      }
      amdgpu_mc.global @counter <{section = ".bss", size = 4 : i64, ...}>
    }

A function body is a region whose blocks are basic blocks in layout order. A block ends in a
branch, a terminator instruction, or ``amdgpu_mc.fallthrough ^next``: control never leaves a
block implicitly, so passes that insert code see every edge.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Data, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    successor_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.descriptor import KernelDescriptorAttr
from luthier.amdgpu_dialects.amdgpu_mc.target_context import (
    TargetKey,
    parsing_target,
    print_properties,
    processor_of_target_id,
    target_key,
)
from luthier.amdgpu_dialects.isa.target import LIFT_TARGETS
from luthier.amdgpu_dialects.target.kernel_descriptor import DescriptorLayout
from luthier.amdgpu_dialects.target.subtarget import subtarget_for

#: ``s_nop 0``, the word LLVM fills code alignment and the end of ``.text`` with.
S_NOP_0 = bytes.fromhex("000080bf")
#: Byte patterns a function's ``padding_fill`` names.
PADDING_FILLS = {"s_nop": S_NOP_0, "zero": b"\0"}


def padding_bytes(fill: str, size: int) -> bytes:
    """``size`` bytes of ``fill`` (``s_nop 0`` padding comes in whole words)."""
    pattern = PADDING_FILLS[fill]
    assert size % len(pattern) == 0, (fill, size)
    return pattern * (size // len(pattern))


def int_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


@irdl_attr_definition
class DataRelocationAttr(Data[tuple[int, str, str, int]]):
    """A relocation inside a global variable's bytes: offset, type, symbol, addend
    (``#amdgpu_mc.reloc<8, R_AMDGPU_ABS64, "callee", 0>``)."""

    name = "amdgpu_mc.reloc"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[int, str, str, int]:
        with parser.in_angle_brackets():
            offset = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(",")
            kind = parser.parse_identifier()
            parser.parse_punctuation(",")
            symbol = parser.parse_str_literal()
            parser.parse_punctuation(",")
            addend = parser.parse_integer(allow_boolean=False)
        return offset, kind, symbol, addend

    def print_parameter(self, printer: Printer) -> None:
        offset, kind, symbol, addend = self.data
        printer.print_string(f'<{offset}, {kind}, "{symbol}", {addend}>')


def _print_symbol_props_region(op: IRDLOperation, printer: Printer, region: Region | None,
                               skip: Sequence[str] = ("sym_name",)) -> None:
    sym_name = op.properties.get("sym_name")
    if isinstance(sym_name, StringAttr):
        printer.print_string(" ")
        printer.print_symbol_name(sym_name.data)
    rest = {name: value for name, value in op.properties.items() if name not in skip}
    if rest:
        printer.print_string(" ")
        print_properties(printer, rest)
    if op.attributes:
        printer.print_string(" attributes ")
        printer.print_attr_dict(op.attributes)
    if region is not None:
        printer.print_string(" ")
        printer.print_region(region, print_entry_block_args=False, print_empty_block=True)


def _parse_symbol_props(parser: Parser) -> dict[str, Attribute]:
    properties: dict[str, Attribute] = {"sym_name": parser.parse_symbol_name()}
    properties.update(parser.parse_optional_properties_dict())
    return properties


def _parse_attributes(parser: Parser) -> dict[str, Attribute]:
    """Discardable attributes (``attributes {instr.sva = "v9"}``): what passes record on
    a function for later ones."""
    if parser.parse_optional_keyword("attributes") is None:
        return {}
    return parser.parse_optional_attr_dict()


class FunctionLikeOp(IRDLOperation):
    """What kernels and device functions share: a symbol with a body of basic blocks in
    layout order, an alignment and the fill before it. Passes that treat every function
    alike test ``isinstance(op, FunctionLikeOp)``; only :class:`KernelOp` and
    :class:`FunctionOp` derive from it (it names no op itself)."""

    sym_name = prop_def(SymbolNameConstraint())
    #: Byte alignment of the first instruction (kernels: 256).
    alignment = opt_prop_def(IntegerAttr)
    #: What fills the alignment gap before the function: absent for ``s_nop 0`` (what the
    #: assembler pads code with), ``"zero"`` for zero bytes (what a linker puts between
    #: separately compiled ``.text`` sections, as in ``-fgpu-rdc`` builds).
    padding_fill = opt_prop_def(StringAttr)
    #: Bytes right after the function's code that no symbol covers and no control flow
    #: reaches (data, filler words, hand-written tables), as lowercase hex: opaque to every
    #: pass, written back right after the function, before the next one's alignment gap.
    trailing_data = opt_prop_def(StringAttr)
    #: Present when the input's symbol had no size (assembly without ``.size``): the
    #: extent was inferred from the code control flow reaches before the next symbol, and
    #: the symbol is written back with size 0, as it came.
    inferred_extent = opt_prop_def(UnitAttr)
    #: Code no symbol names, which branches of other functions reach (hand-written code
    #: between functions): lifted so that passes see it, written back without a symbol.
    anonymous = opt_prop_def(UnitAttr)
    binding = opt_prop_def(StringAttr)
    visibility = opt_prop_def(StringAttr)
    body = region_def()

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    @property
    def code_alignment(self) -> int:
        """Byte alignment of the first instruction (4 when the function names none)."""
        return self.alignment.value.data if self.alignment is not None else 4

    @property
    def fill(self) -> str:
        """The :data:`PADDING_FILLS` name of what fills the gap before the function."""
        return self.padding_fill.data if self.padding_fill is not None else "s_nop"

    @property
    def trailing_bytes(self) -> bytes:
        """The opaque bytes written right after the function's code (none when absent)."""
        return bytes.fromhex(self.trailing_data.data) if self.trailing_data is not None else b""

    def print(self, printer: Printer) -> None:
        _print_symbol_props_region(self, printer, self.body)

    @classmethod
    def parse(cls, parser: Parser) -> FunctionLikeOp:
        properties = _parse_symbol_props(parser)
        attributes = _parse_attributes(parser)
        region = parser.parse_region()
        return cls.create(properties=properties, attributes=attributes, regions=[region])

    def verify_(self) -> None:
        if self.alignment is not None:
            _check_alignment(f"@{self.sym_name.data}", self.alignment.value.data)
        if self.padding_fill is not None and self.padding_fill.data not in PADDING_FILLS:
            raise VerifyException(
                f"@{self.sym_name.data}: padding_fill is one of "
                f"{', '.join(repr(name) for name in PADDING_FILLS)}, "
                f"not '{self.padding_fill.data}'")
        if self.trailing_data is not None:
            try:
                bytes.fromhex(self.trailing_data.data)
            except ValueError:
                raise VerifyException(
                    f"@{self.sym_name.data}: trailing_data is not hex") from None
        for block in self.body.blocks:
            last = block.last_op
            if last is None or not last.has_trait(IsTerminator):
                raise VerifyException(
                    f"block of @{self.sym_name.data} does not end in a branch, a terminator "
                    "or amdgpu_mc.fallthrough")


#: The largest alignment a function or variable may ask for (ELF's sh_addralign is 64-bit,
#: but a code object aligns to a page at most).
MAX_ALIGNMENT = 1 << 16


def _check_alignment(what: str, alignment: int) -> None:
    if alignment <= 0 or alignment & (alignment - 1) or alignment > MAX_ALIGNMENT:
        raise VerifyException(f"{what}: alignment {alignment} is not a power of two from 1 "
                              f"to {MAX_ALIGNMENT}")


#: Symbol bindings and visibilities by the names ELF gives them without their prefix (the
#: names of ``frontend/codeobj/elf_format.py``, which maps them to numbers).
SYMBOL_BINDINGS = ("LOCAL", "GLOBAL", "WEAK")
SYMBOL_VISIBILITIES = ("DEFAULT", "PROTECTED", "HIDDEN", "INTERNAL")
#: Types an undefined symbol can have.
EXTERN_SYMBOL_TYPES = ("NOTYPE", "OBJECT", "FUNC")


def _check_choice(what: str, attr: StringAttr | None, choices: Sequence[str]) -> None:
    if attr is not None and attr.data not in choices:
        raise VerifyException(f"{what} is one of {', '.join(choices)}, not '{attr.data}'")


@irdl_op_definition
class KernelOp(FunctionLikeOp):
    """A kernel: its entry function and its kernel descriptor (``<name>.kd``).

    The descriptor symbol takes the kernel's binding and visibility, as LLVM gives it,
    unless ``descriptor_binding``/``descriptor_visibility`` say otherwise: older compilers
    left ``.kd`` symbols at default visibility beside protected kernels, and a round trip
    keeps what the input had."""

    name = "amdgpu_mc.kernel"

    descriptor = prop_def(KernelDescriptorAttr)
    descriptor_binding = opt_prop_def(StringAttr)
    descriptor_visibility = opt_prop_def(StringAttr)

    def verify_(self) -> None:
        super().verify_()
        where = f"@{self.sym_name.data}"
        _check_choice(f"{where}: descriptor_binding", self.descriptor_binding,
                      SYMBOL_BINDINGS)
        _check_choice(f"{where}: descriptor_visibility", self.descriptor_visibility,
                      SYMBOL_VISIBILITIES)


@irdl_op_definition
class FunctionOp(FunctionLikeOp):
    """A device function (called from kernels with ``s_swappc_b64``)."""

    name = "amdgpu_mc.func"


@irdl_op_definition
class GlobalOp(IRDLOperation):
    """A global variable: its section, size, initial bytes and the relocations in them."""

    name = "amdgpu_mc.global"

    sym_name = prop_def(SymbolNameConstraint())
    section = prop_def(StringAttr)
    size = prop_def(IntegerAttr)
    alignment = opt_prop_def(IntegerAttr)
    #: Initial bytes as lowercase hex; absent for zero-filled (``.bss``) variables.
    data = opt_prop_def(StringAttr)
    relocations = opt_prop_def(ArrayAttr[DataRelocationAttr])
    binding = opt_prop_def(StringAttr)
    visibility = opt_prop_def(StringAttr)

    traits = traits_def(SymbolOpInterface())

    @property
    def initial_bytes(self) -> bytes:
        size = self.size.value.data
        return bytes.fromhex(self.data.data) if self.data is not None else bytes(size)

    def print(self, printer: Printer) -> None:
        _print_symbol_props_region(self, printer, None)

    @classmethod
    def parse(cls, parser: Parser) -> GlobalOp:
        return cls.create(properties=_parse_symbol_props(parser))

    def verify_(self) -> None:
        size = self.size.value.data
        if not 0 <= size < 1 << 48:
            raise VerifyException(f"@{self.sym_name.data}: size {size} is not a size a "
                                  "section can hold")
        if self.alignment is not None:
            _check_alignment(f"@{self.sym_name.data}", self.alignment.value.data)
        if self.data is not None:
            try:
                data = bytes.fromhex(self.data.data)
            except ValueError:
                raise VerifyException(f"@{self.sym_name.data}: data is not hex") from None
            if len(data) != self.size.value.data:
                raise VerifyException(
                    f"@{self.sym_name.data}: {len(data)} bytes of data for size "
                    f"{self.size.value.data}")


@irdl_op_definition
class ExternOp(IRDLOperation):
    """A symbol the code object uses or exports without defining it (``SHN_UNDEF``):

        amdgpu_mc.extern @name <{symbol_type = "NOTYPE", binding = "GLOBAL",
                                 visibility = "DEFAULT"}>

    A linked input can hold undefined symbols that no code refers to (an object linked
    without ``--no-undefined``); they are kept, and exported as the input exported them, so
    that the output's symbol tables say what the input's said."""

    name = "amdgpu_mc.extern"

    sym_name = prop_def(SymbolNameConstraint())
    #: ``NOTYPE`` when absent.
    symbol_type = opt_prop_def(StringAttr)
    #: ``GLOBAL`` when absent.
    binding = opt_prop_def(StringAttr)
    #: ``DEFAULT`` when absent.
    visibility = opt_prop_def(StringAttr)

    traits = traits_def(SymbolOpInterface())

    @property
    def elf_type(self) -> str:
        return self.symbol_type.data if self.symbol_type is not None else "NOTYPE"

    @property
    def elf_binding(self) -> str:
        return self.binding.data if self.binding is not None else "GLOBAL"

    @property
    def elf_visibility(self) -> str:
        return self.visibility.data if self.visibility is not None else "DEFAULT"

    def print(self, printer: Printer) -> None:
        _print_symbol_props_region(self, printer, None)

    @classmethod
    def parse(cls, parser: Parser) -> ExternOp:
        return cls.create(properties=_parse_symbol_props(parser))

    def verify_(self) -> None:
        where = f"@{self.sym_name.data}"
        _check_choice(f"{where}: symbol_type", self.symbol_type, EXTERN_SYMBOL_TYPES)
        # An undefined local symbol could be resolved by nothing.
        _check_choice(f"{where}: binding", self.binding, ("GLOBAL", "WEAK"))
        _check_choice(f"{where}: visibility", self.visibility, SYMBOL_VISIBILITIES)


#: ``SHT_NOBITS``: a section with a size and no bytes (ELF's number, as in ``elf_format``).
_SHT_NOBITS = 8
#: The bits of an unsigned 64-bit ELF field.
_U64 = (1 << 64) - 1
#: ``SHF_ALLOC``.
_SHF_ALLOC = 0x2


@irdl_op_definition
class SectionOp(IRDLOperation):
    """A section of the input that lifting does not interpret, carried to the output as
    it was (``.debug_*``, ``.comment``, notes other than the metadata note, other tools'
    sections):

        amdgpu_mc.section ".debug_str" <{section_type = 1 : i64, flags = 48 : i64,
                                         entry_size = 1 : i64, data = "6100"}>

    ``data`` is the contents as lowercase hex (absent when empty; ``size`` gives the size
    of an ``SHT_NOBITS`` section instead). ``layout`` marks contents that hold the input's
    addresses: it is the digest of the input's symbol layout
    (:func:`luthier.frontend.codeobj.carried.layout_digest`), and the writer keeps the
    section only when its output has the same layout, so a section whose addresses the
    instrumented code made stale is dropped (with a warning) rather than written wrong."""

    name = "amdgpu_mc.section"

    section = prop_def(StringAttr)
    #: ``sh_type``.
    section_type = prop_def(IntegerAttr)
    #: ``sh_flags``.
    flags = prop_def(IntegerAttr)
    #: ``sh_addralign``; 1 when absent.
    alignment = opt_prop_def(IntegerAttr)
    #: ``sh_entsize``; 0 when absent.
    entry_size = opt_prop_def(IntegerAttr)
    data = opt_prop_def(StringAttr)
    size = opt_prop_def(IntegerAttr)
    layout = opt_prop_def(StringAttr)

    @property
    def contents(self) -> bytes:
        return bytes.fromhex(self.data.data) if self.data is not None else b""

    # The ELF fields are unsigned 64-bit words, the properties i64: a field with its top bit
    # set (an input's sh_flags can have any bit) prints as a negative i64, and is read back
    # here as the same 64 bits.

    @property
    def section_flags(self) -> int:
        """``sh_flags``, unsigned."""
        return self.flags.value.data & _U64

    @property
    def section_size(self) -> int:
        if self.size is not None:
            return self.size.value.data & _U64
        return len(self.data.data) // 2 if self.data is not None else 0

    @property
    def section_alignment(self) -> int:
        return self.alignment.value.data & _U64 if self.alignment is not None else 1

    @property
    def section_entry_size(self) -> int:
        return self.entry_size.value.data & _U64 if self.entry_size is not None else 0

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.section.data)
        rest = {name: value for name, value in self.properties.items() if name != "section"}
        printer.print_string(" ")
        print_properties(printer, rest)

    @classmethod
    def parse(cls, parser: Parser) -> SectionOp:
        section = parser.parse_str_literal("the section's name, such as \".debug_str\"")
        properties = parser.parse_optional_properties_dict()
        properties["section"] = StringAttr(section)
        return cls.create(properties=properties)

    def verify_(self) -> None:
        where = f"section {self.section.data}"
        if not self.section.data:
            raise VerifyException("a carried section has a name")
        if not 0 <= self.section_type.value.data < 1 << 32:
            raise VerifyException(f"{where}: section_type {self.section_type.value.data} is "
                                  "not a 32-bit sh_type")
        if self.alignment is not None:
            _check_alignment(where, self.section_alignment)
        if self.data is not None:
            try:
                bytes.fromhex(self.data.data)
            except ValueError:
                raise VerifyException(f"{where}: data is not hex") from None
        nobits = self.section_type.value.data == _SHT_NOBITS
        if nobits and self.data is not None:
            raise VerifyException(f"{where}: an SHT_NOBITS section has no data")
        if self.size is not None and not nobits:
            raise VerifyException(f"{where}: size is for SHT_NOBITS sections (the data "
                                  "gives the others')")
        if self.layout is not None and self.section_flags & _SHF_ALLOC:
            raise VerifyException(f"{where}: an allocated section cannot depend on the "
                                  "layout (its own address is part of it)")


@irdl_op_definition
class FallthroughOp(IRDLOperation):
    """Control falls into the next block in layout order (emits no bytes).

    It is the last op of its block (a terminator) and names the block right after that
    one in the region: layout order is execution order here, so a fall-through to any
    other block could not be emitted (that edge needs a branch). The verifier holds
    emitters, the emulator and layout passes to this, so none of them checks it again.
    """

    name = "amdgpu_mc.fallthrough"

    dest = successor_def()
    traits = traits_def(IsTerminator())

    def __init__(self, dest: Block) -> None:
        super().__init__(successors=[dest])

    def verify_(self) -> None:
        block = self.parent_block()
        if block is None:
            return
        if block.next_block is not self.dest:
            raise VerifyException(
                "amdgpu_mc.fallthrough must name the next block (insert a branch to reach "
                "another one)")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_block_name(self.dest)

    @classmethod
    def parse(cls, parser: Parser) -> FallthroughOp:
        return cls(parser.parse_successor())


@irdl_op_definition
class LabelOp(IRDLOperation):
    """A place in a function's code that a branch of another function goes to (emits no
    bytes): ``amdgpu_mc.label "second+0x10"``, named ``<function>+<offset it had in the
    input>``, where a branch elsewhere names it (``amdgpu_mc.s_branch "second+0x10"``).

    Hand-written code may share a tail between kernels, or jump into another symbol's
    range; the lifter keeps such a branch as it was instead of refusing it. The label is
    where the branch lands: right before the instruction that followed it in the input,
    so payloads inserted before that instruction come after the label and run on both
    paths, as they would for a branch inside the function.
    """

    name = "amdgpu_mc.label"

    label = prop_def(StringAttr)

    def __init__(self, label: str) -> None:
        super().__init__(properties={"label": StringAttr(label)})

    def verify_(self) -> None:
        function = self.parent_op()
        while function is not None and not isinstance(function, FunctionLikeOp):
            function = function.parent_op()
        if function is None:
            return
        name = function.sym_name.data
        prefix, plus, rest = self.label.data.rpartition("+")
        if prefix != name or not plus or not rest:
            raise VerifyException(f"label \"{self.label.data}\" in @{name} must be named "
                                  f"\"{name}+<offset>\" (a branch finds its function by "
                                  "the name)")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.label.data)

    @classmethod
    def parse(cls, parser: Parser) -> LabelOp:
        return cls(parser.parse_str_literal("a label name, such as \"second+0x10\""))


@irdl_op_definition
class CodeObjectOp(IRDLOperation):
    """An AMDGPU code object: target, ELF-level facts, metadata; kernels, functions and
    variables in its body, in layout order, then the undefined symbols (``extern``) and the
    sections carried from the input without being interpreted (``section``)."""

    name = "amdgpu_mc.code_object"

    #: Target ID as ``--offload-arch`` spells it: ``gfx90a:sramecc+:xnack-``.
    target = prop_def(StringAttr)
    code_object_version = prop_def(IntegerAttr)
    #: ``"dyn"`` (a loadable code object) or ``"rel"`` (a relocatable object).
    elf_type = prop_def(StringAttr)
    e_flags = prop_def(IntegerAttr)
    abi_version = prop_def(IntegerAttr)
    #: Bytes of ``s_nop 0`` padding after the last function (LLVM pads ``.text`` so that
    #: instruction prefetch past the end stays inside the section).
    text_padding = opt_prop_def(IntegerAttr)
    #: Bytes of ``s_nop 0`` before the first function (left by a linker that joined
    #: ``.text`` sections, one of which held only padding).
    text_leading_padding = opt_prop_def(IntegerAttr)
    #: Bytes at the start of ``.text``, before the first function, that are not code any
    #: symbol names (a table hand-written assembly put there), in hex: kept byte for byte
    #: and never read by a pass; the first function follows at its alignment.
    text_leading_data = opt_prop_def(StringAttr)
    #: The compiler's identification string (ELF ``.comment``).
    ident = opt_prop_def(StringAttr)
    #: The input was linked by an ld.lld before 18, which ended ``PT_GNU_RELRO`` at its page
    #: boundary without a ``.relro_padding`` section: a relink does the same, so that the
    #: file keeps its layout (an identity round trip gives it back byte for byte).
    unpadded_relro = opt_prop_def(UnitAttr)
    #: Symbol names in the order of the ELF symbol table, kept so that emitting an
    #: unchanged code object reproduces its symbol table (new symbols go last).
    symbol_order = opt_prop_def(ArrayAttr[StringAttr])
    #: The AMDGPU metadata note (see :mod:`.metadata`).
    metadata = opt_prop_def(DictionaryAttr)
    #: Lanes of a wave when they are not the processor's default: 64 on an RDNA processor
    #: (code compiled with ``-mwavefrontsize64``). Every kernel of the code object runs in
    #: it (its descriptor says so), and its instructions are read in it: ``vcc`` is an SGPR
    #: pair in wave64, ``vcc_lo`` one SGPR in wave32.
    wavefront_size = opt_prop_def(IntegerAttr)
    body = region_def("single_block")

    traits = traits_def(NoTerminator(), SymbolTable(), IsolatedFromAbove())

    @property
    def processor(self) -> str:
        return processor_of_target_id(self.target.data)

    @property
    def leading_bytes(self) -> bytes:
        """``text_leading_data`` as bytes (none when absent)."""
        data = self.text_leading_data
        return bytes.fromhex(data.data) if data is not None else b""

    @property
    def wave_size(self) -> int:
        """Lanes of a wave of this code object's kernels."""
        if self.wavefront_size is not None:
            return self.wavefront_size.value.data
        return subtarget_for(self.processor).default_wave_size

    @property
    def target_key(self) -> TargetKey:
        """The processor and wave size, as the MC layer's tables are asked for them."""
        wave = self.wavefront_size
        return target_key(self.processor, None if wave is None else wave.value.data)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.target.data)
        rest = {name: value for name, value in self.properties.items()
                if name not in ("target", "metadata")}
        if "metadata" in self.properties:
            rest["metadata"] = self.properties["metadata"]
        printer.print_string(" ")
        print_properties(printer, rest)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    @classmethod
    def parse(cls, parser: Parser) -> CodeObjectOp:
        position = parser.pos
        target = parser.parse_str_literal("the target, such as \"gfx90a:xnack-\"")
        processor = processor_of_target_id(target)
        if processor not in LIFT_TARGETS:
            parser.raise_error(
                f"unknown target '{processor}' (supported: {', '.join(LIFT_TARGETS)})",
                position, parser.pos)
        properties = parser.parse_optional_properties_dict()
        properties["target"] = StringAttr(target)
        wave = properties.get("wavefront_size")
        wave_size = wave.value.data if isinstance(wave, IntegerAttr) else None
        if wave_size is not None and wave_size not in subtarget_for(processor).wave_sizes:
            parser.raise_error(f"{processor} runs waves of "
                               f"{' or '.join(map(str, subtarget_for(processor).wave_sizes))} "
                               f"lanes, not {wave_size}", position, parser.pos)
        with parsing_target(processor, wave_size):
            region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        return cls.create(properties=properties, regions=[region])

    def verify_(self) -> None:
        if self.processor not in LIFT_TARGETS:
            raise VerifyException(f"unknown target '{self.processor}'")
        if self.elf_type.data not in ("dyn", "rel"):
            raise VerifyException(f"elf_type is 'dyn' or 'rel', not '{self.elf_type.data}'")
        if self.text_leading_data is not None:
            try:
                bytes.fromhex(self.text_leading_data.data)
            except ValueError:
                raise VerifyException("text_leading_data is not hex") from None
        subtarget = subtarget_for(self.processor)
        wave = self.wave_size
        if wave not in subtarget.wave_sizes:
            raise VerifyException(f"{self.processor} runs waves of "
                                  f"{' or '.join(map(str, subtarget.wave_sizes))} lanes, "
                                  f"not {wave}")
        layout = subtarget.descriptor_layout
        for op in self.body.ops:
            if isinstance(op, KernelOp) and subtarget.major >= 10 \
                    and op.descriptor.data.kernel_code_properties.enable_wavefront_size32 \
                    != (wave == 32):
                raise VerifyException(
                    f"@{op.sym_name.data}: its descriptor's ENABLE_WAVEFRONT_SIZE32 says "
                    f"wave{32 if wave == 64 else 64}, the code object is wave{wave} (set "
                    "the code object's wavefront_size to match)")
            if isinstance(op, KernelOp) and op.descriptor.data.layout is not layout:
                spelling = ("without a layout" if layout is DescriptorLayout.GFX9
                            else f"starting with '{layout}'")
                raise VerifyException(
                    f"@{op.sym_name.data}: a {self.processor} kernel descriptor has layout "
                    f"'{layout}', not '{op.descriptor.data.layout}' (write "
                    f"#amdgpu_mc.kernel_descriptor<...> {spelling})")


def code_objects_in(root: Operation) -> list[CodeObjectOp]:
    """The code objects under ``root`` (or ``root`` itself), in the order ``root.walk()``
    meets them, without walking into any: a lifted code object holds an op per instruction
    and, once instrumented, a payload per point, and passes that look for code objects
    would otherwise visit them all (a tenth of a second per look on a 55k-instruction
    library)."""
    found: list[CodeObjectOp] = []
    pending: list[Operation] = [root]
    while pending:
        op = pending.pop()
        if isinstance(op, CodeObjectOp):
            found.append(op)
            continue
        children = [child for region in op.regions for block in region.blocks
                    for child in block.ops]
        pending.extend(reversed(children))
    return found
