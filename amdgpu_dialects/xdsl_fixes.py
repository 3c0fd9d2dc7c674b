"""Fixes luthier applies to the xDSL release it pins (see pyproject.toml), until a release
has them.

* The MLIR lexer's string-literal pattern, ``"(?:[^"\\\\\\n\\v\\f]+|\\\\(?:...))*"``, nests a
  ``+`` inside a ``*``: on a string with no closing quote, Python's regex engine tries every
  way to split the characters between the two, so the time doubles with each character (21
  s at 26 characters, minutes at 40; a ``"`` typed into lifted IR does it too). The same
  language without the inner ``+`` matches each character once: an unterminated string is
  then the lexer's one-line error at once.
* The parser forgets where a block that was named before its definition (a branch to a
  later block) was defined, so a second definition of that label is a ``KeyError`` out of
  its bookkeeping instead of "re-declaration of block": checked before xDSL's own
  ``_parse_block`` runs.
* A block label that is not a valid name (``^0x10``: it starts with a digit) reaches the
  block's name setter, which raises a bare ``ValueError``: refused as a parse error first.

:func:`apply` is called when luthier's dialects are first looked up
(:mod:`luthier.amdgpu_dialects.dialects`), before any of luthier's tools parse MLIR; it is
idempotent.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.ir import Block
    from xdsl.parser import Parser

#: A double-quoted string with the escapes xDSL accepts (``\\n``, ``\\t``, ``\\\\``, ``\\"``,
#: two hex digits): the language of xDSL 0.74's pattern, each character matched once.
STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')


def apply() -> None:
    """Install the fixes into xDSL's classes (once)."""
    from xdsl.ir import Block as BlockClass
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError
    from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

    MLIRLexer._unescaped_characters_regex = STRING_LITERAL  # pyright: ignore[reportPrivateUsage]
    parse_block = Parser._parse_block  # pyright: ignore[reportPrivateUsage]
    if getattr(parse_block, "luthier_checked", False):
        return

    def checked_parse_block(self: Parser) -> Block:
        token = self._current_token  # pyright: ignore[reportPrivateUsage]
        if token.kind == MLIRTokenKind.CARET_IDENT:
            name = token.text[1:]
            if name in self.blocks and name not in self.forward_block_references:
                raise ParseError(token.span, f"re-declaration of block '{name}'")
            if not BlockClass.is_default_block_name(name) and not BlockClass.is_valid_name(name):
                # xDSL's setter raises a bare ValueError for these.
                raise ParseError(token.span, f"'^{name}' is not a block name (letters, digits "
                                 "and _$.- not starting with a digit, or bb<N>)")
        return parse_block(self)

    checked_parse_block.luthier_checked = True  # type: ignore[attr-defined]
    Parser._parse_block = checked_parse_block  # pyright: ignore[reportPrivateUsage]
