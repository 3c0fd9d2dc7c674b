"""Parse one AMDGPU assembly statement into an :class:`MCInst`.

The statement is split into its mnemonic and operand text, the operands are read into
items (:mod:`asm_operands`) and fitted to the mnemonic's candidate instructions
(:mod:`asm_matcher`). Errors carry llvm-mc's message and the column it points at.
"""

from __future__ import annotations

import functools
from dataclasses import replace

from luthier.amdgpu_dialects.isa import registers as R
from luthier.amdgpu_dialects.isa.target import TargetISA, load_target
from luthier.amdgpu_dialects.mc.asm_lexer import AsmSyntaxError, tokenize
from luthier.amdgpu_dialects.mc.asm_matcher import Matched, Matcher, MatchError
from luthier.amdgpu_dialects.mc.asm_operands import Item, OperandReader
from luthier.amdgpu_dialects.mc.asm_validate import ValidationError, Validator
from luthier.amdgpu_dialects.mc.decoder import MCInst


class AsmParseError(Exception):
    """A statement llvm-mc would reject: ``message`` at 0-based ``column``."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


class AsmParser:
    """Parses statements of one target."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        self.matcher = Matcher(isa)
        self.validator = Validator(isa)
        self.depctr_hold_cnt = isa.has_feature("FeatureGFX10_BEncoding")

    def parse(self, statement: str, column: int = 0) -> MCInst:
        """Parse ``statement`` (no comment, no label, no symbols) into an instruction."""
        matched = self.parse_statement(statement, column)
        if matched.fixups:
            raise AsmParseError("symbolic operands need fixups; use parse_statement", column)
        return matched.inst

    def parse_statement(self, statement: str, column: int = 0) -> Matched:
        """Parse ``statement`` (no comment, no label) that starts at ``column`` of its line;
        symbolic operands come back as fixups."""
        stripped = statement.lstrip()
        column += len(statement) - len(stripped)
        parts = stripped.split(None, 1)
        mnemonic = parts[0]
        operand_text = parts[1] if len(parts) > 1 else ""
        operand_column = column + (len(stripped) - len(operand_text) if operand_text else 0)
        if self.matcher.lookup(mnemonic) is None:
            raise AsmParseError(self._unknown_mnemonic(mnemonic), column)
        try:
            nsa = self.isa.generation >= 10 and mnemonic.lower().startswith("image_")
            items = OperandReader(tokenize(operand_text, operand_column),
                                  self.isa.is_gfx940,
                                  R.sgpr_max(self.isa.generation) + 1, nsa,
                                  self.isa.generation, self.depctr_hold_cnt).read_all()
        except AsmSyntaxError as error:
            raise AsmParseError(error.message, error.column) from None
        return self.match_items(mnemonic, items, column)

    def match_items(self, mnemonic: str, items: list[Item], column: int = 0) -> Matched:
        """Fit operand items to ``mnemonic``'s instructions and check the result, as for a
        statement; instruction selection builds the items directly, without text."""
        if self.matcher.lookup(mnemonic) is None:
            raise AsmParseError(self._unknown_mnemonic(mnemonic), column)
        try:
            self.validator.check_items(items, mnemonic)
            matched = self.matcher.match(mnemonic, items)
            self.validator.check(matched.inst, matched.columns)
            return matched
        except ValidationError as error:
            raise AsmParseError(error.message, error.column if error.column >= 0
                                else column) from None
        except MatchError as error:
            where = error.column if error.column >= 0 else column
            if error.message == "too few operands for instruction":
                where = column
            raise AsmParseError(error.message, where) from None


    def _unknown_mnemonic(self, mnemonic: str) -> str:
        """llvm-mc's complaint about a mnemonic this target cannot match."""
        lower = mnemonic.lower()
        for suffix in ("_e64_dpp", "_e32", "_e64", "_sdwa", "_dpp"):
            if lower.endswith(suffix):
                base = lower[: -len(suffix)]
                if self.matcher.candidates(base):
                    return f"{suffix[1:]} variant of this instruction is not supported"
                if base in self.isa.foreign_mnemonics:
                    return "instruction not supported on this GPU"
        if lower in self.isa.foreign_mnemonics:
            return "instruction not supported on this GPU"
        return "invalid instruction"


def parser_for(target: str, wavefront_size: int | None = None) -> AsmParser:
    """The (cached) assembly parser of a processor, in its default wave size or
    ``wavefront_size`` (64 for an RDNA processor in wave64); raises ``UnknownTargetError``.
    One parser per (processor, wave size), however the arguments are spelled."""
    return _cached_parser(target, wavefront_size)


@functools.cache
def _cached_parser(target: str, wavefront_size: int | None) -> AsmParser:
    return AsmParser(load_target(target, wavefront_size))


def parse_with_real_true16(target: str, wavefront_size: int | None,
                           statement: str) -> Matched:
    """:meth:`AsmParser.parse_statement`, and for what LLVM 19's default records refuse,
    the target's real-true16 twins (``TargetISA.real_true16``): ``v_add_f16_e32 v1.h,
    v2.l, v3.h``, as lifted from code that newer LLVM compiled. The ``amdgpu_mc`` IR reads
    its instructions with this; ``luthier-mc`` keeps llvm-mc-19's default, which refuses
    them. A statement neither takes gets the default parser's error."""
    try:
        return parser_for(target, wavefront_size).parse_statement(statement)
    except AsmParseError as error:
        refused = error
    twins = _real_true16_parser(target, wavefront_size)
    if twins is not None:
        try:
            return twins.parse_statement(statement)
        except AsmParseError:
            pass
    raise refused


@functools.cache
def _real_true16_parser(target: str, wavefront_size: int | None) -> AsmParser | None:
    isa = load_target(target, wavefront_size)
    if not isa.real_true16:
        return None
    return AsmParser(replace(isa, instructions=isa.real_true16, aliases=[], real_true16=[]))
