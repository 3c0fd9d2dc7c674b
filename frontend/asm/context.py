"""The assembler's state and the helpers that statements and directives share.

Kept apart from the driver (:mod:`.assembler`) so that directive handlers can be typed
against it without a circular import.
"""

from __future__ import annotations

from luthier.amdgpu_dialects.target.processors import Processor, TargetIdError, parse_processor
from luthier.amdgpu_dialects.target.target_id import PROCESSOR_TO_MACH
from luthier.frontend.asm.errors import StatementError
from luthier.frontend.asm.expr import Evaluator, Expr, parse_expr
from luthier.frontend.asm.sections import DEFAULT_SECTIONS, Section
from luthier.frontend.asm.source import Line, split_lines
from luthier.frontend.asm.state import TEMPORARY_PREFIX, Fixup, SymbolTable

#: LLVM 19's default code object version.
DEFAULT_CODE_OBJECT_VERSION = 5
_TRIPLE_PREFIX = "amdgcn-amd-amdhsa--"


class Context:
    """The state directives work on: sections, symbols, fixups, target, current line."""

    def __init__(self, text: str, filename: str, target: str | None = None) -> None:
        self.filename = filename
        self.lines = list(split_lines(text))
        self.index = 0
        self.symbols = SymbolTable()
        self.sections: dict[str, Section] = {}
        self.section: Section | None = None
        self.section_stack: list[tuple[Section, Section | None]] = []
        self.previous: Section | None = None
        self.fixups: list[Fixup] = []
        self.processor: Processor | None = None
        self.target_id: str | None = None
        self.code_object_version = DEFAULT_CODE_OBJECT_VERSION
        self.addrsig = False
        self.addrsig_symbols: list[str] = []
        self.ident_seen = False
        self._dot_count = 0
        self.line = self.lines[0] if self.lines else Line(1, "", (), "", 0)
        if target is not None:
            self.set_target(target, 0)
        # llvm-mc starts in .text (initSections), aligned to 4.
        self.switch_section(".text", *DEFAULT_SECTIONS[".text"])
        self.current.alignment = 4

    # --- helpers the directives use ---------------------------------------------------------

    @property
    def current(self) -> Section:
        assert self.section is not None
        return self.section

    def switch_section(self, name: str, type_: int, flags: int, entry_size: int = 0) -> None:
        """Make ``name`` current, creating it (and registering its symbol) on first use."""
        section = self.sections.get(name)
        if section is None:
            section = self.sections[name] = Section(name, type_, flags, entry_size)
        self.symbols.register(name, "section")
        if section is not self.section:
            self.previous = self.section
        self.section = section

    def set_target(self, target_id: str, column: int) -> None:
        """Take (or check) the target: ``amdgcn-amd-amdhsa--gfx942[:features]``."""
        text = target_id if target_id.startswith(_TRIPLE_PREFIX) else _TRIPLE_PREFIX + target_id
        try:
            processor = parse_processor(text)
        except TargetIdError as error:
            raise StatementError(str(error), column) from None
        if processor.name not in PROCESSOR_TO_MACH:
            raise StatementError(f"unknown processor '{processor.name}'", column)
        if self.processor is not None and (processor != self.processor):
            raise StatementError("target must match options", column)
        self.processor = processor
        self.target_id = text

    def dot(self) -> str:
        """A temporary label at the current location (what ``.`` means in an expression)."""
        self._dot_count += 1
        name = f"{TEMPORARY_PREFIX}luthier.dot.{self._dot_count}"
        symbol = self.symbols.get(name)
        symbol.section, symbol.offset = self.current.name, self.current.size
        return name

    def expr(self, text: str, column: int) -> Expr:
        if not text:
            raise StatementError("expected expression", column)
        return parse_expr(text, column, self.dot)

    def absolute(self, text: str, column: int) -> int:
        """An operand that must be a constant now (counts, alignments, field values)."""
        return Evaluator(self.symbols.definition).absolute(self.expr(text, column))

    def use_symbols(self, expr: Expr) -> None:
        """Register every symbol an emitted expression names, as LLVM's streamer does."""
        for name in expr.symbols():
            self.symbols.register(name)

    def emit_value(self, expr: Expr, size: int, column: int) -> None:
        """A data value of ``size`` bytes, patched or relocated at the end."""
        self.use_symbols(expr)
        offset = self.current.emit(bytes(size))
        self.fixups.append(
            Fixup(self.current.name, offset, size, "data", expr, self.line.number, column)
        )

    def define_label(self, name: str, column: int) -> None:
        symbol = self.symbols.use(name)
        if symbol.is_defined:
            raise StatementError("invalid symbol redefinition", column)
        symbol.section, symbol.offset = self.current.name, self.current.size
