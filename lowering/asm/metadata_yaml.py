"""The ``.amdgpu_metadata`` block: the metadata note's msgpack map, as YAML llvm-mc reads back.

llvm-mc turns the YAML between ``.amdgpu_metadata`` and ``.end_amdgpu_metadata`` into a msgpack
document (``msgpack::Document::fromYAML``) and writes that as the NT_AMDGPU_METADATA note. Its
YAML reading decides a scalar's msgpack type from the text alone, whether or not it is quoted:
an untagged scalar becomes an unsigned integer if it parses as one (any radix: ``0x10``,
``0777``), else a signed integer, else a boolean (``true``, ``yes``, ``on``, ``N``...), else a
float, else a string. Only an explicit tag (``!str``, ``!int``, ``!bool``, ``!nil``) overrides
that. So this module prints:

* integers in decimal, booleans as ``true``/``false``, nil as ``!nil ''``;
* strings plain when that is unambiguous YAML, else double-quoted (the assembler's lexer also
  understands double quotes, so ``;`` and ``#`` inside them are safe), and with ``!str`` in
  front whenever llvm could read the text as anything but a string (``"1"``, ``"yes"``, ``""``,
  ``"1e5"``, ``"nan"``). The test for that errs on the side of tagging: a needless ``!str`` is
  harmless, a missing one changes the type.

Values that cannot survive are refused with :class:`DirectiveError`: floats (llvm-mc 19 writes
a YAML float as nil), binary data (no YAML form), map keys that llvm would read as a number or
boolean (keys cannot carry tags), integers outside 64 bits.

Map keys are printed in the raw map's order; llvm-mc writes map keys sorted anyway, and a msgpack
map has no order that readers may rely on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import cast

from luthier.lowering.asm.errors import DirectiveError

#: What llvm's YAML reader takes for a boolean (yaml::parseBool), compared case-insensitively.
_BOOL_WORDS = frozenset({"y", "yes", "true", "on", "n", "no", "false", "off"})
#: Text that strtod or llvm's integer parsing could accept: a sign or dot then a digit, or
#: inf/nan spellings. Deliberately broad (any leading digit), see the module docstring.
_NUMBER_LIKE = re.compile(r"[+-]?\.?[0-9]|[+-]?(inf|nan)", re.IGNORECASE)
#: Strings printed without quotes: no YAML indicator, no spaces, nothing the asm lexer treats
#: specially. Everything else is double-quoted.
_PLAIN = re.compile(r"[A-Za-z_.$][A-Za-z0-9_.$/+-]*")

_U64_MAX = (1 << 64) - 1
_I64_MIN = -(1 << 63)

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}

#: Indentation step of nested maps and sequences.
_STEP = "  "


def _llvm_reads_as_non_string(text: str) -> bool:
    """True if llvm's untagged scalar conversion could make ``text`` a non-string (or nil)."""
    stripped = text.strip()
    return (
        stripped == ""
        or stripped.lower() in _BOOL_WORDS
        or _NUMBER_LIKE.match(stripped) is not None
    )


def _quote(text: str) -> str:
    """``text`` as a YAML double-quoted scalar, in ASCII (non-ASCII as \\u/\\U escapes)."""
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif code < 0x7F:
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def _plain(text: str) -> bool:
    # "..." and "---" at a line start end or start a document; never print them plain.
    return _PLAIN.fullmatch(text) is not None and not text.startswith("..")


def _string(text: str) -> str:
    body = text if _plain(text) else _quote(text)
    return f"!str {body}" if _llvm_reads_as_non_string(text) else body


def _scalar(value: object, where: str) -> str:
    if value is None:
        return "!nil ''"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not _I64_MIN <= value <= _U64_MAX:
            raise DirectiveError(f"metadata {where} = {value} does not fit a 64-bit integer")
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, float):
        raise DirectiveError(
            f"metadata {where} is the float {value!r}, which llvm-mc 19 would write as nil"
        )
    if isinstance(value, bytes | bytearray):
        raise DirectiveError(f"metadata {where} is binary data, which YAML cannot carry to llvm")
    raise DirectiveError(f"metadata {where} has a value of type {type(value).__name__}")


def _key(key: object, where: str) -> str:
    """A map key: keys carry no tag in llvm's reader, so their text alone must give the type."""
    if isinstance(key, str):
        if _llvm_reads_as_non_string(key):
            raise DirectiveError(
                f"metadata key {key!r} in {where} would be read back as a number or boolean"
            )
        return key if _plain(key) else _quote(key)
    if isinstance(key, bool | int):
        return _scalar(key, where)
    raise DirectiveError(f"metadata key {key!r} in {where} is not a string or integer")


def _is_map(value: object) -> bool:
    return isinstance(value, Mapping)


def _is_seq(value: object) -> bool:
    return isinstance(value, list | tuple)


def _map_lines(mapping: Mapping[object, object], indent: str, where: str) -> list[str]:
    lines: list[str] = []
    for key, value in mapping.items():
        text = _key(key, where)
        inner = f"{where}.{key}" if where else str(key)
        lines.extend(_entry(f"{indent}{text}:", value, indent, inner))
    return lines


def _seq_lines(items: Sequence[object], indent: str, where: str) -> list[str]:
    lines: list[str] = []
    for index, item in enumerate(items):
        inner = f"{where}[{index}]"
        if (_is_map(item) or _is_seq(item)) and _nonempty(item):
            # Print the nested collection one step in, then put the dash on its first line.
            nested = _collection_lines(item, indent + _STEP, inner)
            nested[0] = f"{indent}- {nested[0][len(indent) + len(_STEP) :]}"
            lines.extend(nested)
        else:
            lines.append(f"{indent}- {_inline(item, inner)}")
    return lines


def _nonempty(value: object) -> bool:
    return len(cast(Sequence[object] | Mapping[object, object], value)) > 0


def _inline(value: object, where: str) -> str:
    """A scalar or an empty collection, on one line."""
    if _is_map(value):
        return "{}"
    if _is_seq(value):
        return "[]"
    return _scalar(value, where)


def _collection_lines(value: object, indent: str, where: str) -> list[str]:
    if _is_map(value):
        return _map_lines(cast(Mapping[object, object], value), indent, where)
    return _seq_lines(cast(Sequence[object], value), indent, where)


def _entry(head: str, value: object, indent: str, where: str) -> list[str]:
    if (_is_map(value) or _is_seq(value)) and _nonempty(value):
        return [head, *_collection_lines(value, indent + _STEP, where)]
    return [f"{head} {_inline(value, where)}"]


def metadata_yaml(raw_metadata: Mapping[str, object]) -> list[str]:
    """The YAML document (``---`` ... ``...``) for the metadata map, one line per item."""
    return ["---", *_map_lines(cast(Mapping[object, object], raw_metadata), "", ""), "..."]


def metadata_directives(raw_metadata: Mapping[str, object]) -> list[str]:
    """``.amdgpu_metadata``, the YAML document, ``.end_amdgpu_metadata`` (as clang -S prints).

    ``raw_metadata`` is the decoded msgpack map (``CodeObjectMetadata.raw``). YAML lines are not
    indented by a tab: YAML forbids tabs in indentation.
    """
    return ["\t.amdgpu_metadata", *metadata_yaml(raw_metadata), "\t.end_amdgpu_metadata"]
