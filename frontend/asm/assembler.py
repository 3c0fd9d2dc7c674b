"""The assembler: LLVM-syntax AMDGPU assembly text -> :class:`ObjectSpec` -> ``ET_REL`` bytes.

One pass over the lines fills sections (instructions encoded by our MC layer, data, kernel
descriptors, the metadata note) and records fixups for whatever names a label; a final pass
(:mod:`.finalize`) resolves them, once every label is known. The target comes from
``.amdgcn_target`` (what clang -S writes first), or from the caller. Everything the assembler
does not understand is an :class:`AsmError`, never silently dropped. See docs/asm-frontend.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from luthier.amdgpu_dialects.mc.asm_expr import (
    BinaryExpr,
    ConstantExpr,
    SymbolRefExpr,
    SymExpr,
    UnaryExpr,
)
from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parser_for
from luthier.amdgpu_dialects.mc.asm_text import strip_comment
from luthier.amdgpu_dialects.mc.encoder import EncodeError, encoder_for
from luthier.amdgpu_dialects.target.kernel_descriptor import CODE_ENTRY_FIELD_OFFSET
from luthier.amdgpu_dialects.target.target_id import (
    CODE_OBJECT_VERSION_TO_ABI_VERSION,
    ELFOSABI_AMDGPU_HSA,
    PROCESSOR_TO_MACH,
)
from luthier.frontend.asm import directives
from luthier.frontend.asm.context import Context
from luthier.frontend.asm.errors import AsmError, StatementError
from luthier.frontend.asm.expr import Expr
from luthier.frontend.asm.finalize import Finalizer, addrsig_section
from luthier.frontend.asm.kernel_descriptor import KernelDescriptorBuilder
from luthier.frontend.asm.sections import DEFAULT_SECTIONS
from luthier.frontend.asm.source import SYMBOL, Line
from luthier.frontend.asm.state import Fixup
from luthier.frontend.asm.yaml_reader import YamlLine, parse_document
from luthier.frontend.codeobj.metadata_note import metadata_note
from luthier.frontend.codeobj.spec import ObjectSpec

#: EF_AMDGPU_GENERIC_VERSION of every generic processor in LLVM 19.
_GENERIC_VERSION = 1


class Assembler(Context):
    """One assembly run: :meth:`run` reads the text, :meth:`spec` builds the object."""

    # --- the pass over the text -------------------------------------------------------------

    def run(self) -> None:
        while self.index < len(self.lines):
            self.line = self.lines[self.index]
            self.index += 1
            try:
                self._line(self.line)
            except StatementError as error:
                raise self.error(error) from None

    def error(self, error: StatementError) -> AsmError:
        """``error`` as an AsmError at its line (the current one unless it says otherwise)."""
        line = error.line if error.line is not None else self.line.number
        column = error.column
        if column is None:
            column = self.lines[line - 1].column if 0 < line <= len(self.lines) else 0
        return AsmError(self.filename, line, column + 1, error.message)

    def _line(self, line: Line) -> None:
        for name, column in line.labels:
            self.define_label(name, column)
        if not line.text:
            return
        if line.text.startswith("."):
            self._directive(line)
        elif (
            "=" in line.text
            and SYMBOL.match(line.text)
            and line.text.split("=", 1)[0].strip()
            and SYMBOL.fullmatch(line.text.split("=", 1)[0].strip())
        ):
            name, value = line.text.split("=", 1)
            directives.assign(
                self,
                name.strip(),
                value.strip(),
                line.column + len(name) + 1 + len(value) - len(value.lstrip()),
            )
        else:
            self._instruction(line)

    def _directive(self, line: Line) -> None:
        parts = line.text.split(None, 1)
        name = parts[0]
        rest = parts[1] if len(parts) > 1 else ""
        rest_column = line.column + (len(line.text) - len(rest) if rest else len(line.text))
        if name == ".amdhsa_kernel":
            self._kernel_block(rest, rest_column)
        elif name == ".amdgpu_metadata":
            self._metadata_block(rest, rest_column)
        else:
            directives.dispatch(self, name, rest, rest_column, line.column)

    def _instruction(self, line: Line) -> None:
        if self.processor is None:
            raise StatementError(
                "no target: .amdgcn_target must come before instructions", line.column
            )
        parser = parser_for(self.processor.name)
        try:
            matched = parser.parse_statement(line.text, line.column)
            encoding = bytearray(encoder_for(self.processor.name).encode(matched.inst))
        except AsmParseError as error:
            raise StatementError(error.message, error.column) from None
        except EncodeError as error:
            raise StatementError(f"cannot encode instruction: {error}", line.column) from None
        except Exception as error:  # noqa: BLE001 - an MC-layer bug must still be one line
            raise StatementError(
                f"internal error: {type(error).__name__}: {error}", line.column
            ) from None
        fixups: list[tuple[int, int, str, Expr]] = []
        for fixup in matched.fixups:
            encoding[fixup.offset : fixup.offset + fixup.size] = bytes(fixup.size)
            fixups.append(
                (fixup.offset, fixup.size, fixup.kind, _from_sym_expr(fixup.expr, line.column))
            )
        start = self.current.emit(bytes(encoding))
        for offset, size, kind, expr in fixups:
            self.use_symbols(expr)
            self.fixups.append(
                Fixup(
                    self.current.name,
                    start + offset,
                    size,
                    "branch" if kind == "fixup_si_sopp_br" else "literal",
                    expr,
                    line.number,
                    line.column,
                    pc_relative=kind == "FK_PCRel_4",
                )
            )

    # --- blocks -------------------------------------------------------------------------------

    def _block_lines(self, end: str) -> Iterator[Line]:
        """The lines up to the ``end`` directive (consumed); error if it never comes."""
        while self.index < len(self.lines):
            line = self.lines[self.index]
            self.index += 1
            if line.text.split(None, 1)[:1] == [end] and not line.labels:
                self.line = line
                return
            yield line
        raise StatementError(f"expected directive {end} not found", 0, len(self.lines) or 1)

    def _kernel_block(self, rest: str, column: int) -> None:
        name = rest.strip()
        if not SYMBOL.fullmatch(name):
            raise StatementError("expected identifier in directive", column)
        if self.processor is None:
            raise StatementError(
                "no target: .amdgcn_target must come before .amdhsa_kernel", column
            )
        builder = KernelDescriptorBuilder(name, self.processor)
        for line in self._block_lines(".end_amdhsa_kernel"):
            if not line.text:
                continue
            if line.labels or not line.text.startswith(".amdhsa_"):
                raise StatementError(
                    "expected .amdhsa_ directive or .end_amdhsa_kernel", line.column, line.number
                )
            directive, _, value = line.text.partition(" ")
            value_column = line.column + len(line.text) - len(value.lstrip())
            try:
                builder.directive(
                    directive[len(".amdhsa_") :],
                    self.absolute(value.strip(), value_column),
                    line.column,
                    value_column,
                )
            except StatementError as error:
                error.line = error.line or line.number
                raise
        try:
            data = builder.finish()
        except StatementError as error:
            # llvm-mc points at the end of the .end_amdhsa_kernel statement.
            error.column = self.line.column + len(self.line.text)
            raise
        self._emit_descriptor(name, data)

    def _emit_descriptor(self, name: str, data: bytes) -> None:
        """``name.kd`` here, with the kernel's binding and visibility (EmitAmdhsaKernel-
        Descriptor), and its code entry as ``name@rel64 - name.kd`` at byte 16."""
        kernel = self.symbols.get(name)
        descriptor = f"{name}.kd"
        self.define_label(descriptor, 0)
        kd = self.symbols.get(descriptor)
        kd.binding = kernel.current_binding()
        kd.visibility = kernel.visibility
        kd.type = "OBJECT"
        kd.size = Expr("num", 0, value=len(data))
        if kernel.visibility == "DEFAULT":
            kernel.visibility = "PROTECTED"
        start = self.current.emit(data)
        entry = Expr(
            "-",
            0,
            left=Expr("sym", 0, name=name, variant="rel64"),
            right=Expr("sym", 0, name=descriptor),
        )
        self.use_symbols(entry)
        self.fixups.append(
            Fixup(
                self.current.name,
                start + CODE_ENTRY_FIELD_OFFSET,
                8,
                "data",
                entry,
                self.line.number,
                0,
            )
        )

    def _metadata_block(self, rest: str, column: int) -> None:
        if rest.strip():
            raise StatementError("unexpected token in directive", column)
        yaml: list[YamlLine] = []
        started = ended = False
        for line in self._block_lines(".end_amdgpu_metadata"):
            text = strip_comment(line.raw).rstrip()
            if not text.strip():
                continue
            stripped = text.strip()
            if stripped == "---" and not started:
                started = True
            elif stripped == "..." and not ended:
                ended = True
            elif ended:
                raise StatementError(
                    "unexpected content after the YAML document end", 0, line.number
                )
            else:
                started = True
                if text.startswith("\t"):
                    raise StatementError("tabs are not allowed in YAML indentation", 0, line.number)
                yaml.append(YamlLine(line.number, len(text) - len(text.lstrip(" ")), text.strip()))
        note = metadata_note(parse_document(yaml))
        saved = self.section
        self.switch_section(".note", *DEFAULT_SECTIONS[".note"])
        self.current.emit(note)
        self.current.alignment = max(self.current.alignment, 4)
        self.section = saved

    # --- the object ---------------------------------------------------------------------------

    def spec(self) -> ObjectSpec:
        if self.processor is None:
            raise AsmError(self.filename, 1, 1, "no target: the input has no .amdgcn_target")
        finalizer = Finalizer(self.sections, self.symbols)
        try:
            for fixup in self.fixups:
                finalizer.resolve(fixup)
            symbols = finalizer.symbol_specs(self.addrsig_symbols if self.addrsig else [])
        except StatementError as error:
            raise self.error(error) from None
        sections = finalizer.section_specs()
        if self.addrsig:
            sections.append(addrsig_section(self.addrsig_symbols, symbols, self.symbols))
        return ObjectSpec(
            e_flags=self._e_flags(),
            os_abi=ELFOSABI_AMDGPU_HSA,
            abi_version=CODE_OBJECT_VERSION_TO_ABI_VERSION[self.code_object_version],
            sections=tuple(sections),
            symbols=tuple(symbols),
        )

    def _e_flags(self) -> int:
        processor = self.processor
        assert processor is not None
        flags = PROCESSOR_TO_MACH[processor.name]
        flags |= processor.xnack.value << 8 | processor.sramecc.value << 10
        if processor.name.endswith("-generic") and self.code_object_version >= 6:
            flags |= _GENERIC_VERSION << 24
        return flags


def _from_sym_expr(expr: SymExpr, column: int) -> Expr:
    """An instruction's symbolic operand (the MC form) as the directive expression this
    assembler evaluates when it resolves the fixup (``sym@variant``, the variant lowercased
    as LLVM reads it)."""
    match expr:
        case SymbolRefExpr(name=name, variant=variant):
            return Expr("sym", column, name=name, variant=variant.lower())
        case ConstantExpr(value=value):
            return Expr("num", column, value=value)
        case UnaryExpr(op=op, operand=operand):
            return Expr(op, column, left=_from_sym_expr(operand, column))
        case BinaryExpr(op=op, left=left, right=right):
            return Expr(op, column, left=_from_sym_expr(left, column),
                        right=_from_sym_expr(right, column))
        case _:
            raise AssertionError(f"unknown symbolic expression node {expr!r}")


def assemble(text: str, filename: str, target: str | None = None) -> ObjectSpec:
    """Assemble ``text`` (named ``filename`` in diagnostics) into an :class:`ObjectSpec`.

    ``target`` (``gfx942`` or a full target ID) plays the role of llvm-mc's ``-mcpu``: when
    given, ``.amdgcn_target`` must agree with it. Raises :class:`AsmError` at the first error.
    """
    assembler = Assembler(text, filename, target)
    try:
        assembler.run()
    except StatementError as error:
        raise assembler.error(error) from None
    return assembler.spec()

