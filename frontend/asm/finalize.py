"""From the filled sections, symbols and fixups to an :class:`ObjectSpec`.

Runs once the whole input is read, when every label has its final offset (AMDGPU instructions
never change size, so there is no relaxation). Each fixup either folds to a constant, which
is patched into its bytes, or becomes a relocation of the kind LLVM's AMDGPU object writer
picks (``getRelocType``): the operand's variant (``@rel32@lo``, ``@abs32@hi``...) decides,
else its size and PC-relativity. As in LLVM's ELF writer, a relocation against a local symbol
is made against its section's symbol with the symbol's offset added to the addend.
"""

from __future__ import annotations

from dataclasses import dataclass

from luthier.amdgpu_dialects.mc.relocations import (
    R_AMDGPU_REL16,
    RelocationKind,
    literal_relocation,
    plain_relocation,
    variant_relocation,
)
from luthier.frontend.asm.errors import StatementError
from luthier.frontend.asm.expr import Evaluator, Linear, Term
from luthier.frontend.asm.sections import Section
from luthier.frontend.asm.state import Fixup, Symbol, SymbolTable
from luthier.frontend.codeobj.elf_format import SHF_EXCLUDE, SHT_LLVM_ADDRSIG
from luthier.frontend.codeobj.spec import (
    ABSOLUTE_SECTION,
    RelocationSpec,
    SectionSpec,
    SymbolSpec,
)


class FixupError(StatementError):
    """A fixup that cannot be resolved; carries the fixup's source position."""

    def __init__(self, message: str, fixup: Fixup) -> None:
        super().__init__(message, fixup.column, fixup.line)


@dataclass(frozen=True)
class _Target:
    """A resolved relocatable value: ``symbol`` (+ ``variant``), ``addend``, PC-relative?"""

    term: Term
    addend: int
    pc_relative: bool


class Finalizer:
    """Resolves fixups and sizes, then lists sections and symbols in llvm-mc's order."""

    def __init__(self, sections: dict[str, Section], symbols: SymbolTable) -> None:
        self.sections = sections
        self.symbols = symbols
        self.evaluator = Evaluator(symbols.definition)
        self.relocations: dict[str, list[RelocationSpec]] = {name: [] for name in sections}
        self.used_sections: set[str] = set()

    # --- fixups ------------------------------------------------------------------------------

    def resolve(self, fixup: Fixup) -> None:
        try:
            value = self.evaluator.evaluate(fixup.expr)
        except StatementError as error:
            raise FixupError(error.message, fixup) from None
        if value.is_absolute:
            self._patch_constant(fixup, value.constant)
            return
        target = self._target(fixup, value)
        if fixup.kind == "branch":
            self._branch(fixup, target)
        elif fixup.kind == "literal":
            self._literal(fixup, target)
        else:
            self._data(fixup, target)

    def _target(self, fixup: Fixup, value: Linear) -> _Target:
        positive = [t for t, c in value.terms.items() if c == 1]
        negative = [t for t, c in value.terms.items() if c == -1]
        if len(positive) + len(negative) != len(value.terms) or len(positive) != 1:
            raise FixupError("expected relocatable expression", fixup)
        if not negative:
            return _Target(positive[0], value.constant, False)
        base = self.symbols.definition(negative[0][0])
        if len(negative) != 1 or negative[0][1] or base.section != fixup.section:
            raise FixupError("Cannot represent a difference across sections", fixup)
        return _Target(positive[0], value.constant + fixup.offset - base.offset, True)

    def _patch(self, fixup: Fixup, value: int) -> None:
        data = self.sections[fixup.section].data
        data[fixup.offset : fixup.offset + fixup.size] = (
            value & ((1 << (8 * fixup.size)) - 1)
        ).to_bytes(fixup.size, "little")

    def _patch_constant(self, fixup: Fixup, value: int) -> None:
        if fixup.kind == "branch":
            raise FixupError("branch target must be a label", fixup)
        bits = 8 * fixup.size
        if not -(1 << (bits - 1)) <= value < (1 << bits):
            raise FixupError("out of range literal value", fixup)
        self._patch(fixup, value)

    def _branch(self, fixup: Fixup, target: _Target) -> None:
        name, variant = target.term
        symbol = self.symbols.get(name)
        if variant or target.pc_relative:
            raise FixupError("branch target must be a label", fixup)
        if not symbol.is_defined:
            raise FixupError(f"undefined label '{name}'", fixup)
        if symbol.section == fixup.section and symbol.variable is None:
            distance = symbol.offset + target.addend - fixup.offset - 4
            words = distance // 4
            if distance % 4 or not -(1 << 15) <= words < (1 << 15):
                raise FixupError("branch size exceeds simm16", fixup)
            self._patch(fixup, words)
            return
        self._relocate(fixup, R_AMDGPU_REL16, target)

    def _literal(self, fixup: Fixup, target: _Target) -> None:
        variant = target.term[1]
        pc_relative = fixup.pc_relative or target.pc_relative
        kind = literal_relocation(variant, pc_relative)
        if kind is None:
            raise FixupError(f"invalid variant '{variant}'", fixup)
        self._relocate(fixup, kind, target)

    def _data(self, fixup: Fixup, target: _Target) -> None:
        variant = target.term[1]
        if variant:
            kind = variant_relocation(variant)
            if kind is None:
                raise FixupError(f"invalid variant '{variant}'", fixup)
        else:
            kind = plain_relocation(fixup.size, target.pc_relative)
            if kind is None:
                raise FixupError(f"unsupported relocation for {fixup.size}-byte data", fixup)
        self._relocate(fixup, kind, target)

    def _relocate(self, fixup: Fixup, kind: RelocationKind, target: _Target) -> None:
        name = target.term[0]
        symbol = self.symbols.get(name)
        addend = target.addend
        if symbol.variable is not None:
            raise FixupError(f"relocation against the variable '{name}' is not supported", fixup)
        if symbol.section is not None and symbol.current_binding() == "LOCAL":
            # LLVM relocates against the section symbol when the symbol is local.
            self.used_sections.add(symbol.section)
            self.relocations[fixup.section].append(
                RelocationSpec(fixup.offset, kind.number, symbol.section, addend + symbol.offset)
            )
            return
        if symbol.section is None and symbol.is_temporary:
            raise FixupError(f"Undefined temporary symbol {name}", fixup)
        self.symbols.register(name)
        self.relocations[fixup.section].append(
            RelocationSpec(fixup.offset, kind.number, name, addend)
        )

    # --- output ------------------------------------------------------------------------------

    def symbol_specs(self, addrsig: list[str]) -> list[SymbolSpec]:
        """The symbol table in registration order (the writer moves locals first).

        A temporary label named by ``.addrsig_sym`` stands for its section's symbol, which
        then joins the table (what llvm-mc does with such a label).
        """
        for name in addrsig:
            symbol = self.symbols.symbols.get(name)
            if symbol is not None and symbol.is_temporary and symbol.section is not None:
                self.used_sections.add(symbol.section)
        specs: list[SymbolSpec] = []
        for kind, name in self.symbols.order:
            if kind == "section":
                if name in self.used_sections:
                    specs.append(SymbolSpec(name, name, 0, 0, "SECTION", "LOCAL", "DEFAULT"))
                continue
            symbol = self.symbols.get(name)
            if symbol.is_temporary:
                continue
            section, value, base = symbol.section, symbol.offset, None
            if symbol.variable is not None:
                section, value, base = self._variable_value(name)
            specs.append(
                SymbolSpec(
                    name=name,
                    section=section,
                    value=value,
                    size=self._size(name, base),
                    type=base.type if base is not None and symbol.type == "NOTYPE" else symbol.type,
                    binding=symbol.current_binding(),
                    visibility=symbol.visibility,
                )
            )
        return specs

    def _variable_value(self, name: str) -> tuple[str, int, Symbol | None]:
        """Section, value and base symbol of a ``.set`` symbol (ELF gives it the base's type
        and size unless it has its own)."""
        symbol = self.symbols.get(name)
        assert symbol.variable is not None
        value = self.evaluator.evaluate(symbol.variable)
        if value.is_absolute:
            return ABSOLUTE_SECTION, value.constant, None
        if len(value.terms) == 1:
            ((term, coeff),) = value.terms.items()
            base = self.symbols.get(term[0])
            if coeff == 1 and not term[1] and base.section is not None:
                return base.section, base.offset + value.constant, base
        raise StatementError(
            f"cannot give '{name}' a value in the symbol table", symbol.variable.column
        )

    def _size(self, name: str, base: Symbol | None = None) -> int:
        symbol = self.symbols.get(name)
        if symbol.size is None:
            return self._size(base.name) if base is not None else 0
        value = self.evaluator.evaluate(symbol.size)
        if not value.is_absolute:
            raise StatementError(
                "Size expression must be absolute.", symbol.size_at[1], symbol.size_at[0]
            )
        return value.constant

    def section_specs(self) -> list[SectionSpec]:
        specs: list[SectionSpec] = []
        for section in self.sections.values():
            specs.append(
                SectionSpec(
                    name=section.name,
                    type=section.type,
                    flags=section.flags,
                    alignment=section.alignment,
                    data=b"" if section.is_virtual else bytes(section.data),
                    size=section.size,
                    relocations=tuple(self.relocations[section.name]),
                    entry_size=section.entry_size,
                )
            )
        return specs


def addrsig_section(names: list[str], symbols: list[SymbolSpec], table: SymbolTable) -> SectionSpec:
    """``.llvm_addrsig``: ULEB128 symbol-table indices of the address-significant symbols.

    Indices are those of the final table, which lists locals first (as the writer does). A
    temporary label counts as its section's symbol; a name with no entry is left out.
    """
    ordered = [s for s in symbols if s.binding == "LOCAL"] + [
        s for s in symbols if s.binding != "LOCAL"
    ]
    index = {(s.type == "SECTION", s.name): i + 1 for i, s in enumerate(ordered)}
    data = bytearray()
    for name in names:
        symbol = table.symbols.get(name)
        if symbol is not None and symbol.is_temporary and symbol.section is not None:
            key = (True, symbol.section)
        else:
            key = (False, name)
        if key in index:
            data += _uleb128(index[key])
    return SectionSpec(".llvm_addrsig", SHT_LLVM_ADDRSIG, SHF_EXCLUDE, 1, bytes(data), len(data))


def _uleb128(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
