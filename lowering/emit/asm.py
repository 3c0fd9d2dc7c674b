"""``amdgpu_mc`` IR -> LLVM-syntax assembly that ``llvm-mc`` assembles to what
:func:`~luthier.lowering.emit.object_spec.emit_relocatable` writes.

The text describes the object that :func:`~luthier.lowering.emit.object_spec.object_spec`
builds, section by section, in the same layout: ``.text`` holds the functions in order, each
behind a ``.p2align`` (which the AMDGPU assembler fills with ``s_nop 0``, the padding the
emitter writes) and followed by a ``.fill`` of ``s_nop 0`` for the tail padding; ``.rodata``
holds one ``.amdhsa_kernel`` block per kernel, then the read-only variables; the other data
sections hold the variables with their relocations as ``.quad``/``.long`` expressions; the
metadata note comes last. Symbols are declared up front in the order of the original symbol
table, because the assembler writes symbols in the order it first sees them.

Every instruction is checked with our own assembler (the printed line is parsed and encoded
again, as llvm-mc would). A line that would not give back the instruction's bytes (for
example a literal whose value LLVM would shorten to an inline constant) is written as raw
``.long`` words with the text as a comment, and counted as a fallback. Whatever assembly
cannot express raises :class:`EmitError`. See docs/emit-asm.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, branch_label
from luthier.amdgpu_dialects.amdgpu_mc.layout import (
    ZERO_LITERAL,
    UnsizedError,
    function_layout,
)
from luthier.amdgpu_dialects.amdgpu_mc.metadata import attr_to_metadata
from luthier.amdgpu_dialects.amdgpu_mc.operands import (
    NotMCOperandError,
    SymbolOperandAttr,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    S_NOP_0,
    CodeObjectOp,
    ExternOp,
    FunctionLikeOp,
    GlobalOp,
    KernelOp,
    LabelOp,
    SectionOp,
)
from luthier.amdgpu_dialects.isa.target import InstrDef, TargetISA, load_target
from luthier.amdgpu_dialects.mc.asm_matcher import BRANCH_PLACEHOLDER, LITERAL_PLACEHOLDER
from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, AsmParser, parser_for
from luthier.amdgpu_dialects.mc.decoder import MCInst
from luthier.amdgpu_dialects.mc.encoder import EncodeError, Encoder, encoder_for
from luthier.amdgpu_dialects.mc.operand_decoders import Literal, Operand
from luthier.amdgpu_dialects.mc.printer import InstPrinter, print_immediate, printer_for
from luthier.amdgpu_dialects.mc.relocations import (
    data_expression,
    literal_relocation,
    relocation_named,
)
from luthier.amdgpu_dialects.target.target_id import Target, decode_e_flags
from luthier.frontend.codeobj.carried import kept_unlinked
from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHF_MERGE,
    SHF_STRINGS,
    SHF_WRITE,
    SHT_NOBITS,
    SHT_NOTE,
    SHT_PROGBITS,
)
from luthier.lowering.asm import (
    DirectiveError,
    kernel_descriptor_directives,
    metadata_directives,
    target_directives,
)
from luthier.lowering.emit.errors import EmitError
from luthier.lowering.emit.object_spec import UNLINKED, carried_dropped_warning

TOP = "\t"
#: What the assembler reads as one symbol name without quoting, and not as a local label.
_PLAIN_SYMBOL = re.compile(r"[A-Za-z_$][\w.$]*|\.(?!L)[\w.$]+")
_BINDINGS = {"GLOBAL": ".globl", "WEAK": ".weak", "LOCAL": None}
_VISIBILITIES = {
    "DEFAULT": None,
    "PROTECTED": ".protected",
    "HIDDEN": ".hidden",
    "INTERNAL": ".internal",
}
_S_NOP_0_WORD = int.from_bytes(S_NOP_0, "little")


@dataclass(frozen=True)
class Fallback:
    """An instruction written as raw words: where (offset in its function), its text, its
    bytes (symbolic literals as zero), and why the text would not do."""

    function: str
    offset: int
    text: str
    data: bytes
    reason: str


@dataclass(frozen=True)
class AssemblyOutput:
    """The assembly text and what it took to make it exact."""

    text: str
    instructions: int
    fallbacks: tuple[Fallback, ...] = ()
    #: What the text leaves out of the IR, one line per kind (carried sections that hold
    #: the linked input's addresses).
    warnings: tuple[str, ...] = ()


def emit_assembly(module: ModuleOp | CodeObjectOp, *,
                  warnings: list[str] | None = None) -> str:
    """The code object of ``module`` as llvm-mc assembly; raises :class:`EmitError`. What
    it leaves out is appended to ``warnings``, one line per kind."""
    output = assemble_listing(module)
    if warnings is not None:
        warnings.extend(output.warnings)
    return output.text


def assemble_listing(module: ModuleOp | CodeObjectOp, *, force_raw: bool = False) -> AssemblyOutput:
    """Like :func:`emit_assembly`, with the instruction count and the raw-word fallbacks.

    ``force_raw`` writes every instruction as words (text in comments): a listing that
    does not depend on the printer, and a check of the raw-word path itself.
    """
    code_object = _single_code_object(module)
    return _AsmWriter(code_object, force_raw).write()


def _single_code_object(module: ModuleOp | CodeObjectOp) -> CodeObjectOp:
    if isinstance(module, CodeObjectOp):
        return module
    found = [op for op in module.ops if isinstance(op, CodeObjectOp)]
    if len(found) != 1:
        raise EmitError(
            f"an assembly file holds one amdgpu_mc.code_object, the input has {len(found)}"
        )
    return found[0]


def _check_symbol(name: str) -> str:
    """Names are printed unquoted; one the assembler would read otherwise is refused (a
    ``.L`` name would even vanish from the symbol table as an assembler-local label)."""
    if not _PLAIN_SYMBOL.fullmatch(name):
        raise EmitError(f"symbol '{name}' cannot be written as an assembly symbol name")
    return name


def _p2align(alignment: int, what: str) -> int:
    if alignment <= 0 or alignment & (alignment - 1):
        raise EmitError(f"{what}: alignment {alignment} is not a power of two")
    return alignment.bit_length() - 1


def _symbol_directives(name: str, binding: str, visibility: str) -> list[str]:
    if binding not in _BINDINGS:
        raise EmitError(f"{name}: binding {binding} has no assembler directive")
    if visibility not in _VISIBILITIES:
        raise EmitError(f"{name}: visibility {visibility} has no assembler directive")
    return [
        f"{TOP}{directive}\t{name}"
        for directive in (_BINDINGS[binding], _VISIBILITIES[visibility])
        if directive is not None
    ]


def _words(data: bytes) -> list[int]:
    return [int.from_bytes(data[i : i + 4], "little") for i in range(0, len(data), 4)]


@dataclass
class _Instruction:
    """One instruction on its way out: its final bytes and, once checked, its line(s)."""

    op: InstructionOpBase
    desc: InstrDef
    offset: int
    data: bytes
    symbols: list[SymbolOperandAttr] = field(default_factory=lambda: list[SymbolOperandAttr]())


class _FunctionWriter:
    """Lays out one function's blocks like the object emitter and prints its lines."""

    def __init__(
        self, writer: _AsmWriter, op: FunctionLikeOp, index: int, start: int
    ) -> None:
        self.writer = writer
        self.op = op
        self.name = op.sym_name.data
        self.index = index
        self.start = start
        self.blocks = list(op.body.blocks)
        self.labels = {block: f".LBB{index}_{number}" for number, block in enumerate(self.blocks)}
        self.block_offsets: dict[Block, int] = {}
        #: Offset in ``.text`` after the function's last instruction (set by ``layout``).
        self.end = start

    def _mcinst(
        self, op: InstructionOpBase, desc: InstrDef, branch: int, symbol_value: Operand
    ) -> MCInst:
        """The MCInst, with ``symbol_value`` for a symbolic operand and ``branch`` as the
        offset of a branch."""
        for attr in op.mc_operands.data:
            if not isinstance(attr, SymbolOperandAttr):
                continue
            reference = attr.data.reference
            if reference is None or literal_relocation(reference.variant, True) is None:
                raise EmitError(
                    f"{self.name}: cannot encode symbolic operand {attr.data.text()}")
        try:
            return op.to_mcinst(desc, symbol_value, branch)
        except NotMCOperandError as error:
            raise EmitError(f"{self.name}: {op.mnemonic}: {error}") from None

    def _encode(self, op: InstructionOpBase, inst: MCInst) -> bytes:
        try:
            return self.writer.encoder.encode(inst, keep_literals=True)
        except EncodeError as error:
            raise EmitError(f"{self.name}: {op.mnemonic}: {error}") from None

    def layout(self) -> list[_Instruction | Block | LabelOp]:
        """Blocks (as label markers) and instructions with their final bytes, where the
        dialect's :func:`~luthier.amdgpu_dialects.amdgpu_mc.layout.function_layout` puts
        them (as the object emitter does)."""
        try:
            code = function_layout(self.op, self.writer.isa)
        except UnsizedError as error:
            raise EmitError(f"{self.name}: {error}") from None
        for block, offset in code.block_offsets.items():
            self.block_offsets[block] = self.start + offset
        items: list[_Instruction | Block | LabelOp] = []
        for block in self.blocks:
            items.append(block)
            for inner in block.ops:
                if type(inner) is LabelOp:
                    items.append(inner)
                if not isinstance(inner, InstructionOpBase):
                    continue
                desc = self.writer.isa.by_name[inner.opcode.data]
                symbols = [
                    attr for attr in inner.mc_operands.data if isinstance(attr, SymbolOperandAttr)
                ]
                item = _Instruction(inner, desc, self.start + code.offsets[inner], b"", symbols)
                branch = self._branch_offset(item) if inner.KIND == "branch" else 0
                item.data = self._encode(inner, self._mcinst(inner, desc, branch,
                                                             ZERO_LITERAL))
                items.append(item)
        self.end = self.start + code.size
        return items

    def _branch_offset(self, item: _Instruction) -> int:
        if branch_label(item.op) is not None:
            return 0  # into another function: the assembler resolves it (no raw words)
        if not item.op.successors:
            raise EmitError(f"{self.name}: {item.op.mnemonic} has no target block")
        target = self.block_offsets.get(item.op.successors[0])
        if target is None:
            raise EmitError(f"{self.name}: {item.op.mnemonic} targets a block of another function")
        branch = (target - (item.offset + 4)) // 4
        if not -(1 << 15) <= branch < (1 << 15):
            raise EmitError(
                f"{self.name}: {item.op.mnemonic} at "
                f"{item.offset - self.start:#x} cannot reach its target (more "
                "than 128 KiB away)"
            )
        return branch & 0xFFFF

    def text_of(self, item: _Instruction) -> str:
        """The instruction as LLVM prints it, symbols and branch targets by name."""
        op, desc = item.op, item.desc
        text = self.writer.printer.print(
            self._mcinst(op, desc, BRANCH_PLACEHOLDER, LITERAL_PLACEHOLDER))
        for slot, attr in zip(desc.operands, op.mc_operands.data, strict=True):
            if isinstance(attr, SymbolOperandAttr):
                text = text.replace(
                    print_immediate(LITERAL_PLACEHOLDER, slot.kind.operand_type),
                    attr.data.text(),
                    1,
                )
        if op.KIND == "branch":
            pcrel = next(
                slot for slot in desc.operands if slot.kind.operand_type == "OPERAND_PCREL"
            )
            text = text.replace(
                print_immediate(BRANCH_PLACEHOLDER, pcrel.kind.operand_type),
                self._target_label(op),
                1,
            )
        return text

    def _target_label(self, op: InstructionOpBase) -> str:
        """The assembler label a branch goes to: its block's, or another function's."""
        label = branch_label(op)
        if label is None:
            return self.labels[op.successors[0]]
        found = self.writer.cross_labels.get(label.data)
        if found is None:
            raise EmitError(f"{self.name}: {op.mnemonic} goes to label \"{label.data}\", "
                            "which no function has")
        return found

    def mismatch(self, item: _Instruction, text: str) -> str | None:
        """Why assembling ``text`` would not give the instruction's bytes, or None (memoised
        per text and bytes: real code repeats instructions a lot)."""
        if self.writer.force_raw:
            return "raw words requested"
        want = item.data
        if item.symbols or item.op.KIND == "branch":
            want = self._encode(item.op, self._mcinst(
                item.op, item.desc, BRANCH_PLACEHOLDER, Literal(LITERAL_PLACEHOLDER)))
        key = (text, want)
        if key not in self.writer.checked:
            self.writer.checked[key] = self._reassembly_mismatch(item, text, want)
        return self.writer.checked[key]

    def _reassembly_mismatch(self, item: _Instruction, text: str, want: bytes) -> str | None:
        try:
            matched = self.writer.parser.parse_statement(text)
            got = self.writer.encoder.encode(matched.inst)
        except (AsmParseError, EncodeError) as error:
            return f"our assembler rejects the text: {error}"
        if got != want:
            return f"assembles to {got.hex()}, not {want.hex()}"
        expected = [attr.data.text() for attr in item.symbols]
        if item.op.KIND == "branch":
            expected.append(self._target_label(item.op))
        found = [fixup.expr.text() for fixup in matched.fixups]
        if sorted(found) != sorted(expected):
            return f"symbolic operands read back as {found}, not {expected}"
        return None

    def instruction_lines(self, item: _Instruction) -> list[str]:
        text = self.text_of(item)
        reason = self.mismatch(item, text)
        if reason is None:
            return [f"{TOP}{text}"]
        if branch_label(item.op) is not None:
            raise EmitError(f"{self.name}: {text}: {reason}")  # its words need the label
        self.writer.fallbacks.append(
            Fallback(self.name, item.offset - self.start, text, item.data, reason)
        )
        return self._raw_lines(item, text)

    def _raw_lines(self, item: _Instruction, text: str) -> list[str]:
        """The instruction's words, and its symbolic literal as a data expression (the
        relocation then is the one the instruction would carry)."""
        if len(item.symbols) > 1:
            raise EmitError(f"{self.name}: {text}: more than one symbolic operand")
        head = item.data[: item.desc.size] if item.symbols else item.data
        words = [f"0x{word:08x}" for word in _words(head)]
        if item.symbols:
            if len(item.data) != item.desc.size + 4:
                raise EmitError(f"{self.name}: {text}: symbolic operand without a literal")
            words.append(item.symbols[0].data.text())
        return [f"{TOP}.long\t{', '.join(words)}\t// {text}"]

    def _align_line(self, alignment: int) -> str:
        """``.p2align N``: the assembler pads code with ``s_nop 0``. A ``zero`` fill (what a
        linker leaves between joined sections) needs ``.p2alignl N, 0``: with one-byte
        fill values llvm-mc takes a zero fill for code alignment and writes ``s_nop 0``
        anyway (gaps are whole words: instructions are)."""
        fill = _string_property(self.op, "padding_fill") or "s_nop"
        if fill not in ("s_nop", "zero"):
            raise EmitError(f"{self.name}: unknown padding fill '{fill}'")
        power = _p2align(alignment, self.name)
        if fill == "zero" and alignment >= len(S_NOP_0):
            return f"{TOP}.p2alignl\t{power}, 0"
        return f"{TOP}.p2align\t{power}"

    def lines(self, alignment: int) -> list[str]:
        items = self.layout()
        name = self.name
        if self.op.anonymous is not None:
            # Code no symbol names: an assembler-local label, which makes no symbol.
            out = [f"{TOP}.text", self._align_line(alignment), f".L{name}:"]
        else:
            out = [
                f"{TOP}.text",
                *_symbol_directives(
                    name, self.writer.binding(self.op), self.writer.declared_visibility(self.op)
                ),
                self._align_line(alignment),
                f"{TOP}.type\t{name},@function",
                f"{name}:",
            ]
        for item in items:
            if isinstance(item, Block):
                out.append(f"{self.labels[item]}:")
            elif isinstance(item, LabelOp):
                out.append(f"{self.writer.cross_labels[item.label.data]}:"
                           f"\t// {item.label.data}")
            else:
                self.writer.instructions += 1
                out += self.instruction_lines(item)
        out.append(f".Lfunc_end{self.index}:")
        if self.op.inferred_extent is None:  # a symbol that came without a size stays so
            out.append(f"{TOP}.size\t{name}, .Lfunc_end{self.index}-{name}")
        trailing = self.op.trailing_bytes
        out += _byte_lines(trailing)
        self.end += len(trailing)
        return out


class _AsmWriter:
    """Writes one code object: target, text, descriptors, variables, metadata."""

    def __init__(self, code_object: CodeObjectOp, force_raw: bool = False) -> None:
        self.code_object = code_object
        self.force_raw = force_raw
        #: (printed text, bytes wanted) -> why the text does not give them, or None.
        self.checked: dict[tuple[str, bytes], str | None] = {}
        # In the code object's wave size: an RDNA wave64 object's lane masks are pairs.
        target = code_object.target_key
        self.isa: TargetISA = load_target(*target)
        self.encoder: Encoder = encoder_for(*target)
        self.printer: InstPrinter = printer_for(*target)
        self.parser: AsmParser = parser_for(*target)
        self.target = self._target()
        self.fallbacks: list[Fallback] = []
        self.warnings: list[str] = []
        self.instructions = 0
        ops = list(code_object.body.ops)
        self.functions = [op for op in ops if isinstance(op, FunctionLikeOp)]
        self.variables = [op for op in ops if isinstance(op, GlobalOp)]
        self.externs = [op for op in ops if isinstance(op, ExternOp)]
        self.sections = [op for op in ops if isinstance(op, SectionOp)]
        others = [op.name for op in ops
                  if not isinstance(op, FunctionLikeOp | GlobalOp | ExternOp | SectionOp)]
        if others:
            raise EmitError(f"'{others[0]}' cannot be emitted in a code object")
        #: ``amdgpu_mc.label`` name -> its assembler label (branches between functions).
        self.cross_labels: dict[str, str] = {}
        for function in self.functions:
            for block in function.body.blocks:
                for op in block.ops:
                    if type(op) is LabelOp:
                        label = op.label.data
                        if label in self.cross_labels:
                            raise EmitError(f"label \"{label}\" is defined twice")
                        self.cross_labels[label] = f".Lcross{len(self.cross_labels)}"

    def _target(self) -> Target:
        """The target of ``e_flags`` (what the object emitter writes); llvm-mc derives
        e_flags from ``.amdgcn_target``, so the IR's target string must say the same."""
        code_object = self.code_object
        version = code_object.code_object_version.value.data
        target = decode_e_flags(code_object.e_flags.value.data, version)
        if isinstance(target, str):
            raise EmitError(f"e_flags 0x{code_object.e_flags.value.data:x}: {target}")
        if target.offload_arch != code_object.target.data:
            raise EmitError(
                f"target '{code_object.target.data}' differs from the e_flags "
                f"target '{target.offload_arch}'"
            )
        return target

    @staticmethod
    def binding(op: FunctionLikeOp | GlobalOp) -> str:
        return op.binding.data if op.binding else "GLOBAL"

    @staticmethod
    def visibility(op: FunctionLikeOp | GlobalOp) -> str:
        return op.visibility.data if op.visibility else "DEFAULT"

    def declared_visibility(self, function: FunctionLikeOp) -> str:
        """The visibility to declare ``function`` with. llvm-mc gives a kernel's ``.kd`` the
        visibility the kernel has when its descriptor is written, then makes a default
        kernel protected: so a protected kernel with a default ``.kd`` (what older compilers
        made) is declared default, and other pairs that differ cannot be assembled."""
        visibility = self.visibility(function)
        if not isinstance(function, KernelOp):
            return visibility
        binding = function.descriptor_binding
        if binding is not None and binding.data != self.binding(function):
            raise EmitError(f"kernel {function.sym_name.data}: a descriptor binding other "
                            "than the kernel's cannot be assembled")
        wanted = function.descriptor_visibility
        if wanted is None or wanted.data == visibility:
            return visibility
        if wanted.data == "DEFAULT" and visibility == "PROTECTED":
            return "DEFAULT"
        raise EmitError(f"kernel {function.sym_name.data}: a {wanted.data.lower()} descriptor "
                        f"of a {visibility.lower()} kernel cannot be assembled")

    def write(self) -> AssemblyOutput:
        try:
            lines = [
                f"{TOP}.text",
                *target_directives(self.target, self.code_object.code_object_version.value.data),
            ]
            if self.code_object.wavefront_size is not None:
                # No directive sets the wave size the operands are read in (vcc or vcc_lo):
                # llvm-mc takes it from its options, as clang passes them.
                wave = self.code_object.wavefront_size.value.data
                lines.insert(0, f"// wave{wave}: assemble with llvm-mc "
                                f"-mattr=+wavefrontsize{wave}")
            lines += self._symbol_declarations()
            lines += self._text_lines()
            lines += self._descriptor_lines()
            lines += self._variable_lines()
            if self.code_object.ident is not None:
                lines.append(f"{TOP}.ident\t{_quoted(self.code_object.ident.data)}")
            if self.code_object.metadata is not None:
                lines += metadata_directives(attr_to_metadata(self.code_object.metadata))
            lines += self._carried_lines()
        except DirectiveError as error:
            raise EmitError(str(error)) from None
        return AssemblyOutput("\n".join(lines) + "\n", self.instructions, tuple(self.fallbacks),
                              tuple(self.warnings))

    def _defined_symbols(self) -> dict[str, str]:
        """Every symbol this object defines -> its ELF type, in emitter order."""
        symbols: dict[str, str] = {}
        for function in self.functions:
            if function.anonymous is None:  # code no symbol names gets none
                symbols[_check_symbol(function.sym_name.data)] = "@function"
        for function in self.functions:
            if isinstance(function, KernelOp):
                symbols[f"{function.sym_name.data}.kd"] = "@object"
        for variable in self.variables:
            symbols[_check_symbol(variable.sym_name.data)] = "@object"
        return symbols

    def _symbol_declarations(self) -> list[str]:
        """``.type`` for every defined symbol and the directives of every undefined one, in
        the original symbol table's order: the assembler numbers symbols in the order it
        first meets them."""
        symbols = self._defined_symbols()
        externs = {_check_symbol(op.sym_name.data): op for op in self.externs}
        order = self.code_object.symbol_order
        rank = {name.data: index for index, name in enumerate(order.data)} if order else {}
        names = sorted([*symbols, *externs], key=lambda name: rank.get(name, len(rank)))
        lines: list[str] = []
        for name in names:
            extern = externs.get(name)
            if extern is None:
                lines.append(f"{TOP}.type\t{name},{symbols[name]}")
                continue
            # An undefined symbol is declared by its binding directive alone.
            lines += _symbol_directives(name, extern.elf_binding, extern.elf_visibility)
            kind = _EXTERN_TYPES[extern.elf_type]
            if kind is not None:
                lines.append(f"{TOP}.type\t{name},{kind}")
        return lines

    def _carried_lines(self) -> list[str]:
        """The sections carried from the input, as data, but for those an object still to
        be linked cannot keep (:func:`kept_unlinked`), named in one warning."""
        lines: list[str] = []
        dropped: list[SectionOp] = []
        for section in self.sections:
            if not kept_unlinked(section.section.data, section.layout is not None):
                dropped.append(section)
                continue
            lines += _carried_section_lines(section)
        if dropped:
            self.warnings.append(carried_dropped_warning(
                [op.section.data for op in dropped], [op.section_size for op in dropped],
                UNLINKED))
        return lines

    def _text_lines(self) -> list[str]:
        lines: list[str] = []
        leading = self.code_object.leading_bytes
        if leading:
            lines += [f"{TOP}.text", *_byte_lines(leading)]
        offset = _s_nop_bytes(self.code_object, "text_leading_padding")
        if offset:
            lines += [f"{TOP}.text", _s_nop_fill(offset)]
        offset += len(leading)
        for index, function in enumerate(self.functions):
            self._check_kernel_visibility(function)
            alignment = function.alignment.value.data if function.alignment is not None else 4
            _p2align(alignment, function.sym_name.data)
            start = (offset + alignment - 1) // alignment * alignment
            writer = _FunctionWriter(self, function, index, start)
            lines += writer.lines(alignment)
            offset = writer.end
        padding = _s_nop_bytes(self.code_object, "text_padding")
        if padding:
            lines.append(_s_nop_fill(padding))
        return lines

    def _check_kernel_visibility(self, function: FunctionLikeOp) -> None:
        """llvm-mc makes a default-visibility kernel symbol protected (the descriptor's
        static relocation needs it) but gives ``.kd`` the kernel's visibility before that;
        the object emitter writes other pairs, which assembly cannot reproduce."""
        if isinstance(function, KernelOp) and self.visibility(function) == "DEFAULT":
            raise EmitError(
                f"kernel {function.sym_name.data}: default visibility cannot be "
                "assembled (llvm-mc makes kernel symbols protected)"
            )

    def _descriptor_lines(self) -> list[str]:
        lines: list[str] = []
        zeroed: list[str] = []
        for function in self.functions:
            if not isinstance(function, KernelOp):
                continue
            lines += [f'{TOP}.section\t.rodata,"a",@progbits', f"{TOP}.p2align\t6, 0x0"]
            lines += kernel_descriptor_directives(
                function.sym_name.data, function.descriptor.data, self.target.offload_arch,
                zeroed,
            )
        if zeroed:
            processor = self.target.processor
            shown = ", ".join(f"@{name}" for name in zeroed[:3])
            more = f" and {len(zeroed) - 3} more" if len(zeroed) > 3 else ""
            self.warnings.append(
                f"GRANULATED_WAVEFRONT_SGPR_COUNT of {len(zeroed)} kernel"
                f"{'s' if len(zeroed) > 1 else ''} ({shown}{more}) becomes 0: the assembler "
                f"always encodes 0 on {processor}, which does not read it")
        return lines

    def _variable_lines(self) -> list[str]:
        lines: list[str] = []
        for variable in self.variables:
            lines += _variable_lines(variable)
        return lines


def _string_property(op: Operation, name: str) -> str | None:
    """An optional string property, read by name (older IR does not have every one)."""
    attr = op.properties.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


def _s_nop_bytes(code_object: CodeObjectOp, name: str) -> int:
    """An optional padding size property of the code object, in bytes of ``s_nop 0``."""
    attr = code_object.properties.get(name)
    size = attr.value.data if isinstance(attr, IntegerAttr) else 0
    if size % len(S_NOP_0):
        raise EmitError(f"{name} {size} is not a whole number of s_nop 0 words")
    return size


def _s_nop_fill(size: int) -> str:
    return f"{TOP}.fill\t{size // len(S_NOP_0)}, 4, 0x{_S_NOP_0_WORD:08x}"


def _section_directive(name: str) -> tuple[str, bool]:
    """The ``.section`` line of a data section (flags as the object emitter gives them),
    and whether it holds bytes."""
    quoted = _quoted(name) if not _PLAIN_SYMBOL.fullmatch(name) else name
    if name.startswith((".bss", ".tbss")):
        return f'{TOP}.section\t{quoted},"aw",@nobits', False
    if name.startswith(".rodata"):
        return f'{TOP}.section\t{quoted},"a",@progbits', True
    return f'{TOP}.section\t{quoted},"aw",@progbits', True


#: ``.type`` of an undefined symbol by its ELF type (none for ``NOTYPE``).
_EXTERN_TYPES = {"NOTYPE": None, "OBJECT": "@object", "FUNC": "@function"}
#: ``.section`` type of a carried section by ``sh_type``.
_SECTION_TYPES = {SHT_PROGBITS: "@progbits", SHT_NOBITS: "@nobits", SHT_NOTE: "@note"}
#: ``.section`` flag letters by ``sh_flags`` bit.
_SECTION_FLAGS = ((SHF_ALLOC, "a"), (SHF_WRITE, "w"), (SHF_EXECINSTR, "x"), (SHF_MERGE, "M"),
                  (SHF_STRINGS, "S"))


def _carried_section_lines(section: SectionOp) -> list[str]:
    """A carried section: its ``.section`` line, alignment and bytes."""
    name = section.section.data
    kind = _SECTION_TYPES.get(section.section_type.value.data)
    if kind is None:
        raise EmitError(f"section {name}: type {section.section_type.value.data} has no "
                        "assembler spelling")
    flags = section.section_flags
    letters = "".join(letter for bit, letter in _SECTION_FLAGS if flags & bit)
    if flags & ~sum(bit for bit, _ in _SECTION_FLAGS):
        raise EmitError(f"section {name}: flags {flags:#x} have no assembler spelling")
    quoted = _quoted(name) if not _PLAIN_SYMBOL.fullmatch(name) else name
    head = f'{TOP}.section\t{quoted},"{letters}",{kind}'
    if flags & SHF_MERGE:
        head += f",{section.section_entry_size}"
    lines = [head, f"{TOP}.p2align\t{_p2align(section.section_alignment, name)}, 0x0"]
    if kind == "@nobits":
        return lines + [f"{TOP}.zero\t{section.section_size}"]
    return lines + _byte_lines(section.contents)


def _variable_lines(variable: GlobalOp) -> list[str]:
    name = variable.sym_name.data
    section, has_bytes = _section_directive(variable.section.data)
    alignment = variable.alignment.value.data if variable.alignment else 1
    size = variable.size.value.data
    lines = [
        section,
        *_symbol_directives(name, _AsmWriter.binding(variable), _AsmWriter.visibility(variable)),
        f"{TOP}.p2align\t{_p2align(alignment, name)}, 0x0",
        f"{name}:",
    ]
    relocations = [
        relocation.data
        for relocation in (variable.relocations.data if variable.relocations else ())
    ]
    if not has_bytes:
        if relocations or (variable.data is not None and any(variable.initial_bytes)):
            raise EmitError(
                f"@{name}: initial bytes or relocations in the zero-filled "
                f"section {variable.section.data}"
            )
        lines.append(f"{TOP}.zero\t{size}")
    else:
        lines += _data_lines(name, variable.initial_bytes, relocations)
    lines.append(f"{TOP}.size\t{name}, {size}")
    return lines


def _data_lines(
    name: str, data: bytes, relocations: Sequence[tuple[int, str, str, int]]
) -> list[str]:
    """Initial bytes as ``.byte`` runs, with a ``.quad``/``.long`` expression in place of
    each relocated field (whose bytes must be zero: the assembler writes zero there)."""
    lines: list[str] = []
    at = 0
    for offset, kind, symbol, addend in sorted(relocations):
        relocation = relocation_named(kind)
        expression = data_expression(relocation, _check_symbol(symbol)) if relocation else None
        if relocation is None or expression is None:
            raise EmitError(f"@{name}: relocation {kind} has no assembler expression")
        size = relocation.size
        if offset < at or offset + size > len(data):
            raise EmitError(
                f"@{name}: relocation {kind} at {offset} overlaps another or the end of the data"
            )
        if any(data[offset : offset + size]):
            raise EmitError(
                f"@{name}: non-zero bytes under relocation {kind} at {offset} "
                "(the assembler writes zero there)"
            )
        lines += _byte_lines(data[at:offset])
        if addend:
            expression += f"{addend:+d}"
        lines.append(f"{TOP}{'.quad' if size == 8 else '.long'}\t{expression}")
        at = offset + size
    lines += _byte_lines(data[at:])
    return lines


def _byte_lines(data: bytes, per_line: int = 16) -> list[str]:
    if data and not any(data):
        return [f"{TOP}.zero\t{len(data)}"]
    return [
        f"{TOP}.byte\t" + ", ".join(f"0x{byte:02x}" for byte in data[i : i + per_line])
        for i in range(0, len(data), per_line)
    ]


def _quoted(text: str) -> str:
    escaped = "".join(
        char if 32 <= ord(char) < 127 and char not in '"\\' else f"\\{ord(char):03o}"
        for char in text
    )
    return f'"{escaped}"'
