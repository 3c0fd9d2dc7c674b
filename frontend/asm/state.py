"""What the assembler accumulates while reading: symbols in registration order, and fixups.

LLVM's object writer lists symbols in the order the assembler *registered* them: when a label
is defined, a symbol attribute directive names it (``.globl``, ``.type``, ...), an expression
uses it, or (for a section's own symbol) the section is first switched to. Locals then move
before globals. Keeping that order here, section symbols included, is what makes our symbol
table (and the symbol indices ``.llvm_addrsig`` holds) equal llvm-mc's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from luthier.frontend.asm.expr import Definition, Expr

#: LLVM's private label prefix on ELF: such labels never reach the symbol table.
TEMPORARY_PREFIX = ".L"


@dataclass
class Symbol:
    """A symbol as the directives describe it so far."""

    name: str
    section: str | None = None
    offset: int = 0
    variable: Expr | None = None
    #: Explicit binding (``.globl``/``.weak``/``.local``), else derived at the end.
    binding: str | None = None
    type: str = "NOTYPE"
    visibility: str = "DEFAULT"
    size: Expr | None = None
    #: Where ``.size`` was given, for its diagnostics: (line, column).
    size_at: tuple[int, int] = (0, 0)

    @property
    def is_temporary(self) -> bool:
        return self.name.startswith(TEMPORARY_PREFIX)

    @property
    def is_defined(self) -> bool:
        return self.section is not None or self.variable is not None

    def current_binding(self) -> str:
        """MCSymbolELF::getBinding: explicit, else local if defined, else global."""
        if self.binding is not None:
            return self.binding
        return "LOCAL" if self.is_defined else "GLOBAL"


@dataclass
class SymbolTable:
    """Symbols by name plus the registration order of symbols and section symbols."""

    symbols: dict[str, Symbol] = field(default_factory=lambda: dict[str, Symbol]())
    #: ("symbol", name) or ("section", name), first registration first.
    order: list[tuple[str, str]] = field(default_factory=lambda: list[tuple[str, str]]())
    _registered: set[tuple[str, str]] = field(default_factory=lambda: set[tuple[str, str]]())

    def get(self, name: str) -> Symbol:
        """The symbol named ``name``, created (unregistered) if new."""
        symbol = self.symbols.get(name)
        if symbol is None:
            symbol = self.symbols[name] = Symbol(name)
        return symbol

    def register(self, name: str, kind: str = "symbol") -> None:
        key = (kind, name)
        if key not in self._registered:
            self._registered.add(key)
            self.order.append(key)

    def use(self, name: str) -> Symbol:
        """Register and return a symbol (a directive or expression mentions it)."""
        self.register(name)
        return self.get(name)

    def definition(self, name: str) -> Definition:
        """What the expression evaluator needs to know about ``name``."""
        symbol = self.symbols.get(name)
        if symbol is None:
            return Definition()
        return Definition(symbol.section, symbol.offset, symbol.variable)


@dataclass(frozen=True)
class Fixup:
    """Bytes of a section to fill once every label is known.

    ``kind`` is ``data`` (a ``.long``/``.quad``/descriptor field), ``literal`` (a 32-bit
    instruction literal; ``pc_relative`` says whether a plain symbol means a PC-relative
    value, as LLVM's FK_PCRel_4 does) or ``branch`` (SOPP's 16-bit word offset).
    """

    section: str
    offset: int
    size: int
    kind: str
    expr: Expr
    line: int
    column: int
    pc_relative: bool = False
